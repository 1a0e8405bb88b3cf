"""SPEC section 3, end to end: annotation -> schema, and what `run` hands the function."""

from __future__ import annotations

import datetime
import decimal
import enum
import pathlib
import uuid
import warnings

import pytest

import toolcall
from toolcall._scalars import DECIMAL_PATTERN, INTEGER_STRING_PATTERN

PRELUDE = """
__toolcall__ = True
import datetime, decimal, pathlib, typing, uuid
from typing import Annotated, Any, Literal, NewType, Optional, TypeVar, TypedDict
from typing import NotRequired, Required
from collections.abc import Mapping, Sequence
import annotated_types, msgspec, typing_extensions
import toolcall
from zoo import Color, Item, Level, Point, Spot, Tag

class Partial(TypedDict, total=False):
    a: Required[int]
    b: int

class ExtItem(typing_extensions.TypedDict):
    a: int
    b: typing_extensions.NotRequired[str]

UserId = NewType("UserId", int)
Num = TypeVar("Num", bound=float)

class Unknown:
    pass
"""


@pytest.fixture
def typed(make_module):
    """A one-parameter tool `f(x: <annotation>)` returning what it receives."""

    def build(annotation: str):
        return make_module(PRELUDE + f"\ndef f(x: {annotation}) -> Any:\n    return x\n")

    return build


def schema_of(module) -> dict:
    return toolcall.describe(module)[0]["parameters"]["properties"]["x"]


def call(module, value):
    return toolcall.run(module, "f", {"x": value})


