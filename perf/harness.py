"""Timing: in-process side-by-side runs, async loops, and fresh interpreters.

Every figure compares candidates measured in the same run, in the same conditions:

- in-process candidates are timed with ``timeit`` statements (compiled loops, garbage
  collection off during a sample, as ``timeit`` does), each calibrated to a sample of about
  ``SAMPLE_SECONDS``, warmed up once, then sampled in rounds that rotate the order of the
  candidates, so that drift on the machine falls on all of them alike;
- each group runs in several worker processes, whose samples are pooled;
- fresh-interpreter figures spawn one interpreter per sample, the scenarios interleaved
  round by round, the first round discarded as a warm-up; the time is taken from the
  parent's clock before spawning to the child's own ``perf_counter_ns`` when its work is
  done (``CLOCK_MONOTONIC``, shared by every process on Linux), so interpreter tear-down is
  not counted.

A figure is a median with its spread: the interquartile range and the extremes.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import time
import timeit
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SAMPLE_SECONDS = 0.05
PERF = Path(__file__).resolve().parent


@dataclass
class Timing:
    """Samples of one candidate (seconds per operation, or per process)."""

    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def quartiles(self) -> tuple[float, float]:
        if len(self.samples) < 4:
            return min(self.samples), max(self.samples)
        q1, _, q3 = statistics.quantiles(self.samples, n=4)
        return q1, q3

    def spread(self) -> float:
        """The interquartile range relative to the median."""
        low, high = self.quartiles()
        return (high - low) / self.median

    def to_json(self) -> dict[str, Any]:
        low, high = self.quartiles()
        return {
            "median": self.median,
            "q1": low,
            "q3": high,
            "min": min(self.samples),
            "max": max(self.samples),
            "n": len(self.samples),
        }


def compare(
    statements: dict[str, str], namespace: dict[str, Any], rounds: int
) -> dict[str, Timing]:
    """Time each statement (``timeit`` semantics) side by side, ``rounds`` samples each."""
    timers = {name: timeit.Timer(stmt, globals=namespace) for name, stmt in statements.items()}
    for timer in timers.values():
        timer.timeit(1)  # first calls prepare plans, freeze variants, fill caches
    numbers = {name: _calibrate(timer.timeit) for name, timer in timers.items()}
    for name, timer in timers.items():
        timer.timeit(numbers[name])
    timings = {name: Timing() for name in statements}
    names = list(statements)
    for round_ in range(rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            timings[name].samples.append(timers[name].timeit(numbers[name]) / numbers[name])
    return timings


def _calibrate(run: Callable[[int], float]) -> int:
    """The loop count whose sample takes about ``SAMPLE_SECONDS``."""
    number = 1
    while True:
        elapsed = run(number)
        if elapsed >= SAMPLE_SECONDS / 5:
            return max(1, int(number * SAMPLE_SECONDS / elapsed))
        number *= 10


LoopFn = Callable[[int], Coroutine[Any, Any, float]]


def async_loop(statement: str, namespace: dict[str, Any]) -> LoopFn:
    """A coroutine function ``loop(n)`` awaiting ``statement`` n times; returns the seconds.

    Written out like ``timeit``'s loop, so that nothing but the statement is timed.
    """
    source = (
        "async def _loop(_n, _clock=_clock):\n"
        "    _t0 = _clock()\n"
        "    for _ in range(_n):\n"
        f"        {statement}\n"
        "    return _clock() - _t0\n"
    )
    scope = dict(namespace, _clock=time.perf_counter)
    exec(compile(source, "<bench loop>", "exec"), scope)
    loop: LoopFn = scope["_loop"]
    return loop


async def compare_async(loops: dict[str, LoopFn], rounds: int) -> dict[str, Timing]:
    """``compare`` for coroutines: the loops run side by side in the running event loop."""
    numbers: dict[str, int] = {}
    for name, loop in loops.items():
        await loop(1)  # first calls prepare plans and fill caches
        number = 1
        while (elapsed := await loop(number)) < SAMPLE_SECONDS / 5:
            number *= 10
        numbers[name] = max(1, int(number * SAMPLE_SECONDS / elapsed))
        await loop(numbers[name])
    timings = {name: Timing() for name in loops}
    names = list(loops)
    for round_ in range(rounds):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            timings[name].samples.append(await loops[name](numbers[name]) / numbers[name])
    return timings


def pool(results: Sequence[dict[str, Timing]]) -> dict[str, Timing]:
    """The samples of several worker processes, together."""
    pooled: dict[str, Timing] = {}
    for result in results:
        for name, timing in result.items():
            pooled.setdefault(name, Timing()).samples.extend(timing.samples)
    return pooled


def run_worker(
    figure: str, processes: int, rounds: int, env: dict[str, str] | None = None
) -> list[Any]:
    """Run ``bench.py --worker figure`` in ``processes`` fresh interpreters; their JSON outputs."""
    outputs = []
    for _ in range(processes):
        done = subprocess.run(
            [sys.executable, str(PERF / "bench.py"), "--worker", figure, "--rounds", str(rounds)],
            capture_output=True,
            text=True,
            env=child_env(env),
            check=False,
        )
        if done.returncode != 0:
            msg = f"worker {figure} failed:\n{done.stderr}"
            raise RuntimeError(msg)
        outputs.append(json.loads(done.stdout.splitlines()[-1]))
    return outputs


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of every child: the benchmark's modules importable, no user settings
    that would change what is measured."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TOOLCALL_", "PYTHON", "XDG_CACHE_HOME"))
    }
    env["PYTHONPATH"] = str(PERF)
    env["PYTHONHASHSEED"] = "0"
    env.update(extra or {})
    return env


@dataclass
class Scenario:
    """One fresh-interpreter measurement: ``code`` ends by setting ``_end`` and calling
    ``done(**numbers)``.

    ``env`` is evaluated per run (a cold cache needs a new directory every time).
    """

    name: str
    code: str
    env: Callable[[], dict[str, str]] = dict


DONE = """
def done(**extra):
    import json
    print(json.dumps({"end": _end, **extra}))
