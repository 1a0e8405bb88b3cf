"""Rendering the IR into JSON Schema and provider tool definitions (SPEC sections 2-4)."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from toolcall import ir
from toolcall._frozen import FrozenDict, FrozenList, freeze, thaw
from toolcall._render.formats import describe_entry, render, render_variants
from toolcall._render.schema import parameters_schema, strict_problems
from toolcall._shared.names import FORMATS
from work import count_calls

T = ir.Type
P = ir.Parameter
F = ir.Field


def same(actual: Any, expected: Any) -> None:
    """Assert equality including key order and ``True`` versus ``1``."""
    assert actual == expected
    assert json.dumps(actual) == json.dumps(expected)


def tool(*params: ir.Parameter, kwargs: ir.Type | None = None, description: str = "") -> ir.Tool:
    return ir.Tool(name="f", description=description, parameters=params, kwargs=kwargs)


def prop(t: ir.Type, *, strict: bool = False, required: bool = True) -> Any:
    """The schema of a single parameter ``x`` of type *t*."""
    schema = parameters_schema(tool(P(name="x", type=t, required=required)), strict=strict)
    return schema["properties"]["x"]


WEATHER = ir.Tool(
    name="get_weather",
    description="Get the forecast for a city.",
    parameters=(
        P(name="city", type=T(kind="string"), description='city name, e.g. "Oslo"'),
        P(
            name="days",
            type=T(kind="integer"),
            required=False,
            has_default=True,
            default=3,
            description="how many days ahead (1-7)",
        ),
    ),
    module="myapp.tools.weather",
    qualname="get_weather",
)

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": 'city name, e.g. "Oslo"'},
        "days": {"type": "integer", "description": "how many days ahead (1-7)", "default": 3},
    },
    "required": ["city"],
    "additionalProperties": False,
}

WEATHER_STRICT_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": 'city name, e.g. "Oslo"'},
        "days": {"type": ["integer", "null"], "description": "how many days ahead (1-7)"},
    },
    "required": ["city", "days"],
    "additionalProperties": False,
}

ADDRESS = T(
    kind="object",
    py="dict",
    fields=(
        F(name="street", type=T(kind="string"), description="street and number"),
        F(name="zip", type=T(kind="string"), required=False, has_default=True, default=""),
    ),
)

# One of every kind, nested, for the properties that hold everywhere.
EVERYTHING = ir.Tool(
    name="everything",
    description="All the shapes.",
    parameters=(
        P(name="a", type=T(kind="any")),
        P(name="n", type=T(kind="null")),
        P(name="e", type=T(kind="enum", values=("x", 1, None))),
        P(name="pair", type=T(kind="array", prefix_items=(T(kind="number"), T(kind="string")))),
        P(name="addresses", type=T(kind="array", items=ADDRESS)),
        P(name="tags", type=T(kind="object", additional=T(kind="array", items=ADDRESS))),
        P(name="u", type=T(kind="union", variants=(ADDRESS, T(kind="integer")), nullable=True)),
        P(name="d", type=T(kind="string", format="date"), required=False),
    ),
    kwargs=T(kind="integer"),
)


# --- scalars -----------------------------------------------------------------------------


def test_any_is_the_empty_schema() -> None:
    """`any` renders as `{}`."""
    same(prop(T(kind="any")), {})


def test_null_kind() -> None:
    """`null` renders as `{"type": "null"}`."""
    same(prop(T(kind="null")), {"type": "null"})


@pytest.mark.parametrize("kind", ["boolean", "integer", "number", "string"])
def test_scalar_kinds(kind: str) -> None:
    """Each scalar kind renders as `{"type": kind}`."""
    same(prop(T(kind=kind)), {"type": kind})  # type: ignore[arg-type]


def test_string_constraints_in_order() -> None:
    """String constraints follow `type` as format, pattern, contentEncoding, minLength,
    maxLength."""
    t = T(
        kind="string",
        max_length=9,
        min_length=1,
        content_encoding="base64",
        pattern="^a",
        format="byte",
    )
    same(
        prop(t),
        {
            "type": "string",
            "format": "byte",
            "pattern": "^a",
            "contentEncoding": "base64",
            "minLength": 1,
            "maxLength": 9,
        },
    )


def test_number_constraints_in_order_and_zero_kept() -> None:
    """Numeric bounds follow `type` in order; a bound of 0 is still emitted."""
    t = T(
        kind="number",
        multiple_of=0.5,
        exclusive_maximum=10,
        exclusive_minimum=0,
        maximum=9.5,
        minimum=0,
    )
    same(
        prop(t),
        {
            "type": "number",
            "minimum": 0,
            "maximum": 9.5,
            "exclusiveMinimum": 0,
            "exclusiveMaximum": 10,
            "multipleOf": 0.5,
        },
    )


def test_string_integer_wire_renders_its_pattern_only() -> None:
    """A `string_integer` wire type is a string with its pattern; wire/ref never leak."""
    t = T(kind="string", wire="string_integer", ref="builtins:int", pattern="^-?[0-9]+$")
    same(prop(t), {"type": "string", "pattern": "^-?[0-9]+$"})


# --- enums -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "json_type"),
    [
        (("a", "b"), "string"),
        ((1, 2), "integer"),
        ((1, 2.5), "number"),
        ((True, False), "boolean"),
        (("a", 1), ["string", "integer"]),
        ((1, "a"), ["integer", "string"]),
        ((True, 1), ["boolean", "integer"]),
        ((1, "a", 2.5), ["number", "string"]),
        (("a", None), ["string", "null"]),
        ((None, "a", 1), ["string", "integer", "null"]),
    ],
)
def test_enum_type_inference(values: tuple[Any, ...], json_type: Any) -> None:
    """An enum's `type` is its values' JSON type; mixed values list them, None adds null."""
    same(prop(T(kind="enum", values=values)), {"type": json_type, "enum": list(values)})


def test_nullable_enum_gets_null_type_and_none_value() -> None:
    """A nullable enum widens its type and appends None to its values."""
    same(
        prop(T(kind="enum", values=("a", "b"), nullable=True)),
        {"type": ["string", "null"], "enum": ["a", "b", None]},
    )


def test_nullable_enum_with_none_already_is_not_doubled() -> None:
    """Widening an enum that already allows None adds neither null nor None again."""
    same(
        prop(T(kind="enum", values=(1, None), nullable=True)),
        {"type": ["integer", "null"], "enum": [1, None]},
    )


# --- arrays ------------------------------------------------------------------------------


def test_list_is_array_of_items() -> None:
    """`list[T]` renders as an array of T's schema."""
    same(
        prop(T(kind="array", items=T(kind="integer"))),
        {"type": "array", "items": {"type": "integer"}},
    )


