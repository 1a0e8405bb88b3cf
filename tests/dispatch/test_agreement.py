"""What describe() allows, run accepts, and what run accepts, describe() allows (issue 5.5).

For every tool of ``examples.weather``, ``examples.orders`` and a broad module covering SPEC 3's
types, hypothesis (with hypothesis-jsonschema for the scalars) and a table of edge values check:

(a) every argument set valid under the tool's emitted (non-strict) parameters schema is
    accepted by ``run`` (``Ok``: the tools here never raise);
(b) every argument set ``run`` accepts validates against that schema.

Where the two legitimately differ, one of two views of the schema says so, each with its reason
next to it in the code; nothing else is excluded.

``schema_validator`` (for a) is the emitted schema read strictly, as JSON Schema means it:

- ``pattern`` is ECMA-262 (``\\d`` is ASCII, ``$`` is the very end), not Python's dialect that
  jsonschema uses; ``format`` (``date``; ``date-time``, ``time`` and ``duration`` by RFC 3339's
  grammar; ``uuid`` by RFC 9562's) and ``contentEncoding: base64`` are asserted, though 2020-12
  makes them annotations, since dispatch parses these strings;
- RFC 3339 years 0000 and leap seconds (``:60``) are left out: Python cannot represent them;
- the generators leave out integer strings past ``int``'s 4300-digit limit, decimal exponents
  past ``Decimal``'s range and ``number`` values past 1.8e308 (valid JSON that no ``float``
  holds), and the schema view durations past ``timedelta``'s 10**9 days: Python limits too;
- positional-only optionals must be given as a prefix (``argument_gap``): the emitted schema
  does not say so (it could, with ``dependentRequired``), so both views add the rule;
- ``minimum`` & co. on a ``string_integer`` bound the number its digits spell, as dispatch
  reads them; JSON Schema applies them to numbers only, so there they say nothing.

``dispatch_validator`` (for b) is the emitted schema widened by what dispatch documents it
accepts beyond it: an explicit null for an optional value (SPEC 4), an integer for a
``string_integer`` (SPEC 3) or a decimal, a number of seconds for a ``duration``, JSON text
for a nested array or object (issue 5.3), and ``date-time``/``time``/``duration`` read as
pydantic reads them (issue 21: ISO 8601, naive without an offset, seconds optional; a sign,
a fraction and lowercase in a duration). Nothing else: ``uniqueItems`` holds in both views
(issue 12: a set took duplicates).
``multipleOf`` is only used with integers: for floats jsonschema divides in binary
floating point (0.3 is no multiple of 0.1 there) while dispatch uses exact decimals.

The broad module is also imported with ``from __future__ import annotations`` (issue 12.3:
``NotRequired`` fields became required under string annotations).
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import json
import re
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

import toolcall
from budget import examples
from fakes import FakeResolver
from toolcall import ir
from toolcall._dispatch.coerce import Invalid, build_coercer
from toolcall._dispatch.result import Err, Ok
from toolcall._scalars import DECIMAL_PATTERN, INTEGER_STRING_PATTERN

BROAD = "tc_agreement_tools"
FUTURE = "tc_agreement_future"  # the same tools under ``from __future__ import annotations``

SOURCE = """
import datetime
import decimal
import pathlib
import uuid
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NewType, NotRequired, Optional, TypedDict, TypeVar

import annotated_types as at
import msgspec

import toolcall
from zoo import Box, Color, PlainLevel, Point

__toolcall__ = True


class Tag(msgspec.Struct):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=8)]
    weight: int = 1


class Item(TypedDict):
    sku: Annotated[str, msgspec.Meta(pattern="^[A-Z]{3}-[0-9]+$")]
    qty: Annotated[int, at.Ge(1), at.Le(99)]
    note: NotRequired[str]


class Filters(TypedDict, total=False):
    colors: set[Color]
    after: datetime.datetime
    ids: frozenset[uuid.UUID]


def scalars(
    s: str,
    i: int,
    f: float,
    b: bool,
    n: None,
    maybe: int | None = None,
    choice: Literal["a", "b", 3] = "a",
) -> None:
    return None


def stamps(
    when: datetime.datetime,
    day: datetime.date,
    at_: datetime.time,
    ident: uuid.UUID,
    amount: decimal.Decimal,
    path: pathlib.Path,
    blob: bytes,
    span: datetime.timedelta = datetime.timedelta(0),
) -> None:
    return None


def containers(
    xs: list[int],
    pair: tuple[str, int],
    rest: tuple[float, ...],
    uniq: set[int],
    frozen: frozenset[str],
    table: dict[str, list[bool]],
    anything: Any = None,
) -> None:
    return None