"""


def fresh_processes(scenarios: list[Scenario], runs: int) -> dict[str, dict[str, Timing]]:
    """Spawn each scenario ``runs`` times (plus a discarded warm-up round), interleaved.

    Returns per scenario the wall time (``"wall"``, parent spawn to the child's ``_end``)
    and every number the child reported.
    """
    results: dict[str, dict[str, Timing]] = {s.name: {} for s in scenarios}
    for round_ in range(runs + 1):
        shift = round_ % len(scenarios)
        for scenario in scenarios[shift:] + scenarios[:shift]:
            code = "import time\n" + DONE + scenario.code
            env = child_env(scenario.env())
            started = time.perf_counter_ns()
            done = subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
            )
            if done.returncode != 0:
                msg = f"scenario {scenario.name} failed:\n{done.stderr}"
                raise RuntimeError(msg)
            if round_ == 0:
                continue
            reported = json.loads(done.stdout.splitlines()[-1])
            numbers = results[scenario.name]
            numbers.setdefault("wall", Timing()).samples.append(
                (reported.pop("end") - started) / 1e9
            )
            for key, value in reported.items():
                numbers.setdefault(key, Timing()).samples.append(value)
    return results


def rss_bytes() -> int:
    """This process's resident set size, from ``/proc`` (Linux)."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    msg = "no VmRSS in /proc/self/status"
    raise OSError(msg)


def extract_src(revision: str, into: Path) -> Path:
    """``src/`` of the repository at ``revision``, under ``into`` (for baseline scenarios)."""
    archive = subprocess.run(
        ["git", "-C", str(PERF.parent), "archive", revision, "src"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def every_variant(formats: tuple[str, ...] | None = None, patch: str = "") -> str:
    """Child code timing start-up to every variant of ``tools20`` (reported as ``startup``):
    of ``formats`` (None: every format of this tree; a baseline tree may lack the newer
    ones), with ``patch`` run first, after the clock starts."""
    names = "FORMATS" if formats is None else repr(formats)
    imports = "from toolcall._shared.names import FORMATS" if formats is None else ""
    return f"""
t0 = time.perf_counter()
{patch}
import toolcall, tools20
{imports}
for fmt in {names}:
    for strict in (False, True):
        toolcall.emit(tools20, fmt, strict)
t1 = time.perf_counter()
_end = time.perf_counter_ns()
done(startup=t1 - t0)
"""