def test_tuple_is_prefix_items_with_fixed_length() -> None:
    """A fixed tuple renders `prefixItems` with minItems = maxItems = its length."""
    t = T(kind="array", py="tuple", prefix_items=(T(kind="number"), T(kind="number")))
    same(
        prop(t),
        {
            "type": "array",
            "prefixItems": [{"type": "number"}, {"type": "number"}],
            "minItems": 2,
            "maxItems": 2,
        },
    )


def test_set_has_unique_items_and_length_bounds() -> None:
    """`unique_items` gives `uniqueItems: true`; min/max items are emitted when set."""
    t = T(kind="array", py="set", items=T(kind="string"), unique_items=True, min_items=1)
    same(
        prop(t),
        {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "minItems": 1},
    )
    same(prop(T(kind="array", max_items=3)), {"type": "array", "maxItems": 3})


# --- objects -----------------------------------------------------------------------------


def test_closed_object_with_fields() -> None:
    """A closed object lists its properties (description, default), required fields, and
    `additionalProperties: false`."""
    same(
        prop(ADDRESS),
        {
            "type": "object",
            "properties": {
                "street": {"type": "string", "description": "street and number"},
                "zip": {"type": "string", "default": ""},
            },
            "required": ["street"],
            "additionalProperties": False,
        },
    )