def objects(
    box: Box,
    tags: list[Tag],
    item: Item,
    filters: Filters | None = None,
    point: Point | None = None,
) -> None:
    return None


def enums(
    color: Color, level: PlainLevel = PlainLevel.LOW, levels: list[PlainLevel] | None = None
) -> None:
    return None


def constrained(
    count: Annotated[int, at.Ge(0), at.Lt(10)],
    ratio: Annotated[float, at.Gt(0), at.Le(1)],
    name: Annotated[str, at.MinLen(2), at.MaxLen(5)],
    step: Annotated[int, at.MultipleOf(5)],
    few: Annotated[list[int], at.MaxLen(3)],
) -> None:
    return None


def unions(
    v: int | str,
    shape: Point | Box,
    data: list[int] | dict[str, int],
    maybe: list[str] | None = None,
    word: list[int] | Literal["none"] = "none",
) -> None:
    return None


@toolcall.param("user_id", wire="string_integer")
def wire(
    user_id: int,
    ids: list[Annotated[int, toolcall.Param(wire="string_integer")]] | None = None,
    page: Annotated[int, at.Ge(1), at.Le(500), toolcall.Param(wire="string_integer")] = 1,
) -> None:
    return None


def kwargs_tool(a: int, **extra: float) -> None:
    return None


def positional(a: int = 1, b: str = "x", /) -> None:
    return None


UserId = NewType("UserId", int)
N = TypeVar("N", bound=float)


class Opaque:
    pass


def aliases(
    seq: Sequence[str],
    ro: Mapping[str, int],
    thing: object,
    user: UserId,
    bound: N,
    opaque: Opaque,
    old: Optional[int] = None,
) -> None:
    return None
