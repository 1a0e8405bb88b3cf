"""The error path made cheaper (issue 38.3) says exactly what it said: a short value is shown
as the walk shows it, an error built by the constructors equals the one its dataclass builds,
and JSON text the typed route refuses is decoded once and walked once, by the general path."""

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
from toolcall._dispatch.result import (
    ToolError,
    _glimpse,
    _short,
    _where,
    format_path,
    one_line,
)


@settings(max_examples=examples(500), deadline=None)
@given(text=st.text(max_size=40) | st.text(st.characters(max_codepoint=127), max_size=40))
def test_a_short_text_is_shown_as_the_walk_shows_it(text: str) -> None:
    """The shortcut for short printable ASCII text gives the walk's answer, for any text."""
    assert _short(text) == one_line(_glimpse(text, 3), 60)


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
"""


def test_refused_text_is_decoded_once_and_walked_once(
    make_module: Callable[..., types.ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text with one invalid value: the typed route refuses it, ``json.loads`` decodes it
    once, and the generated fast path runs once (the typed attempt) before the general path
    phrases the error; the message is the one its decoded value gets."""
    module = make_module(TOOLS)
    lines = [{"sku": f"A{i}", "qty": 1} for i in range(5)] + [{"sku": "Z", "qty": 0}]
    text = json.dumps({"lines": lines})
    expected = toolcall.run(module, "order", json.loads(text))
    assert isinstance(expected, toolcall.Err)
    toolcall.run(module, "order", text)  # prepared, the decoder built
    decodes: list[Any] = []
    loads = json.loads

    def counted(*args: Any, **kwargs: Any) -> Any:
        decodes.append(args)
        return loads(*args, **kwargs)

    monkeypatch.setattr(json, "loads", counted)
    fast_calls: list[str] = []

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_name == "fast":
            fast_calls.append(frame.f_code.co_filename)

    sys.setprofile(profile)
    try:
        result = toolcall.run(module, "order", text)
    finally:
        sys.setprofile(None)
    assert result == expected
    assert expected.error.message == "lines[5].qty: expected at least 1, got 0"
    assert len(decodes) == 1
    assert len(fast_calls) == 1