def test_closed_object_without_fields_still_has_properties_and_required() -> None:
    """A closed object with no fields still emits empty `properties` and `required`."""
    same(
        prop(T(kind="object")),
        {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
    )


def test_open_object_has_value_schema_only() -> None:
    """`dict[str, T]` renders `additionalProperties: T` and no properties/required."""
    same(
        prop(T(kind="object", additional=T(kind="integer"))),
        {"type": "object", "additionalProperties": {"type": "integer"}},
    )
    same(
        prop(T(kind="object", additional=T(kind="any"))),
        {"type": "object", "additionalProperties": {}},
    )


def test_open_object_with_fields_keeps_them() -> None:
    """An open object with fields emits properties and required before its value schema."""
    t = T(
        kind="object", fields=(F(name="id", type=T(kind="integer")),), additional=T(kind="string")
    )
    same(
        prop(t),
        {
            "type": "object",
            "properties": {"id": {"type": "integer"}},
            "required": ["id"],
            "additionalProperties": {"type": "string"},
        },
    )


# --- unions and nullable widening --------------------------------------------------------


def test_union_is_any_of() -> None:
    """A union renders `anyOf` of its variants in order."""
    same(
        prop(T(kind="union", variants=(T(kind="integer"), T(kind="string")))),
        {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    )


@pytest.mark.parametrize(
    ("t", "expected"),
    [
        (
            T(kind="string", nullable=True, format="date"),
            {"type": ["string", "null"], "format": "date"},
        ),
        (T(kind="null", nullable=True), {"type": "null"}),
        (T(kind="any", nullable=True), {}),
        (
            T(kind="enum", values=("a", 1), nullable=True),
            {"type": ["string", "integer", "null"], "enum": ["a", 1, None]},
        ),
        (
            T(kind="array", items=T(kind="integer"), nullable=True),
            {"type": ["array", "null"], "items": {"type": "integer"}},
        ),
        (
            T(kind="object", nullable=True),
            {
                "type": ["object", "null"],
                "properties": {},
                "required": [],
                "additionalProperties": False,
            },
        ),
        (
            T(kind="union", variants=(T(kind="integer"), T(kind="string")), nullable=True),
            {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
        ),
        (
            T(kind="union", variants=(T(kind="integer"), T(kind="null")), nullable=True),
            {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        ),
    ],
)
def test_nullable_widening(t: ir.Type, expected: dict[str, Any]) -> None:
    """`nullable` adds null to a type (string or list), None to an enum, a null variant to
    anyOf, and leaves `{}` and null alone."""
    same(prop(t), expected)


# --- the arguments object ----------------------------------------------------------------


def test_arguments_object_is_closed_without_kwargs() -> None:
    """A tool without `**kwargs` has a closed arguments object, even with no parameters."""
    same(
        parameters_schema(tool()),
        {"type": "object", "properties": {}, "required": [], "additionalProperties": False},
    )


def test_kwargs_opens_the_arguments_object() -> None:
    """`**kwargs: T` makes `additionalProperties` T's schema."""
    schema = parameters_schema(tool(P(name="a", type=T(kind="string")), kwargs=T(kind="integer")))
    same(
        schema,
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "required": ["a"],
            "additionalProperties": {"type": "integer"},
        },
    )


def test_parameter_property_key_order_and_presence() -> None:
    """A property is the type's keys, then a non-empty description, then a default only when
    `has_default`."""
    params = (
        P(
            name="a",
            type=T(kind="integer", minimum=1),
            description="count",
            required=False,
            has_default=True,
            default=2,
        ),
        P(name="b", type=T(kind="string"), description="", required=False, default="ignored"),
        P(name="c", type=T(kind="boolean"), required=False, has_default=True, default=None),
    )
    same(
        parameters_schema(tool(*params))["properties"],
        {
            "a": {"type": "integer", "minimum": 1, "description": "count", "default": 2},
            "b": {"type": "string"},
            "c": {"type": "boolean", "default": None},
        },
    )


def test_tuple_default_is_an_array_and_copied() -> None:
    """A tuple default renders as a list, and editing the rendered default leaves the IR alone."""
    default = [[1, 2]]
    t = T(kind="array", items=T(kind="array", items=T(kind="integer")))
    parameter = P(name="x", type=t, required=False, has_default=True, default=default)
    first = parameters_schema(tool(parameter))
    first["properties"]["x"]["default"][0].append(3)
    assert default == [[1, 2]]
    same(parameters_schema(tool(parameter))["properties"]["x"]["default"], [[1, 2]])
    pair = P(
        name="p",
        type=T(kind="array", prefix_items=(T(kind="integer"),) * 2),
        required=False,
        has_default=True,
        default=(0, 0),
    )
    same(parameters_schema(tool(pair))["properties"]["p"]["default"], [0, 0])


def test_no_ref_defs_or_title_anywhere() -> None:
    """No variant of any shape contains `$ref`, `$defs` or `title`."""

    def keys(value: Any) -> set[str]:
        if isinstance(value, dict):
            return set(value).union(*(keys(v) for v in value.values()))
        if isinstance(value, list):
            return set().union(*(keys(v) for v in value))
        return set()

    for variant in render_variants([EVERYTHING, WEATHER], "m")[0].values():
        assert not keys(variant) & {"$ref", "$defs", "definitions", "title"}


# --- envelopes ---------------------------------------------------------------------------


def test_weather_openai() -> None:
    """The SPEC weather tool in OpenAI format."""
    same(
        render(WEATHER, "openai"),
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Get the forecast for a city.",
                "parameters": WEATHER_SCHEMA,
            },
        },
    )


def test_weather_openai_strict() -> None:
    """OpenAI strict adds `strict: true` after parameters and the strict schema."""
    same(
        render(WEATHER, "openai", strict=True),
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Get the forecast for a city.",
                "parameters": WEATHER_STRICT_SCHEMA,
                "strict": True,
            },
        },
    )


