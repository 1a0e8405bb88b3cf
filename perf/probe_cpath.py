"""Why ``run`` does not hand nested arguments to ``msgspec.convert`` (issue 23, item 3).

Two findings, both printed by this script so that they can be checked again against a newer
msgspec (see docs/decisions.md, "Nested arguments keep the generated Python path"):

1. **What msgspec accepts that toolcall refuses, or reads differently.** For each input the
   script calls ``toolcall.run`` and ``msgspec.convert`` into a ``Struct`` of the same
   annotations (what ``peers.msgspec_arguments`` builds) and prints both answers. Where
   msgspec says Ok and toolcall does not (or both say Ok with different values), a C path
   would have to catch the case in Python after ``convert``.
2. **What a C path costs once those checks are written out.** ``place_order`` of
   ``bench_tools`` dispatched three ways, side by side (``harness.compare``, minimum of the
   samples, against pydantic-ai's validator plus call): today's ``run``; ``convert`` into
   ``Struct`` mirrors (closed, so unknown keys fail in C) with the checks toolcall needs and
   msgspec cannot make (lone surrogates, the exact-type ``Literal`` lookup) and the TypedDicts
   and the dataclass rebuilt in Python; and ``convert`` into a mirror that builds the
   TypedDicts itself (which ignores unknown keys, so they are counted in Python).

Run: ``cd perf && ../.venv/bin/python probe_cpath.py [--rounds 21] [--write]`` (``--write``
replaces its section at the end of RESULTS.md, with ``bench_scale.py --dispatch-only``'s
figures of the same run).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import math
import sys
import tempfile
import textwrap
import typing
from pathlib import Path
from typing import Any

import harness
import msgspec
import peers

SOURCE = """
import dataclasses
import datetime
from typing import NamedTuple, TypedDict

__toolcall__ = True


class Line(TypedDict):
    sku: str
    qty: int


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


class Pair(NamedTuple):
    a: int
    b: int = 0


def ints(xs: list[int]) -> object:
    return xs


def texts(xs: list[str]) -> object:
    return xs


def floats(xs: list[float]) -> object:
    return xs


def times(xs: list[datetime.datetime]) -> object:
    return xs


def line(line: Line) -> object:
    return line


def point(p: Point) -> object:
    return p


def pair(p: Pair) -> object:
    return p
