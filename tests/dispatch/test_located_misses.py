"""Where the generated fast path misses inside one argument, or inside one item of a plain
list, only that value is walked again (issue 38.3): the answer is exactly the general
path's, and neither the arguments before it nor the items before it are walked twice."""

from __future__ import annotations

import asyncio
import copy
import sys
import types
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolcall
from budget import examples
from toolcall._derive.module import derive_function
from toolcall._dispatch.plan import build_plan
from toolcall._load import warm as loading

TOOLS = """
import dataclasses
from datetime import date
from typing import Annotated, Literal, NotRequired

from annotated_types import Ge, MaxLen
from typing_extensions import TypedDict

__toolcall__ = True


class Line(TypedDict):
    sku: Annotated[str, MaxLen(4)]
    qty: Annotated[int, Ge(1)]
    gift: NotRequired[bool]


@dataclasses.dataclass
class Address:
    street: str
    city: str


def order(
    label: str,
    lines: list[Line],
    ship_to: Address,
    rows: list[list[int]] = [],
    count: Annotated[int, Ge(0)] = 0,
    mode: Literal["air", "sea"] = "sea",
    when: date | None = None,
) -> tuple:
    \"\"\"Everything a miss can be inside of.\"\"\"
    return (label, lines, ship_to, rows, count, mode, when)


def gapped(a: int = 0, b: int = 0, /, lines: list[Line] = []) -> tuple:
    \"\"\"Positional-only optionals: a gap is named before the values after it.\"\"\"
    return (a, b, lines)


async def later(label: str, lines: list[Line] = []) -> tuple:
    \"\"\"The same, awaited.\"\"\"
    return (label, lines)
"""

VALID: dict[str, Any] = {
    "label": "x",
    "lines": [{"sku": "A", "qty": 1}, {"sku": "B", "qty": 2, "gift": True}, {"sku": "C", "qty": 3}],
    "ship_to": {"street": "s", "city": "c"},
    "rows": [[1, 2], [3]],
    "count": 2,
    "mode": "air",
    "when": "2026-05-01",
}


def answer(result: toolcall.Ok[Any] | toolcall.Err) -> Any:
    if isinstance(result, toolcall.Ok):
        return ("ok", repr(result.value))
    e = result.error
    return ("err", e.kind, e.message, e.path, e.reason, e.argument, repr(e.value), e.names)


@pytest.fixture
def plans(make_module: Callable[..., types.ModuleType]) -> Callable[[str], tuple[Any, Any]]:
    module = make_module(TOOLS)

    def made(name: str) -> tuple[Any, Any]:
        tool, derived = derive_function(getattr(module, name))
        resolver = loading.LiveObjects(derived.classes, {})
        fn = getattr(module, name)
        return build_plan(tool, fn, resolver), build_plan(tool, fn, resolver, fast=False)

    return made


_LEAF = st.none() | st.booleans() | st.integers(-2, 3) | st.floats(-1, 2) | st.text(max_size=5)
_VALUES = st.recursive(
    _LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=5,
) | st.sampled_from(["2026-01-02", "air", "A", 1, 2.0, True, {"sku": "A", "qty": 0}])


def _slots(container: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) of a value, nested ones too."""
    found: list[tuple[Any, Any]] = []
    keys = list(container) if isinstance(container, dict) else range(len(container))
    for key in keys:
        found.append((container, key))
        if isinstance(container[key], dict | list):
            found += _slots(container[key])
    return found


@st.composite
def disturbed(draw: st.DrawFn) -> dict[str, Any]:
    """The valid call with a few values anywhere in it replaced, removed or added."""
    args: Any = msgspec.json.decode(msgspec.json.encode(VALID))
    for _ in range(draw(st.integers(1, 3))):
        container, key = draw(st.sampled_from(_slots(args)))
        action = draw(st.sampled_from(["replace", "replace", "replace", "remove", "add"]))
        value = copy.deepcopy(draw(_VALUES))  # a sampled value is shared between examples
        if action == "replace":
            container[key] = value
        elif action == "remove" and isinstance(container, dict):
            del container[key]
        elif action == "add" and isinstance(container, dict):
            container[draw(st.sampled_from(["other", "sku", "gift", "count"]))] = value
    return args  # type: ignore[no-any-return]


@settings(
    max_examples=examples(600),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(args=disturbed())
def test_a_located_miss_answers_as_the_general_path(
    plans: Callable[[str], tuple[Any, Any]], args: dict[str, Any]
) -> None:
    """Any disturbed call, one error or several, anywhere: the fast path with its misses
    located answers exactly as the general path alone, and so does its text."""
    fast, general = plans("order")
    expected = answer(general.run(args))
    assert answer(fast.run(args)) == expected
    assert answer(fast.run(msgspec.json.encode(args).decode())) == expected


@settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(args=disturbed())
def test_an_async_tool_locates_its_misses_too(
    plans: Callable[[str], tuple[Any, Any]], args: dict[str, Any]
) -> None:
    """The same for an awaited tool, its arguments as a mapping and as text."""
    fast, general = plans("later")
    args = {key: args[key] for key in ("label", "lines") if key in args}
    expected = answer(asyncio.run(general.arun(args)))
    assert answer(asyncio.run(fast.arun(args))) == expected
    assert answer(asyncio.run(fast.arun(msgspec.json.encode(args).decode()))) == expected


def _walked(plan: Any, args: Any) -> tuple[Any, list[str]]:
    """``plan.run(args)``, and the functions it called of the general path's walk."""
    called: list[str] = []

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name in ("bind", "obj", "item_error"):
            called.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        result = plan.run(args)
    finally:
        sys.setprofile(None)
    return result, called


def test_a_bad_item_is_the_only_one_walked_again(
    plans: Callable[[str], tuple[Any, Any]],
) -> None:
    """The fifth line is bad: the general path's walk never runs, and the item's coercer
    runs on that line alone (``obj``, the TypedDict's coercer, once)."""
    fast, general = plans("order")
    lines = [{"sku": "A", "qty": 1}] * 4 + [{"sku": "A", "qty": 0}]
    args = {**VALID, "lines": lines}
    fast.run(VALID)
    result, called = _walked(fast, args)
    assert answer(result) == answer(general.run(args))
    assert result.error.message == "lines[4].qty: expected at least 1, got 0"
    assert called == ["item_error", "obj"]


def test_a_bad_argument_is_the_only_one_walked_again(
    plans: Callable[[str], tuple[Any, Any]],
) -> None:
    """A bad ``count`` after valid lines and address: only ``count`` is coerced again."""
    fast, general = plans("order")
    args = {**VALID, "count": -1}
    fast.run(VALID)
    result, called = _walked(fast, args)
    assert answer(result) == answer(general.run(args))
    assert result.error.message == "count: expected at least 0, got -1"
    assert called == []


@pytest.mark.parametrize(
    "args",
    [
        {"b": 1, "lines": [{"sku": "A", "qty": 0}]},
        {"a": 1, "b": 1, "lines": [{"sku": "A", "qty": 0}]},
        {"b": "x", "lines": [{"sku": "A", "qty": 0}]},
    ],
)
def test_a_gap_is_named_before_a_bad_value_after_it(
    plans: Callable[[str], tuple[Any, Any]], args: dict[str, Any]
) -> None:
    """A tool with positional-only optionals checks its gaps after the values in the
    generated code, so its misses are not located: the general path names the gap first."""
    fast, general = plans("gapped")
    assert answer(fast.run(args)) == answer(general.run(args))