def test_weather_anthropic() -> None:
    """The SPEC weather tool in Anthropic format, plain and strict."""
    same(
        render(WEATHER, "anthropic"),
        {
            "name": "get_weather",
            "description": "Get the forecast for a city.",
            "input_schema": WEATHER_SCHEMA,
        },
    )
    same(
        render(WEATHER, "anthropic", strict=True),
        {
            "name": "get_weather",
            "description": "Get the forecast for a city.",
            "input_schema": WEATHER_STRICT_SCHEMA,
            "strict": True,
        },
    )


def test_weather_mcp() -> None:
    """MCP uses `inputSchema`; strict changes only the schema."""
    same(
        render(WEATHER, "mcp"),
        {
            "name": "get_weather",
            "description": "Get the forecast for a city.",
            "inputSchema": WEATHER_SCHEMA,
        },
    )
    same(
        render(WEATHER, "mcp", strict=True),
        {
            "name": "get_weather",
            "description": "Get the forecast for a city.",
            "inputSchema": WEATHER_STRICT_SCHEMA,
        },
    )


def test_weather_describe() -> None:
    """`describe` gives module, name, description and the non-strict schema."""
    same(
        describe_entry(WEATHER, "myapp.tools.weather"),
        {
            "module": "myapp.tools.weather",
            "name": "get_weather",
            "description": "Get the forecast for a city.",
            "parameters": WEATHER_SCHEMA,
        },
    )


def test_weather_has_no_strict_problems() -> None:
    """A tool of scalars needs nothing strict mode cannot express."""
    assert strict_problems(WEATHER) == []


def test_weather_render_variants() -> None:
    """`render_variants` holds every format x strict plus describe, equal to on-demand rendering."""
    variants, _ = render_variants([WEATHER, EVERYTHING], "myapp.tools.weather")
    assert list(variants) == [
        ("openai", False),
        ("openai", True),
        ("anthropic", False),
        ("anthropic", True),
        ("mcp", False),
        ("mcp", True),
        ("gemini", False),
        ("gemini", True),
        ("bedrock", False),
        ("bedrock", True),
        ("describe", False),
    ]
    for (fmt, strict), value in variants.items():
        assert type(value) is FrozenList
        if fmt == "describe":
            expected = [describe_entry(t, "myapp.tools.weather") for t in (WEATHER, EVERYTHING)]
        else:
            expected = [render(t, fmt, strict) for t in (WEATHER, EVERYTHING)]
        same(value, expected)


def test_empty_description_is_omitted_from_provider_envelopes() -> None:
    """A tool without a description has no `description` key for providers, `""` in describe."""
    bare = ir.Tool(name="ping")
    schema = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    same(
        render(bare, "openai"),
        {"type": "function", "function": {"name": "ping", "parameters": schema}},
    )
    same(
        render(bare, "anthropic", strict=True),
        {"name": "ping", "input_schema": schema, "strict": True},
    )
    same(render(bare, "mcp"), {"name": "ping", "inputSchema": schema})
    same(render(bare, "gemini", strict=True), {"name": "ping", "parametersJsonSchema": schema})
    same(render(bare, "bedrock"), {"toolSpec": {"name": "ping", "inputSchema": {"json": schema}}})
    same(
        describe_entry(bare, "m"),
        {"module": "m", "name": "ping", "description": "", "parameters": schema},
    )


@pytest.mark.parametrize("fmt", ["vertex", "describe", "OpenAI", ""])
def test_unknown_format_raises_value_error(fmt: str) -> None:
    """An unknown format raises ValueError naming the valid formats."""
    with pytest.raises(
        ValueError, match="expected one of: openai, anthropic, mcp, gemini, bedrock"
    ):
        render(WEATHER, fmt)


def test_formats_constant() -> None:
    """FORMATS lists the provider formats in SPEC order."""
    assert FORMATS == ("openai", "anthropic", "mcp", "gemini", "bedrock")


