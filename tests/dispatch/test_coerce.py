"""ir.Type -> coercer: SPEC section 3's runtime column, constraints, paths, restoration."""

from __future__ import annotations

import dataclasses
import math
import re
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest

from fakes import FakeResolver
from toolcall import ir
from toolcall._dispatch.coerce import Invalid, build_coercer
from toolcall._scalars import DECIMAL_PATTERN
from zoo import Color, Level, Point

T = ir.Type
F = ir.Field


NOTHING = FakeResolver()


def coercer(t: ir.Type, resolver: FakeResolver = NOTHING) -> Callable[[Any], Any]:
    return build_coercer(t, resolver)


def fails(t: ir.Type, value: Any, resolver: FakeResolver = NOTHING) -> tuple[Any, ...]:
    """(reason, path, offending value) of a coercion that must fail."""
    with pytest.raises(Invalid) as caught:
        build_coercer(t, resolver)(value)
    return caught.value.reason, caught.value.path, caught.value.value


def same(actual: Any, expected: Any) -> bool:
    """Equal and of the same type, so that 5 and 5.0 (or True and 1) are told apart."""
    return type(actual) is type(expected) and actual == expected


# -- scalars -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Oslo", "Oslo"),
        ("Zürich 🌤", "Zürich 🌤"),
        ("", ""),
        (b"caf\xc3\xa9", "café"),
        (bytearray(b"abc"), "abc"),
    ],
)
def test_string_accepts_text_and_utf8_bytes(value: Any, expected: str) -> None:
    """A string is handed over as str; bytes that decode as UTF-8 are decoded."""
    assert same(coercer(T(kind="string"))(value), expected)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("a\ud800b", "invalid_utf8"),
        (b"\xff\xfe", "invalid_utf8"),
        (5, "expected_string"),
        (None, "expected_string"),
        (["a"], "expected_string"),
    ],
)
def test_string_rejects(value: Any, reason: str) -> None:
    """Lone surrogates and undecodable bytes are invalid_utf8; non-text is expected_string."""
    assert fails(T(kind="string"), value) == (reason, (), value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(5, 5), (-3, -3), (5.0, 5), (-0.0, 0), (10**30, 10**30)],
)
def test_integer_accepts_ints_and_integral_floats(value: Any, expected: int) -> None:
    """An int is itself; a float with an integral value becomes the int."""
    assert same(coercer(T(kind="integer"))(value), expected)


@pytest.mark.parametrize("value", [5.5, "5", True, False, math.nan, math.inf, None, [5]])
def test_integer_rejects(value: Any) -> None:
    """5.5, "5", booleans and non-finite floats are expected_integer."""
    reason, path, offending = fails(T(kind="integer"), value)
    assert (reason, path) == ("expected_integer", ())
    assert offending is value


@pytest.mark.parametrize(("value", "expected"), [(1.5, 1.5), (2, 2.0), (-0.0, -0.0)])
def test_number_gives_floats(value: Any, expected: float) -> None:
    """A number is handed over as float, ints included."""
    assert same(coercer(T(kind="number"))(value), expected)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (True, "expected_number"),
        ("1.5", "expected_number"),
        (None, "expected_number"),
        (math.nan, "not_finite"),
        (-math.inf, "not_finite"),
        (10**400, "not_finite"),
    ],
)
def test_number_rejects(value: Any, reason: str) -> None:
    """Booleans and strings are expected_number; nan, inf and huge ints are not_finite."""
    assert fails(T(kind="number"), value)[:2] == (reason, ())


def test_boolean_null_and_any() -> None:
    """bool only for boolean, None only for null, and any hands the very value over."""
    assert coercer(T(kind="boolean"))(False) is False
    assert fails(T(kind="boolean"), 1) == ("expected_boolean", (), 1)
    assert fails(T(kind="boolean"), "true") == ("expected_boolean", (), "true")
    assert coercer(T(kind="null"))(None) is None
    assert fails(T(kind="null"), 0) == ("expected_null", (), 0)
    value = {"deep": [object()]}
    assert coercer(T(kind="any"))(value) is value


