"""One row per scalar type of SPEC section 3: everything each stage needs to know about it.

A row says, for one scalar type, the IR keywords derivation gives it (``format``, ``pattern``,
``content_encoding``), how dispatch restores the Python value from the JSON one (``restore``,
which raises :class:`Invalid` with the row's ``reason``), the check the generated fast path
writes out for it (``fast``; None when the fast path calls the coercer instead), the text a
model reads for its error reason, and the schema of what ``encode_result`` writes for a value
of it (``output``: the output schema is about the encoded value, which for a ``Decimal``, a
naive ``datetime`` or a ``string_integer`` is not the input shape).

Keeping the row together is what keeps schema and dispatch in agreement: the pattern a
``Decimal`` is emitted with and the text ``run`` accepts for it are written next to each
other, both in ``[0-9]`` (every grammar engine reads it; llama.cpp's GBNF converter refuses
``\\d``) and both with a bounded exponent, so the schema admits exactly what ``run`` takes.

What the SPEC leaves open about these values is in ``docs/decisions.md``, "Scalar values".
"""

from __future__ import annotations

import base64
import math
import pathlib
import re
import types
import uuid
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, Final

import msgspec

__all__ = [
    "DECIMAL_PATTERN",
    "INTEGER_STRING_PATTERN",
    "ROWS",
    "STRING_TYPES",
    "Invalid",
    "Scalar",
    "row_of",
    "scalar_reasons",
]


class Invalid(Exception):
    """A value failed coercion; ``path`` locates it below the value the coercer was given.

    Internal to dispatch: the plan turns it into ``ToolError.invalid_argument``. ``rule`` is
    the rule the value broke, for the message (SPEC 5, "Errors name the rule"); its shape
    depends on ``reason``:

    - ``out_of_range``: ``(keyword, bound)``, the IR's ``minimum``, ``maximum``,
      ``exclusive_minimum``, ``exclusive_maximum`` or ``multiple_of``;
    - ``too_short`` / ``too_long``: ``(limit, length)``, the bound and the length sent;
      ``wrong_length``: the length a fixed array must have;
    - ``pattern_mismatch``: the pattern (``(pattern, description)`` once the plan has found
      what describes it); ``not_in_enum``: the allowed values (a tuple);
    - ``duplicate_items``: ``(item,)``, an item sent more than once.

    None when there is nothing to name (a format's reason says its rule itself).
    """

    __slots__ = ("path", "reason", "rule", "value")

    def __init__(
        self,
        reason: str,
        value: Any,
        path: tuple[str | int, ...] = (),
        *,
        rule: Any = None,
    ) -> None:
        # no ``super().__init__``: ``Exception.__new__`` has kept the arguments as ``args``
        # already, and one error is built on every failed call
        self.reason = reason
        self.value = value
        self.path = path
        self.rule = rule


class Scalar(msgspec.Struct, frozen=True):
    """One scalar type: see the module docstring for what each column is for.

    ``fast`` is ``(condition, value)``, Python source with ``{x}`` standing for the local
    holding the JSON value: the fast path continues when ``condition`` holds and uses
    ``value`` (None: the JSON value itself) as the restored one; an exception raised by
    ``value`` is a deviation like a failed condition. The names it uses are the
    ``FAST_NAMES`` the generated code is given.
    """

    name: str
    kind: str
    py: str = ""
    wire: str = ""
    keywords: dict[str, str] = msgspec.field(default_factory=dict)
    restore: Callable[[Any], Any] = lambda value: value
    reason: str = ""
    reason_text: str = ""
    fast: tuple[str, str | None] | None = None
    output: dict[str, Any] = msgspec.field(default_factory=dict)


# -- restoring -----------------------------------------------------------------------------------


def text_of(value: Any, reason: str) -> str:
    """The wire string: valid Unicode text, or UTF-8 bytes decoded; else ``reason``."""
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise Invalid("invalid_utf8", value) from None
        return value
    if isinstance(value, bytes | bytearray):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise Invalid("invalid_utf8", value) from None
    raise Invalid(reason, value)


def plain_text(value: Any) -> str:
    if type(value) is str and value.isascii():
        return value
    return text_of(value, "expected_string")