"""


class Lying(int):
    """An int subclass whose ``int()`` is not its stored value."""

    def __int__(self) -> int:
        return 0


class Upper(dict[str, Any]):
    """A dict subclass whose items read differently from what it stores."""

    def __getitem__(self, key: str) -> Any:
        value = super().__getitem__(key)
        return value.upper() if isinstance(value, str) else value


CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("set for a list", "ints", {"xs": {1, 2}}),
    ("lone surrogate", "texts", {"xs": ["a\ud800"]}),
    ("NaN", "floats", {"xs": [math.nan]}),
    ("unknown key in a TypedDict", "line", {"line": {"sku": "a", "qty": 1, "zz": 1}}),
    ("unknown key in a dataclass", "point", {"p": {"x": 1.0, "zz": 1}}),
    ("NamedTuple sent as an object", "pair", {"p": {"a": 1}}),
    ("datetime object", "times", {"xs": [datetime.datetime(2024, 1, 2, 3, 4)]}),
    ("bare date as a date-time", "times", {"xs": ["2024-01-02"]}),
    ("fraction past microseconds", "times", {"xs": ["2024-01-02T03:04:05.1234567"]}),
    ("int subclass", "ints", {"xs": [Lying(7)]}),
    ("dict subclass", "line", {"line": Upper(sku="a", qty=1)}),
    ("integral float for an int", "ints", {"xs": [2.0]}),
]


def answer(call: Any) -> str:
    try:
        result = call()
    except msgspec.ValidationError as error:
        return f"ValidationError ({str(error).partition(' - at ')[0]})"
    except Exception as error:
        return f"{type(error).__name__}"
    error = getattr(result, "error", None)
    if error is not None:
        return f"Err {error.reason or error.kind}"
    value = getattr(result, "value", result)
    if dataclasses.is_dataclass(value) or isinstance(value, msgspec.Struct):
        value = {k: getattr(value, k) for k in typing.get_type_hints(type(value))}
    return f"Ok {value!r}"[:60]


def semantics() -> list[str]:
    import toolcall

    root = Path(tempfile.mkdtemp(prefix="toolcall-probe-"))
    (root / "probe_tools.py").write_text(textwrap.dedent(SOURCE))
    sys.path.insert(0, str(root))
    import probe_tools

    lines = [
        "| case | toolcall run | msgspec.convert |",
        "|---|---|---|",
    ]
    for label, name, args in CASES:
        fn = getattr(probe_tools, name)
        struct = peers.msgspec_arguments(fn)
        ours = answer(lambda: toolcall.run(probe_tools, name, args))  # noqa: B023
        theirs = answer(lambda: msgspec.convert(args, struct).__getattribute__(next(iter(args))))  # noqa: B023
        lines.append(f"| {label} | {ours} | {theirs} |")
    return lines


# -- part 2: the cost of a C path for place_order, checks written out ----------------------------


def c_paths() -> dict[str, Any]:
    """Two hand-written C paths for ``place_order``, with the checks identity needs."""
    from typing import Annotated, NotRequired

    import bench_tools as bt
    from typing_extensions import TypedDict

    from toolcall._dispatch.result import Ok
    from toolcall._scalars import utf8

    unset, unset_type = msgspec.UNSET, msgspec.UnsetType
    closed = {"forbid_unknown_fields": True}
    street = [("street", str), ("city", str), ("postcode", str), ("country", str | unset_type)]
    address = msgspec.defstruct(
        "Address",
        [*street[:3], (*street[3], unset)],
        **closed,  # type: ignore[list-item]
    )
    line = msgspec.defstruct(
        "Line",
        [
            ("sku", str),
            ("qty", Annotated[int, msgspec.Meta(ge=1)]),
            ("gift_wrap", bool | unset_type, unset),
        ],
        **closed,
    )
    tail = [("priority", Any, unset), ("deliver_after", Any, unset)]
    structs = msgspec.defstruct(
        "Args", [("items", list[line]), ("ship_to", address), *tail], **closed
    )

    # functional form: this module's annotations are strings, which msgspec cannot resolve
    # for a class defined in a function
    typed_line = TypedDict(  # noqa: UP013
        "typed_line",
        {"sku": str, "qty": Annotated[int, msgspec.Meta(ge=1)], "gift_wrap": NotRequired[bool]},
    )
    dicts = msgspec.defstruct(
        "Args", [("items", list[typed_line]), ("ship_to", address), *tail], **closed
    )
    priorities = {(str, "standard"): "standard", (str, "express"): "express"}
    convert, make, call = msgspec.convert, bt.Address, bt.place_order

    # Written out as generated code would be: no helper calls on the happy path.
    def struct_mirrors(args: Any) -> Any:
        if type(args) is not dict:
            return None
        try:
            s = convert(args, structs)
            items = []
            for o in s.items:
                x = o.sku
                if not (type(x) is str and (x.isascii() or utf8(x))):
                    return None
                item = {"sku": x, "qty": o.qty}
                if o.gift_wrap is not unset:
                    item["gift_wrap"] = o.gift_wrap
                items.append(item)
            a = s.ship_to
            e1, e2, e3, e4 = a.street, a.city, a.postcode, a.country
            if not (type(e1) is str and (e1.isascii() or utf8(e1))):
                return None
            if not (type(e2) is str and (e2.isascii() or utf8(e2))):
                return None
            if not (type(e3) is str and (e3.isascii() or utf8(e3))):
                return None
            if e4 is unset:
                where = make(e1, e2, e3)
            elif type(e4) is str and (e4.isascii() or utf8(e4)):
                where = make(e1, e2, e3, e4)
            else:
                return None
            p = s.priority
            if p is not unset:
                p = priorities[type(p), p]
            if s.deliver_after is not unset:
                return None  # not in the benchmark's call
        except Exception:
            return None
        return Ok(call(items, where) if p is unset else call(items, where, p))

    def typeddict_mirror(args: Any) -> Any:
        if type(args) is not dict:
            return None
        try:
            s = convert(args, dicts)
            items = s.items
            for built, given in zip(items, args["items"], strict=True):
                x = built["sku"]
                if len(built) != len(given) or not (type(x) is str and (x.isascii() or utf8(x))):
                    return None
            a = s.ship_to
            e1, e2, e3, e4 = a.street, a.city, a.postcode, a.country
            if not (type(e1) is str and (e1.isascii() or utf8(e1))):
                return None
            if not (type(e2) is str and (e2.isascii() or utf8(e2))):
                return None
            if not (type(e3) is str and (e3.isascii() or utf8(e3))):
                return None
            if e4 is unset:
                where = make(e1, e2, e3)
            elif type(e4) is str and (e4.isascii() or utf8(e4)):
                where = make(e1, e2, e3, e4)
            else:
                return None
            p = s.priority
            if p is not unset:
                p = priorities[type(p), p]
            if s.deliver_after is not unset:
                return None
        except Exception:
            return None
        return Ok(call(items, where) if p is unset else call(items, where, p))

    return {"struct_mirrors": struct_mirrors, "typeddict_mirror": typeddict_mirror}


def timings(rounds: int) -> list[str]:
    import bench_tools as bt
    from bench_scale import NESTED_ARGS as args

    import toolcall
    from toolcall._load import registry

    ns: dict[str, Any] = {
        "run": toolcall.run,
        "bt": bt,
        "A": args,
        "place_order": bt.place_order,
        "pai": peers.pydantic_ai_validator(bt.place_order),
        **c_paths(),
    }
    expected = toolcall.run(bt, "place_order", args)  # prepares the plan
    ns["today"] = registry.index[bt].runs["place_order"]
    for name in ("struct_mirrors", "typeddict_mirror"):
        assert ns[name](args) == expected, name
    statements = {
        "pydantic-ai validator + call": 'place_order(**pai(A, allow_partial="off", context=None))',
        "toolcall run (today)": 'run(bt, "place_order", A)',
        "today's generated path, called directly": "today(A)",
        "C path: Struct mirrors, rebuilt in Python": "struct_mirrors(A)",
        "C path: TypedDicts built by msgspec, keys counted": "typeddict_mirror(A)",
    }
    found = harness.compare(statements, ns, rounds)
    base = min(found["pydantic-ai validator + call"].samples)
    lines = ["| dispatch of place_order | per call (min) | / pydantic-ai |", "|---|---:|---:|"]
    for name, timing in found.items():
        fastest = min(timing.samples)
        lines.append(f"| {name} | {fastest * 1e9:.0f} ns | {fastest / base:.3f}x |")
    return lines


def write_section(lines: list[str]) -> None:
    """Replace (or add) the section after ``report.PROBE_MARKER``, at the end of RESULTS.md."""
    import platform

    from report import PROBE_MARKER, replace_section

    section = [
        PROBE_MARKER,
        "## Nested `run` and `msgspec.convert` (`perf/probe_cpath.py`)",
        "",
        "One run of `perf/probe_cpath.py --write` (generated; do not edit by hand), Python "
        f"{platform.python_version()}, msgspec {msgspec.__version__}. Why nested arguments "
        'keep the generated Python path: docs/decisions.md, "Nested arguments keep the '
        'generated Python path"; the instruction counts (cachegrind) are under "Measurements '
        'behind the decisions" below: on a shared machine '
        "the wall-clock order of the designs below changes from run to run. The C paths "
        "leave out the checks no code after `convert` can make (a set, a subclass).",
        "",
        *lines,
    ]
    replace_section(harness.PERF / "RESULTS.md", PROBE_MARKER, "\n".join(section))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=21, help="samples of each timing")
    parser.add_argument("--write", action="store_true", help="replace its section of RESULTS.md")
    options = parser.parse_args(argv)
    from bench_scale import dispatch, dispatch_report

    lines = [
        *semantics(),
        "",
        *timings(options.rounds),
        "",
        "`perf/bench_scale.py --dispatch-only` in the same run:",
        *dispatch_report(dispatch(options.rounds)),
    ]
    print("\n".join(lines))
    if options.write:
        write_section(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