def test_render_returns_independent_plain_dicts() -> None:
    """Rendering twice gives equal, independent, plain mutable dicts."""
    first = render(EVERYTHING, "openai", strict=True)
    second = render(EVERYTHING, "openai", strict=True)
    assert first == second
    assert type(first) is dict
    first["function"]["parameters"]["properties"]["e"]["enum"].append("y")
    first["function"]["parameters"]["required"].clear()
    assert render(EVERYTHING, "openai", strict=True) == second
    required = ["a", "n", "e", "pair", "addresses", "tags", "u", "d"]
    assert second["function"]["parameters"]["required"] == required


# --- strict ------------------------------------------------------------------------------


def test_strict_at_every_depth() -> None:
    """Strict requires every property, widens the optional ones with null, closes every
    object and drops every default, in nested objects and array items too."""
    customer = T(
        kind="object",
        fields=(
            F(name="name", type=T(kind="string")),
            F(name="note", type=T(kind="string"), required=False, has_default=True, default="-"),
        ),
    )
    line = T(
        kind="object",
        fields=(
            F(name="qty", type=T(kind="integer"), required=False, has_default=True, default=1),
            F(name="sku", type=T(kind="string", nullable=True), required=False),
        ),
    )
    order = T(
        kind="object",
        fields=(
            F(name="customer", type=customer, description="who"),
            F(
                name="lines",
                type=T(kind="array", items=line),
                required=False,
                has_default=True,
                default=[],
            ),
        ),
    )
    same(
        prop(order, strict=True),
        {
            "type": "object",
            "properties": {
                "customer": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "note": {"type": ["string", "null"]},
                    },
                    "required": ["name", "note"],
                    "additionalProperties": False,
                    "description": "who",
                },
                "lines": {
                    "type": ["array", "null"],
                    "items": {
                        "type": "object",
                        "properties": {
                            "qty": {"type": ["integer", "null"]},
                            "sku": {"type": ["string", "null"]},
                        },
                        "required": ["qty", "sku"],
                        "additionalProperties": False,
                    },
                },
            },
            "required": ["customer", "lines"],
            "additionalProperties": False,
        },
    )
    assert strict_problems(tool(P(name="x", type=order))) == []


def test_strict_optional_parameter_is_required_and_nullable() -> None:
    """A strict optional parameter is listed in required, widened once, and loses its default."""
    params = (
        P(name="a", type=T(kind="integer"), required=False, has_default=True, default=3),
        P(name="b", type=T(kind="integer", nullable=True), required=False, has_default=True),
        P(name="c", type=T(kind="enum", values=("x", "y")), required=False),
        P(
            name="d",
            type=T(kind="union", variants=(T(kind="integer"), T(kind="string"))),
            required=False,
        ),
        P(name="e", type=T(kind="string"), description="kept"),
    )
    same(
        parameters_schema(tool(*params), strict=True),
        {
            "type": "object",
            "properties": {
                "a": {"type": ["integer", "null"]},
                "b": {"type": ["integer", "null"]},
                "c": {"type": ["string", "null"], "enum": ["x", "y", None]},
                "d": {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
                "e": {"type": "string", "description": "kept"},
            },
            "required": ["a", "b", "c", "d", "e"],
            "additionalProperties": False,
        },
    )


def test_strict_any_stays_empty_and_warns() -> None:
    """`{}` stays `{}` in strict mode (optional or not, at any depth) and is reported."""
    params = (
        P(name="a", type=T(kind="any"), required=False, description="anything"),
        P(name="xs", type=T(kind="array", items=T(kind="any"))),
    )
    schema = parameters_schema(tool(*params), strict=True)
    same(
        schema["properties"],
        {"a": {"description": "anything"}, "xs": {"type": "array", "items": {}}},
    )
    assert strict_problems(tool(*params)) == [
        "f: a (Any) accepts any value, which strict mode cannot express; its schema stays {}",
        "f: xs[] (Any) accepts any value, which strict mode cannot express; its schema stays {}",
    ]


def test_strict_closes_open_objects_and_warns() -> None:
    """Strict closes `dict[str, T]` (keeping any declared fields, all required) and reports
    the property path."""
    rows = T(
        kind="array",
        items=T(
            kind="object",
            fields=(F(name="id", type=T(kind="integer"), required=False),),
            additional=T(kind="any"),
        ),
    )
    params = (
        P(name="filters", type=T(kind="object", py="dict", additional=T(kind="string"))),
        P(name="rows", type=rows),
    )
    same(
        parameters_schema(tool(*params), strict=True)["properties"],
        {
            "filters": {
                "type": "object",
                "properties": {},
                "required": [],
                "additionalProperties": False,
            },
            "rows": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": ["integer", "null"]}},
                    "required": ["id"],
                    "additionalProperties": False,
                },
            },
        },
    )
    assert strict_problems(tool(*params)) == [
        "f: filters (dict[str, str]) is an open object, which strict mode cannot express; "
        "it is closed",
        "f: rows[] (dict[str, Any]) is an open object, which strict mode cannot express; "
        "it is closed",
    ]