def test_any_does_not_walk_deep_values() -> None:
    """A value nested far past the recursion limit passes through any untouched."""
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    assert coercer(T(kind="array", items=T(kind="any")))(deep) == [deep[0]]


# -- enums -------------------------------------------------------------------------------------


LITERAL = T(kind="enum", py="literal", values=("a", 1, False))


@pytest.mark.parametrize(("value", "expected"), [("a", "a"), (1, 1), (1.0, 1), (False, False)])
def test_literal_matches_by_json_type(value: Any, expected: Any) -> None:
    """A literal is matched type-exactly (an integral float may match an int) and returned."""
    assert same(coercer(LITERAL)(value), expected)


@pytest.mark.parametrize("value", ["b", True, 0, 1.5, None, ["a"], {"a": 1}])
def test_literal_rejects(value: Any) -> None:
    """Anything else, True for 1 and 0 for False included, is not_in_enum."""
    assert fails(LITERAL, value) == ("not_in_enum", (), value)


def test_enum_returns_the_member() -> None:
    """An Enum type gives the function the member with that value."""
    resolver = FakeResolver({"m:Color": Color, "m:Level": Level})
    color = T(kind="enum", py="enum", ref="m:Color", values=("red", "green"))
    assert coercer(color, resolver)("green") is Color.GREEN
    assert fails(color, "blue", resolver) == ("not_in_enum", (), "blue")
    level = T(kind="enum", py="enum", ref="m:Level", values=(1, 2))
    assert coercer(level, resolver)(2.0) is Level.HIGH
    assert fails(level, True, resolver) == ("not_in_enum", (), True)


def test_unresolvable_enum_gives_the_values() -> None:
    """An Enum class nothing resolves: the JSON value itself, never a crash."""
    color = T(kind="enum", py="enum", ref="gone:Color", values=("red",))
    assert coercer(color)("red") == "red"


# -- strings with a Python meaning --------------------------------------------------------------


@pytest.mark.parametrize(
    ("py", "value", "expected"),
    [
        ("datetime", "2024-05-06T07:08:09Z", datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)),
        (
            "datetime",
            "2024-05-06T07:08:09+02:00",
            datetime(2024, 5, 6, 7, 8, 9, tzinfo=timezone(timedelta(hours=2))),
        ),
        ("datetime", "2024-05-06t07:08:09.5z", datetime(2024, 5, 6, 7, 8, 9, 500000, tzinfo=UTC)),
        ("date", "2024-05-06", date(2024, 5, 6)),
        ("time", "12:30:00-03:30", time(12, 30, tzinfo=timezone(-timedelta(hours=3.5)))),
        ("time", "12:30:15Z", time(12, 30, 15, tzinfo=UTC)),
        (
            "uuid",
            "12345678-1234-5678-1234-567812345678",
            uuid.UUID(int=0x12345678123456781234567812345678),
        ),
        ("decimal", "-1.10", Decimal("-1.10")),
        ("decimal", 3, Decimal(3)),
        ("path", "a/b.txt", Path("a/b.txt")),
        ("bytes", "aGk=", b"hi"),
        ("bytes", "", b""),
    ],
)
def test_strings_restore_python_values(py: str, value: Any, expected: Any) -> None:
    """datetime/date/time from ISO 8601 (lowercase t/z too), UUID, Decimal, Path, base64 bytes."""
    assert same(coercer(T(kind="string", py=py))(value), expected)