"""

TOOLS: dict[str, tuple[str, ...]] = {
    "examples.weather": ("get_weather", "convert_temperature", "air_quality"),
    "examples.orders": ("place_order", "cancel_order"),
    FUTURE: ("stamps", "containers", "objects", "unions"),
    BROAD: (
        "scalars",
        "stamps",
        "containers",
        "objects",
        "enums",
        "constrained",
        "unions",
        "wire",
        "kwargs_tool",
        "positional",
        "aliases",
    ),
}
CASES = [(module, name) for module, names in TOOLS.items() for name in names]

# Dispatch enforces that positional-only optionals are given as a prefix (argument_gap), which
# the emitted schema does not say; JSON Schema could (dependentRequired), so this belongs in
# _render. Until then both views add it, so that the rest of the tool is still compared.
POSITIONAL_GAP = {(BROAD, "positional"): {"b": ["a"]}}

STRING_INTEGER = INTEGER_STRING_PATTERN
DECIMAL = DECIMAL_PATTERN
BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
RFC3339_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-]([0-9]{2}):([0-9]{2}))"
RFC3339_DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]" + RFC3339_TIME)
RFC3339_FULL_TIME = re.compile(RFC3339_TIME)
# What dispatch documents it reads (issue 21): pydantic's ISO 8601, offset and seconds optional.
ISO_TIME = (
    r"([01][0-9]|2[0-3]):([0-5][0-9])(:[0-5][0-9]([.,][0-9]+)?)?"
    r"([Zz]|[+-]([01][0-9]|2[0-3]):?[0-5][0-9])?"
)
ISO_DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})([Tt ](" + ISO_TIME + "))?")
ISO_FULL_TIME = re.compile(ISO_TIME)
# RFC 3339 appendix A (ABNF, so case-insensitive), digits bounded for the generator only.
_DUR_TIME = r"T([0-9]{1,4}H([0-9]{1,4}M([0-9]{1,4}S)?)?|[0-9]{1,4}M([0-9]{1,4}S)?|[0-9]{1,4}S)"
_DUR_DATE = r"([0-9]{1,4}D|[0-9]{1,4}M([0-9]{1,4}D)?|[0-9]{1,4}Y([0-9]{1,4}M([0-9]{1,4}D)?)?)"
RFC3339_DURATION_SHORT = re.compile(f"P({_DUR_DATE}({_DUR_TIME})?|{_DUR_TIME}|[0-9]{{1,4}}W)", re.I)
RFC3339_DURATION = re.compile(RFC3339_DURATION_SHORT.pattern.replace("{1,4}", "+"), re.I)
_AMOUNT = "[0-9]+([.,][0-9]+)?"
ISO_DURATION = re.compile(
    f"[-+]?P(?!$)({_AMOUNT}Y)?({_AMOUNT}M)?({_AMOUNT}W)?({_AMOUNT}D)?"
    f"(T(?=[0-9])({_AMOUNT}H)?({_AMOUNT}M)?({_AMOUNT}S)?)?",
    re.I,
)
UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


# -- the modules ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def modules(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, types.ModuleType]]:
    """The example modules and the broad one, written once and imported for real."""
    root = tmp_path_factory.mktemp("agreement")
    Path(root, f"{BROAD}.py").write_text(SOURCE)
    Path(root, f"{FUTURE}.py").write_text(f"from __future__ import annotations\n{SOURCE}")
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", toolcall.ToolcallWarning)  # what strict cannot say
            found = {name: importlib.import_module(name) for name in TOOLS}
        yield found
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(BROAD, None)
        sys.modules.pop(FUTURE, None)


def test_every_tool_is_compared(modules: dict[str, types.ModuleType]) -> None:
    """The cases below cover every tool of the three modules, so none escapes comparison (the
    future-annotations copy: the tools whose types string annotations change)."""
    names = {name: toolcall.tool_names(module) for name, module in modules.items()}
    assert names == {**TOOLS, FUTURE: TOOLS[BROAD]}


def parameters_schema(module: types.ModuleType, name: str) -> dict[str, Any]:
    """The emitted non-strict schema, as a plain (mutable) JSON document."""
    (entry,) = (d for d in toolcall.describe(module) if d["name"] == name)
    schema: dict[str, Any] = json.loads(json.dumps(entry["parameters"]))
    return schema


def accepted(module: types.ModuleType, name: str, args: Any) -> bool:
    """run (arun for an async tool) took the arguments; the tools here never raise."""
    result = toolcall.run(module, name, args)
    if isinstance(result, Err) and result.error.kind == "async_tool":
        result = asyncio.run(toolcall.arun(module, name, args))
    if isinstance(result, Err):
        assert result.error.kind not in ("raised", "exited", "async_tool"), result.error
        return False
    assert isinstance(result, Ok)
    return True


# -- the two views of the schema -----------------------------------------------------------------


def _walk(node: Any, change: Callable[[dict[str, Any], bool], dict[str, Any]], root: bool) -> Any:
    """Apply ``change`` to every subschema, innermost first; ``root`` marks the arguments object."""
    if not isinstance(node, dict):
        return node
    node = dict(node)
    if "properties" in node:
        node["properties"] = {k: _walk(v, change, False) for k, v in node["properties"].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            node[key] = _walk(node[key], change, False)
    for key in ("prefixItems", "anyOf"):
        if key in node:
            node[key] = [_walk(v, change, False) for v in node[key]]
    return change(node, root)


def _types(node: dict[str, Any]) -> list[str]:
    json_type = node.get("type", [])
    return [json_type] if isinstance(json_type, str) else list(json_type)


def _widen_for_dispatch(node: dict[str, Any], root: bool) -> dict[str, Any]:
    if "properties" in node:
        required = set(node.get("required", ()))
        node["properties"] = {
            # SPEC 4: an explicit null for an optional value means "absent"
            k: v if k in required else {"anyOf": [v, {"type": "null"}]}
            for k, v in node["properties"].items()
        }
    options = [node]
    if node.get("pattern") in (STRING_INTEGER, DECIMAL):
        options.append({"type": "integer"})  # SPEC 3: "an int is accepted too"
    if node.get("format") == "duration":
        options.append({"type": "number"})  # SPEC 3: "a number of seconds accepted too"
    if not root:
        # issue 5.3: JSON text for a nested array or object (a superset: any such text)
        if "array" in _types(node):
            options.append({"type": "string", "pattern": r"^[ \t\n\r]*\["})
        if "object" in _types(node):
            options.append({"type": "string", "pattern": r"^[ \t\n\r]*\{"})
    return node if len(options) == 1 else {"anyOf": options}


def _date_time(text: object, shape: re.Pattern[str] = RFC3339_DATE_TIME) -> bool:
    # RFC 3339 date-time. Python has no year 0 and no leap second: both are left out here.
    found = isinstance(text, str) and shape.fullmatch(text)
    if not found:
        return not isinstance(text, str)
    year, month, day = found.groups()[:3]
    try:
        date(int(year), int(month), int(day))
    except ValueError:
        return False
    if shape is ISO_DATE_TIME:
        return found.group(4) is None or _full_time(found.group(5), ISO_FULL_TIME)
    hour, minute, second, _, _, off_hour, off_minute = found.groups()[3:]
    return (
        int(hour) < 24 and int(minute) < 60 and int(second) < 60 and _offset(off_hour, off_minute)
    )


def _full_time(text: object, shape: re.Pattern[str] = RFC3339_FULL_TIME) -> bool:
    found = isinstance(text, str) and shape.fullmatch(text)
    if not found:
        return not isinstance(text, str)
    if shape is ISO_FULL_TIME:
        return True  # the expression bounds every field
    hour, minute, second, _, _, off_hour, off_minute = found.groups()
    return (
        int(hour) < 24 and int(minute) < 60 and int(second) < 60 and _offset(off_hour, off_minute)
    )


_DAYS = {"Y": 365, "W": 7, "D": 1, "H": 1 / 24, "S": 1 / 86400}


def _duration(text: object, shape: re.Pattern[str] = RFC3339_DURATION) -> bool:
    if not isinstance(text, str):
        return True
    if shape.fullmatch(text) is None:
        return False
    # a Python limit, left out: a timedelta holds less than 10**9 days
    days, in_time = 0.0, False
    for amount, unit in re.findall(r"([0-9.,]*)([A-Z])", text.upper()):
        in_time = in_time or unit == "T"
        if amount:
            month_or_minute = 1 / 1440 if in_time else 30
            days += float(amount.replace(",", ".")) * _DAYS.get(unit, month_or_minute)
    return days < 999_999_999


def _offset(hour: str | None, minute: str | None) -> bool:
    return hour is None or (int(hour) < 24 and int(minute or 0) < 60)


def _uuid(text: object) -> bool:
    # jsonschema's own check lets Python's UUID() strip extra hyphens; RFC 9562's grammar does not
    return not isinstance(text, str) or UUID.fullmatch(text) is not None


def _format_checker(*, dispatch: bool) -> jsonschema.FormatChecker:
    checker = jsonschema.FormatChecker(["date"])
    checker.checks("uuid")(_uuid)
    if dispatch:
        checker.checks("date-time")(lambda text: _date_time(text, ISO_DATE_TIME))
        checker.checks("time")(lambda text: _full_time(text, ISO_FULL_TIME))
        checker.checks("duration")(lambda text: _duration(text, ISO_DURATION))
    else:
        checker.checks("date-time")(_date_time)
        checker.checks("time")(_full_time)
        checker.checks("duration")(_duration)
    return checker


def _ecma(pattern: str) -> str:
    """ECMA-262's reading of the patterns used here (\\d is ASCII, $ is the very end)."""
    return pattern.replace("\\d", "[0-9]").replace("$", "\\Z")


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    # JSON Schema patterns are ECMA-262; jsonschema searches them as Python patterns
    if isinstance(instance, str) and not re.search(_ecma(pattern), instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def _content_encoding(
    validator: Any, encoding: str, instance: Any, schema: dict[str, Any]
) -> Iterator[jsonschema.ValidationError]:
    # an annotation in 2020-12; dispatch decodes the text, so both views assert it
    if encoding == "base64" and isinstance(instance, str) and not BASE64.fullmatch(instance):
        yield jsonschema.ValidationError(f"{instance!r} is not base64")


BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")


def _digit_bound(keyword: str) -> Callable[..., Iterator[jsonschema.ValidationError]]:
    """A bound on a ``string_integer`` applies to the number its digits spell.

    JSON Schema applies ``minimum`` & co. to numbers only, so on the emitted string schema
    they say nothing, while dispatch enforces them (out_of_range): the schema cannot express
    what dispatch does here (reported for _types/_render); this reads them as dispatch does.
    """
    check = jsonschema.Draft202012Validator.VALIDATORS[keyword]

    def bound(validator: Any, limit: Any, instance: Any, schema: dict[str, Any]) -> Any:
        digits = isinstance(instance, str) and schema.get("pattern") == STRING_INTEGER
        if digits and re.fullmatch("-?[0-9]+", instance):
            instance = int(instance)
        return check(validator, limit, instance, schema)

    return bound


Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    {
        "contentEncoding": _content_encoding,
        "pattern": _pattern,
        **{keyword: _digit_bound(keyword) for keyword in BOUNDS},
    },
)