def test_strict_closes_kwargs_and_warns() -> None:
    """Strict closes an arguments object opened by `**kwargs` and reports it."""
    kw = tool(P(name="a", type=T(kind="string")), kwargs=T(kind="array", items=T(kind="integer")))
    assert parameters_schema(kw, strict=True)["additionalProperties"] is False
    assert strict_problems(kw) == [
        "f: **kwargs (dict[str, ...]) is an open object, which strict mode cannot express; "
        "it is closed"
    ]


def test_strict_tuple_of_one_type_keeps_items_and_length() -> None:
    """A strict tuple loses prefixItems, keeps min/maxItems, and uses the shared item schema."""
    pair = T(kind="array", py="tuple", prefix_items=(T(kind="number"), T(kind="number")))
    same(
        prop(pair, strict=True),
        {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
    )
    assert strict_problems(tool(P(name="x", type=pair))) == [
        "f: x (tuple) has a type per position, which strict mode cannot express (no prefixItems); "
        "only its length is kept"
    ]


def test_strict_tuple_of_mixed_types_has_any_of_distinct_items() -> None:
    """A strict tuple of different position types gets `items: anyOf` of the distinct ones."""
    triple = T(kind="array", prefix_items=(T(kind="integer"), T(kind="string"), T(kind="integer")))
    same(
        prop(triple, strict=True, required=False),
        {
            "type": ["array", "null"],
            "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "minItems": 3,
            "maxItems": 3,
        },
    )


def test_strict_union_variants_are_strict() -> None:
    """Objects inside union variants are closed with every field required."""
    t = T(kind="union", variants=(ADDRESS, T(kind="null")))
    same(
        prop(t, strict=True),
        {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {
                        "street": {"type": "string", "description": "street and number"},
                        "zip": {"type": ["string", "null"]},
                    },
                    "required": ["street", "zip"],
                    "additionalProperties": False,
                },
                {"type": "null"},
            ]
        },
    )


def test_strict_problems_are_deduplicated_in_order() -> None:
    """strict_problems lists each problem once, in the order of the parameters."""
    assert strict_problems(EVERYTHING) == [
        "everything: a (Any) accepts any value, which strict mode cannot express; its schema "
        "stays {}",
        "everything: pair (tuple) has a type per position, which strict mode cannot express (no "
        "prefixItems); only its length is kept",
        "everything: tags (dict[str, ...]) is an open object, which strict mode cannot express; "
        "it is closed",
        "everything: **kwargs (dict[str, int]) is an open object, which strict mode cannot "
        "express; it is closed",
    ]
    twice = T(kind="union", variants=(T(kind="any"), T(kind="any")))
    assert len(strict_problems(tool(P(name="x", type=twice)))) == 1


def test_rendering_never_mutates_the_ir() -> None:
    """Rendering every variant leaves the IR equal to a decoded copy of itself."""
    before = msgspec.msgpack.encode(EVERYTHING)
    render_variants([EVERYTHING], "m")
    strict_problems(EVERYTHING)
    assert msgspec.msgpack.encode(EVERYTHING) == before


# --- frozen results ----------------------------------------------------------------------


def is_frozen(value: Any) -> bool:
    if isinstance(value, dict):
        return type(value) is FrozenDict and all(is_frozen(v) for v in value.values())
    if isinstance(value, list):
        return type(value) is FrozenList and all(is_frozen(v) for v in value)
    return True


def is_plain(value: Any) -> bool:
    if isinstance(value, dict):
        return type(value) is dict and all(is_plain(v) for v in value.values())
    if isinstance(value, list):
        return type(value) is list and all(is_plain(v) for v in value)
    return True


@pytest.fixture
def tools() -> FrozenList:
    return render_variants([WEATHER, EVERYTHING], "m")[0]["openai", True]


