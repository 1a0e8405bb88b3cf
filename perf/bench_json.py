"""Arguments as JSON text (issue 38): instructions per call of ``toolcall.run(module, name,
text)`` and of ``run(module, name, json.loads(text))``, against pydantic-ai's route for the
text a provider sends (``validate_json`` of the tool's validator, then the call).

On ``bench_tools``' scalar tool (``get_weather``: a str, an int with a default) and nested
one (``place_order``: a list of TypedDict lines, a dataclass, a ``Literal``, an optional
date, here with 2 and 100 lines), each also with one invalid value, which the model must be
told: toolcall answers ``Err``, pydantic-ai's route raises its ``ValidationError``, caught.
Before counting, every case is checked: ``run(text)`` answers exactly as
``run(json.loads(text))`` does (the value's repr, or the error's kind, path and message),
and pydantic-ai accepts what toolcall accepts.

Counted with callgrind where valgrind is installed: one interpreter runs every route inside
``functools.reduce`` (``--toggle-collect`` counts only in there, ``--dump-after`` writes one
profile per route), so the figures leave out the start-up and hold the call alone, less an
empty call's; instruction counts do not move with the load of a shared machine. Without
valgrind (or with ``--wall``) the same routes are timed side by side (``harness.compare``)
and only the ratios are given.

    python perf/bench_json.py [--calls 400] [--wall] [--write]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bench_tools as bt
import harness
import msgspec
from report import BENCH_JSON_MARKER as MARKER

import toolcall

TARGETS = {"scalar": 0.65, "nested, 2 lines": 0.75, "nested, 100 lines": 0.75}
"""Issue 38's limits for ``run(text)`` over pydantic-ai; each error case's is 1.5."""
ERROR_TARGET = 1.5

ADDRESS = {"street": "Karl Johans gate 1", "city": "Oslo", "postcode": "0154"}


def _lines(count: int, bad: bool) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {"sku": f"A-{i}", "qty": 1 + i % 3, **({"gift_wrap": True} if i % 2 else {})}
        for i in range(count)
    ]
    if bad:
        lines[-1]["qty"] = 0  # Ge(1): the last line, so everything before it validates
    return lines


def cases() -> dict[str, tuple[str, str]]:
    """Each case's name -> (tool, JSON text)."""

    def order(count: int, bad: bool) -> str:
        args = {"items": _lines(count, bad), "ship_to": ADDRESS, "priority": "express"}
        return json.dumps(args)

    return {
        "scalar": ("get_weather", json.dumps({"city": "Oslo", "days": 2})),
        "nested, 2 lines": ("place_order", order(2, bad=False)),
        "nested, 100 lines": ("place_order", order(100, bad=False)),
        "scalar, one invalid value": ("get_weather", json.dumps({"city": "Oslo", "days": "x"})),
        "nested, 2 lines, one invalid value": ("place_order", order(2, bad=True)),
        "nested, 100 lines, one invalid value": ("place_order", order(100, bad=True)),
    }


ROUTES = ("pydantic-ai", "run(text)", "run(json.loads(text))")


def pydantic_ai_route(fn: Callable[..., Any], text: str) -> Callable[[], Any]:
    """pydantic-ai's handling of a tool call's JSON text: ``validate_json`` of the function
    schema's validator (what ``ToolManager`` calls for string arguments), then the call.
    A ``ValidationError`` is caught and phrased for the model as pydantic-ai phrases it
    (``errors(include_url=False, include_context=False)``, its retry prompt's content)."""
    from pydantic_ai._function_schema import function_schema
    from pydantic_ai.tools import GenerateToolJsonSchema

    from pydantic import ValidationError

    validate = function_schema(fn, GenerateToolJsonSchema).validator.validate_json

    def call() -> Any:
        try:
            return fn(**validate(text, allow_partial="off", context=None))
        except ValidationError as error:
            return error.errors(include_url=False, include_context=False)

    return call


def routes() -> dict[tuple[str, str], Callable[[], Any]]:
    """Every (case, route) as a call without arguments."""
    found: dict[tuple[str, str], Callable[[], Any]] = {}
    run, loads = toolcall.run, json.loads
    for case, (name, text) in cases().items():
        fn = getattr(bt, name)
        found[case, "pydantic-ai"] = pydantic_ai_route(fn, text)
        found[case, "run(text)"] = functools.partial(run, bt, name, text)
        found[case, "run(json.loads(text))"] = lambda n=name, t=text: run(bt, n, loads(t))
    return found


def _answer(result: Any) -> Any:
    if isinstance(result, toolcall.Ok):
        return ("ok", repr(result.value))
    error = result.error
    return ("err", error.kind, error.path, error.message)


def check() -> None:
    """Each case answers the same on every route (``run``'s two exactly)."""
    calls = routes()
    for case in cases():
        text_answer = _answer(calls[case, "run(text)"]())
        assert text_answer == _answer(calls[case, "run(json.loads(text))"]()), case
        theirs = calls[case, "pydantic-ai"]()
        assert (text_answer[0] == "ok") == isinstance(theirs, dict), case