def _with_gaps(schema: dict[str, Any], case: tuple[str, str]) -> dict[str, Any]:
    """POSITIONAL_GAP as a rule: a later one given (and not null, i.e. absent) needs the earlier."""
    given = {"not": {"type": "null"}}
    rules = [
        {
            "if": {"required": [later], "properties": {later: given}},
            "then": {"required": earlier, "properties": dict.fromkeys(earlier, given)},
        }
        for later, earlier in POSITIONAL_GAP.get(case, {}).items()
    ]
    return {**schema, "allOf": rules} if rules else schema


def schema_validator(schema: dict[str, Any], case: tuple[str, str]) -> Any:
    """(a): the emitted schema, its annotations asserted as dispatch reads them."""
    return Validator(_with_gaps(schema, case), format_checker=_format_checker(dispatch=False))


def dispatch_validator(schema: dict[str, Any], case: tuple[str, str]) -> Any:
    """(b): the emitted schema, widened by what dispatch documents it also accepts."""
    widened = _walk(_with_gaps(schema, case), _widen_for_dispatch, True)
    return Validator(widened, format_checker=_format_checker(dispatch=True))


# -- generating arguments ------------------------------------------------------------------------


def arguments(node: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Instances of a schema in the vocabulary toolcall emits.

    hypothesis-jsonschema draws the scalars (patterns, formats, bounds); objects and arrays
    are drawn here, since its object strategy does not run on the installed hypothesis (it
    uses a ``many.more()`` that hypothesis has since removed).
    """
    if "anyOf" in node:
        return st.one_of([arguments(variant) for variant in node["anyOf"]])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    kinds = _types(node)
    if not kinds:
        return JSON
    if len(kinds) > 1:
        return st.one_of([arguments({**node, "type": kind}) for kind in kinds])
    if kinds == ["object"]:
        return _objects(node)
    if kinds == ["array"]:
        return _arrays(node)
    leaf = {k: v for k, v in node.items() if k not in ("description", "default")}
    if leaf.pop("contentEncoding", None) == "base64":
        leaf["pattern"] = f"^{BASE64.pattern}$"
    # Python limits, left out: int() reads at most 4300 digits, Decimal exponents stop at 10**18
    if leaf.get("pattern") == STRING_INTEGER:
        if any(bound in leaf for bound in BOUNDS):
            number = {k: v for k, v in leaf.items() if k in BOUNDS}
            return from_schema({"type": "integer", **number}).map(str)
        leaf["pattern"] = r"^-?\d{1,100}$"
    elif leaf.get("pattern") == DECIMAL:
        leaf["pattern"] = r"^-?[0-9]{1,30}(\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?$"
    if "pattern" in leaf:
        leaf["pattern"] = _ecma(leaf["pattern"])  # hypothesis reads \d as any Unicode digit
    formats = {
        "uuid": st.uuids().map(str),
        "duration": st.from_regex(RFC3339_DURATION_SHORT, fullmatch=True),
    }
    return from_schema(leaf, custom_formats=formats)


def _objects(node: dict[str, Any]) -> st.SearchStrategy[Any]:
    properties = node.get("properties", {})
    required = set(node.get("required", ()))
    drawn = st.fixed_dictionaries(
        {k: arguments(v) for k, v in properties.items() if k in required},
        optional={k: arguments(v) for k, v in properties.items() if k not in required},
    )
    extra = node.get("additionalProperties", True)
    if extra is not False:
        keys = st.text(max_size=6).filter(lambda key: key not in properties)
        values = arguments(extra if isinstance(extra, dict) else {})
        more = st.dictionaries(keys, values, max_size=3)
        drawn = st.builds(lambda declared, others: {**others, **declared}, drawn, more)
    return drawn


def _arrays(node: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "prefixItems" in node:  # toolcall's tuples: exactly these positions
        return st.tuples(*(arguments(item) for item in node["prefixItems"])).map(list)
    unique = node.get("uniqueItems", False)
    return st.lists(
        arguments(node.get("items", {})),
        min_size=node.get("minItems", 0),
        max_size=node.get("maxItems", 4),
        unique_by=(lambda item: json.dumps(item, sort_keys=True)) if unique else None,
    )


def valid_arguments(schema: dict[str, Any], case: tuple[str, str]) -> st.SearchStrategy[Any]:
    needs = POSITIONAL_GAP.get(case, {})
    return arguments(schema).filter(
        lambda args: all(n in args for k in args if k in needs for n in needs[k])
    )


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)

# Values on or near the edges between what the schema and dispatch accept.
EDGES: list[Any] = [
    None,
    True,
    0,
    1,
    2,
    3,
    -1,
    10,
    5.0,
    5.5,
    1e308,
    2**63,
    "",
    "a",
    "b",
    "none",
    "red",
    "RED",
    "5",
    "-12",
    "1.5",
    "1e3",
    "1_000",
    " 1",
    "1\n",
    "NaN",
    "\u0663",
    "ABC-1",
    "ABC-1\n",
    "2024-05-06",
    "20240506",
    "2024-W19-1",
    "2024-02-30",
    "2024-05-06T07:08:09Z",
    "2024-05-06t07:08:09z",
    "2024-05-06T07:08:09.123456789+02:00",
    "2024-05-06T07:08:09",
    "2024-05-06 07:08:09Z",
    "2024-05-06T07:08",
    "2024-05-06T23:59:60Z",
    "07:08:09Z",
    "07:08:09z",
    "07:08",
    "24:00",
    "PT1H",
    "P1Y2M",
    "pt1,5h",
    "-PT1H",
    "P1DT",
    "1:00:00",
    "P1000000000D",
    "12345678-1234-5678-1234-567812345678",
    "12345678-1234-5678-1234-5678123456-78",
    "12345678123456781234567812345678",
    "{12345678-1234-5678-1234-567812345678}",
    "urn:uuid:12345678-1234-5678-1234-567812345678",
    "aGk=",
    "aGk",
    "aG k=",
    "[1]",
    '["a"]',
    '{"a": 1}',
    " [1, 2]",
    "[1,",
    [],
    {},
    [1, 1],
    [1, 1.0],
    [1, 2],
    [1, 2, 3, 4],
    ["a", "a"],
    ["a", 1],
    ["5", 6],
    {"x": 1.0},
    {"x": 1, "y": None},
    {"a": 1},
    {"sku": "ABC-1", "qty": 1},
    {"name": ""},
]
TRICKY = st.sampled_from(EDGES).map(copy.deepcopy)  # fresh: mutations must not share them
VALUES = JSON | TRICKY


def _slots(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key) pair inside a JSON value, at any depth."""
    found: list[tuple[Any, Any]] = []
    stack = [value]
    while stack:
        node = stack.pop()
        keys = (
            node if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else ()
        )
        for key in list(keys):
            found.append((node, key))
            stack.append(node[key])
    return found


@st.composite
def mutated(draw: st.DrawFn, valid: st.SearchStrategy[Any]) -> Any:
    """A valid argument set with one or two values replaced, removed or added."""
    value = draw(valid)
    for _ in range(draw(st.integers(1, 2))):
        slots = _slots(value)
        if not slots or draw(st.booleans()):
            dicts = [value, *(c[k] for c, k in slots if isinstance(c[k], dict))]
            draw(st.sampled_from(dicts))[draw(st.text(max_size=4))] = draw(VALUES)
            continue
        container, key = draw(st.sampled_from(slots))
        if isinstance(container, dict) and draw(st.booleans()):
            del container[key]
        else:
            container[key] = draw(VALUES)
    return value


def candidates(schema: dict[str, Any], case: tuple[str, str]) -> st.SearchStrategy[Any]:
    """Argument sets from anywhere: valid ones, near misses, the right names with any values."""
    valid = valid_arguments(schema, case)
    names = sorted(schema["properties"])
    keyed = st.fixed_dictionaries({}, optional=dict.fromkeys(names, VALUES))
    return st.one_of(valid, mutated(valid), mutated(valid), keyed, JSON)


# -- the properties ------------------------------------------------------------------------------

_strategies: dict[tuple[str, str], tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]]] = {}


