"""What ``encode_result`` writes validates against ``output_schema`` (issue 12.1, output side).

An MCP client (the TypeScript SDK, hence the MCP Inspector) validates ``structuredContent``
against the tool's ``outputSchema`` with format checks on, and loses the whole call when it
does not match: a naive datetime written as ``"2024-05-06T07:08:09"`` failed ``format:
date-time``. For every row of SPEC section 3 a property test generates Python values of the
row's type (hypothesis ``from_type``, aware and naive datetimes and times included), encodes
them with ``toolcall.encode_result`` and validates the JSON against ``output_schema`` of the
type toolcall derives, with jsonschema's format checker (RFC 3339 through rfc3339-validator)
and ``contentEncoding: base64`` asserted.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import decimal
import importlib
import json
import pathlib
import sys
import textwrap
import types
import typing
import warnings
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolcall
from budget import examples
from toolcall import ir
from toolcall._render.output import output_schema

SOURCE = """
import datetime as dt
import decimal
import pathlib
import uuid
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NewType, Optional, Required, TypedDict, TypeVar

import annotated_types as at
import msgspec
import typing_extensions

import toolcall
from zoo import Box, Color, Item, Level, Point, Tag


class Renamed(msgspec.Struct, rename="camel", omit_defaults=True):
    first_name: str
    last_seen: dt.datetime | None = None


class Tagged(msgspec.Struct, tag=True):
    code: int


class Row(msgspec.Struct, array_like=True):
    key: str
    value: decimal.Decimal


class Filters(TypedDict, total=False):
    colors: Required[set[Color]]
    after: dt.datetime
    ids: frozenset[uuid.UUID]


class Legacy(typing_extensions.TypedDict):
    code: str
    note: typing_extensions.NotRequired[dt.time]


UserId = NewType("UserId", int)
N = TypeVar("N", bound=float)


class Opaque:
    pass


