"""Arguments may come as JSON text, as OpenAI-style providers send them: ``run``, ``arun``
and a Toolbox's give exactly the answer of ``run(json.loads(text))``; text that is not JSON
answers ``invalid_arguments`` saying why (SPEC 5, "Arguments as text"; issue 38)."""

from __future__ import annotations

import asyncio
import json
import types
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall
from budget import examples

TOOLS = """
__toolcall__ = True

from typing import Literal, TypedDict


class Line(TypedDict):
    sku: str
    qty: int


def order(lines: list[Line], mode: Literal["air", "sea"] = "sea", note: str | None = None) -> dict:
    \"\"\"Place an order.\"\"\"
    return {"lines": lines, "mode": mode, "note": note}


async def later(n: int) -> int:
    \"\"\"Later.\"\"\"
    return n
"""


def _answer(result: toolcall.Ok[Any] | toolcall.Err) -> Any:
    """What a caller sees of a result, comparable whatever the value (NaN included)."""
    if isinstance(result, toolcall.Ok):
        return ("ok", json.dumps(result.value, sort_keys=True))
    error = result.error
    return ("err", error.kind, error.message, error.path, error.reason)


CASES = [
    '{"lines": [{"sku": "A1", "qty": 2}]}',
    '{"lines": [{"sku": "A1", "qty": 2}], "mode": "air", "note": "\\u00e9t\\u00e9"}',
    '{"lines": [{"sku": "A1", "qty": "2"}]}',
    '{"lines": [{"sku": "A1", "qty": NaN}]}',
    '{"lines": [], "mode": "rail"}',
    '{"lines": [], "extra": 1}',
    '{"lines": [], "lines": [{"sku": "B", "qty": 1}]}',
    "[1, 2]",
    '"text"',
    "3",
    "null",
    '"{\\"lines\\": []}"',
]


@pytest.mark.parametrize("text", CASES)
def test_text_gets_the_answer_of_its_decoded_value(
    make_module: Callable[..., types.ModuleType], text: str
) -> None:
    """``run(module, name, text)``, as bytes too, answers as ``run(json.loads(text))``."""
    module = make_module(TOOLS)
    expected = _answer(toolcall.run(module, "order", json.loads(text)))
    assert _answer(toolcall.run(module, "order", text)) == expected
    assert _answer(toolcall.run(module, "order", text.encode())) == expected
    box = toolcall.Toolbox(module)
    assert _answer(box.run("order", text)) == expected
    assert _answer(asyncio.run(box.arun("order", text))) == expected
    assert _answer(asyncio.run(toolcall.arun(module, "order", text))) == expected


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("{bad", "Expecting property name enclosed in double quotes"),
        ("", "Expecting value"),
        ('{"lines": []', "Expecting ',' delimiter"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_text_that_is_not_json_says_why(
    make_module: Callable[..., types.ModuleType], text: str, detail: str
) -> None:
    """Text that is not JSON is ``invalid_arguments``, naming what is wrong with it."""
    module = make_module(TOOLS)
    match toolcall.run(module, "order", text):
        case toolcall.Err(error):
            assert error.kind == "invalid_arguments"
            assert error.message.startswith(
                "arguments must be a JSON object; they are not valid JSON ("
            )
            assert detail in error.message
        case other:
            pytest.fail(f"accepted: {other}")


def test_an_async_tool_takes_text_through_arun(
    make_module: Callable[..., types.ModuleType],
) -> None:
    """``arun`` decodes text for an ``async def`` tool as ``run`` does for a plain one."""
    module = make_module(TOOLS)
    assert asyncio.run(toolcall.arun(module, "later", '{"n": 4}')) == toolcall.Ok(4)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
_ARGS = st.one_of(
    _JSON,
    st.fixed_dictionaries(
        {"lines": st.lists(st.fixed_dictionaries({"sku": _JSON, "qty": _JSON}), max_size=3)},
        optional={"mode": _JSON, "note": _JSON, "other": _JSON},
    ),
)


@settings(max_examples=examples(300), deadline=None)
@given(value=_ARGS)
def test_any_json_text_answers_as_its_value(value: Any) -> None:
    """Whatever the JSON, the text and its decoded value get the same answer."""
    module = _property_module()
    text = json.dumps(value)
    assert _answer(toolcall.run(module, "order", text)) == _answer(
        toolcall.run(module, "order", json.loads(text))
    )


_MODULE: list[types.ModuleType] = []


def _property_module() -> types.ModuleType:
    """One module for every example (hypothesis reuses no function-scoped fixture)."""
    if not _MODULE:
        module = types.ModuleType("toolcall_json_text_tools")
        module.__toolcall__ = True  # type: ignore[attr-defined]
        exec(compile(TOOLS, "<json-text tools>", "exec"), vars(module))
        _MODULE.append(module)
    return _MODULE[0]