def test_variants_are_frozen_at_every_depth() -> None:
    """Every dict and list in every variant is read-only, the envelopes' own included (an MCP
    tool's annotations, Bedrock's ``inputSchema``)."""
    hinted = msgspec.structs.replace(
        WEATHER, name="hinted", title="Hinted", annotations={"readOnlyHint": True}
    )
    variants = render_variants([WEATHER, EVERYTHING, hinted], "m")[0]
    assert variants["mcp", False][2]["annotations"] == {"readOnlyHint": True}
    for variant in variants.values():
        assert is_frozen(variant)


def _setitem_slice(v: Any) -> None:
    v[0:1] = []


def _delitem_slice(v: Any) -> None:
    del v[:]


LIST_MUTATIONS: list[Callable[[Any], object]] = [
    lambda v: v.append(1),
    lambda v: v.extend([1]),
    lambda v: v.insert(0, 1),
    lambda v: v.remove(v[0]),
    lambda v: v.pop(),
    lambda v: v.clear(),
    lambda v: v.sort(),
    lambda v: v.reverse(),
    lambda v: v.__setitem__(0, 1),
    lambda v: v.__delitem__(0),
    lambda v: v.__iadd__([1]),
    lambda v: v.__imul__(2),
    _setitem_slice,
    _delitem_slice,
]

DICT_MUTATIONS: list[Callable[[Any], object]] = [
    lambda d: d.__setitem__("name", "x"),
    lambda d: d.__delitem__("type"),
    lambda d: d.update(name="x"),
    lambda d: d.pop("type"),
    lambda d: d.popitem(),
    lambda d: d.clear(),
    lambda d: d.setdefault("new", 1),
    lambda d: d.__ior__({"x": 1}),
]


@pytest.mark.parametrize("mutate", LIST_MUTATIONS)
def test_list_mutators_raise_and_change_nothing(
    tools: FrozenList, mutate: Callable[[Any], object]
) -> None:
    """Every list mutator, at the top or nested, raises TypeError and changes nothing."""
    before = thaw(tools)
    required = tools[0]["function"]["parameters"]["required"]
    for target in (tools, required):
        with pytest.raises(TypeError, match=r"copy\.deepcopy\(value\), or list\(value\)"):
            mutate(target)
    same(tools, before)


@pytest.mark.parametrize("mutate", DICT_MUTATIONS)
def test_dict_mutators_raise_and_change_nothing(
    tools: FrozenList, mutate: Callable[[Any], object]
) -> None:
    """Every dict mutator, on an entry or a nested schema, raises TypeError and changes nothing."""
    before = thaw(tools)
    for target in (tools[0], tools[0]["function"]["parameters"]["properties"]["city"]):
        with pytest.raises(TypeError, match=r"copy\.deepcopy\(value\), or dict\(value\)"):
            mutate(target)
    same(tools, before)


def test_augmented_assignment_raises(tools: FrozenList) -> None:
    """`+=`, `*=` and `|=` on a result raise instead of mutating it."""
    entry = tools[0]
    with pytest.raises(TypeError):
        tools += [1]
    with pytest.raises(TypeError):
        entry |= {"x": 1}
    assert len(tools) == 2
    assert "x" not in entry


def test_reinit_does_not_refill(tools: FrozenList) -> None:
    """Calling `__init__` again on a frozen value changes nothing."""
    before = thaw(tools)
    tools.__init__([1])  # type: ignore[misc]
    tools[0].__init__({"x": 1})
    same(tools, before)


def test_deepcopy_gives_plain_mutable_data(tools: FrozenList) -> None:
    """`copy.deepcopy` gives plain dicts and lists at every depth, which can be changed."""
    mine: list[Any] = copy.deepcopy(tools)
    assert is_plain(mine)
    same(mine, thaw(tools))
    mine[0]["function"]["parameters"]["required"].append("extra")
    mine.append({})
    assert "extra" not in tools[0]["function"]["parameters"]["required"]
    assert len(tools) == 2


def test_shallow_copies_are_plain(tools: FrozenList) -> None:
    """`copy.copy`, `list()`, `.copy()`, `+`, `*` and `|` give plain outer containers."""
    for outer in (copy.copy(tools), list(tools), tools.copy(), tools + FrozenList(), tools * 1):
        assert type(outer) is list
        assert outer == tools
    for mapping in (copy.copy(tools[0]), dict(tools[0]), tools[0].copy(), tools[0] | {}):
        assert type(mapping) is dict
    combined = tools + render_variants([WEATHER], "n")[0]["openai", True]
    assert type(combined) is list
    assert len(combined) == 3