def strategies(
    modules: dict[str, types.ModuleType], case: tuple[str, str]
) -> tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]]:
    if case not in _strategies:
        schema = parameters_schema(modules[case[0]], case[1])
        _strategies[case] = (valid_arguments(schema, case), candidates(schema, case))
    return _strategies[case]


SETTINGS = settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.mark.parametrize("case", CASES, ids=[f"{m}.{n}" for m, n in CASES])
@SETTINGS
@given(data=st.data())
def test_schema_valid_arguments_are_accepted(
    modules: dict[str, types.ModuleType], case: tuple[str, str], data: st.DataObject
) -> None:
    """(a) Whatever the emitted schema allows, run accepts."""
    module, name = case
    args = data.draw(strategies(modules, case)[0])
    schema = parameters_schema(modules[module], name)
    assert schema_validator(schema, case).is_valid(args)  # the generator's own promise
    assert accepted(modules[module], name, args), args


@pytest.mark.parametrize("case", CASES, ids=[f"{m}.{n}" for m, n in CASES])
@settings(SETTINGS, max_examples=examples(150))
@given(data=st.data())
def test_schema_and_dispatch_agree_on_any_arguments(
    modules: dict[str, types.ModuleType], case: tuple[str, str], data: st.DataObject
) -> None:
    """(b) What run accepts validates against the schema; (a) again, on near misses."""
    module, name = case
    args = data.draw(strategies(modules, case)[1])
    schema = parameters_schema(modules[module], name)
    took = accepted(modules[module], name, copy.deepcopy(args))
    if took:
        errors = [e.message for e in dispatch_validator(schema, case).iter_errors(args)]
        assert not errors, (args, errors)
    elif schema_validator(schema, case).is_valid(args):
        pytest.fail(f"valid under the schema, refused by run: {args!r}")


