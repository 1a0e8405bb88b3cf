"""The generated fast path as source: pinned for a small tool, shown in tracebacks, and
generated only for the IR fields it knows (issue 9.4)."""

from __future__ import annotations

import linecache
import logging
import re
import traceback
from typing import Any

import pytest

from fakes import FakeResolver
from toolcall import ir
from toolcall._dispatch.fastpath import MISS, build_fastpath
from toolcall._dispatch.result import Err, Ok

GREET = ir.Tool(
    name="greet",
    parameters=(
        ir.Parameter(name="name", type=ir.Type(kind="string", max_length=20)),
        ir.Parameter(name="times", type=ir.Type(kind="integer", minimum=1), required=False),
    ),
)


def greet(name: str, times: int = 1) -> str:
    if name == "boom":
        raise ValueError("boom")
    return name * times


def source_of(fn: Any) -> str:
    return "".join(linecache.getlines(fn.__code__.co_filename))


def test_generated_source_of_a_small_tool_is_pinned() -> None:
    """The whole generated function of a two-parameter tool, line for line."""
    fast = build_fastpath(GREET, greet, is_async=False, resolver=FakeResolver())
    assert fast is not None
    assert source_of(fast) == (
        "def make(fn, _fallback, _ABSENT, _raised, _exited, _Ok, _k1, _k2, _utf8):\n"
        "    def fast(args):\n"
        "        cls = type(args)\n"
        "        if cls is not dict:\n"
        "            return _fallback(args)\n"
        "        try:\n"
        "            v0 = args['name']\n"
        "            if len(args) == 2:\n"
        "                v1 = args['times']\n"
        "            else:\n"
        "                n = 1\n"
        "                if 'times' in args:\n"
        "                    n += 1\n"
        "                    v1 = args['times']\n"
        "                else:\n"
        "                    v1 = _ABSENT\n"
        "                if len(args) != n:\n"
        "                    return _fallback(args)\n"
        "            if not (type(v0) is str and (v0.isascii() or _utf8(v0))):\n"
        "                return _fallback(args)\n"
        "            if not (len(v0) <= _k1):\n"
        "                return _fallback(args)\n"
        "            if v1 is not _ABSENT:\n"
        "                if v1 is None:\n"
        "                    v1 = _ABSENT\n"
        "                else:\n"
        "                    if not (type(v1) is int):\n"
        "                        return _fallback(args)\n"
        "                    if not (v1 >= _k2):\n"
        "                        return _fallback(args)\n"
        "        except Exception:\n"
        "            pass\n"
        "        else:\n"
        "            try:\n"
        "                if v1 is _ABSENT:\n"
        "                    value = fn(v0)\n"
        "                else:\n"
        "                    value = fn(v0, v1)\n"
        "            except Exception as exc:\n"
        "                return _raised(exc)\n"
        "            except SystemExit as exc:\n"
        "                return _exited(exc)\n"
        "            return _Ok(value)\n"
        "        return _fallback(args)\n"
        "    return fast"
    )
    assert fast({"name": "ab", "times": 2}) == Ok("abab")
    assert fast({"name": "ab", "times": 0}) is MISS


def test_a_traceback_shows_the_generated_line(caplog: pytest.LogCaptureFixture) -> None:
    """The tool's exception is logged once, its traceback through the generated line."""
    fast = build_fastpath(GREET, greet, is_async=False, resolver=FakeResolver())
    assert fast is not None
    with caplog.at_level(logging.ERROR, logger="toolcall"):
        result = fast({"name": "boom"})
    assert isinstance(result, Err)
    (record,) = caplog.records
    assert record.exc_info is not None
    text = "".join(traceback.format_exception(*record.exc_info))
    assert "value = fn(v0)" in text
    assert "During handling" not in text


def test_fields_outside_the_allow_list_take_the_general_path() -> None:
    """A type field the generated code does not know is restored by its coercer; an unknown
    parameter field (injected parameters here) means no generated function at all."""
    pattern = ir.Tool(
        name="p",
        parameters=(ir.Parameter(name="code", type=ir.Type(kind="string", pattern="^[a-z]+$")),),
    )
    fast = build_fastpath(pattern, lambda code: code, is_async=False, resolver=FakeResolver())
    assert fast is not None
    assert re.search(r"= _k[0-9]+\(v0\)", source_of(fast))  # the coercer, not inlined code
    assert fast({"code": "ab"}) == Ok("ab")
    assert fast({"code": "AB"}) is MISS
    if "injected" in ir.Tool.__struct_fields__:
        injected = ir.Tool(name="i", parameters=pattern.parameters, injected=("ctx",))
        assert (
            build_fastpath(injected, lambda code: code, is_async=False, resolver=FakeResolver())
            is None
        )


def _dated(day: Any, when: Any = None, ref: Any = None) -> tuple[Any, Any, Any]:
    return day, when, ref


DATED = ir.Tool(
    name="dated",
    parameters=(
        ir.Parameter(name="day", type=ir.Type(kind="string", py="date", format="date")),
        ir.Parameter(
            name="when",
            type=ir.Type(kind="string", py="datetime", format="date-time"),
            required=False,
        ),
        ir.Parameter(
            name="ref", type=ir.Type(kind="string", py="uuid", format="uuid"), required=False
        ),
    ),
)


@pytest.mark.parametrize(
    "args",
    [
        {"day": "2026-05-01"},
        {"day": "2021-W01-1"},  # a week date Python reads, the schema does not
        {"day": "20210101xx"},
        {"day": "\u0662026-05-01"},
        {"day": "2026-02-30"},
        {"day": "2026-05-01", "when": "2024-05-06t07:08:09z"},
        {"day": "2026-05-01", "when": "2024-05-06T07:08Z"},
        {"day": "2026-05-01", "ref": "12345678-1234-1234-1234-123456789abc"},
        {"day": "2026-05-01", "ref": "123456781234123412341234567890ab"},
    ],
)
def test_dates_and_uuids_are_checked_inline_and_only_the_schemas_shapes_pass(args: Any) -> None:
    """The generated code calls no coercer for a date, date-time or UUID, and restores what
    the general path restores, missing exactly where the general path refuses."""
    from toolcall._dispatch.coerce import build_coercer

    fast = build_fastpath(DATED, _dated, is_async=False, resolver=FakeResolver())
    assert fast is not None
    assert "_k" not in source_of(fast)  # no coercer constant: every check is written out
    expected: list[Any] = []
    for p in DATED.parameters:
        coerce = build_coercer(p.type, FakeResolver())
        try:
            expected.append(coerce(args[p.name]) if p.name in args else None)
        except Exception:
            assert fast(args) is MISS
            return
    assert fast(args) == Ok(tuple(expected))
