"""The timings that used to be assertions in tests/, as ratios to baselines from the same run.

The suite now pins these operations' complexity by call counts (tests/work.py); how fast they
are on a given machine is a figure, not a pass/fail, and lives here:

- reading a 20-tool cache entry, against ``msgspec.msgpack.decode`` of the same payload;
- rendering all seven variants of a 1000-tool module, against ``json.dumps`` of the result;
- ``check_strict`` on every tool of ``examples.orders``, against ``copy.deepcopy`` of them;
- cleaning 10,000 entries (half orphaned), against listing and stat-ing the directory.

Run: ``.venv/bin/python perf/bench_internals.py [--rounds N]``. Each figure is the best of
``--rounds`` runs, the operation and its baseline alternating, so machine load shifts both.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "cache")]

from test_cache import MODULE, SOURCE, VARIANTS, frame, module_ir, store, write_source  # noqa: E402

import toolcall  # noqa: E402
from toolcall import ir  # noqa: E402
from toolcall._cache import maintenance  # noqa: E402
from toolcall._cache import store as _cache  # noqa: E402
from toolcall._render.formats import render_variants  # noqa: E402
from toolcall._render.strict import check_strict  # noqa: E402


def best(fn: Callable[[], object], rounds: int) -> float:
    """The fastest of ``rounds`` runs of ``fn``, in seconds."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def versus(name: str, fn: Callable[[], object], base: Callable[[], object], rounds: int) -> None:
    fn(), base()  # warm both
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(best(fn, 1))
        theirs.append(best(base, 1))
    print(f"{name:<44} {min(ours) * 1e3:9.3f} ms  {min(ours) / min(theirs):6.2f}x baseline")


def populated(directory: Path, per_source: int) -> Path:
    """A cache of ``2 * per_source`` entries, half of them orphaned by a changed source."""
    cache = directory / "cache"
    cache.mkdir()
    kept = write_source(directory / "kept.py")
    dropped = write_source(directory / "dropped.py", SOURCE + "\n")
    tools = module_ir("x", 3).tools
    for path in (kept, dropped):
        data = path.read_bytes()
        base = _cache.make_entry(module_ir("x", 0), path, data, variants=VARIANTS)
        for i in range(per_source):
            module = f"{path.stem}{i}"
            entry = msgspec.structs.replace(
                base, module=module, ir=ir.ModuleIR(module=module, tools=tools)
            )
            target = _cache.entry_path(cache, module, _cache.source_key(module, data))
            target.write_bytes(frame(msgspec.msgpack.encode(entry)))
    dropped.write_text("# changed\n")
    return cache


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        path, _ = store(directory / "entries", write_source(directory / MODULE), tools=20)
        payload = path.read_bytes()[len(_cache.MAGIC) + len(_cache.VERSION) + 16 :]
        versus(
            "read a 20-tool entry",
            lambda: _cache.read_entry(path),
            lambda: msgspec.msgpack.decode(payload),
            rounds * 10,
        )
        many = module_ir("big", 1000).tools
        rendered, _ = render_variants(many, "big")
        versus(
            "render 7 variants of 1000 tools",
            lambda: render_variants(many, "big"),
            lambda: json.dumps(list(rendered.values())),
            rounds,
        )
        tools = list(toolcall.emit("examples.orders", "openai", strict=True))
        versus(
            "check_strict, every examples.orders tool",
            lambda: [check_strict(tool) for tool in tools],
            lambda: copy.deepcopy(tools),
            rounds * 10,
        )
        cache = populated(directory, 5000)
        # clean removes the orphans on its first run; the rest measure a clean that keeps all
        maintenance.clean(cache)
        versus(
            "clean 5,000 entries (first run: 10,000)",
            lambda: maintenance.clean(cache),
            lambda: [entry.stat() for entry in os.scandir(cache)],
            max(rounds // 4, 3),
        )


if __name__ == "__main__":
    main()