# -- every edge value in every position -----------------------------------------------------------

UUID_TEXT = "12345678-1234-5678-1234-567812345678"
STAMP = "2024-05-06T07:08:09Z"

# A valid argument set per tool with every optional value given, so that each nested position
# exists to be replaced.
FULL: dict[tuple[str, str], dict[str, Any]] = {
    ("examples.weather", "get_weather"): {"city": "Oslo", "days": 3},
    ("examples.weather", "convert_temperature"): {"value": 1.5, "to": "fahrenheit"},
    ("examples.weather", "air_quality"): {"city": "Oslo"},
    ("examples.orders", "place_order"): {
        "items": [{"sku": "A", "qty": 1, "gift_wrap": True}],
        "ship_to": {"street": "s", "city": "c", "postcode": "p", "country": "NO"},
        "priority": "express",
        "deliver_after": "2024-05-06",
    },
    ("examples.orders", "cancel_order"): {"order_id": "o", "reason": "r"},
    (BROAD, "scalars"): {"s": "x", "i": 1, "f": 1.5, "b": True, "n": None, "maybe": 2, "choice": 3},
    (BROAD, "stamps"): {
        "when": STAMP,
        "day": "2024-05-06",
        "at_": "07:08:09Z",
        "ident": UUID_TEXT,
        "amount": "1.5",
        "path": "a/b",
        "blob": "aGk=",
        "span": "PT1H",
    },
    (BROAD, "containers"): {
        "xs": [1],
        "pair": ["a", 1],
        "rest": [1.5],
        "uniq": [1, 2],
        "frozen": ["a"],
        "table": {"k": [True]},
        "anything": {"x": [1]},
    },
    (BROAD, "objects"): {
        "box": {"corner": {"x": 1.0, "y": 2.0}, "size": [1, 2], "label": "l"},
        "tags": [{"name": "t", "weight": 2}],
        "item": {"sku": "ABC-1", "qty": 2, "note": "n"},
        "filters": {"colors": ["red"], "after": STAMP, "ids": [UUID_TEXT]},
        "point": {"x": 1.0, "y": 0.0},
    },
    (BROAD, "enums"): {"color": "red", "level": 2, "levels": [1, 2]},
    (BROAD, "constrained"): {"count": 3, "ratio": 0.5, "name": "abc", "step": 10, "few": [1, 2]},
    (BROAD, "unions"): {"v": 1, "shape": {"x": 1.0}, "data": [1], "maybe": ["a"], "word": [1]},
    (BROAD, "wire"): {"user_id": "5", "ids": ["1", "2"], "page": "2"},
    (BROAD, "kwargs_tool"): {"a": 1, "z": 1.5},
    (BROAD, "positional"): {"a": 1, "b": "y"},
    (BROAD, "aliases"): {
        "seq": ["a"],
        "ro": {"k": 1},
        "thing": [1, {"x": None}],
        "user": 7,
        "bound": 1.5,
        "opaque": {"any": "json"},
        "old": 3,
    },
}