def reason(module, value) -> str | None:
    result = call(module, value)
    assert isinstance(result, toolcall.Err), result
    return result.error.reason


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("str", {"type": "string"}),
        ("int", {"type": "integer"}),
        ("float", {"type": "number"}),
        ("bool", {"type": "boolean"}),
        ("None", {"type": "null"}),
        ("int | None", {"type": ["integer", "null"]}),
        ("Optional[str]", {"type": ["string", "null"]}),
        ("Literal['a', 'b']", {"type": "string", "enum": ["a", "b"]}),
        ("Literal[1, 2]", {"type": "integer", "enum": [1, 2]}),
        ("Color", {"type": "string", "enum": ["red", "green"], "description": "A colour."}),
        ("Level", {"type": "integer", "enum": [1, 2]}),
        ("list[int]", {"type": "array", "items": {"type": "integer"}}),
        ("list", {"type": "array", "items": {}}),
        ("tuple", {"type": "array", "items": {}}),
        ("tuple[()]", {"type": "array", "minItems": 0, "maxItems": 0}),
        ("Sequence", {"type": "array", "items": {}}),
        ("dict", {"type": "object", "additionalProperties": {}}),
        ("Sequence[str]", {"type": "array", "items": {"type": "string"}}),
        (
            "tuple[int, str]",
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        ("tuple[int, ...]", {"type": "array", "items": {"type": "integer"}}),
        ("set[int]", {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        ("frozenset[str]", {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        ("dict[str, int]", {"type": "object", "additionalProperties": {"type": "integer"}}),
        ("Mapping[str, float]", {"type": "object", "additionalProperties": {"type": "number"}}),
        (
            "Item",
            {
                "type": "object",
                "properties": {
                    "sku": {"type": "string"},
                    "qty": {"type": "integer"},
                    "note": {"type": "string"},
                },
                "required": ["sku", "qty"],
                "additionalProperties": False,
            },
        ),
        (
            "Partial",
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a"],
                "additionalProperties": False,
            },
        ),
        (
            "ExtItem",
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
                "required": ["a"],
                "additionalProperties": False,
            },
        ),
        (
            "Spot",
            {
                "type": "object",
                "properties": {"x": {"type": "number"}, "y": {"type": "number", "default": 0.0}},
                "required": ["x"],
                "additionalProperties": False,
            },
        ),
        (
            "Point",
            {
                "type": "object",
                "description": "A point.",
                "properties": {"x": {"type": "number"}, "y": {"type": "number", "default": 0.0}},
                "required": ["x"],
                "additionalProperties": False,
            },
        ),
        (
            "Tag",
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "weight": {"type": "integer", "default": 1},
                },
                "required": ["name"],
                "additionalProperties": False,
            },
        ),
        ("datetime.datetime", {"type": "string", "format": "date-time"}),
        ("datetime.date", {"type": "string", "format": "date"}),
        ("datetime.time", {"type": "string", "format": "time"}),
        ("uuid.UUID", {"type": "string", "format": "uuid"}),
        ("decimal.Decimal", {"type": "string", "pattern": DECIMAL_PATTERN}),
        ("pathlib.Path", {"type": "string"}),
        ("bytes", {"type": "string", "contentEncoding": "base64"}),
        ("Any", {}),
        ("object", {}),
        ("UserId", {"type": "integer"}),
        ("Num", {"type": "number"}),
        ("Annotated[int, annotated_types.Ge(1)]", {"type": "integer", "minimum": 1}),
        (
            "Annotated[str, msgspec.Meta(pattern='^a', max_length=5)]",
            {"type": "string", "pattern": "^a", "maxLength": 5},
        ),
        (
            "Annotated[int, toolcall.Param(wire='string_integer')]",
            {"type": "string", "pattern": INTEGER_STRING_PATTERN},
        ),
        ("int | str", {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    ],
)
def test_schema(typed, annotation, expected):
    """Each row of the types table renders the exact schema fragment."""
    assert schema_of(typed(annotation)) == expected


def test_unknown_class_is_any_with_warning(typed):
    """A class nothing resolves is `{}` with a warning, and passes through unchanged."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = typed("Unknown")
        schema = schema_of(module)
    assert schema == {}
    assert any("Unknown" in str(w.message) for w in caught)
    assert call(module, {"a": [1]}) == toolcall.Ok({"a": [1]})


@pytest.mark.parametrize(
    ("annotation", "value", "expected"),
    [
        ("str", "Oslo", "Oslo"),
        ("str", b"Oslo", "Oslo"),
        ("int", 5, 5),
        ("int", 5.0, 5),
        ("float", 2, 2.0),
        ("float", 2.5, 2.5),
        ("bool", True, True),
        ("None", None, None),
        ("int | None", None, None),
        ("Literal['a', 'b']", "a", "a"),
        ("Color", "red", "RED"),
        ("list[int]", [1, 2], [1, 2]),
        ("tuple[int, str]", [1, "a"], (1, "a")),
        ("tuple[int, ...]", [1, 2, 3], (1, 2, 3)),
        ("set[int]", [1, 2], {1, 2}),
        ("frozenset[int]", [1], frozenset({1})),
        ("dict[str, int]", {"a": 1}, {"a": 1}),
        ("Item", {"sku": "s", "qty": 1}, {"sku": "s", "qty": 1}),
        (
            "datetime.datetime",
            "2024-05-01T10:00:00Z",
            datetime.datetime(2024, 5, 1, 10, tzinfo=datetime.UTC),
        ),
        ("datetime.date", "2024-05-01", datetime.date(2024, 5, 1)),
        ("datetime.time", "10:30:00Z", datetime.time(10, 30, tzinfo=datetime.UTC)),
        (
            "uuid.UUID",
            "12345678-1234-5678-1234-567812345678",
            uuid.UUID("12345678-1234-5678-1234-567812345678"),
        ),
        ("decimal.Decimal", "1.50", decimal.Decimal("1.50")),
        ("pathlib.Path", "/tmp/x", pathlib.Path("/tmp/x")),
        ("bytes", "aGk=", b"hi"),
        ("Any", [1, {"a": None}], [1, {"a": None}]),
        ("UserId", 7, 7),
        ("Annotated[int, toolcall.Param(wire='string_integer')]", "-42", -42),
        ("Annotated[int, toolcall.Param(wire='string_integer')]", 42, 42),
    ],
)
def test_run_hands_the_function(typed, annotation, value, expected):
    """Each row's third column: the value the function receives."""
    result = call(typed(annotation), value)
    assert isinstance(result, toolcall.Ok), result
    got = result.value
    if isinstance(got, enum.Enum):
        got = got.name
    assert got == expected
    assert type(got) is type(expected)


def test_restores_classes(typed):
    """Dataclass, NamedTuple and Struct arrive as instances, defaults applied."""
    spot = call(typed("Spot"), {"x": 1}).value
    assert (type(spot).__name__, spot.x, spot.y) == ("Spot", 1.0, 0.0)
    point = call(typed("Point"), {"x": 3}).value
    assert (type(point).__name__, tuple(point)) == ("Point", (3.0, 0.0))
    tag = call(typed("Tag"), {"name": "a"}).value
    assert (type(tag).__name__, tag.name, tag.weight) == ("Tag", "a", 1)
    member = call(typed("Level"), 2).value
    assert (type(member).__name__, member.name) == ("Level", "HIGH")


@pytest.mark.parametrize(
    ("annotation", "value", "expected_reason"),
    [
        ("str", "\ud800", "invalid_utf8"),
        ("str", b"\xff", "invalid_utf8"),
        ("int", 5.5, "expected_integer"),
        ("int", "5", "expected_integer"),
        ("int", True, "expected_integer"),
        ("float", True, "expected_number"),
        ("float", float("nan"), "not_finite"),
        ("bool", 1, "expected_boolean"),
        ("Literal['a', 'b']", "c", "not_in_enum"),
        ("Color", "blue", "not_in_enum"),
        ("datetime.datetime", "yesterday", "invalid_datetime"),
        ("datetime.date", "2024-13-01", "invalid_date"),
        ("datetime.time", "25:00", "invalid_time"),
        ("Annotated[int, annotated_types.Ge(1)]", 0, "out_of_range"),
        ("Annotated[str, msgspec.Meta(pattern='^a')]", "b", "pattern_mismatch"),
        ("Annotated[str, msgspec.Meta(min_length=2)]", "a", "too_short"),
        ("Annotated[str, msgspec.Meta(max_length=2)]", "abc", "too_long"),
        (
            "Annotated[int, annotated_types.Ge(1), toolcall.Param(wire='string_integer')]",
            "0",
            "out_of_range",
        ),
        ("Annotated[int, toolcall.Param(wire='string_integer')]", "1.5", "expected_integer_string"),
    ],
)
def test_rejections(typed, annotation, value, expected_reason):
    """Values outside a type's domain are `invalid_argument` with the SPEC's reason."""
    assert reason(typed(annotation), value) == expected_reason


def test_nested_path_and_restoration(make_module):
    """Wire shapes restored at every depth; errors locate the failure with a path."""
    module = make_module(
        PRELUDE
        + """
def order(items: list[Item], where: Spot, tags: set[str] = frozenset()) -> Any:
    return items, where, tags
"""
    )
    ok = toolcall.run(
        module,
        "order",
        {"items": [{"sku": "a", "qty": 1}], "where": {"x": 1, "y": 2}, "tags": ["x"]},
    )
    items, where, tags = ok.value
    assert items == [{"sku": "a", "qty": 1}]
    assert type(where).__name__ == "Spot"
    assert tags == {"x"}
    bad = toolcall.run(
        module,
        "order",
        {
            "items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 1}, {"sku": "c", "qty": "2"}],
            "where": {"x": 1},
        },
    )
    assert bad.error.kind == "invalid_argument"
    assert bad.error.path == ("items", 2, "qty")
    assert bad.error.reason == "expected_integer"
    assert bad.error.value == "2"
    assert bad.error.argument == "items"
    missing = toolcall.run(module, "order", {"items": [{"sku": "a"}], "where": {"x": 1}})
    assert (missing.error.path, missing.error.reason) == (("items", 0, "qty"), "missing_field")
    extra = toolcall.run(module, "order", {"items": [], "where": {"x": 1, "z": 2}})
    assert (extra.error.path, extra.error.reason) == (("where", "z"), "unknown_field")


def test_string_integer_default_and_bounds(typed):
    """A string_integer default travels as a string; its bounds tell the model the range."""
    module = typed(
        "Annotated[int, annotated_types.Ge(1), toolcall.Param(wire='string_integer')] = 5"
    )
    assert schema_of(module) == {
        "type": "string",
        "pattern": INTEGER_STRING_PATTERN,
        "minimum": 1,
        "default": "5",
    }
    assert call(module, "7") == toolcall.Ok(7)
    assert reason(module, "0") == "out_of_range"


# --- an annotation repeated tool after tool ----------------------------------------


def _derived(make_module, source: str) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = make_module(source)
        toolcall.tool_names(module)
    return module, [str(w.message) for w in caught if w.category is toolcall.ToolcallWarning]


def _property(module: object, tool: int, name: str) -> dict:
    return toolcall.emit(module, "openai")[tool]["function"]["parameters"]["properties"][name]


@pytest.fixture
def unions(monkeypatch):
    """The unions the type resolver takes apart, as they are."""
    from toolcall._derive.types import AnnotationReader

    seen: list[tuple[object, ...]] = []
    real = AnnotationReader._union

    def counting(self, args, where):
        seen.append(args)
        return real(self, args, where)

    monkeypatch.setattr(AnnotationReader, "_union", counting)
    return seen


def test_an_annotation_twenty_tools_repeat_is_resolved_once(make_module, unions):
    """Each tool gets the same schema; the union is taken apart once, not twenty times."""
    tools = "\n".join(f"def t{i}(tags: list[str] | None = None) -> None: pass" for i in range(20))
    module, caught = _derived(make_module, f"__toolcall__ = True\n{tools}\n")
    assert not caught
    assert len(unions) == 1
    for i in range(20):
        assert _property(module, i, "tags") == {
            "type": ["array", "null"],
            "items": {"type": "string"},
            "default": None,
        }


def test_a_return_annotation_twenty_tools_repeat_is_resolved_once(make_module, unions):
    """Return types follow the parameters' rule (same text, equal annotation, nothing said),
    and a name rebound between two functions is still each tool's own type."""
    import typing

    from toolcall import ir
    from toolcall._load import warm

    tools = "\n".join(f"def t{i}() -> list[str] | None: pass" for i in range(20))
    rebound = "R = int\ndef a() -> R: pass\nR = str\ndef b() -> R: pass\n"
    module, caught = _derived(make_module, f"__toolcall__ = True\n{tools}\n{rebound}")
    assert not caught
    assert len(unions) == 1
    returns = {tool.name: tool.returns for tool in warm.lookup(module).ir.tools}
    assert {returns[f"t{i}"] for i in range(20)} == {returns["t0"]}
    strings = ir.Type(kind="array", py="list", items=ir.Type(kind="string"), nullable=True)
    assert returns["t0"] == strings
    kinds = {int: "integer", str: "string"}  # what each holds: the same from 3.14 (PEP 649)
    for fn in (module.a, module.b):
        assert returns[fn.__name__] == ir.Type(kind=kinds[typing.get_type_hints(fn)["return"]])


def test_annotations_equal_in_python_keep_the_order_each_was_written_in(make_module):
    """``int | str == str | int`` and ``Literal`` compares its values as a set: each tool's
    schema still lists them as its own annotation does."""
    module, _ = _derived(
        make_module,
        "__toolcall__ = True\nfrom typing import Literal\n"
        "def a(x: int | str, y: Literal['p', 'q']) -> None: pass\n"
        "def b(x: str | int, y: Literal['q', 'p']) -> None: pass\n",
    )
    assert _property(module, 0, "x") == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert _property(module, 1, "x") == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert _property(module, 0, "y")["enum"] == ["p", "q"]
    assert _property(module, 1, "y")["enum"] == ["q", "p"]


def test_one_name_bound_to_two_types_is_each_tools_own(make_module):
    """The same text can mean two types (a name rebound between two functions, read
    eagerly before Python 3.14): each tool gets the type its annotation holds."""
    import typing

    module, _ = _derived(
        make_module,
        "__toolcall__ = True\nX = int\ndef a(v: X) -> None: pass\n"
        "X = str\ndef b(v: X) -> None: pass\n",
    )
    names = {int: "integer", str: "string"}
    for index, fn in enumerate((module.a, module.b)):
        assert _property(module, index, "v") == {"type": names[typing.get_type_hints(fn)["v"]]}


def test_an_annotation_that_warns_warns_for_every_tool(make_module):
    """An annotation that warns does so for every tool using it, though it is resolved once."""
    module, caught = _derived(
        make_module,
        "__toolcall__ = True\n"
        + "".join(f"def t{i}(m: dict[int, str]) -> None: pass\n" for i in range(3)),
    )
    said = [m for m in caught if "JSON object keys are strings" in m]
    assert [m.partition(":")[0] for m in said] == ["t0(m)", "t1(m)", "t2(m)"]
    for i in range(3):
        assert _property(module, i, "m") == {
            "type": "object",
            "additionalProperties": {"type": "string"},
        }