@pytest.mark.parametrize(
    ("py", "value", "reason"),
    [
        ("datetime", "yesterday", "invalid_datetime"),
        ("datetime", 1714979289, "invalid_datetime"),
        ("date", "2024-13-01", "invalid_date"),
        ("date", None, "invalid_date"),
        ("time", "25:00", "invalid_time"),
        ("uuid", "not-a-uuid", "invalid_uuid"),
        ("uuid", 5, "invalid_uuid"),
        ("decimal", "abc", "invalid_decimal"),
        ("decimal", "NaN", "invalid_decimal"),
        ("decimal", "-Infinity", "invalid_decimal"),
        ("decimal", 1.5, "invalid_decimal"),
        ("decimal", True, "invalid_decimal"),
        ("path", 5, "expected_string"),
        ("path", "a\udc80", "invalid_utf8"),
        ("bytes", "aGk", "invalid_base64"),
        ("bytes", "aG k=", "invalid_base64"),
        ("bytes", "é===", "invalid_base64"),
        ("bytes", 5, "invalid_base64"),
    ],
)
def test_strings_with_python_meaning_reject(py: str, value: Any, reason: str) -> None:
    """What does not parse (or is not a string) fails with the type's own reason."""
    assert fails(T(kind="string", py=py), value) == (reason, (), value)


STRING_INTEGER = T(kind="string", wire="string_integer", pattern=r"^-?\d+$")


@pytest.mark.parametrize(
    ("value", "expected"),
    [("123456789012345678901234567890", 123456789012345678901234567890), ("-5", -5), (7, 7)],
)
def test_string_integer_parses(value: Any, expected: int) -> None:
    """wire="string_integer": a string of digits becomes the int; an int is accepted too."""
    assert same(coercer(STRING_INTEGER)(value), expected)


@pytest.mark.parametrize("value", ["5.0", "", " 5", "5\n", "\u0663", "x", True, 5.0, None])
def test_string_integer_rejects(value: Any) -> None:
    """Anything but ASCII digits (with an optional minus) or an int: expected_integer_string."""
    assert fails(STRING_INTEGER, value) == ("expected_integer_string", (), value)


# -- constraints -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("t", "good", "bad"),
    [
        (T(kind="integer", minimum=1, maximum=7), [1, 7], [0, 8]),
        (T(kind="integer", exclusive_minimum=0, exclusive_maximum=3), [1, 2], [0, 3]),
        (T(kind="integer", multiple_of=5), [0, -10, 15], [7]),
        (T(kind="number", multiple_of=0.1), [0.3, 2, 1.2], [0.35]),
        (T(kind="number", minimum=0.5), [0.5, 1], [0.49, 0]),
        (T(kind="string", wire="string_integer", minimum=1), ["1", 2], ["0", -1]),
        (T(kind="string", py="decimal", maximum=10), ["9.99", 10], ["10.01", 11]),
    ],
)
def test_numeric_bounds(t: ir.Type, good: list[Any], bad: list[Any]) -> None:
    """minimum, maximum, exclusive bounds and multiple_of apply to the restored number."""
    for value in good:
        coercer(t)(value)
    for value in bad:
        assert fails(t, value) == ("out_of_range", (), value)


def test_string_length_and_pattern() -> None:
    """Lengths count code points; pattern is searched (JSON Schema semantics)."""
    short = T(kind="string", min_length=2, max_length=3)
    assert coercer(short)("ab") == "ab"
    assert coercer(short)("ééé") == "ééé"
    assert fails(short, "a") == ("too_short", (), "a")
    assert fails(short, "abcd") == ("too_long", (), "abcd")
    word = T(kind="string", pattern="[a-z]{2}")
    assert coercer(word)("12ab34") == "12ab34"
    assert fails(word, "a1b2") == ("pattern_mismatch", (), "a1b2")


DECIMAL = T(kind="string", py="decimal", pattern=DECIMAL_PATTERN)


@pytest.mark.parametrize(
    "value", ["abc", "NaN", "1_000", " 1", "1e1000", "0E1000000000000000000", "1e999999999"]
)
def test_decimal_text_is_exactly_the_pattern(value: str) -> None:
    """What only Python would read (NaN, 1_000, a padded or huge-exponent number) is
    invalid_decimal, as the pattern refuses it: no Decimal("1e999999999") reaches the tool."""
    assert fails(DECIMAL, value) == ("invalid_decimal", (), value)
    assert re.search(DECIMAL_PATTERN, value) is None
    assert coercer(DECIMAL)("-1.5e999") == Decimal("-1.5e999")


