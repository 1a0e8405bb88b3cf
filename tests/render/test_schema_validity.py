"""Every emitted schema is valid JSON Schema 2020-12, and the strict variants stay inside
OpenAI's documented strict-mode limits (``check_strict``) (issue 5.4)."""

from __future__ import annotations

import importlib
import sys
import textwrap
import types
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema
import pytest

import toolcall
from toolcall import ir
from toolcall._load.warm import lookup
from toolcall._render.limits import (
    MAX_ENUM_VALUES,
    MAX_PROPERTIES,
    MAX_TOTAL_CHARS,
    SUPPORTED_FORMATS,
)
from toolcall._render.schema import strict_problems
from toolcall._render.strict import check_strict
from work import count_calls

BROAD_SOURCE = '''
from __future__ import annotations

import datetime as dt
import decimal
import pathlib
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import (
    Annotated, Any, Literal, NewType, NotRequired, Optional, Required, TypedDict, TypeVar,
)

import annotated_types
import msgspec
import typing_extensions

import toolcall
from zoo import Color, Level, Point

__toolcall__ = True


class Money:
    def __init__(self, text: str) -> None:
        self.text = text


class MoneyType:
    def resolve(self, tp, args):
        if tp is Money:
            return toolcall.ir.Type(kind="string", pattern=r"^-?\\d+\\.\\d{2}$")
        return None

    def coerce(self, value):
        return Money(value)


__toolcall_types__ = [MoneyType]

UserId = NewType("UserId", int)
N = TypeVar("N", bound=float)
Location = tuple[float, float]
"""A lat/lon pair."""


class Tag(msgspec.Struct):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=20, pattern="^[a-z]+$")]
    weight: float = 1.0


class Options(TypedDict, total=False):
    verbose: Required[bool]
    depth: int
    label: NotRequired[str]


class Legacy(typing_extensions.TypedDict):
    code: str
    note: typing_extensions.NotRequired[str]


@dataclass
class Node:
    """A tree node."""

    value: int
    children: list[Node] = field(default_factory=list)


@dataclass
class Bounds:
    low: Annotated[int, annotated_types.Ge(0), annotated_types.Lt(10)]
    ratio: Annotated[
        float, annotated_types.Gt(0), annotated_types.Le(1), annotated_types.MultipleOf(0.5)
    ]
    count: Annotated[int, msgspec.Meta(ge=1, le=99)] = 1


class Opaque:
    pass


def scalars(
    s: str, i: int, f: float, b: bool, n: None = None, o: Optional[int] = None, u: int | str = 0
) -> None:
    """Scalars, optionals and a union."""


def choices(
    color: Color, level: Level, mode: Literal["a", "b", 3], maybe: Literal["x"] | None = None
) -> None:
    """Enums and literals."""


def containers(
    xs: list[int],
    seq: Sequence[str],
    pair: tuple[int, str],
    where: Location,
    many: tuple[float, ...],
    empty: tuple[()],
    tags: set[str],
    frozen: frozenset[int],
    mapping: dict[str, int],
    ro: Mapping[str, Any],
    raw: dict,
    bare: list,
    nested: list[dict[str, list[int]]] | None = None,
) -> None:
    """Arrays, tuples, sets and dicts."""


def structured(
    opts: Options,
    legacy: Legacy,
    point: Point,
    tag: Tag,
    tree: Node,
    bounds: Bounds,
    tags: list[Tag] | None = None,
    either: Point | Tag | None = None,
) -> None:
    """TypedDict, NamedTuple, Struct, recursive dataclass, constraints."""


def values(
    when: dt.datetime,
    day: dt.date,
    at: dt.time,
    ident: uuid.UUID,
    amount: decimal.Decimal,
    path: pathlib.Path,
    blob: bytes,
    anything: Any,
    thing: object,
    user: UserId,
    bound: N,
    price: Money,
    opaque: Opaque,
    snowflake: Annotated[int, toolcall.Param(wire="string_integer")],
    size: Annotated[str, annotated_types.MinLen(2), annotated_types.MaxLen(5)],
    since: dt.date = dt.date(2024, 1, 1),
    days: int = 3,
) -> None:
    """Datetimes, UUID, Decimal, Path, bytes, Any, NewType, TypeVar, providers, wire."""


def extra(city: str, **options: int) -> None:
    """Open arguments object."""


def nothing() -> None:
    """No parameters at all."""
'''

