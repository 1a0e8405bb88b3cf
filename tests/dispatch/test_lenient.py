"""A nested array or object sent as JSON text is read as the value it spells (issue 5.3)."""

from __future__ import annotations

import asyncio
import dataclasses
import types
from collections.abc import Callable
from typing import Any

import pytest

import toolcall
from fakes import FakeResolver
from toolcall import ir
from toolcall._dispatch.plan import build_plan
from toolcall._dispatch.result import Err, Ok, ToolError

T = ir.Type

SOURCE = """
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypedDict

import toolcall

__toolcall__ = True


class Line(TypedDict):
    sku: str
    qty: int


@dataclass
class Address:
    street: str
    tags: list[str]


def numbers(xs: list[int]) -> Any:
    return xs


def pair(p: tuple[int, str]) -> Any:
    return p


def unique(s: set[int], f: frozenset[str] = frozenset()) -> Any:
    return s, f


def table(d: dict[str, int]) -> Any:
    return d


def ship(to: Address) -> Any:
    return to


def order(lines: list[Line]) -> Any:
    return lines


def grid(rows: list[list[int]]) -> Any:
    return rows


def maybe(xs: list[int] | None = None) -> Any:
    return xs


def either(v: list[int] | dict[str, int]) -> Any:
    return v


def text(s: str) -> Any:
    return s


def anything(v: Any) -> Any:
    return v


def loose(xs: list[Any]) -> Any:
    return xs


def list_or_text(v: list[str] | str) -> Any:
    return v


def list_or_word(v: list[int] | Literal["none"]) -> Any:
    return v


def list_or_number(v: list[int] | Literal[0, 1]) -> Any:
    return v


def ids(
    v: list[Annotated[int, toolcall.Param(wire="string_integer")]],
) -> Any:
    return v


def extra(a: int, **more: list[int]) -> Any:
    return a, more


async def later(xs: list[int]) -> Any:
    return xs
"""


@pytest.fixture
def mod(make_module: Callable[..., types.ModuleType]) -> types.ModuleType:
    return make_module(SOURCE)


def ok(result: Ok[Any] | Err) -> Any:
    assert isinstance(result, Ok), result
    return result.value


def err(result: Ok[Any] | Err) -> ToolError:
    assert isinstance(result, Err), result
    return result.error


def invalid(error: ToolError) -> tuple[Any, ...]:
    """What the model is told about an invalid argument: where, why and which value."""
    assert error.kind == "invalid_argument", error
    return error.path, error.reason, error.value


def same(actual: Any, expected: Any) -> bool:
    """Equal and of the same type, so that [1] and (1,) (or 5 and 5.0) are told apart."""
    return type(actual) is type(expected) and actual == expected


# -- decoded where no string is acceptable -------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("numbers", {"xs": "[1, 2]"}, [1, 2]),
        ("numbers", {"xs": " \n\t[1, 2.0] \r\n"}, [1, 2]),
        ("numbers", {"xs": "[]"}, []),
        ("pair", {"p": '[1, "a"]'}, (1, "a")),
        ("unique", {"s": "[3, 1]", "f": '["x"]'}, ({1, 3}, frozenset({"x"}))),
        ("table", {"d": '{"a": 1, "b": 2}'}, {"a": 1, "b": 2}),
        ("table", {"d": "{}"}, {}),
        ("maybe", {"xs": "[7]"}, [7]),
        ("maybe", {"xs": None}, None),
        ("either", {"v": "[1]"}, [1]),
        ("either", {"v": '{"a": 1}'}, {"a": 1}),
        ("list_or_number", {"v": "[1]"}, [1]),
        ("ids", {"v": '["5", 6]'}, [5, 6]),
    ],
)
def test_json_text_is_decoded_where_no_string_fits(
    mod: types.ModuleType, tool: str, args: dict[str, Any], expected: Any
) -> None:
    """An array/object/union without a string variant takes JSON text and restores its value."""
    assert same(ok(toolcall.run(mod, tool, args)), expected)


