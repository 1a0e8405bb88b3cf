"""The error path made cheaper (issue 38.3) says exactly what it said: a short value is shown
as the walk shows it, an error built by the constructors equals the one its dataclass builds,
a list's items restored by generated code first get their coercer's answer, and JSON text the
typed route refuses is decoded once and walked only from where the decoder stopped, when
what it read before is checked."""

from __future__ import annotations

import dataclasses
import json
import sys
import types
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall
from budget import examples
from fakes import FakeResolver
from toolcall import ir
from toolcall._dispatch import plan
from toolcall._dispatch.coerce import Invalid, build_coercer
from toolcall._dispatch.fastpath import quick_items
from toolcall._dispatch.result import (
    ToolError,
    _glimpse,
    _short,
    _where,
    format_path,
    one_line,
)


@settings(max_examples=examples(500), deadline=None)
@given(
    value=st.text(max_size=40)
    | st.text(st.characters(max_codepoint=127), max_size=40)
    | st.integers()
    | st.integers(-(10**60), 10**60)
)
def test_a_short_value_is_shown_as_the_walk_shows_it(value: str | int) -> None:
    """The shortcut for short printable ASCII text and integers gives the walk's answer, for
    any text and integer."""
    assert _short(value) == one_line(_glimpse(value, 3), 60)


_LONG = "\n" * 400
CONSTRUCTED = [
    (
        lambda: ToolError.invalid_argument(("items", 2, "qty"), "out_of_range", 0, ("minimum", 1)),
        "invalid_argument",
        "items[2].qty: expected at least 1, got 0",
        ("items", ("items", 2, "qty"), "out_of_range", 0, ()),
    ),
    (
        lambda: ToolError.missing_argument("city"),
        "missing_argument",
        "city: required argument missing",
        ("city", (), None, None, ()),
    ),
    (
        lambda: ToolError.unknown_arguments(("zz",), ("city", "days")),
        "unknown_arguments",
        "unknown argument zz; this tool takes: city, days",
        (None, (), None, None, ("zz",)),
    ),
    (
        lambda: ToolError.invalid_argument(("x",), "expected_string", _LONG),
        "invalid_argument",
        one_line("x: expected a string, got " + _short(_LONG)),
        ("x", ("x",), "expected_string", _LONG, ()),
    ),
]


@settings(max_examples=examples(300), deadline=None)
@given(path=st.lists(st.text(max_size=90) | st.integers(-2, 12), min_size=1, max_size=3).map(tuple))
def test_a_path_starts_the_message_as_the_walk_writes_it(path: tuple[str | int, ...]) -> None:
    """The shortcut for a top-level argument's name gives what ``format_path`` and
    ``one_line`` give, for any path."""
    assert _where(path) == one_line(format_path(path), 80)


@pytest.mark.parametrize(("built", "kind", "message", "rest"), CONSTRUCTED)
def test_constructed_errors_equal_their_dataclass(
    built: Callable[[], ToolError], kind: str, message: str, rest: tuple[Any, ...]
) -> None:
    """What a constructor builds equals (and hashes as) the dataclass built from the same
    fields, its message bounded to one line, and stays frozen."""
    error = built()
    assert error == ToolError(kind, message, *rest)
    assert repr(error) == repr(ToolError(kind, message, *rest))
    assert len(error.message) <= 300
    assert dataclasses.replace(error, message="m").message == "m"
    with pytest.raises(dataclasses.FrozenInstanceError):
        error.message = "changed"  # type: ignore[misc]


TOOLS = """
from typing import Annotated
from typing_extensions import TypedDict
from annotated_types import Ge

__toolcall__ = True


class Line(TypedDict):
    sku: str
    qty: Annotated[int, Ge(1)]


def order(lines: list[Line], note: str = "") -> int:
    \"\"\"Order.\"\"\"
    return len(lines)


def tagged(tag: int, lines: list[Line]) -> int:
    \"\"\"An argument before the list.\"\"\"
    return len(lines)
"""


def _traced(
    module: types.ModuleType, text: str, name: str = "order"
) -> tuple[toolcall.Ok[Any] | toolcall.Err, Any]:
    """``run(module, name, text)``, and which functions it called: the generated fast
    path, the generated item restorer, the general path's ``bind``."""
    called: list[str] = []

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            generated = code.co_filename.startswith("<toolcall ")
            called.append(code.co_filename.split()[1] if generated else code.co_name)

    sys.setprofile(profile)
    try:
        result = toolcall.run(module, name, text)
    finally:
        sys.setprofile(None)
    return result, called