VARIANTS = [(fmt, strict) for fmt in ("openai", "anthropic", "mcp") for strict in (False, True)]
MODULES = ["examples.weather", "examples.orders", "broad"]


@pytest.fixture(scope="module")
def broad(tmp_path_factory: pytest.TempPathFactory) -> Iterator[types.ModuleType]:
    """The broad tool module, written to disk and imported for real (hook and cache)."""
    directory = tmp_path_factory.mktemp("broad")
    name = "tc_schema_validity_broad"
    (directory / f"{name}.py").write_text(textwrap.dedent(BROAD_SOURCE))
    sys.path.insert(0, str(directory))
    importlib.invalidate_caches()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", toolcall.ToolcallWarning)
            module = importlib.import_module(name)
            lookup(module)
        yield module
    finally:
        sys.path.remove(str(directory))
        sys.modules.pop(name, None)


def module_named(name: str, broad: types.ModuleType) -> types.ModuleType | str:
    return broad if name == "broad" else name


def schema_of(definition: dict[str, Any], fmt: str) -> dict[str, Any]:
    if fmt == "openai":
        return definition["function"]["parameters"]  # type: ignore[no-any-return]
    if fmt == "anthropic":
        return definition["input_schema"]  # type: ignore[no-any-return]
    if fmt == "mcp":
        return definition["inputSchema"]  # type: ignore[no-any-return]
    return definition["parameters"]  # type: ignore[no-any-return]


def obj(**properties: Any) -> dict[str, Any]:
    """A closed object requiring every property: the shape strict mode wants."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


STRING: dict[str, Any] = {"type": "string"}


# -- JSON Schema 2020-12 -----------------------------------------------------------------


@pytest.mark.parametrize("module_name", MODULES)
@pytest.mark.parametrize(("fmt", "strict"), [*VARIANTS, ("describe", False)])
def test_every_variant_passes_the_2020_12_metaschema(
    broad: types.ModuleType, module_name: str, fmt: str, strict: bool
) -> None:
    """Every tool schema of every variant is a valid JSON Schema 2020-12 document."""
    module = module_named(module_name, broad)
    if fmt == "describe":
        definitions = toolcall.describe(module)
    else:
        definitions = toolcall.emit(module, fmt, strict=strict)
    assert [d["name"] if fmt != "openai" else d["function"]["name"] for d in definitions] == list(
        toolcall.tool_names(module)
    )
    for definition in definitions:
        jsonschema.Draft202012Validator.check_schema(schema_of(definition, fmt))


def test_metaschema_check_rejects_broken_schemas() -> None:
    """The metaschema check above can fail: a bad type, required or pattern is an error."""
    for broken in (
        {"type": "strnig"},
        {"type": "object", "required": "city"},
        {"type": "string", "pattern": "("},
    ):
        with pytest.raises(jsonschema.SchemaError):
            jsonschema.Draft202012Validator.check_schema(broken)


def test_broad_module_covers_every_kind_of_the_types_table(broad: types.ModuleType) -> None:
    """The broad module exercises every IR kind, every ``py`` value, providers and wires."""
    seen: set[tuple[str, str]] = set()
    extras: set[str] = set()

    def visit(t: ir.Type) -> None:
        seen.add((t.kind, t.py))
        extras.update(
            name
            for name, present in (
                ("nullable", t.nullable),
                ("wire", t.wire),
                ("provider", t.provider),
                ("prefix_items", t.prefix_items),
                ("unique_items", t.unique_items),
                ("additional", t.additional),
                ("format", t.format),
                ("pattern", t.pattern),
                ("content_encoding", t.content_encoding),
                ("min_length", t.min_length is not None),
                ("minimum", t.minimum is not None),
                ("exclusive_maximum", t.exclusive_maximum is not None),
                ("multiple_of", t.multiple_of is not None),
            )
            if present
        )
        for child in (t.items, t.additional, *t.prefix_items, *t.variants):
            if child is not None:
                visit(child)
        for f in t.fields:
            visit(f.type)

    for tool in lookup(broad).ir.tools:
        for p in tool.parameters:
            visit(p.type)
        if tool.kwargs is not None:
            visit(tool.kwargs)
    expected = {
        ("any", ""),
        ("null", ""),
        ("boolean", ""),
        ("integer", ""),
        ("number", ""),
        *(("string", py) for py in ("", "bytes", "datetime", "date", "time", "uuid", "decimal")),
        ("string", "path"),
        ("enum", "literal"),
        ("enum", "enum"),
        *(("array", py) for py in ("list", "tuple", "set", "frozenset")),
        *(("object", py) for py in ("dict", "dataclass", "namedtuple", "struct")),
        ("union", ""),
    }
    assert expected <= seen
    assert extras == {
        "nullable",
        "wire",
        "provider",
        "prefix_items",
        "unique_items",
        "additional",
        "format",
        "pattern",
        "content_encoding",
        "min_length",
        "minimum",
        "exclusive_maximum",
        "multiple_of",
    }


# -- the strict variants against OpenAI's limits -------------------------------------------


@pytest.mark.parametrize("module_name", ["examples.weather", "examples.orders"])
@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_examples_strict_variants_pass_check_strict(module_name: str, fmt: str) -> None:
    """The examples' strict schemas are inside every documented limit, with nothing to warn."""
    for definition in toolcall.emit(module_name, fmt, strict=True):
        assert check_strict(definition) == []
    for tool in lookup(module_name).ir.tools:
        assert strict_problems(tool) == []