@pytest.mark.parametrize(
    ("py", "value", "expected"),
    [
        ("datetime", "2024-05-06T07:08:09", datetime(2024, 5, 6, 7, 8, 9)),
        ("datetime", "2024-05-06T07:08Z", datetime(2024, 5, 6, 7, 8, tzinfo=UTC)),
        ("datetime", "2024-05-06 07:08:09Z", datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)),
        ("time", "12:30:00", time(12, 30)),
        ("time", "12:30", time(12, 30)),
    ],
)
def test_date_times_and_times_need_no_offset_nor_seconds(
    py: str, value: str, expected: Any
) -> None:
    """Issue 21 (reverting issue 12.1's RFC 3339 reading): pydantic's ISO 8601, naive when no
    offset is given; tests/dispatch/test_iso_values.py compares every form with pydantic."""
    assert same(coercer(T(kind="string", py=py))(value), expected)


def test_pattern_applies_to_the_wire_string() -> None:
    """On a string with a Python meaning the pattern applies to the text the model sent."""
    assert coercer(DECIMAL)("-1.5e3") == Decimal("-1.5e3")
    money = T(kind="string", py="decimal", pattern=r"^-?\d+\.\d{2}$")
    assert coercer(money)("1.50") == Decimal("1.50")
    assert fails(money, "1.5") == ("pattern_mismatch", (), "1.5")


def test_sizes_of_arrays_and_objects() -> None:
    """min/max items (and lengths) on arrays and property counts on objects."""
    arr = T(kind="array", items=T(kind="integer"), min_items=1, max_items=2)
    assert fails(arr, []) == ("too_short", (), [])
    assert fails(arr, [1, 2, 3]) == ("too_long", (), [1, 2, 3])
    assert coercer(arr)([1, 2]) == [1, 2]
    longest = T(kind="array", max_length=1)
    assert fails(longest, [1, 2]) == ("too_long", (), [1, 2])
    obj = T(kind="object", additional=T(kind="any"), min_length=1, max_length=1)
    assert fails(obj, {}) == ("too_short", (), {})
    assert fails(obj, {"a": 1, "b": 2}) == ("too_long", (), {"a": 1, "b": 2})


# -- arrays ------------------------------------------------------------------------------------


INTS = T(kind="array", py="list", items=T(kind="integer"))


def test_array_restores_items_into_the_declared_container() -> None:
    """Items are coerced; list, tuple, set and frozenset are built as declared."""
    assert same(coercer(INTS)([1, 2.0]), [1, 2])
    assert same(coercer(INTS)((1, 2)), [1, 2])
    for py, kind in (("tuple", tuple), ("set", set), ("frozenset", frozenset)):
        t = T(kind="array", py=py, items=T(kind="integer"), unique_items=py != "tuple")
        assert same(coercer(t)([3, 1.0]), kind([3, 1]))


@pytest.mark.parametrize(
    ("py", "value"),
    [
        *((py, value) for py in ("set", "frozenset", "list") for value in ([3, 1, 3], [1, 1.0])),
        ("list", [[1, 2], [1, 2]]),
        ("list", [{"a": 1, "b": 2}, {"b": 2, "a": 1}]),
    ],
)
def test_unique_items_refuse_repeats(py: str, value: list[Any]) -> None:
    """uniqueItems is enforced: a repeat (equal as JSON: 1 and 1.0, key order aside) is
    duplicate_items, not collapsed (issue 12.2)."""
    t = T(kind="array", py=py, unique_items=True)
    assert fails(t, value) == ("duplicate_items", (), value)