def f_str(value: str) -> None: ...
def f_int(value: int) -> None: ...
def f_float(value: float) -> None: ...
def f_bool(value: bool) -> None: ...
def f_none(value: None) -> None: ...
def f_optional(value: int | None) -> None: ...
def f_typing_optional(value: Optional[dt.datetime]) -> None: ...
def f_literal(value: Literal["a", "b", 3]) -> None: ...
def f_enum(value: Color) -> None: ...
def f_int_enum(value: Level) -> None: ...
def f_list(value: list[int]) -> None: ...
def f_sequence(value: Sequence[str]) -> None: ...
def f_pair(value: tuple[str, dt.date]) -> None: ...
def f_empty_tuple(value: tuple[()]) -> None: ...
def f_rest(value: tuple[float, ...]) -> None: ...
def f_set(value: set[int]) -> None: ...
def f_frozenset(value: frozenset[str]) -> None: ...
def f_decimal_set(value: set[decimal.Decimal]) -> None: ...
def f_dict(value: dict[str, list[bool]]) -> None: ...
def f_mapping(value: Mapping[str, dt.time]) -> None: ...
def f_typeddict(value: Item) -> None: ...
def f_total_false(value: Filters) -> None: ...
def f_typing_extensions(value: Legacy) -> None: ...
def f_dataclass(value: Box) -> None: ...
def f_namedtuple(value: Point) -> None: ...
def f_struct(value: Tag) -> None: ...
def f_renamed_struct(value: Renamed) -> None: ...
def f_tagged_struct(value: Tagged) -> None: ...
def f_array_like_struct(value: Row) -> None: ...
def f_datetime(value: dt.datetime) -> None: ...
def f_date(value: dt.date) -> None: ...
def f_time(value: dt.time) -> None: ...
def f_uuid(value: uuid.UUID) -> None: ...
def f_decimal(value: decimal.Decimal) -> None: ...
def f_path(value: pathlib.Path) -> None: ...
def f_bytes(value: bytes) -> None: ...
def f_any(value: Any) -> None: ...
def f_object(value: object) -> None: ...
def f_newtype(value: UserId) -> None: ...
def f_typevar(value: N) -> None: ...
def f_constrained(value: Annotated[int, at.Ge(1), at.Le(9)]) -> None: ...
def f_meta(value: Annotated[str, msgspec.Meta(min_length=2, pattern="^[a-z]+$")]) -> None: ...
def f_string_integer(value: Annotated[int, toolcall.Param(wire="string_integer")]) -> None: ...
def f_unresolved(value: Opaque) -> None: ...
def f_union(value: Point | Tag | None) -> None: ...
def f_nested(value: list[dict[str, Box | None]] | None) -> None: ...
"""

NAME = "tc_output_rows"
ROWS = [
    line.split("(")[0].removeprefix("def ")
    for line in SOURCE.splitlines()
    if line.startswith("def f_")
]

# The JSON values ``run`` hands a tool for ``Any``, ``object`` and a class nothing resolves.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
AS_JSON = {"f_any", "f_object", "f_unresolved"}

OFFSETS = st.builds(
    dt.timezone,
    st.timedeltas(min_value=dt.timedelta(hours=-23, minutes=-59), max_value=dt.timedelta(hours=23)),
)
ZONES = st.none() | OFFSETS | st.just(dt.UTC) | st.timezones()

# Values of the scalar types as Python has them, naive and aware alike. A non-finite Decimal
# is left out: encode_result refuses it (msgspec writes no number for it), so nothing is written.
st.register_type_strategy(dt.datetime, st.datetimes(timezones=ZONES))
st.register_type_strategy(dt.time, st.times(timezones=ZONES))
st.register_type_strategy(decimal.Decimal, st.decimals(allow_nan=False, allow_infinity=False))
st.register_type_strategy(pathlib.Path, st.builds(pathlib.Path, st.text()))


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> Iterator[types.ModuleType]:
    """The module of one function per SPEC 3 row, imported for real."""
    root = tmp_path_factory.mktemp("output")
    pathlib.Path(root, f"{NAME}.py").write_text(textwrap.dedent(SOURCE))
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        yield importlib.import_module(NAME)
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(NAME, None)


def value_type(module: types.ModuleType, name: str) -> tuple[Any, ir.Type]:
    """The row's annotation and the IR type toolcall derives for it."""
    function = getattr(module, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", toolcall.ToolcallWarning)  # the unresolved class
        tool = toolcall.derive(function)
    hint = typing.get_type_hints(function, include_extras=True)["value"]
    return hint, tool.parameters[0].type


def _content_encoding(
    validator: Any, encoding: str, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    # an annotation in 2020-12; a client that decodes the text needs it to be base64
    if encoding == "base64" and isinstance(instance, str):
        try:
            base64.b64decode(instance, validate=True)
        except binascii.Error:
            yield jsonschema.ValidationError(f"{instance!r} is not base64")


Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator, {"contentEncoding": _content_encoding}
)


def validator(schema: dict[str, Any]) -> Any:
    Validator.check_schema(schema)
    return Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def test_the_rows_are_spec_3s(rows: types.ModuleType) -> None:
    """Every row of SPEC section 3 has a function here (and the format checks are live)."""
    assert len(ROWS) == 46
    assert all(callable(getattr(rows, name)) for name in ROWS)
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    assert not checker.conforms("2024-05-06T07:08:09", "date-time")  # rfc3339-validator is in use
    assert not checker.conforms("2024-13-06", "date")


@pytest.mark.parametrize("name", ROWS)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_what_encode_result_writes_validates(
    rows: types.ModuleType, name: str, data: st.DataObject
) -> None:
    """What encode_result writes for a value of a row's type validates against its output schema."""
    hint, t = value_type(rows, name)
    check = validator(output_schema(t))
    value = data.draw(JSON if name in AS_JSON else st.from_type(hint), label="value")
    written = json.loads(toolcall.encode_result(value))
    errors = [error.message for error in check.iter_errors(written)]
    assert not errors, (written, errors)


ISO_SECONDS = "[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]{1,6})?(Z|[+-][0-9]{2}:[0-9]{2})?"
ISO_DATE_TIME = f"^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}T{ISO_SECONDS}$"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "f_datetime",
            {"type": "string", "pattern": ISO_DATE_TIME},
        ),
        ("f_time", {"type": "string", "pattern": f"^{ISO_SECONDS}$"}),
        ("f_date", {"type": "string", "format": "date"}),
        ("f_decimal", {"type": "number"}),
        ("f_string_integer", {"type": "integer"}),
        ("f_float", {"type": ["number", "null"]}),
        ("f_constrained", {"type": "integer"}),
        ("f_bytes", {"type": "string", "contentEncoding": "base64"}),
        ("f_set", {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        ("f_decimal_set", {"type": "array", "items": {"type": "number"}}),
        ("f_any", {}),
        ("f_unresolved", {}),
        (
            "f_namedtuple",
            {
                "type": "array",
                "prefixItems": [{"type": ["number", "null"]}, {"type": ["number", "null"]}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (
            "f_renamed_struct",
            {
                "type": "object",
                "properties": {
                    "firstName": {"type": "string"},
                    "lastSeen": {
                        "type": ["string", "null"],
                        "pattern": ISO_DATE_TIME,
                    },
                },
                "required": ["firstName"],
                "additionalProperties": False,
            },
        ),
        (
            "f_tagged_struct",
            {
                "type": "object",
                "properties": {"type": {"const": "Tagged"}, "code": {"type": "integer"}},
                "required": ["type", "code"],
                "additionalProperties": False,
            },
        ),
        (
            "f_array_like_struct",
            {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"type": "number"}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
    ],
)
def test_output_forms(rows: types.ModuleType, name: str, expected: dict[str, Any]) -> None:
    """The shapes that differ from the input schema, exactly."""
    assert output_schema(value_type(rows, name)[1]) == expected


def test_a_dataclass_is_written_with_every_field(rows: types.ModuleType) -> None:
    """Input makes defaulted fields optional; msgspec writes them all, so output requires them."""
    schema = output_schema(value_type(rows, "f_dataclass")[1])
    assert schema["required"] == ["corner", "size", "label", "tags"]
    assert schema["additionalProperties"] is False


def test_the_issue_values_validate(rows: types.ModuleType) -> None:
    """The values the TypeScript SDK refused (issue 12.1): a naive datetime, a time, an aware
    datetime, each against the schema of its type."""
    cases = [
        ("f_datetime", dt.datetime(2024, 5, 6, 7, 8, 9)),
        ("f_datetime", dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.UTC)),
        ("f_time", dt.time(12, 30)),
        ("f_time", dt.time(12, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))),
    ]
    for name, value in cases:
        check = validator(output_schema(value_type(rows, name)[1]))
        check.validate(json.loads(toolcall.encode_result(value)))


def test_what_the_encoder_cannot_write_promises_nothing() -> None:
    """Provider values, and a model or Struct that cannot be found get ``{}``; a pydantic
    type is described by pydantic (tests/dispatch/test_results.py)."""
    assert output_schema(ir.Type(kind="string", provider="m:MoneyType")) == {}
    assert output_schema(ir.Type(kind="object", py="model", ref="m:Model")) == {}
    missing = ir.Type(kind="object", py="struct", ref="no_such_module:Gone")
    assert output_schema(missing) == {}
    assert output_schema(ir.Type(kind="union", variants=(ir.Type(kind="integer"), missing))) == {}