BROAD_STRICT_PROBLEMS = [
    "containers: $.properties.bare.items: no type: it accepts any value, which strict mode "
    "cannot express",
    "structured: $.properties.tree.properties.children.items: no type: it accepts any value, "
    "which strict mode cannot express",
    "values: $.properties.anything: no type: it accepts any value, which strict mode cannot "
    "express",
    "values: $.properties.thing: no type: it accepts any value, which strict mode cannot express",
    "values: $.properties.opaque: no type: it accepts any value, which strict mode cannot express",
]


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_broad_strict_variants_break_only_the_known_limits(
    broad: types.ModuleType, fmt: str
) -> None:
    """Open objects and tuples fit once rendered strict; ``Any`` (``{}``) and the string-length,
    set and base64 keywords the strict renderer keeps are what remains."""
    found = [p for d in toolcall.emit(broad, fmt, strict=True) for p in check_strict(d)]
    assert found == BROAD_STRICT_PROBLEMS


# -- check_strict, rule by rule ------------------------------------------------------------


def test_a_strict_schema_using_every_supported_keyword_passes() -> None:
    """Every documented keyword, format, type and nesting form is accepted."""
    formats = {f"f_{i}": {"type": "string", "format": f} for i, f in enumerate(SUPPORTED_FORMATS)}
    schema = obj(
        s={"type": "string", "pattern": "^a", "description": "d", "title": "t"},
        n={"type": "number", "minimum": 0, "maximum": 1, "multipleOf": 0.5},
        i={"type": ["integer", "null"], "exclusiveMinimum": 0, "exclusiveMaximum": 9},
        b={"type": "boolean"},
        z={"type": "null"},
        a={"type": "array", "items": STRING, "minItems": 1, "maxItems": 3},
        e={"enum": ["x", 1, None]},
        c={"const": "fixed"},
        u={"anyOf": [STRING, obj(k=STRING), {"type": "null"}]},
        r={"$ref": "#/$defs/Thing"},
        empty={"type": "array", "maxItems": 0},
        **formats,
    )
    schema["$defs"] = {"Thing": obj(v={"type": "integer"})}
    assert check_strict(schema) == []