def test_pickle_gives_plain_data(tools: FrozenList) -> None:
    """Pickling a variant round-trips to equal plain data."""
    loaded = pickle.loads(pickle.dumps(tools))
    assert is_plain(loaded)
    same(loaded, thaw(tools))


def test_variants_encode_like_plain_json(tools: FrozenList) -> None:
    """json.dumps, msgspec JSON and msgpack encode a variant exactly like its plain copy."""
    plain = thaw(tools)
    assert json.dumps(tools) == json.dumps(plain)
    assert json.dumps(tools, indent=2, sort_keys=True) == json.dumps(
        plain, indent=2, sort_keys=True
    )
    assert msgspec.json.encode(tools) == msgspec.json.encode(plain)
    assert msgspec.msgpack.encode(tools) == msgspec.msgpack.encode(plain)


def test_variants_are_dicts_and_lists_equal_to_plain(tools: FrozenList) -> None:
    """A variant is a list of dicts and compares equal to plain data."""
    assert isinstance(tools, list)
    assert isinstance(tools[0], dict)
    assert tools == thaw(tools)
    assert thaw(tools) == tools


def test_freeze_and_thaw() -> None:
    """freeze makes JSON data (tuples included) deeply read-only and reuses frozen parts;
    thaw gives an independent plain copy."""
    data = {"a": [1, {"b": (2, 3)}], "c": "x"}
    frozen = freeze(data)
    assert is_frozen(frozen)
    assert frozen == {"a": [1, {"b": [2, 3]}], "c": "x"}
    assert freeze(frozen) is frozen
    assert freeze(FrozenList([frozen]))[0] is frozen
    assert freeze("s") == "s"
    assert FrozenDict({"k": [1]})["k"] == [1]
    assert is_frozen(FrozenDict([("k", [{"z": 1}])]))
    plain = thaw(frozen)
    assert is_plain(plain)
    plain["a"][1]["b"].append(4)
    assert frozen["a"][1]["b"] == [2, 3]
    assert thaw(data) is not data


def test_variants_share_one_schema_per_tool_and_scale_linearly() -> None:
    """All seven variants carry one rendered schema per tool and strict value, shared by
    every envelope, and rendering them costs the same per tool for 400 tools as for 100."""

    def many(count: int) -> list[ir.Tool]:
        return [
            ir.Tool(name=f"t{i}", description=WEATHER.description, parameters=WEATHER.parameters)
            for i in range(count)
        ]

    render_variants(many(1), "big")  # warm: first-use caches are not per-tool work
    calls = {}
    for count in (100, 400):
        tools = many(count)
        (variants, _), calls[count] = count_calls(lambda tools=tools: render_variants(tools, "big"))
    # linear, with room for a garbage collection or a first-use cache; quadratic would be 16x
    assert calls[400] <= 4.4 * calls[100], calls
    assert len(variants["mcp", True]) == 400
    for strict in (False, True):
        for i in range(400):
            schema = variants["openai", strict][i]["function"]["parameters"]
            assert variants["anthropic", strict][i]["input_schema"] is schema
            assert variants["mcp", strict][i]["inputSchema"] is schema
    assert variants["describe", False][7]["parameters"] is variants["mcp", False][7]["inputSchema"]


def test_strict_leaves_out_keywords_strict_mode_rejects() -> None:
    """uniqueItems, minLength/maxLength and contentEncoding are dropped in strict schemas only."""
    tool = ir.Tool(
        name="f",
        parameters=(
            ir.Parameter(
                name="tags",
                type=ir.Type(
                    kind="array", py="set", items=ir.Type(kind="string"), unique_items=True
                ),
            ),
            ir.Parameter(name="code", type=ir.Type(kind="string", min_length=2, max_length=4)),
            ir.Parameter(
                name="blob", type=ir.Type(kind="string", py="bytes", content_encoding="base64")
            ),
        ),
    )
    loose = parameters_schema(tool)["properties"]
    assert loose["tags"]["uniqueItems"] is True
    assert (loose["code"]["minLength"], loose["code"]["maxLength"]) == (2, 4)
    assert loose["blob"]["contentEncoding"] == "base64"
    assert parameters_schema(tool, strict=True)["properties"] == {
        "tags": {"type": "array", "items": {"type": "string"}},
        "code": {"type": "string"},
        "blob": {"type": "string"},
    }