def test_decoded_objects_are_restored_as_declared(mod: types.ModuleType) -> None:
    """A dataclass sent as JSON text arrives as the dataclass; a TypedDict as a dict."""
    address = ok(toolcall.run(mod, "ship", {"to": '{"street": "Main 1", "tags": ["a"]}'}))
    assert dataclasses.asdict(address) == {"street": "Main 1", "tags": ["a"]}
    assert type(address).__name__ == "Address"
    assert ok(toolcall.run(mod, "order", {"lines": '[{"sku": "A", "qty": 2}]'})) == [
        {"sku": "A", "qty": 2}
    ]


def test_json_text_is_decoded_at_every_depth(mod: types.ModuleType) -> None:
    """Items, fields and text inside decoded text are decoded where their own type says so."""
    assert ok(toolcall.run(mod, "order", {"lines": ['{"sku": "A", "qty": 1}']})) == [
        {"sku": "A", "qty": 1}
    ]
    assert ok(toolcall.run(mod, "grid", {"rows": ["[1, 2]", [3]]})) == [[1, 2], [3]]
    assert ok(toolcall.run(mod, "grid", {"rows": '["[1]", "[2, 3]"]'})) == [[1], [2, 3]]
    address = ok(toolcall.run(mod, "ship", {"to": {"street": "x", "tags": '["a", "b"]'}}))
    assert address.tags == ["a", "b"]
    twice = '{"street": "x", "tags": "[\\"a\\"]"}'
    assert ok(toolcall.run(mod, "ship", {"to": twice})).tags == ["a"]


def test_kwargs_values_and_async_tools_decode_too(mod: types.ModuleType) -> None:
    """``**kwargs`` values and arun take the same JSON text as any other value."""
    assert ok(toolcall.run(mod, "extra", {"a": 1, "b": "[2]"})) == (1, {"b": [2]})
    assert ok(asyncio.run(toolcall.arun(mod, "later", {"xs": "[1]"}))) == [1]


# -- never where a string is acceptable ----------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("text", {"s": "[1, 2]"}, "[1, 2]"),
        ("text", {"s": '{"a": 1}'}, '{"a": 1}'),
        ("anything", {"v": "[1, 2]"}, "[1, 2]"),
        ("loose", {"xs": ["[1]", '{"a": 1}']}, ["[1]", '{"a": 1}']),
        ("list_or_text", {"v": '["a"]'}, '["a"]'),
        ("list_or_text", {"v": ["a"]}, ["a"]),
    ],
)
def test_a_string_that_fits_is_never_decoded(
    mod: types.ModuleType, tool: str, args: dict[str, Any], expected: Any
) -> None:
    """str, Any, and a union with a string variant keep JSON text as the text it is."""
    assert same(ok(toolcall.run(mod, tool, args)), expected)


def test_a_union_with_a_string_enum_does_not_decode(mod: types.ModuleType) -> None:
    """A union one of whose variants takes some string does not decode in any variant."""
    assert invalid(err(toolcall.run(mod, "list_or_word", {"v": "[1]"}))) == (
        ("v",),
        "no_matching_type",
        "[1]",
    )
    assert ok(toolcall.run(mod, "list_or_word", {"v": "none"})) == "none"


# -- what does not decode keeps the original error -----------------------------------------------


@pytest.mark.parametrize(
    ("tool", "name", "value", "reason"),
    [
        ("numbers", "xs", "[1, 2", "expected_array"),
        ("numbers", "xs", "[1] and more", "expected_array"),
        ("numbers", "xs", "", "expected_array"),
        ("numbers", "xs", "1, 2", "expected_array"),
        ("numbers", "xs", '{"a": 1}', "expected_array"),
        ("numbers", "xs", "null", "expected_array"),
        ("numbers", "xs", "\u00a0[1]", "expected_array"),
        ("numbers", "xs", '["\ud800"]', "expected_array"),
        ("numbers", "xs", "[" * 100_000 + "]" * 100_000, "expected_array"),
        ("numbers", "xs", b"[1]", "expected_array"),
        ("pair", "p", "[1, ", "expected_array"),
        ("table", "d", "[1]", "expected_object"),
        ("table", "d", '{"a": }', "expected_object"),
        ("ship", "to", "{", "expected_object"),
    ],
)
def test_undecodable_text_keeps_the_original_error(
    mod: types.ModuleType, tool: str, name: str, value: Any, reason: str
) -> None:
    """Malformed, too deep, the other container, or not str: the shape error, with the text."""
    error = err(toolcall.run(mod, tool, {name: value}))
    assert invalid(error) == ((name,), reason, value)


