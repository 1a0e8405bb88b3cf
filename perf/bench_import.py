"""What ``import toolcall`` and a warm start cost, against baselines measured in the same run.

Figures (issue 14), each from fresh interpreters, scenarios interleaved:

- toolcall's own import cost (``import toolcall`` after ``import msgspec``, so it counts
  toolcall's modules and the standard-library modules only toolcall pulls in) as a ratio of
  ``import msgspec`` in the same interpreter; target at most 0.25x;
- start-up to every variant (each format, strict and not) of a 20-tool module with a warm
  cache, against importing the module alone with toolcall not imported; target at most
  +20 ms;
- the cold path (derive, render, write) for the record.

Run: ``.venv/bin/python perf/bench_import.py [--quick]``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

import gen_tools
import harness
from harness import Scenario

IMPORT_COST = """
t0 = time.perf_counter()
import msgspec
t1 = time.perf_counter()
import toolcall
t2 = time.perf_counter()
_end = time.perf_counter_ns()
done(msgspec=t1 - t0, toolcall=t2 - t1)
"""

MODULE_ALONE = """
t0 = time.perf_counter()
import tools20
t1 = time.perf_counter()
_end = time.perf_counter_ns()
done(startup=t1 - t0)
"""

EVERY_VARIANT = harness.every_variant()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few samples, to try it out")
    args = parser.parse_args(argv)
    runs = 3 if args.quick else 21
    tmp = Path(tempfile.mkdtemp(prefix="toolcall-import-"))
    try:
        modules = tmp / "modules"
        modules.mkdir()
        gen_tools.write_module(modules, "tools20", 20)
        path = {"PYTHONPATH": f"{harness.PERF}:{modules}"}
        warm = {**path, "TOOLCALL_CACHE_DIR": str(tmp / "warm")}
        harness.fresh_processes([Scenario("prime", EVERY_VARIANT, lambda: warm)], 0)

        def cold() -> dict[str, str]:
            return {**path, "TOOLCALL_CACHE_DIR": tempfile.mkdtemp(dir=tmp)}

        results = harness.fresh_processes(
            [
                Scenario("import cost", IMPORT_COST, lambda: path),
                Scenario("module alone", MODULE_ALONE, lambda: path),
                Scenario("every variant, warm", EVERY_VARIANT, lambda: warm),
                Scenario("every variant, cold", EVERY_VARIANT, cold),
            ],
            runs,
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    cost = results["import cost"]
    ratio = cost["toolcall"].median / cost["msgspec"].median
    alone = results["module alone"]["startup"].median
    warm_over = results["every variant, warm"]["startup"].median - alone
    cold_over = results["every variant, cold"]["startup"].median - alone
    print(f"import msgspec                    {cost['msgspec'].median * 1e3:7.2f} ms")
    print(f"import toolcall (after msgspec)   {cost['toolcall'].median * 1e3:7.2f} ms")
    print(
        f"  ratio to msgspec                {ratio:7.2f}x   target <= 0.25x  "
        f"{_verdict(ratio <= 0.25)}"
    )
    print(f"20-tool module alone              {alone * 1e3:7.2f} ms")
    print(
        f"  + toolcall, every variant, warm {warm_over * 1e3:+7.2f} ms   target <= +20 ms "
        f"{_verdict(warm_over <= 0.020)}"
    )
    print(f"  + toolcall, every variant, cold {cold_over * 1e3:+7.2f} ms   (for the record)")
    return 0


def _verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


if __name__ == "__main__":
    sys.exit(main())
