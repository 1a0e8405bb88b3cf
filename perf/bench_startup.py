"""Cold and warm start-up of this tree against a baseline revision (issue 14: "the cold path
no slower than today").

Each figure is a fresh interpreter importing toolcall and a generated 20-tool module and
emitting every variant the baseline also has (``openai``, ``anthropic``, ``mcp``, plain and
strict): ``cold`` with an empty cache directory (derive, render, write), ``warm`` with the
entry the previous process wrote. Scenarios are interleaved in one run; the baseline's
``src/`` is extracted with ``git archive``. The default baseline is the tree issue 14 was
filed against.

Run: ``.venv/bin/python perf/bench_startup.py [--quick] [--baseline REV]``.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
import tempfile
from pathlib import Path

import gen_tools
import harness
from harness import Scenario

BASELINE = "76b1083"

EMIT = harness.every_variant(formats=("openai", "anthropic", "mcp"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few samples, to try it out")
    parser.add_argument("--baseline", default=BASELINE, help="git revision to compare with")
    args = parser.parse_args(argv)
    runs = 3 if args.quick else 21
    tmp = Path(tempfile.mkdtemp(prefix="toolcall-startup-"))
    try:
        modules = tmp / "modules"
        modules.mkdir()
        gen_tools.write_module(modules, "tools20", 20)
        trees = {
            "baseline": harness.extract_src(args.baseline, tmp / "baseline"),
            "this tree": harness.PERF.parent / "src",
        }

        def env(src: Path, cache: Path | None = None) -> dict[str, str]:
            cache = cache or Path(tempfile.mkdtemp(dir=tmp))  # None: a new, empty one
            path = f"{src}:{harness.PERF}:{modules}"
            return {"PYTHONPATH": path, "TOOLCALL_CACHE_DIR": str(cache)}

        scenarios = []
        for name, src in trees.items():
            warm_cache = tmp / f"cache of {name}"
            scenarios += [
                Scenario(f"{name}, cold", EMIT, functools.partial(env, src)),
                Scenario(f"{name}, warm", EMIT, functools.partial(env, src, warm_cache)),
            ]
        # the discarded first round fills the warm caches and writes the .pyc files
        results = harness.fresh_processes(scenarios, runs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"start-up to every shared variant of 20 tools (median of {runs} processes)")
    for kind in ("cold", "warm"):
        base = results[f"baseline, {kind}"]["startup"].median
        ours = results[f"this tree, {kind}"]["startup"].median
        print(
            f"  {kind}: baseline ({args.baseline}) {base * 1e3:6.2f} ms, this tree "
            f"{ours * 1e3:6.2f} ms: {ours / base:5.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