def test_either_keeps_a_bare_mismatch_for_undecodable_text(mod: types.ModuleType) -> None:
    """A union whose variants all refuse the text reports no_matching_type with the text."""
    assert invalid(err(toolcall.run(mod, "either", {"v": "[1,"}))) == (
        ("v",),
        "no_matching_type",
        "[1,",
    )


def test_errors_inside_decoded_text_have_their_path(mod: types.ModuleType) -> None:
    """A decoded value is validated like one sent as JSON: the error is located inside it."""
    assert invalid(err(toolcall.run(mod, "numbers", {"xs": '[1, "x"]'}))) == (
        ("xs", 1),
        "expected_integer",
        "x",
    )
    assert invalid(err(toolcall.run(mod, "numbers", {"xs": "[true]"}))) == (
        ("xs", 0),
        "expected_integer",
        True,
    )
    assert invalid(err(toolcall.run(mod, "ship", {"to": '{"street": 5, "tags": []}'}))) == (
        ("to", "street"),
        "expected_string",
        5,
    )
    assert invalid(err(toolcall.run(mod, "ship", {"to": '{"street": "x"}'}))) == (
        ("to", "tags"),
        "missing_field",
        None,
    )
    assert invalid(err(toolcall.run(mod, "pair", {"p": "[1]"}))) == (("p",), "wrong_length", [1])
    assert invalid(err(toolcall.run(mod, "either", {"v": '[1, "x"]'}))) == (
        ("v", 1),
        "expected_integer",
        "x",
    )
    assert invalid(err(toolcall.run(mod, "order", {"lines": ['{"sku": 1, "qty": 1}']}))) == (
        ("lines", 0, "sku"),
        "expected_string",
        1,
    )


# -- hand-built IR -------------------------------------------------------------------------------


INTS = T(kind="array", py="list", items=T(kind="integer"))
MAPPING = T(kind="object", py="dict", additional=T(kind="integer"))


def call(t: ir.Type, value: Any) -> Ok[Any] | Err:
    tool = ir.Tool(name="f", parameters=(ir.Parameter(name="v", type=t),))
    return build_plan(tool, lambda v: v, FakeResolver()).run({"v": value})


@pytest.mark.parametrize(
    ("t", "value", "expected"),
    [
        (INTS, "[1]", [1]),
        (T(kind="union", variants=(T(kind="integer"), INTS)), "[1]", [1]),
        (T(kind="union", variants=(MAPPING, INTS), nullable=True), '{"a": 1}', {"a": 1}),
        (T(kind="union", variants=(T(kind="enum", values=(1, 2)), INTS)), "[1]", [1]),
        (T(kind="union", variants=(T(kind="union", variants=(INTS, MAPPING)),)), "[2]", [2]),
        (T(kind="union", variants=(T(kind="string"), INTS)), "[1]", "[1]"),
        (T(kind="union", variants=(INTS, T(kind="any"))), "[1]", "[1]"),
        (
            T(kind="union", variants=(T(kind="union", variants=(INTS, MAPPING)), T(kind="string"))),
            "[1]",
            "[1]",
        ),
        (
            T(kind="object", fields=(ir.Field(name="xs", type=INTS),)),
            '{"xs": "[1]"}',
            {"xs": [1]},
        ),
    ],
)
def test_hand_built_ir_decodes_by_the_same_rule(t: ir.Type, value: Any, expected: Any) -> None:
    """Nested unions too: any string-taking variant, at any level of the union, stops decoding."""
    assert same(ok(call(t, value)), expected)


def test_hand_built_union_of_containers_with_a_string_inside_keeps_text() -> None:
    """A union reached through a string-taking outer union never decodes, even when nested."""
    inner = T(kind="union", variants=(INTS, MAPPING))
    outer = T(kind="union", variants=(inner, T(kind="enum", values=("x",))))
    assert invalid(err(call(outer, "[1]"))) == (("v",), "no_matching_type", "[1]")