def utf8(text: str) -> bool:
    """Whether ``text`` encodes as UTF-8 (no lone surrogates); the fast path's string check."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _parsed(parse: Callable[[str], Any], reason: str) -> Callable[[Any], Any]:
    """A restore function: the wire text, then ``parse`` of it; any failure is ``reason``."""

    def restore(value: Any) -> Any:
        text = text_of(value, reason)
        try:
            return parse(text)
        except (ValueError, TypeError, ArithmeticError):
            raise Invalid(reason, value) from None

    return restore


def _shaped(shape: str, parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``parse``, for text of exactly that shape only (Python reads more than the schema)."""
    exact = _SHAPES[shape] = re.compile(shape).fullmatch

    def convert(text: str) -> Any:
        if exact(text) is None:
            raise ValueError(text)
        return parse(text)

    return convert


_SHAPES: Final[dict[str, Callable[[str], Any]]] = {}
"""Each exact shape's ``fullmatch``, which the fast path calls without the closures around it."""


def _upper(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    # RFC 3339 allows a lowercase "t" and "z"; Python reads only "T" and "Z"
    return lambda text: parse(text.upper())


def to_int(value: Any) -> int:
    if type(value) is int:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    raise Invalid("expected_integer", value)


def to_float(value: Any) -> float:
    if type(value) is float:
        number = value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        try:
            number = float(value)
        except OverflowError:
            raise Invalid("not_finite", value) from None
    else:
        raise Invalid("expected_number", value)
    if math.isfinite(number):
        return number
    raise Invalid("not_finite", value)


def _boolean(value: Any) -> bool:
    if type(value) is bool:
        return value
    raise Invalid("expected_boolean", value)


def _null(value: Any) -> None:
    if value is not None:
        raise Invalid("expected_null", value)


_INTEGER_TEXT: Final = "-?[0-9]+"
INTEGER_STRING_PATTERN: Final = f"^{_INTEGER_TEXT}$"
_INTEGER_STRING = re.compile(_INTEGER_TEXT)


def _string_integer(value: Any) -> int:
    if isinstance(value, str) and _INTEGER_STRING.fullmatch(value):
        try:
            return int(value)
        except ValueError:  # longer than sys.get_int_max_str_digits()
            pass
    elif isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    raise Invalid("expected_integer_string", value)


# "[.]", not "\\.": llama.cpp's GBNF converter refuses an escaped dot (issue 25)
_DECIMAL_TEXT: Final = "-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]{1,3})?"
DECIMAL_PATTERN: Final = f"^{_DECIMAL_TEXT}$"
_DECIMAL = _shaped(_DECIMAL_TEXT, Decimal)
_decimal_text = _parsed(_DECIMAL, "invalid_decimal")


def _decimal(value: Any) -> Decimal:
    # an integer is accepted too: a model often sends 5 for "5"
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    restored: Decimal = _decimal_text(value)
    return restored


def _base64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


_CLOCK: Final = "([01][0-9]|2[0-3]):[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?"
_OFFSET: Final = "([Zz]|[+-][0-9]{2}:?[0-9]{2})"
_DATE: Final = "[0-9]{4}-[0-9]{2}-[0-9]{2}"
_UUID: Final = "[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"

_DATETIME_SHAPE: Final = f"{_DATE}([Tt ]{_CLOCK}{_OFFSET}?)?"
_TIME_SHAPE: Final = f"{_CLOCK}{_OFFSET}?"

# An ISO 8601 duration: each unit's amount, in the order of ``_UNIT_SECONDS``.
_AMOUNT: Final = "([0-9]+(?:[.,][0-9]+)?)"
_DURATION = re.compile(
    f"([-+]?)[Pp](?!$)(?:{_AMOUNT}[Yy])?(?:{_AMOUNT}[Mm])?(?:{_AMOUNT}[Ww])?(?:{_AMOUNT}[Dd])?"
    f"(?:[Tt](?=[0-9])(?:{_AMOUNT}[Hh])?(?:{_AMOUNT}[Mm])?(?:{_AMOUNT}[Ss])?)?"
)
_UNIT_SECONDS: Final = (365 * 86400, 30 * 86400, 7 * 86400, 86400, 3600, 60, 1)
_LONGEST: Final = Decimal(timedelta.max.days + 1) * 86400


def _duration_text(text: str) -> timedelta:
    found = _DURATION.fullmatch(text)
    if found is None:
        raise ValueError(text)
    sign, *amounts = found.groups()
    seconds = sum(
        (
            Decimal(amount.replace(",", ".")) * unit
            for amount, unit in zip(amounts, _UNIT_SECONDS, strict=True)
            if amount is not None
        ),
        Decimal(0),
    )
    if seconds >= _LONGEST:
        raise OverflowError(text)
    micro = int((seconds * 1_000_000).to_integral_value(ROUND_HALF_EVEN))
    return timedelta(microseconds=-micro if sign == "-" else micro)


_duration_string = _parsed(_duration_text, "invalid_duration")


def _duration(value: Any) -> timedelta:
    # a number of seconds is accepted too, as pydantic and msgspec take it
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return timedelta(seconds=value)
        except (OverflowError, ValueError):  # past timedelta's range, or not finite
            raise Invalid("invalid_duration", value) from None
    restored: timedelta = _duration_string(value)
    return restored


# The date check of the fast path. CPython's C ``date.fromisoformat`` reads ASCII digits only
# and, on ten characters with a dash at index 7, only ``YYYY-MM-DD`` (not the week form
# ``YYYY-Www-D``, not the basic ``YYYYMMDD``): a length and one character stand in for the
# regular expression, which costs several times the parse. The pure-Python ``datetime``
# (PyPy) reads more (``int()`` takes ``+021``), so there the shape is matched in full.
_C_DATES: Final = isinstance(date.fromisoformat, types.BuiltinFunctionType)
_FAST_DATE: Final = (
    "type({x}) is str and len({x}) == 10 and {x}[7] == '-'"
    if _C_DATES
    else "type({x}) is str and _date_shape({x}) is not None"
)

# What msgspec writes (``encode_result``): RFC 3339 when the value is aware, no offset when
# it is naive, at most microseconds.
_WRITTEN_SECONDS: Final = "[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]{1,6})?(Z|[+-][0-9]{2}:[0-9]{2})?"
# A timedelta as msgspec writes it: "P2DT5S", "-PT3600S", "PT0.000005S", "P0D".
_WRITTEN_FRACTION: Final = "T[0-9]+([.][0-9]{1,6})?S"
_WRITTEN_DURATION: Final = f"-?P([0-9]+D({_WRITTEN_FRACTION})?|{_WRITTEN_FRACTION})"


# -- the table -----------------------------------------------------------------------------------

_STR: Final = Scalar(
    "str",
    "string",
    restore=plain_text,
    reason="expected_string",
    reason_text="expected a string",
    fast=("type({x}) is str and ({x}.isascii() or _utf8({x}))", None),
    output={"type": "string"},
)

ROWS: Final[tuple[Scalar, ...]] = (
    _STR,
    Scalar(
        "bytes",
        "string",
        "bytes",
        keywords={"content_encoding": "base64"},
        restore=_parsed(_base64, "invalid_base64"),
        reason="invalid_base64",
        reason_text="expected base64-encoded data (A-Z, a-z, 0-9, + and /, padded with =)",
        output={"type": "string", "contentEncoding": "base64"},
    ),
    Scalar(
        "datetime",
        "string",
        "datetime",
        keywords={"format": "date-time"},
        restore=_parsed(
            _upper(_shaped(_DATETIME_SHAPE, datetime.fromisoformat)), "invalid_datetime"
        ),
        reason="invalid_datetime",
        reason_text=(
            "expected a date-time as YYYY-MM-DDTHH:MM[:SS], with +HH:MM or Z if not local"
        ),
        fast=(
            "type({x}) is str and _datetime_shape({x}) is not None",
            "_datetime({x}.upper())",
        ),
        output={"type": "string", "pattern": f"^{_DATE}T{_WRITTEN_SECONDS}$"},
    ),
    Scalar(
        "date",
        "string",
        "date",
        keywords={"format": "date"},
        restore=_parsed(_shaped(_DATE, date.fromisoformat), "invalid_date"),
        reason="invalid_date",
        reason_text="expected a date as YYYY-MM-DD",
        fast=(_FAST_DATE, "_date({x})"),
        output={"type": "string", "format": "date"},
    ),
    Scalar(
        "time",
        "string",
        "time",
        keywords={"format": "time"},
        restore=_parsed(_upper(_shaped(_TIME_SHAPE, time.fromisoformat)), "invalid_time"),
        reason="invalid_time",
        reason_text="expected a time as HH:MM[:SS], with +HH:MM or Z if not local",
        fast=(
            "type({x}) is str and _time_shape({x}) is not None",
            "_time({x}.upper())",
        ),
        output={"type": "string", "pattern": f"^{_WRITTEN_SECONDS}$"},
    ),
    Scalar(
        "timedelta",
        "string",
        "timedelta",
        keywords={"format": "duration"},
        restore=_duration,
        reason="invalid_duration",
        reason_text=(
            "expected an ISO 8601 duration such as PT1H30M or P2D, or a number of seconds"
        ),
        output={"type": "string", "pattern": f"^{_WRITTEN_DURATION}$"},
    ),
    Scalar(
        "uuid",
        "string",
        "uuid",
        keywords={"format": "uuid"},
        restore=_parsed(_shaped(_UUID, uuid.UUID), "invalid_uuid"),
        reason="invalid_uuid",
        reason_text="expected a UUID as 8-4-4-4-12 hex digits",
        fast=("type({x}) is str and _uuid_shape({x}) is not None", "_uuid({x})"),
        output={"type": "string", "format": "uuid"},
    ),
    Scalar(
        "decimal",
        "string",
        "decimal",
        keywords={"pattern": DECIMAL_PATTERN},
        restore=_decimal,
        reason="invalid_decimal",
        reason_text='expected a decimal number written as a string, such as "12.50"',
        output={"type": "number"},  # encode_result writes decimals as JSON numbers
    ),
    Scalar(
        "path",
        "string",
        "path",
        restore=_parsed(pathlib.Path, "expected_string"),
        reason="expected_string",
        reason_text="expected a string",
        output={"type": "string"},
    ),
    Scalar(
        "string_integer",
        "string",
        wire="string_integer",
        keywords={"pattern": INTEGER_STRING_PATTERN},
        restore=_string_integer,
        reason="expected_integer_string",
        reason_text='expected an integer written as a string of digits, such as "42"',
        output={"type": "integer"},  # the tool's int is written as a number
    ),
    Scalar(
        "int",
        "integer",
        restore=to_int,
        reason="expected_integer",
        reason_text="expected an integer",
        fast=("type({x}) is int", None),
        output={"type": "integer"},
    ),
    Scalar(
        "float",
        "number",
        restore=to_float,
        reason="expected_number",
        reason_text="expected a number",
        # float() of an int is finite or raises OverflowError, a deviation
        fast=(
            "type({x}) is float and _isfinite({x}) or type({x}) is int",
            "{x} if type({x}) is float else float({x})",
        ),
        output={"type": ["number", "null"]},  # msgspec writes NaN and the infinities as null
    ),
    Scalar(
        "bool",
        "boolean",
        restore=_boolean,
        reason="expected_boolean",
        reason_text="expected true or false",
        fast=("type({x}) is bool", None),
        output={"type": "boolean"},
    ),
    Scalar(
        "null",
        "null",
        restore=_null,
        reason="expected_null",
        reason_text="expected null",
        fast=("{x} is None", None),
        output={"type": "null"},
    ),
    Scalar("any", "any", fast=("True", None), output={}),
)

FAST_NAMES: Final[dict[str, Any]] = {
    "_utf8": utf8,
    "_isfinite": math.isfinite,
    "_date_shape": _SHAPES[_DATE],
    "_datetime_shape": _SHAPES[_DATETIME_SHAPE],
    "_time_shape": _SHAPES[_TIME_SHAPE],
    "_uuid_shape": _SHAPES[_UUID],
    "_date": date.fromisoformat,
    "_datetime": datetime.fromisoformat,
    "_time": time.fromisoformat,
    "_uuid": uuid.UUID,
}
"""The names the ``fast`` columns use, handed to the generated code."""

_BY_KEY: Final = {(row.kind, row.py, row.wire): row for row in ROWS}

STRING_TYPES: Final[dict[type, tuple[str, dict[str, str]]]] = {
    datetime: ("datetime", _BY_KEY["string", "datetime", ""].keywords),
    date: ("date", _BY_KEY["string", "date", ""].keywords),
    time: ("time", _BY_KEY["string", "time", ""].keywords),
    timedelta: ("timedelta", _BY_KEY["string", "timedelta", ""].keywords),
    uuid.UUID: ("uuid", _BY_KEY["string", "uuid", ""].keywords),
    Decimal: ("decimal", _BY_KEY["string", "decimal", ""].keywords),
    bytes: ("bytes", _BY_KEY["string", "bytes", ""].keywords),
}
"""Derivation's view: the class a parameter is annotated with -> its ``py`` and IR keywords
(``datetime`` before ``date``: a datetime is a date). ``pathlib`` paths match by subclass."""


def row_of(kind: str, py: str = "", wire: str = "") -> Scalar | None:
    """The row of a scalar IR type; None for a container, an enum, a union or an unknown ``py``.

    An unknown ``py`` on a string is read as a plain ``str`` (``ir.Type`` validation refuses
    it when the type is built, so only a type built around that check gets here).
    """
    found = _BY_KEY.get((kind, py, wire))
    if found is None and kind == "string" and wire != "string_integer":
        return _STR
    return found


def scalar_reasons() -> dict[str, str]:
    """Each scalar row's error reason -> the text a model reads for it."""
    return {row.reason: row.reason_text for row in ROWS if row.reason}