# -- callgrind ------------------------------------------------------------------------------------


def _empty() -> None:
    return None


def drive(calls: int) -> None:
    """Inside valgrind: an empty call, then every route, each ``calls`` times in its own
    ``functools.reduce`` (one profile dump each), after two warm-up calls."""
    chosen = [_empty, *routes().values()]
    for call in chosen:
        call()
        call()
    for call in chosen:
        functools.reduce(lambda acc, _, call=call: call(), range(calls), None)


def count(calls: int) -> dict[tuple[str, str], float]:
    """Instructions per call of each route, less an empty call's."""
    with tempfile.TemporaryDirectory(prefix="bench-json-") as tmp:
        out = Path(tmp) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=functools_reduce",
            "--dump-after=functools_reduce",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--drive",
            str(calls),
        ]
        # one hash seed: string hashes, and so most dict probing, the same from run to run
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        subprocess.run(command, check=True, capture_output=True, cwd=harness.PERF, env=env)
        dumps = sorted(Path(tmp).glob("callgrind.out.*"), key=lambda p: int(p.suffix[1:]))
        totals = [_summary(path) for path in dumps]
    names = list(routes())
    if len(totals) != len(names) + 1:
        # callgrind finds functools_reduce by its symbol: a stripped interpreter has none
        msg = (
            f"expected {len(names) + 1} profiles, got {len(totals)} "
            f"(is {sys.executable} stripped? --wall times instead)"
        )
        raise RuntimeError(msg)
    empty, *measured = totals
    return {name: (total - empty) / calls for name, total in zip(names, measured, strict=True)}


def _summary(path: Path) -> int:
    for line in path.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    msg = f"{path}: no summary line"
    raise RuntimeError(msg)


# -- wall clock -----------------------------------------------------------------------------------


def wall(rounds: int) -> dict[tuple[str, str], float]:
    """Median seconds per call of each route, timed side by side."""
    calls = routes()
    keys = {f"{case} / {route}": (case, route) for case, route in calls}
    namespace = {name: calls[key] for name, key in keys.items()}
    statements = {name: f"namespace[{name!r}]()" for name in keys}
    found = harness.compare(statements, {"namespace": namespace}, rounds)
    return {keys[name]: timing.median for name, timing in found.items()}


# -- report ---------------------------------------------------------------------------------------


def report(figures: dict[tuple[str, str], float], unit: str) -> list[str]:
    lines = [
        f"| case | pydantic-ai ({unit}) | run(text) | run(json.loads(text)) | target | met |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for case in cases():
        base = figures[case, "pydantic-ai"]
        text = figures[case, "run(text)"] / base
        loads = figures[case, "run(json.loads(text))"] / base
        target = ERROR_TARGET if "invalid" in case else TARGETS[case]
        shown = f"{base:,.0f}" if unit == "instructions" else f"{base * 1e6:.2f} us"
        met = "yes" if text <= target else "no"
        lines.append(f"| {case} | {shown} | {text:.2f}x | {loads:.2f}x | <= {target}x | {met} |")
    return lines


def write(lines: list[str], unit: str) -> None:
    from report import replace_section

    import pydantic

    how = (
        "Callgrind instructions per call (the empty call's subtracted)"
        if unit == "instructions"
        else "median wall-clock time per call, timed side by side (valgrind missing)"
    )
    section = [
        MARKER,
        "## Arguments as JSON text (`perf/bench_json.py`)",
        "",
        f"One run of `perf/bench_json.py --write` (generated; do not edit by hand), Python "
        f"{platform.python_version()}, msgspec {msgspec.__version__}, pydantic "
        f"{pydantic.VERSION}. {how}; the ratios are toolcall's over pydantic-ai's route "
        "(`validate_json` of the tool's validator, then the call; a `ValidationError` caught "
        "and phrased as pydantic-ai phrases it for the model, "
        "`errors(include_url=False, include_context=False)`). Every case answers "
        "identically through `run(text)` and "
        "`run(json.loads(text))`, checked before counting.",
        "",
        *lines,
    ]
    replace_section(harness.PERF / "RESULTS.md", MARKER, "\n".join(section))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400, help="calls of each route counted")
    parser.add_argument("--rounds", type=int, default=15, help="samples of each timing (--wall)")
    parser.add_argument("--wall", action="store_true", help="time instead of counting")
    parser.add_argument("--write", action="store_true", help="replace its section of RESULTS.md")
    parser.add_argument("--drive", type=int, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.drive is not None:
        drive(options.drive)
        return 0
    check()
    if options.wall or shutil.which("valgrind") is None or os.environ.get("BENCH_JSON_WALL"):
        figures, unit = wall(options.rounds), "time"
    else:
        figures, unit = count(options.calls), "instructions"
    lines = report(figures, unit)
    print("\n".join(lines))
    if options.write:
        write(lines, unit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