FULL.update({(FUTURE, name): FULL[BROAD, name] for name in TOOLS[FUTURE]})


def _at(args: Any, steps: list[Any]) -> tuple[Any, Any]:
    """The (container, key) that ``steps`` lead to in ``args``."""
    *inner, last = steps
    for step in inner:
        args = args[step]
    return args, last


def _positions(value: Any, steps: tuple[Any, ...] = ()) -> Iterator[list[Any]]:
    keys = (
        value if isinstance(value, dict) else range(len(value)) if isinstance(value, list) else ()
    )
    for key in keys:
        yield [*steps, key]
        yield from _positions(value[key], (*steps, key))


@pytest.mark.parametrize("case", CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_edge_values_in_every_position(
    modules: dict[str, types.ModuleType], case: tuple[str, str]
) -> None:
    """(a) and (b) for every EDGES value at every position of a full argument set, and removals."""
    module, name = case
    schema = parameters_schema(modules[module], name)
    strict, lenient = schema_validator(schema, case), dispatch_validator(schema, case)
    full = FULL[case]
    assert strict.is_valid(full)
    assert accepted(modules[module], name, copy.deepcopy(full))
    disagreements = []
    for steps in _positions(full):
        for value in [*EDGES, _REMOVE]:
            args = copy.deepcopy(full)
            container, key = _at(args, steps)
            if value is _REMOVE:
                if not isinstance(container, dict):
                    continue
                del container[key]
            else:
                container[key] = copy.deepcopy(value)
            took = accepted(modules[module], name, copy.deepcopy(args))
            if took and not lenient.is_valid(args):
                disagreements.append(f"run accepts, the schema refuses: {args!r}")
            if not took and strict.is_valid(args):
                disagreements.append(f"the schema allows, run refuses: {args!r}")
    assert not disagreements, "\n".join(disagreements)


_REMOVE: Any = object()


# -- what the agreement tightened in dispatch -----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "steps", "value", "reason"),
    [
        ("stamps", ["ident"], "12345678123456781234567812345678", "invalid_uuid"),
        ("stamps", ["ident"], "{12345678-1234-5678-1234-567812345678}", "invalid_uuid"),
        ("stamps", ["ident"], "urn:uuid:12345678-1234-5678-1234-567812345678", "invalid_uuid"),
        ("stamps", ["ident"], "12345678-1234-5678-1234-5678123456-78", "invalid_uuid"),
        ("stamps", ["day"], "20240506", "invalid_date"),
        ("stamps", ["day"], "2024-W19-1", "invalid_date"),
        ("stamps", ["day"], "\uff12024-05-06", "invalid_date"),
        ("stamps", ["amount"], "1\n", "invalid_decimal"),
        ("stamps", ["amount"], "\u0663", "invalid_decimal"),
        ("stamps", ["amount"], "1e999999999", "invalid_decimal"),
        ("stamps", ["when"], "2024-05-06T24:00", "invalid_datetime"),
        ("stamps", ["at_"], "24:00", "invalid_time"),
        ("stamps", ["span"], "P1DT", "invalid_duration"),
        ("stamps", ["when"], "2024-05-06T07:08", None),
        ("stamps", ["when"], "2024-05-06T07:08:09", None),
        ("stamps", ["at_"], "12:30", None),
        ("stamps", ["span"], 90.5, None),
        ("containers", ["uniq"], [1, 1], "duplicate_items"),
        ("containers", ["frozen"], ["a", "a"], "duplicate_items"),
        ("wire", ["user_id"], "5\n", "expected_integer_string"),
        ("objects", ["item", "sku"], "ABC-1\n", "pattern_mismatch"),
        ("stamps", ["when"], "2024-05-06t07:08:09z", None),
        ("stamps", ["at_"], "07:08:09z", None),
        ("stamps", ["ident"], "12345678-ABCD-5678-1234-567812345678", None),
    ],
)
def test_strings_are_read_as_the_schema_says(
    modules: dict[str, types.ModuleType],
    name: str,
    steps: list[Any],
    value: Any,
    reason: str | None,
) -> None:
    """format date/uuid exactly, RFC 3339's lowercase t/z, ECMA-262 patterns ($ is the end)."""
    args = copy.deepcopy(FULL[BROAD, name])
    container, key = _at(args, steps)
    container[key] = value
    result = toolcall.run(modules[BROAD], name, args)
    if reason is None:
        assert result == Ok(None)
    else:
        assert isinstance(result, Err)
        error = result.error
        assert (error.kind, error.path, error.reason, error.value) == (
            "invalid_argument",
            tuple(steps),
            reason,
            value,
        )