@pytest.mark.parametrize(
    ("keyword", "value"),
    [
        ("default", 3),
        ("minLength", 1),
        ("maxLength", 9),
        ("uniqueItems", True),
        ("prefixItems", [STRING]),
        ("contentEncoding", "base64"),
        ("allOf", [STRING]),
        ("not", {"type": "null"}),
        ("if", STRING),
        ("patternProperties", {"^x": STRING}),
        ("dependentRequired", {}),
        ("examples", ["a"]),
    ],
)
def test_unsupported_keyword(keyword: str, value: Any) -> None:
    """A keyword outside the documented list is named, with the path of its schema."""
    schema = obj(x={"type": "string", keyword: value})
    assert check_strict(schema, name="f") == [
        f'f: $.properties.x: keyword "{keyword}" is not supported in strict mode'
    ]


def test_unsupported_format() -> None:
    """Only the nine documented string formats are accepted."""
    assert check_strict(obj(site={"type": "string", "format": "uri"})) == [
        '$.properties.site: format "uri" is not supported in strict mode'
    ]


def test_every_object_is_closed() -> None:
    """An object without ``additionalProperties: false`` (missing, a schema, true) is named."""
    missing = {"type": "object", "properties": {}, "required": []}
    schema = obj(a=missing, b={**missing, "additionalProperties": STRING})
    schema["additionalProperties"] = True
    assert check_strict(schema) == [
        '$: "additionalProperties" must be false: strict mode cannot express an open object',
        '$.properties.a: "additionalProperties": false is missing; strict mode requires it',
        '$.properties.b: "additionalProperties" must be false: strict mode cannot express an '
        "open object",
    ]


def test_every_property_is_required() -> None:
    """Properties missing from ``required`` are listed on one line; unknown names too."""
    schema = obj(a=STRING, b=STRING, c=obj(d=STRING))
    schema["required"] = ["a", "zz"]
    schema["properties"]["c"]["required"] = []
    assert check_strict(schema) == [
        '$: properties "b", "c" not in "required": strict mode requires every property (spell '
        "optional as a type that accepts null)",
        '$: "required" names undeclared property "zz"',
        '$.properties.c: property "d" not in "required": strict mode requires every property '
        "(spell optional as a type that accepts null)",
    ]


@pytest.mark.parametrize(
    ("root", "expected"),
    [
        (
            {"anyOf": [obj(a=STRING), obj(b=STRING)]},
            [
                '$: the root must be an object ("type": "object")',
                "$: the root must not be an anyOf",
            ],
        ),
        (
            {**obj(a=STRING), "type": ["object", "null"]},
            ['$: the root must be an object ("type": "object")'],
        ),
        ({"type": "string"}, ['$: the root must be an object ("type": "object")']),
    ],
)
def test_root_is_an_object(root: dict[str, Any], expected: list[str]) -> None:
    """The root is a plain object: not an anyOf, not nullable, not another type."""
    assert check_strict(root) == expected


def nested(levels: int) -> dict[str, Any]:
    """``levels`` objects nested through property ``n`` (an array at each level too)."""
    schema: dict[str, Any] = obj(leaf=STRING)
    for _ in range(levels - 1):
        schema = obj(n={"type": "array", "items": schema})
    return schema


def test_nesting_depth() -> None:
    """Ten nested objects pass; the eleventh is named once, arrays between them not counted."""
    assert check_strict(nested(10)) == []
    deepest = "$" + ".properties.n.items" * 10
    assert check_strict(nested(12), name="deep") == [
        f"deep: {deepest}: objects nested 11 deep; strict mode allows 10"
    ]


def test_total_properties() -> None:
    """5000 properties in all pass; 5001 are one problem at the root."""
    half = {f"p{i}": STRING for i in range(2500)}
    assert check_strict(obj(**half, inner=obj(**dict(list(half.items())[:2499])))) == []
    many = obj(**half, inner=obj(**half))
    assert check_strict(many) == [
        f"$: {MAX_PROPERTIES + 1} properties in total; strict mode allows {MAX_PROPERTIES}"
    ]


