"""Scalar ``run`` against the issue's bare call, and against the least a ``run`` can do.

Issue 14 asks for ``run`` on a scalar tool at most 1.3x the bare call ``REG[name](**kw)``.
Besides toolcall's ``run`` this times hand-written stand-ins for the smallest ``run`` the
contract allows: one lookup of the tool by module and name, one function per tool that does
only what SPEC 5 requires of the arguments (a dict, no unknown key, each value of its exact
type, text valid UTF-8), the call, and the result wrapped in ``Ok``; nothing for errors,
defaults, ``inject`` or ``timeout``. They are a floor, not a design: toolcall's ``run`` can
come close to them but not below. Two variants show what the contract itself costs:
``inject`` keyword-only (SPEC 5; CPython does not specialise calls to a function with a
keyword-only parameter) and an ``Ok`` the garbage collector tracks (untracked, a result
stored inside its own value would leak its cycle).

Run: ``cd perf && ../.venv/bin/python bench_scalar.py [--quick]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

import bench_tools as bt
import harness
import msgspec

import toolcall
from toolcall._dispatch.result import Ok

ARGS = {"city": "Oslo", "days": 5}
TARGET = 1.3


class UntrackedOk(msgspec.Struct, frozen=True, gc=False):
    value: Any


def _checker(ok: type) -> Any:
    fn = bt.get_weather

    def check(args: Any) -> Any:
        if type(args) is not dict or len(args) != 2:
            return None
        try:
            v0 = args["city"]
            v1 = args["days"]
        except KeyError:
            return None
        if type(v0) is str and v0.isascii() and type(v1) is int:
            try:
                value = fn(v0, v1)
            except Exception:
                return None
            return ok(value)
        return None

    return check


TOOLS = {bt: {"get_weather": _checker(Ok)}}
UNTRACKED = {bt: {"get_weather": _checker(UntrackedOk)}}


def keyword_only(module: Any, name: str, args: Any, *, inject: Any = None) -> Any:
    return TOOLS[module][name](args)


def keyword_only_untracked(module: Any, name: str, args: Any, *, inject: Any = None) -> Any:
    return UNTRACKED[module][name](args)


def positional(module: Any, name: str, args: Any, inject: Any = None) -> Any:
    return TOOLS[module][name](args)


def positional_untracked(module: Any, name: str, args: Any, inject: Any = None) -> Any:
    return UNTRACKED[module][name](args)


STATEMENTS = {
    "bare call REG[name](**kw) (floor)": "REG[name](**A)",
    "toolcall run": "run(bt, name, A)",
    "least run: SPEC signature, tracked Ok": "keyword_only(bt, name, A)",
    "least run: SPEC signature, untracked Ok": "keyword_only_untracked(bt, name, A)",
    "least run: positional inject, tracked Ok": "positional(bt, name, A)",
    "least run: positional inject, untracked Ok": "positional_untracked(bt, name, A)",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few samples, to try it out")
    options = parser.parse_args(argv)
    namespace = {
        "REG": {"get_weather": bt.get_weather},
        "name": "get_weather",
        "A": ARGS,
        "bt": bt,
        "run": toolcall.run,
        **{fn.__name__: fn for fn in (keyword_only, keyword_only_untracked, positional)},
        "positional_untracked": positional_untracked,
    }
    expected = bt.get_weather(**ARGS)
    for statement in STATEMENTS.values():
        got = eval(statement, namespace)
        assert getattr(got, "value", got) == expected, statement
    timings = harness.compare(STATEMENTS, namespace, 3 if options.quick else 21)
    medians = {name: statistics.median(t.samples) for name, t in timings.items()}
    floor = medians["bare call REG[name](**kw) (floor)"]
    print(f"Python {sys.version.split()[0]}; target: toolcall run <= {TARGET}x the floor")
    for name, median in medians.items():
        print(f"  {name:45s} {median * 1e9:7.1f} ns  {median / floor:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
