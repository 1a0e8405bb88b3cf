"""What checking a cache entry against the live module costs a warm import (issue 10).

Each figure is start-up to every variant of a 20-tool module with a warm cache, in fresh
interpreters, scenarios interleaved in one run:

- ``baseline``: the library at ``--baseline`` (default: the commit before the trust checks),
  extracted with ``git archive``;
- ``trusted``: this tree, every check on;
- ``unchecked``: this tree with ``trust.verify`` replaced by a lookup that checks nothing,
  so that the difference to ``trusted`` is the checks alone.

Printed as ratios to ``baseline`` (target: ``trusted`` at most 1.00x, within noise), plus the
in-process cost of one ``verify`` call.

Run: ``.venv/bin/python perf/bench_trust.py [--quick] [--baseline REV]``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import timeit
from pathlib import Path

import gen_tools
import harness
from harness import Scenario

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "e39ea2c"

UNCHECKED = harness.every_variant(
    patch="""
from toolcall._load import trust
def _unchecked(module, module_ir, deps, candidates, providers):
    return {tool.name: vars(module)[tool.qualname] for tool in module_ir.tools}, {}
trust.verify = _unchecked
"""
)
CHECKED = harness.every_variant()

VERIFY = """
import sys, tools20
from toolcall._load import warm
from toolcall._load import trust
from toolcall._cache import store
from toolcall._derive.discovery import candidates, providers_of
entry = warm.lookup(tools20)
record = store.read_entry(next(store.cache_dir().glob("tools20-*.tcc")), raw_variants=True)
deps = [d.module for d in record.deps]
providers = {f"{type(p).__module__}:{type(p).__qualname__}": p for p in providers_of(tools20)}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few samples, to try it out")
    parser.add_argument("--baseline", default=BASELINE, help="git revision to compare with")
    args = parser.parse_args(argv)
    runs = 3 if args.quick else 21
    tmp = Path(tempfile.mkdtemp(prefix="toolcall-trust-"))
    try:
        modules = tmp / "modules"
        modules.mkdir()
        gen_tools.write_module(modules, "tools20", 20)
        old_src = harness.extract_src(args.baseline, tmp / "baseline")
        new_src = ROOT / "src"

        def env(src: Path, cache: str) -> dict[str, str]:
            return {
                "PYTHONPATH": f"{src}:{harness.PERF}:{modules}",
                "TOOLCALL_CACHE_DIR": str(tmp / cache),
            }

        old_env, new_env = env(old_src, "old"), env(new_src, "new")
        harness.fresh_processes(
            [
                Scenario("prime old", CHECKED, lambda: old_env),
                Scenario("prime new", CHECKED, lambda: new_env),
            ],
            0,
        )
        results = harness.fresh_processes(
            [
                Scenario("baseline", CHECKED, lambda: old_env),
                Scenario("trusted", CHECKED, lambda: new_env),
                Scenario("unchecked", UNCHECKED, lambda: new_env),
            ],
            runs,
        )
        sys.path[:0] = [str(new_src), str(modules)]
        import os

        os.environ["TOOLCALL_CACHE_DIR"] = str(tmp / "new")
        namespace: dict[str, object] = {}
        exec(VERIFY, namespace)
        number = 200 if args.quick else 2000
        per_call = (
            timeit.timeit(
                "trust.verify(tools20, entry.ir, deps, candidates(tools20), providers)",
                globals=namespace,
                number=number,
            )
            / number
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    base = results["baseline"]["startup"].median
    trusted = results["trusted"]["startup"].median
    unchecked = results["unchecked"]["startup"].median
    print(f"warm start-up, every variant, 20 tools (median of {runs})")
    print(f"  baseline ({args.baseline})        {base * 1e3:7.2f} ms")
    print(f"  trusted  (this tree)        {trusted * 1e3:7.2f} ms  {trusted / base:5.2f}x baseline")
    print(
        f"  unchecked (no trust checks) {unchecked * 1e3:7.2f} ms  {unchecked / base:5.2f}x "
        "baseline"
    )
    print(f"  trust checks                {(trusted - unchecked) * 1e3:+7.2f} ms in start-up")
    print(f"one trust.verify call        {per_call * 1e6:7.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