def test_total_enum_values() -> None:
    """1000 enum values across all enums pass; 1001 are one problem at the root."""
    schema = obj(a={"enum": list(range(600))}, b={"enum": list(range(400))})
    assert check_strict(schema) == []
    schema["properties"]["c"] = {"type": ["string", "null"], "enum": [None]}
    schema["required"].append("c")
    assert check_strict(schema) == [
        f"$: {MAX_ENUM_VALUES + 1} enum values in total; strict mode allows {MAX_ENUM_VALUES}"
    ]


def test_large_enum_string_length() -> None:
    """An enum of more than 250 values may total at most 15000 characters; a smaller one more."""
    long_251 = [f"{i:03d}" + "x" * 57 for i in range(251)]  # 60 characters each: 15060
    assert check_strict(obj(e={"enum": long_251[:250]})) == []
    assert check_strict(obj(e={"enum": [v[:59] for v in long_251]})) == []  # 14809
    assert check_strict(obj(e={"type": "string", "enum": long_251})) == [
        "$.properties.e: an enum of 251 values totals 15060 characters; strict mode allows "
        "15000 once an enum has more than 250 values"
    ]


def test_total_string_length() -> None:
    """Property names, definition names, enum and const strings count towards 120000."""
    names = {f"{i:03d}" + "n" * 997: STRING for i in range(100)}  # 100000 characters
    schema = obj(
        **names,
        e={"enum": ["v" * 9000, "w" * 9000]},
        c={"const": "c" * 1994},
    )
    schema["$defs"] = {"d" * 1000: STRING}
    # names 100000 + 1 + 1, enum 18000, const 1994, definition name 1000: 120996
    assert check_strict(schema) == [
        "$: property names, definition names, enum values and const values total 120996 "
        f"characters; strict mode allows {MAX_TOTAL_CHARS}"
    ]
    schema["$defs"] = {"d": STRING}
    assert check_strict(schema) == []


def test_any_value_and_array_without_items() -> None:
    """``{}`` and an array without items accept anything; enum, const, anyOf, $ref do not."""
    schema = obj(
        a={},
        b={"description": "anything"},
        c={"type": "array"},
        d={"type": "array", "items": {}},
    )
    assert check_strict(schema) == [
        "$.properties.a: no type: it accepts any value, which strict mode cannot express",
        "$.properties.b: no type: it accepts any value, which strict mode cannot express",
        '$.properties.c: array without "items": strict mode cannot express any item',
        "$.properties.d.items: no type: it accepts any value, which strict mode cannot express",
    ]


def test_malformed_schemas_are_problems_not_exceptions() -> None:
    """Wrong shapes are reported: unknown types, non-schema items, bad anyOf/enum/required."""
    schema = obj(
        a={"type": "text"},
        b={"type": "array", "items": [STRING]},
        c={"anyOf": []},
        d={"type": "string", "enum": "red"},
        e={"type": "array", "items": True},
        f=7,
        g={"type": 3},
        h={"$ref": 1},
    )
    schema["required"] = "a"
    assert check_strict(schema) == [
        '$: "required" must be an array of property names',
        '$.properties.a: unknown type "text"',
        '$.properties.b: "items" must be one schema, not an array',
        '$.properties.c: "anyOf" must be a non-empty array of schemas',
        '$.properties.d: "enum" must be an array, not a string',
        '$.properties.e: "items" must be one schema, not a boolean',
        "$.properties.f: expected a schema object, got a number",
        '$.properties.g: "type" must be a type name or an array of them',
        '$.properties.h: "$ref" must be a string, not a number',
    ]