def test_refused_text_is_decoded_once_and_only_the_bad_item_is_walked(
    make_module: Callable[..., types.ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text with one invalid item: the typed route refuses it there, msgspec decodes it once
    (``json.loads`` never), and only that item is walked: neither the items before it nor
    the general path run again. The message is the one its decoded value gets."""
    module = make_module(TOOLS)
    lines = [{"sku": f"A{i}", "qty": 1} for i in range(5)] + [{"sku": "Z", "qty": 0}]
    text = json.dumps({"lines": lines})
    expected = toolcall.run(module, "order", json.loads(text))
    assert isinstance(expected, toolcall.Err)
    toolcall.run(module, "order", text)  # prepared, the decoder built
    decodes: list[Any] = []
    untyped = plan._untyped
    monkeypatch.setattr(plan, "_untyped", lambda text: decodes.append(text) or untyped(text))
    monkeypatch.setattr(json, "loads", lambda *a, **k: pytest.fail("json.loads ran"))
    result, called = _traced(module, text)
    assert result == expected
    assert expected.error.message == "lines[5].qty: expected at least 1, got 0"
    assert decodes == [text]
    assert [name for name in called if name in ("fast_order", "restore_item", "bind")] == [
        "fast_order"
    ]


_BAD_SECOND = '{"lines": [{"sku": "A", "qty": 1}, {"sku": "A", "qty": 0}]'
"""Arguments whose list the decoder refuses at its second item."""
_OTHER = '"{}": [{{"sku": "A", "qty": -1}}, {{"sku": 5, "qty": 1}}]}}'
"""A second copy of the list whose first item is bad, and whose second is bad otherwise."""


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # the list twice: the copy the decoder stopped in is not the one json.loads keeps
        ("order", f"{_BAD_SECOND}, {_OTHER.format('lines')}"),
        # its name escaped, so a second copy could hide
        ("order", _BAD_SECOND + ", " + _OTHER.format("l\\u0069nes")),
        # an unknown argument after it, which the general path names first
        ("order", f'{_BAD_SECOND}, "other": 1}}'),
        # an argument declared before it, given after it: unread when the decoder stopped
        ("tagged", f'{_BAD_SECOND}, "tag": "x"}}'),
    ],
)
def test_a_refusal_that_cannot_be_trusted_is_walked_from_the_start(
    make_module: Callable[..., types.ModuleType], name: str, text: str
) -> None:
    """Where the place the decoder stopped says nothing about what comes before it, the
    decoded arguments are walked from their start and answer as ``json.loads(text)``'s."""
    module = make_module(TOOLS)
    expected = toolcall.run(module, name, json.loads(text))
    toolcall.run(module, name, text)
    result, called = _traced(module, text, name)
    assert result == expected
    assert called.count(f"fast_{name}") == 2  # the typed attempt, then the decoded arguments


@dataclasses.dataclass
class Point:
    x: int
    y: float = 0.0


_POINT = ir.Type(
    kind="object",
    py="dataclass",
    ref="tests:Point",
    fields=(
        ir.Field(name="x", type=ir.Type(kind="integer")),
        ir.Field(name="y", type=ir.Type(kind="number"), required=False),
    ),
)
_LINE = ir.Type(
    kind="object",
    py="dict",
    fields=(
        ir.Field(name="sku", type=ir.Type(kind="string", max_length=3)),
        ir.Field(name="qty", type=ir.Type(kind="integer", minimum=1)),
        ir.Field(name="gift", type=ir.Type(kind="boolean"), required=False),
    ),
)
LISTS = {
    "lines": ir.Type(kind="array", py="list", items=_LINE),
    "points": ir.Type(kind="array", items=_POINT),
    "rows": ir.Type(
        kind="array", py="list", items=ir.Type(kind="array", items=ir.Type(kind="integer"))
    ),
}
_SCALAR = st.none() | st.booleans() | st.integers(-2, 3) | st.floats(-1, 2) | st.text(max_size=4)
_ITEM = (
    st.fixed_dictionaries(
        {"sku": _SCALAR, "qty": _SCALAR}, optional={"gift": _SCALAR, "other": _SCALAR}
    )
    | st.fixed_dictionaries({"x": _SCALAR}, optional={"y": _SCALAR, "z": _SCALAR})
    | st.lists(_SCALAR, max_size=3)
    | _SCALAR
)


def _outcome(coerce: Callable[[Any], Any], value: Any) -> Any:
    try:
        return ("ok", repr(coerce(value)))
    except Invalid as error:
        return ("invalid", error.reason, error.path, repr(error.value), repr(error.rule))


@settings(max_examples=examples(500), deadline=None)
@given(
    name=st.sampled_from(sorted(LISTS)),
    value=st.lists(_ITEM, max_size=5) | st.lists(_ITEM, max_size=3).map(tuple) | _SCALAR,
)
def test_items_restored_by_generated_code_get_the_coercers_answer(name: str, value: Any) -> None:
    """A list whose items generated code restores first answers as its coercer does, the
    value or the first bad item's error at its index, whatever the items."""
    resolver = FakeResolver({"tests:Point": Point})
    t = LISTS[name]
    plain = build_coercer(t, resolver)
    quick, item = quick_items(t, resolver, plain)
    assert quick is not plain
    assert item is not None
    assert _outcome(quick, value) == _outcome(plain, value)