@pytest.mark.parametrize(
    ("pattern", "good", "bad"),
    [
        (r"^\d+$", ["12"], ["12\n", "\u0663", "1\uff12"]),
        (r"^\w+$", ["a_1"], ["\u00e9", "a-b"]),
        (r"^\s$", [" ", "\ufeff", "\u3000"], ["\x1c", "\x85", "a"]),
        (r"^\S+$", ["ab"], ["a b", "a\ufeff"]),
        (r"^[$\s]+$", ["$ $"], ["a"]),
        (r"^a\$$", ["a$"], ["a"]),
        (r"\bx", ["a x", "\u00e9x"], ["ax"]),
    ],
)
def test_patterns_are_ecma_262(pattern: str, good: list[str], bad: list[str]) -> None:
    """A pattern means what JSON Schema says: ASCII \\d \\w \\b, ECMA's \\s, $ only at the end."""
    coerce = build_coercer(ir.Type(kind="string", pattern=pattern), FakeResolver())
    for text in good:
        assert coerce(text) == text
    for text in bad:
        with pytest.raises(Invalid) as caught:
            coerce(text)
        assert caught.value.reason == "pattern_mismatch"


@pytest.mark.parametrize("name", TOOLS[FUTURE])
def test_future_annotations_change_no_schema(
    modules: dict[str, types.ModuleType], name: str
) -> None:
    """``from __future__ import annotations`` gives the same schema: a ``NotRequired`` field
    stays optional (Python's ``__required_keys__`` counts it as required there)."""
    assert parameters_schema(modules[FUTURE], name) == parameters_schema(modules[BROAD], name)
    args = {**FULL[BROAD, name]}
    if name == "objects":
        args["item"] = {"sku": "ABC-1", "qty": 2}  # no note
    assert accepted(modules[FUTURE], name, args)