def test_unique_items_keep_what_json_tells_apart() -> None:
    """true and 1 differ as JSON; two spellings of one UUID differ as JSON and collapse."""
    assert coercer(T(kind="array", py="list", unique_items=True))([True, 1]) == [True, 1]
    ids = T(kind="array", py="set", items=T(kind="string", py="uuid"), unique_items=True)
    text = "12345678-1234-5678-1234-56781234567a"
    assert coercer(ids)([text, text.upper()]) == {uuid.UUID(text)}


@pytest.mark.parametrize("value", ["ab", b"ab", {"a": 1}, None, 5])
def test_array_rejects_non_arrays(value: Any) -> None:
    """Only a list or tuple is an array: strings and mappings are expected_array."""
    assert fails(INTS, value) == ("expected_array", (), value)


def test_array_item_errors_carry_the_index() -> None:
    """The path of a bad item is its index; the value is the item."""
    assert fails(INTS, [1, 2, "x"]) == ("expected_integer", (2,), "x")


def test_set_of_unhashable_items() -> None:
    """A set whose restored item cannot be hashed: unhashable_item at that index."""
    t = T(kind="array", py="set", items=T(kind="any"))
    assert fails(t, [1, [2]]) == ("unhashable_item", (1,), [2])


def test_fixed_length_tuples() -> None:
    """prefix_items: exactly that many items, each by position, restored as a tuple."""
    pair = T(
        kind="array",
        py="tuple",
        prefix_items=(T(kind="number"), T(kind="string")),
        min_items=2,
        max_items=2,
    )
    assert same(coercer(pair)([1, "a"]), (1.0, "a"))
    assert fails(pair, [1]) == ("wrong_length", (), [1])
    assert fails(pair, [1, "a", 2]) == ("wrong_length", (), [1, "a", 2])
    assert fails(pair, [1, 2]) == ("expected_string", (1,), 2)
    assert fails(pair, "ab") == ("expected_array", (), "ab")


# -- objects -----------------------------------------------------------------------------------


ITEM = T(
    kind="object",
    py="dict",
    fields=(
        F(name="name", type=T(kind="string")),
        F(name="qty", type=T(kind="integer"), required=False),
        F(name="note", type=T(kind="string", nullable=True), required=False),
    ),
)


def test_object_restores_a_dict_of_declared_fields() -> None:
    """A TypedDict-like object becomes a dict; omitted optional fields stay absent."""
    assert coercer(ITEM)({"name": "a", "qty": 2.0}) == {"name": "a", "qty": 2}
    assert coercer(ITEM)({"name": "a"}) == {"name": "a"}


def test_object_explicit_null() -> None:
    """null for an optional non-nullable field means absent; for a nullable one it is None."""
    assert coercer(ITEM)({"name": "a", "qty": None}) == {"name": "a"}
    assert coercer(ITEM)({"name": "a", "note": None}) == {"name": "a", "note": None}
    assert fails(ITEM, {"name": None}) == ("expected_string", ("name",), None)


@pytest.mark.parametrize(
    "t",
    [
        T(kind="null"),
        T(kind="any"),
        T(kind="union", variants=(T(kind="integer"), T(kind="null"))),
        T(kind="enum", values=("a", None)),
    ],
    ids=["null", "any", "union-with-null", "enum-with-null"],
)
def test_explicit_null_kept_where_the_type_takes_none(t: ir.Type) -> None:
    """An optional field whose type accepts None gets None, not its default."""
    record = T(kind="object", fields=(F(name="f", type=t, required=False),))
    assert coercer(record)({"f": None}) == {"f": None}


@pytest.mark.parametrize(
    ("value", "failure"),
    [
        ("x", ("expected_object", (), "x")),
        (["name", "a"], ("expected_object", (), ["name", "a"])),
        ({"qty": 1}, ("missing_field", ("name",), None)),
        ({"name": "a", "size": 3}, ("unknown_field", ("size",), 3)),
        ({"name": "a", 7: 3}, ("non_string_key", (), 7)),
        ({"name": 5}, ("expected_string", ("name",), 5)),
        # undeclared keys are reported before any field
        ({"size": 3, "name": 5}, ("unknown_field", ("size",), 3)),
        ({"size": 3}, ("unknown_field", ("size",), 3)),
        ({7: 3, "size": 3}, ("non_string_key", (), 7)),
    ],
)
def test_object_failures(value: Any, failure: tuple[Any, ...]) -> None:
    """Not a mapping, a missing or undeclared field, a non-string key, a bad field value."""
    assert fails(ITEM, value) == failure