def test_paths_quote_names_that_are_not_identifiers() -> None:
    """A property name with spaces or quotes is bracketed; anyOf positions are indexed."""
    schema = obj(**{"a b": {"anyOf": [STRING, {"type": "string", "default": ""}]}, "it's": {}})
    assert check_strict(schema) == [
        "$.properties['a b'].anyOf[1]: keyword \"default\" is not supported in strict mode",
        "$.properties['it\\'s']: no type: it accepts any value, which strict mode cannot express",
    ]


def test_a_cyclic_schema_terminates() -> None:
    """A dict that contains itself is walked to a fixed depth, not forever."""
    schema = obj()
    schema["properties"]["self"] = schema
    schema["required"] = ["self"]
    assert check_strict(schema) == [
        f"${'.properties.self' * 10}: objects nested 11 deep; strict mode allows 10",
        f"${'.properties.self' * 501}: nested more than 500 levels deep; not checked further",
    ]


@pytest.mark.parametrize(
    "wrap",
    [
        lambda s: {"type": "function", "function": {"name": "f", "parameters": s, "strict": True}},
        lambda s: {"type": "function", "name": "f", "parameters": s, "strict": True},
        lambda s: {"name": "f", "input_schema": s, "strict": True},
        lambda s: {"name": "f", "inputSchema": s},
        lambda s: {"module": "m", "name": "f", "description": "", "parameters": s},
    ],
    ids=["openai", "responses", "anthropic", "mcp", "describe"],
)
def test_rendered_tools_are_unwrapped_and_named(wrap: Any) -> None:
    """Every envelope toolcall renders is accepted, and its name starts each line."""
    schema = obj(x={"type": "string", "default": "a"})
    assert check_strict(wrap(schema)) == [
        'f: $.properties.x: keyword "default" is not supported in strict mode'
    ]


def test_ir_tool_and_bare_schema() -> None:
    """An ``ir.Tool`` is rendered strict first; a bare schema is named by ``name`` or not at all."""
    tool = ir.Tool(
        name="t",
        parameters=(
            ir.Parameter(name="x", type=ir.Type(kind="any")),
            ir.Parameter(name="y", type=ir.Type(kind="integer"), required=False, has_default=True),
        ),
    )
    assert check_strict(tool) == [
        "t: $.properties.x: no type: it accepts any value, which strict mode cannot express"
    ]
    assert check_strict(tool, name="alias") == [
        "alias: $.properties.x: no type: it accepts any value, which strict mode cannot express"
    ]
    assert check_strict({"type": "object", "properties": {}, "required": []}) == [
        '$: "additionalProperties": false is missing; strict mode requires it'
    ]
    assert check_strict({"type": "function", "function": {"name": "g"}}) == []
    with pytest.raises(TypeError, match=r"expected a schema, a rendered tool or an ir\.Tool"):
        check_strict([])  # type: ignore[arg-type]


def schema_nodes(value: Any) -> int:
    """How many subschemas (JSON objects) ``value`` holds, itself included."""
    if isinstance(value, Mapping):
        return 1 + sum(schema_nodes(item) for item in value.values())
    if isinstance(value, list | tuple):
        return sum(schema_nodes(item) for item in value)
    return 0


def test_check_strict_is_linear_in_the_schema(broad: types.ModuleType) -> None:
    """Checking visits each subschema a bounded number of times, so it is cheap enough to run
    for every tool at derivation: a few dozen calls per node, eight times the properties
    costing at most eight times as much."""
    tools = [*toolcall.emit("examples.orders", "openai", strict=True)]
    tools += toolcall.emit(broad, "openai", strict=True)
    check_strict(tools[0])  # warm: first-use caches are not per-node work
    for tool in tools:
        _, calls = count_calls(lambda tool=tool: check_strict(tool))
        assert calls <= 60 * schema_nodes(tool), tool["function"]["name"]

    def wide(copies: int) -> dict[str, Any]:
        properties = {
            f"p{i}_{n}": tool["function"]["parameters"]
            for n, tool in enumerate(tools)
            for i in range(copies)
        }
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    (_, one), (_, eight) = (count_calls(lambda n=n: check_strict(wide(n))) for n in (1, 8))
    assert eight <= 8 * one, (one, eight)