def test_open_object_coerces_every_value() -> None:
    """An open object (dict[str, T]) coerces each value with the additional type."""
    t = T(kind="object", additional=T(kind="integer"))
    assert coercer(t)({"a": 1.0, "b": 2}) == {"a": 1, "b": 2}
    assert fails(t, {"a": 1, "b": "x"}) == ("expected_integer", ("b",), "x")
    assert fails(t, {"a": 1, 2: 3}) == ("non_string_key", (), 2)
    assert fails(t, {"a": None}) == ("expected_integer", ("a",), None)


@dataclasses.dataclass
class Line:
    sku: str
    qty: int = 1

    def __post_init__(self) -> None:
        if self.qty > 100:
            msg = "qty above 100"
            raise ValueError(msg)


class Span(msgspec.Struct):
    start: date
    days: int = 1


CLASSES = FakeResolver({"m:Line": Line, "m:Point": Point, "m:Span": Span})


def _record(py: str, ref: str, *fields: ir.Field) -> ir.Type:
    return T(kind="object", py=py, ref=ref, fields=fields)


LINE = _record(
    "dataclass",
    "m:Line",
    F(name="sku", type=T(kind="string")),
    F(name="qty", type=T(kind="integer"), required=False, has_default=True, default=1),
)


def test_dataclass_namedtuple_and_struct_are_built() -> None:
    """Records are built with their fields; omitted optionals get the class's defaults."""
    assert coercer(LINE, CLASSES)({"sku": "a"}) == Line("a", 1)
    assert coercer(LINE, CLASSES)({"sku": "a", "qty": None}) == Line("a", 1)
    point = _record(
        "namedtuple",
        "m:Point",
        F(name="x", type=T(kind="number")),
        F(name="y", type=T(kind="number"), required=False),
    )
    assert same(coercer(point, CLASSES)({"x": 1}), Point(1.0))
    span = _record(
        "struct",
        "m:Span",
        F(name="start", type=T(kind="string", py="date")),
        F(name="days", type=T(kind="integer"), required=False),
    )
    assert coercer(span, CLASSES)({"start": "2024-01-02", "days": 3}) == Span(date(2024, 1, 2), 3)


def test_a_constructor_that_raises_is_invalid_value() -> None:
    """A record whose constructor refuses the fields: invalid_value with the input mapping."""
    value = {"sku": "a", "qty": 101}
    assert fails(LINE, value, CLASSES) == ("invalid_value", (), value)


def test_unresolvable_record_is_a_dict() -> None:
    """A record class nothing resolves restores as the plain dict, never a crash."""
    assert coercer(LINE)({"sku": "a"}) == {"sku": "a"}


def test_paths_at_depth() -> None:
    """A failure deep inside is located by every key and index on the way."""
    order = T(
        kind="object",
        fields=(
            F(name="items", type=T(kind="array", items=LINE)),
            F(
                name="tags",
                type=T(kind="object", additional=T(kind="array", items=T(kind="string"))),
            ),
        ),
    )
    c = coercer(order, CLASSES)
    value = {"items": [{"sku": "a"}, {"sku": "b", "qty": 2}, {"sku": "c", "qty": "x"}], "tags": {}}
    with pytest.raises(Invalid) as caught:
        c(value)
    assert (caught.value.reason, caught.value.path, caught.value.value) == (
        "expected_integer",
        ("items", 2, "qty"),
        "x",
    )
    tags = {"items": [], "tags": {"k": ["a", 1]}}
    assert fails(order, tags, CLASSES) == ("expected_string", ("tags", "k", 1), 1)
    restored = c({"items": [{"sku": "a", "qty": None}], "tags": {"k": ["x"]}})
    assert restored == {"items": [Line("a", 1)], "tags": {"k": ["x"]}}


# -- unions, nullable, providers ---------------------------------------------------------------


def test_union_first_matching_variant_wins() -> None:
    """Variants are tried in order; the first that accepts the value gives the result."""
    t = T(kind="union", variants=(T(kind="integer"), T(kind="string")))
    assert same(coercer(t)(5.0), 5)
    assert coercer(t)("5") == "5"
    assert fails(t, [5]) == ("no_matching_type", (), [5])


@pytest.mark.parametrize(
    "variants",
    [(T(kind="integer"), T(kind="number")), (T(kind="number"), T(kind="integer"))],
    ids=["int | float", "float | int"],
)
def test_a_number_keeps_its_json_type_in_a_numeric_union(variants: tuple[T, ...]) -> None:
    """Issue 21: ``int | float`` given 2.0 hands the function 2.0 (it gave 2), and 2 stays an
    int in either order, as pydantic's smart unions do; other variants come after."""
    for t in (
        T(kind="union", variants=variants),
        T(kind="union", variants=(T(kind="string"), *variants)),
    ):
        assert same(coercer(t)(2.0), 2.0)
        assert same(coercer(t)(2), 2)
        assert same(coercer(t)(2.5), 2.5)
        assert fails(t, True) == ("no_matching_type", (), True)
    nested = T(kind="array", items=T(kind="union", variants=variants))
    assert [type(x) for x in coercer(nested)([1, 1.0, 1.5])] == [int, float, float]


def test_union_reports_the_one_variant_that_matched_the_shape() -> None:
    """When exactly one variant failed inside the value, its error is the one reported."""
    t = T(kind="union", variants=(T(kind="string"), INTS))
    assert fails(t, [1, "x"]) == ("expected_integer", (1,), "x")
    two_records = T(kind="union", variants=(ITEM, LINE))
    assert fails(two_records, {"qty": 1}) == ("no_matching_type", (), {"qty": 1})


def test_nullable() -> None:
    """A nullable type passes None through before anything else."""
    t = T(kind="integer", nullable=True, minimum=1)
    assert coercer(t)(None) is None
    assert fails(t, 0) == ("out_of_range", (), 0)
    assert fails(t, "x") == ("expected_integer", (), "x")
    assert coercer(T(kind="union", nullable=True, variants=(ITEM, INTS)))(None) is None


class Money:
    def __init__(self, text: str) -> None:
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Money) and other.text == self.text

    __hash__ = None  # type: ignore[assignment]


class MoneyType:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    def coerce(self, value: Any) -> Money:
        self.seen.append(value)
        if value == "0.00":
            msg = "zero is not money"
            raise ValueError(msg)
        return Money(value)


MONEY = T(kind="string", pattern=r"^-?\d+\.\d{2}$", provider="m:MoneyType", nullable=True)


def test_provider_coerces_after_the_wire_value() -> None:
    """A provider's coerce gets the validated wire value; what it returns is handed over."""
    provider = MoneyType()
    resolver = FakeResolver(providers={"m:MoneyType": provider})
    assert coercer(MONEY, resolver)(b"1.50") == Money("1.50")
    assert fails(MONEY, "1.5", resolver) == ("pattern_mismatch", (), "1.5")
    assert fails(MONEY, "0.00", resolver) == ("invalid_value", (), "0.00")
    assert coercer(MONEY, resolver)(None) is None
    assert provider.seen == ["1.50", "0.00"]


def test_provider_without_coerce_or_unresolvable() -> None:
    """No coerce method, or no provider at all: the wire value is handed over."""
    assert coercer(MONEY, FakeResolver(providers={"m:MoneyType": object()}))("1.50") == "1.50"
    assert coercer(MONEY)("1.50") == "1.50"
