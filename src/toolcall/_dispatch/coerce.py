"""``ir.Type`` -> a coercer: validate one JSON value and restore the Python value it stands for.

A coercer is built once per type, when a tool's dispatch plan is built, and is a plain
closure afterwards: every decision that depends only on the type (which converter, which
constraints, which class) is taken at build time, so a call pays only for the checks its
value needs. Failure is the exceptional path: a coercer raises :class:`Invalid`, and each
container on the way out prepends its key or index to ``Invalid.path``, so the happy path
never builds a path or an error.

Values are walked only as deep as the type goes, and ``any`` hands the value over untouched,
so a hostile, deeply nested value costs nothing beyond the depth the tool declared.

**JSON text where a container is declared.** Some clients send a nested array or object as a
JSON *string* (``"[1, 2]"`` for a ``list[int]``). Where the declared type cannot take a string
at all, that string is decoded and the result validated as if it had been sent as JSON:

- at every depth, not only for top-level arguments: the clients that do this do it to nested
  values too, and a type decides for itself whether a string could be meant literally;
- only where no string is acceptable: an ``array`` or ``object``, or a union (or nullable) none
  of whose variants takes a string. A union with a string, ``any`` or string-valued enum
  variant never decodes in any of its variants, so ``list[str] | str`` keeps ``"[1]"`` as text;
- only a ``str`` whose first non-whitespace character opens the declared container (``[`` for
  an array, ``{`` for an object), so nothing else is ever parsed; a string that does not decode
  (malformed, nested past the decoder's depth limit, lone surrogates) keeps the original
  ``expected_array`` / ``expected_object`` error with the string as the value. Errors inside a
  decoded value are reported at their path inside it, as for a value sent as JSON.

Decoding costs nothing on the happy path: it is tried only after the shape check has failed.
"""

from __future__ import annotations

import base64
import math
import pathlib
import re
import uuid
from collections.abc import Callable, Mapping
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any, Protocol

import msgspec

from toolcall import ir

__all__ = ["Coercer", "Invalid", "Resolver", "accepts_null", "build_coercer"]

Coercer = Callable[[Any], Any]


class Resolver(Protocol):
    """Finds the live objects an IR names; both methods raise ``LookupError`` when they cannot."""

    def cls(self, ref: str) -> type: ...

    def provider(self, ref: str) -> Any: ...


class Invalid(Exception):
    """A value failed coercion; ``path`` locates it below the value the coercer was given.

    Internal to dispatch: the plan turns it into ``ToolError.invalid_argument``.
    """

    __slots__ = ("path", "reason", "value")

    def __init__(self, reason: str, value: Any, path: tuple[str | int, ...] = ()) -> None:
        super().__init__(reason)
        self.reason = reason
        self.value = value
        self.path = path


def accepts_null(t: ir.Type) -> bool:
    """Whether ``None`` is a value of ``t`` (and so an explicit null is not "absent")."""
    if t.nullable or t.kind in ("any", "null"):
        return True
    if t.kind == "union":
        return any(accepts_null(variant) for variant in t.variants)
    return t.kind == "enum" and any(value is None for value in t.values)


def build_coercer(t: ir.Type, resolver: Resolver, *, json_text: bool = True) -> Coercer:
    """The coercer for ``t``: returns the restored value or raises :class:`Invalid`.

    ``json_text``: whether an array or object here may arrive as JSON text (see above).
    """
    kind = t.kind
    if kind == "array":
        coerce = _array(t, resolver, json_text)
    elif kind == "object":
        coerce = _object(t, resolver, json_text)
    elif kind == "union":
        coerce = _union(t, resolver, json_text)
    else:
        coerce = _BUILDERS[kind](t, resolver)
    if t.provider:
        coerce = _with_provider(coerce, t.provider, resolver)
    if t.nullable and coerce is not _identity:
        coerce = _nullable(coerce)
    return coerce


def _identity(value: Any) -> Any:
    return value


def _nullable(coerce: Coercer) -> Coercer:
    def nullable(value: Any) -> Any:
        return None if value is None else coerce(value)

    return nullable


def _with_provider(coerce: Coercer, ref: str, resolver: Resolver) -> Coercer:
    try:
        provider = resolver.provider(ref)
    except LookupError:
        return coerce
    convert = getattr(provider, "coerce", None)
    if not callable(convert):
        return coerce

    def provided(value: Any) -> Any:
        wire = coerce(value)
        try:
            return convert(wire)
        except Exception:
            raise Invalid("invalid_value", value) from None

    return provided


# Scalars ------------------------------------------------------------------------------------


def _any(t: ir.Type, resolver: Resolver) -> Coercer:
    return _identity


def _null(t: ir.Type, resolver: Resolver) -> Coercer:
    def null(value: Any) -> None:
        if value is not None:
            raise Invalid("expected_null", value)

    return null


def _boolean(t: ir.Type, resolver: Resolver) -> Coercer:
    def boolean(value: Any) -> bool:
        if type(value) is bool:
            return value
        raise Invalid("expected_boolean", value)

    return boolean


def _to_int(value: Any) -> int:
    if type(value) is int:
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    raise Invalid("expected_integer", value)


def _to_float(value: Any) -> float:
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


def _integer(t: ir.Type, resolver: Resolver) -> Coercer:
    return _in_range(_to_int, t)


def _number(t: ir.Type, resolver: Resolver) -> Coercer:
    return _in_range(_to_float, t)


def _as_decimal(number: Any) -> Decimal:
    # repr() of a float is its shortest round-tripping decimal, so 0.3 is a multiple of 0.1
    return Decimal(repr(number)) if isinstance(number, float) else Decimal(number)


def _is_multiple(number: Any, step: int | float) -> bool:
    if isinstance(number, int) and isinstance(step, int):
        return number % step == 0
    try:
        return _as_decimal(number) % _as_decimal(step) == 0
    except ArithmeticError:
        return False


def _in_range(coerce: Coercer, t: ir.Type) -> Coercer:
    """Wraps a coercer whose result is a number with the type's numeric constraints."""
    checks: list[Callable[[Any], bool]] = []
    if (low := t.minimum) is not None:
        checks.append(lambda n: n >= low)
    if (high := t.maximum) is not None:
        checks.append(lambda n: n <= high)
    if (above := t.exclusive_minimum) is not None:
        checks.append(lambda n: n > above)
    if (below := t.exclusive_maximum) is not None:
        checks.append(lambda n: n < below)
    if (step := t.multiple_of) is not None:
        checks.append(lambda n: _is_multiple(n, step))
    if not checks:
        return coerce

    def in_range(value: Any) -> Any:
        number = coerce(value)
        for check in checks:
            if not check(number):
                raise Invalid("out_of_range", value)
        return number

    return in_range


# Strings ------------------------------------------------------------------------------------


def _text(value: Any, reason: str) -> str:
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


def _plain_text(value: Any) -> str:
    if type(value) is str and value.isascii():
        return value
    return _text(value, "expected_string")


def _finite_decimal(text: str) -> Decimal:
    number = Decimal(text)
    if not number.is_finite():
        msg = "not a finite decimal"
        raise ValueError(msg)
    return number


def _base64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


def _shaped(shape: str, parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``parse``, for text of exactly that shape only."""
    exact = re.compile(shape).fullmatch

    def convert(text: str) -> Any:
        if exact(text) is None:
            raise ValueError(text)
        return parse(text)

    return convert


def _any_case(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    return lambda text: parse(text.upper())


# py -> (converter from the wire string, reason for a value that is not one)
_STRING_PY: dict[str, tuple[Callable[[str], Any], str]] = {
    # ISO 8601 (SPEC 3: naive "2024-05-06T07:08" too), a superset of the RFC 3339 that
    # ``format`` names once its lowercase "t" and "z" are read too (Python reads only "T", "Z")
    "datetime": (_any_case(datetime.fromisoformat), "invalid_datetime"),
    "time": (_any_case(time.fromisoformat), "invalid_time"),
    # exactly ``format: date`` / ``format: uuid`` (RFC 3339 full-date, RFC 9562's hex and
    # hyphens), not all Python reads: "20240506", "2024-W19-1", "{...}", "urn:uuid:..."
    "date": (_shaped(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", date.fromisoformat), "invalid_date"),
    "uuid": (
        _shaped(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", uuid.UUID),
        "invalid_uuid",
    ),
    "decimal": (_finite_decimal, "invalid_decimal"),
    "path": (pathlib.Path, "expected_string"),
    "bytes": (_base64, "invalid_base64"),
}

_INTEGER_STRING = re.compile(r"-?[0-9]+")


def _string_integer(value: Any) -> int:
    if isinstance(value, str) and _INTEGER_STRING.fullmatch(value):
        try:
            return int(value)
        except ValueError:  # longer than sys.get_int_max_str_digits()
            pass
    elif isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    raise Invalid("expected_integer_string", value)


# ECMA-262's \s, which is not Python's (no \x1c-\x1f or \x85; \ufeff is in it)
_ECMA_SPACE = r"\t\n\v\f\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def _ecma_regex(pattern: str) -> re.Pattern[str]:
    r"""A schema ``pattern`` read as JSON Schema says (ECMA-262), not as Python would read it.

    The differences that matter for patterns people write: ``\d``, ``\w`` and ``\b`` are
    ASCII (``re.ASCII``), ``\s`` is ECMA's set, and ``$`` matches at the very end only
    (Python's also matches before a final newline, so ``^\d+$`` would take "5\n").
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escape = pattern[i : i + 2]
            if escape == "\\s":
                escape = _ECMA_SPACE if in_class else f"[{_ECMA_SPACE}]"
            elif escape == "\\S" and not in_class:
                escape = f"[^{_ECMA_SPACE}]"
            out.append(escape)
            i += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "$" and not in_class:
            char = "\\Z"
        out.append(char)
        i += 1
    return re.compile("".join(out), re.ASCII)


def _string_checks(t: ir.Type) -> Callable[[str, Any], None] | None:
    """The constraints a wire string must meet (length in code points, pattern), if any."""
    shortest, longest = t.min_length, t.max_length
    pattern = _ecma_regex(t.pattern) if t.pattern else None
    if shortest is None and longest is None and pattern is None:
        return None

    def check(text: str, value: Any) -> None:
        if shortest is not None and len(text) < shortest:
            raise Invalid("too_short", value)
        if longest is not None and len(text) > longest:
            raise Invalid("too_long", value)
        if pattern is not None and pattern.search(text) is None:
            raise Invalid("pattern_mismatch", value)

    return check


def _string(t: ir.Type, resolver: Resolver) -> Coercer:
    if t.wire == "string_integer":
        # the wire pattern is what _string_integer parses; the number's own bounds still apply
        return _in_range(_string_integer, t)
    entry = _STRING_PY.get(t.py)
    convert, reason = entry if entry is not None else (None, "expected_string")
    check = _string_checks(t)
    if convert is None and check is None:
        return _plain_text

    def string(value: Any) -> Any:
        # converting first: "expected a date" helps a model more than "pattern mismatch"
        text = _text(value, reason)
        restored: Any = text
        if convert is not None:
            try:
                restored = convert(text)
            except (ValueError, TypeError, ArithmeticError):
                raise Invalid(reason, value) from None
        if check is not None:
            check(text, value)
        return restored

    if t.py != "decimal":
        return string

    def decimal(value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return Decimal(value)
        return string(value)

    return _in_range(decimal, t)


# Enums --------------------------------------------------------------------------------------


def _json_type(value: Any) -> type:
    """The JSON type a value stands for, so ``True`` never matches ``1`` nor ``"a"`` a subclass."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind
    return type(value)


def _enum(t: ir.Type, resolver: Resolver) -> Coercer:
    restored: dict[tuple[type, Any], Any] = {(_json_type(v), v): v for v in t.values}
    if t.py == "enum":
        try:
            cls = resolver.cls(t.ref)
            restored = {key: cls(value) for key, value in restored.items()}
        except (LookupError, ValueError, TypeError):
            pass  # no such class (or not with these values): the values, as for a Literal

    def enum(value: Any) -> Any:
        try:
            return restored[type(value), value]
        except Exception:  # not a value, unhashable, or a __hash__ / __eq__ that raises
            pass
        kind = _json_type(value)
        keys: list[tuple[type, Any]] = [(kind, value)]
        if kind is float and value.is_integer():
            keys.append((int, int(value)))
        for key in keys:
            try:
                return restored[key]
            except Exception:
                pass
        raise Invalid("not_in_enum", value)

    return enum


# Arrays -------------------------------------------------------------------------------------


def _sized(low: int | None, high: int | None) -> Callable[[Any], None] | None:
    if low is None and high is None:
        return None

    def check(value: Any) -> None:
        if low is not None and len(value) < low:
            raise Invalid("too_short", value)
        if high is not None and len(value) > high:
            raise Invalid("too_long", value)

    return check


def _tightest(bound: Callable[..., int], *limits: int | None) -> int | None:
    given = [limit for limit in limits if limit is not None]
    return bound(given) if given else None


def _prepend(error: Invalid, key: str | int) -> None:
    error.path = (key, *error.path)


# JSON text that opens an array / an object (JSON whitespace only: msgspec allows no other).
_ARRAY_TEXT = re.compile(r"[ \t\n\r]*\[")
_OBJECT_TEXT = re.compile(r"[ \t\n\r]*\{")

_UNDECODED: Any = object()


def _decoded(value: Any, opens: re.Pattern[str]) -> Any:
    """The container a JSON text spells, or ``_UNDECODED`` (not such a text, or malformed)."""
    if isinstance(value, str) and opens.match(value):
        try:
            return msgspec.json.decode(value)
        except (ValueError, RecursionError):  # DecodeError and UnicodeEncodeError are ValueErrors
            pass
    return _UNDECODED


_CONTAINERS: dict[str, Callable[[list[Any]], Any]] = {
    "tuple": tuple,
    "set": set,
    "frozenset": frozenset,
}


def _array(t: ir.Type, resolver: Resolver, json_text: bool) -> Coercer:
    if t.prefix_items:
        return _fixed_array(t, resolver, json_text)
    item = build_coercer(t.items, resolver) if t.items is not None else _identity
    container = _CONTAINERS.get(t.py)
    size = _sized(
        _tightest(max, t.min_items, t.min_length),
        _tightest(min, t.max_items, t.max_length),
    )

    def array(value: Any) -> Any:
        if not isinstance(value, list | tuple):
            if json_text and (decoded := _decoded(value, _ARRAY_TEXT)) is not _UNDECODED:
                return array(decoded)
            raise Invalid("expected_array", value)
        if size is not None:
            size(value)
        if item is _identity:
            items = list(value)
        else:
            items = []
            for index, element in enumerate(value):
                try:
                    items.append(item(element))
                except Invalid as error:
                    _prepend(error, index)
                    raise
        if container is None:
            return items
        try:
            return container(items)
        except Exception:
            pass
        for index, restored in enumerate(items):
            try:
                hash(restored)
            except Exception:
                raise Invalid("unhashable_item", value[index], (index,)) from None
        raise Invalid("unhashable_item", value)

    return array


def _fixed_array(t: ir.Type, resolver: Resolver, json_text: bool) -> Coercer:
    positions = tuple(build_coercer(item, resolver) for item in t.prefix_items)
    length = len(positions)

    def fixed_array(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            if json_text and (decoded := _decoded(value, _ARRAY_TEXT)) is not _UNDECODED:
                return fixed_array(decoded)
            raise Invalid("expected_array", value)
        if len(value) != length:
            raise Invalid("wrong_length", value)
        items = []
        for index, (coerce, element) in enumerate(zip(positions, value, strict=True)):
            try:
                items.append(coerce(element))
            except Invalid as error:
                _prepend(error, index)
                raise
        return tuple(items)

    return fixed_array


# Objects ------------------------------------------------------------------------------------


def _constructor(t: ir.Type, resolver: Resolver) -> Callable[..., Any] | None:
    """The class an object is restored as; None for a plain ``dict`` (also when unresolvable)."""
    if t.py not in ("dataclass", "namedtuple", "struct"):
        return None
    try:
        return resolver.cls(t.ref)
    except LookupError:
        return None


def _object(t: ir.Type, resolver: Resolver, json_text: bool) -> Coercer:
    fields = tuple(
        (
            field.name,
            build_coercer(field.type, resolver),
            field.required,
            not field.required and not accepts_null(field.type),
        )
        for field in t.fields
    )
    names = frozenset(name for name, *_ in fields)
    additional = build_coercer(t.additional, resolver) if t.additional is not None else None
    make = _constructor(t, resolver)
    size = _sized(t.min_length, t.max_length)

    def undeclared(value: Mapping[Any, Any]) -> list[str]:
        """The keys no field declares, in input order; raises for the ones not allowed."""
        keys = [key for key in value if key not in names]
        for key in keys:
            if not isinstance(key, str):
                raise Invalid("non_string_key", key)
        if keys and additional is None:
            raise Invalid("unknown_field", value[keys[0]], (keys[0],))
        return keys

    def obj(value: Any) -> Any:
        if type(value) is not dict and not isinstance(value, Mapping):
            if json_text and (decoded := _decoded(value, _OBJECT_TEXT)) is not _UNDECODED:
                return obj(decoded)
            raise Invalid("expected_object", value)
        if size is not None:
            size(value)
        out: dict[str, Any] = {}
        seen = 0
        # Keys are checked before fields; counting the declared keys met on the way keeps
        # that check off the happy path.
        for name, coerce, required, null_is_absent in fields:
            if name in value:
                seen += 1
                element = value[name]
                if element is None and null_is_absent:
                    continue
                try:
                    out[name] = coerce(element)
                except Invalid as error:
                    undeclared(value)
                    _prepend(error, name)
                    raise
            elif required:
                undeclared(value)
                raise Invalid("missing_field", None, (name,))
        if seen != len(value):
            keys = undeclared(value)
            if additional is not None:
                for key in keys:
                    try:
                        out[key] = additional(value[key])
                    except Invalid as error:
                        _prepend(error, key)
                        raise
        if make is None:
            return out
        try:
            return make(**out)
        except Exception:
            raise Invalid("invalid_value", value) from None

    return obj


# Unions -------------------------------------------------------------------------------------


def _takes_text(t: ir.Type) -> bool:
    """Whether some string is a value of ``t`` as declared (so JSON text may be meant as text)."""
    kind = t.kind
    if kind in ("string", "any"):
        return True
    if kind == "enum":
        return any(isinstance(value, str) for value in t.values)
    return kind == "union" and any(_takes_text(variant) for variant in t.variants)


def _union(t: ir.Type, resolver: Resolver, json_text: bool) -> Coercer:
    # a string some variant could take as it is may be meant literally: no variant decodes it
    json_text = json_text and not _takes_text(t)
    variants = tuple(
        build_coercer(variant, resolver, json_text=json_text) for variant in t.variants
    )
    if len(variants) == 1:
        return variants[0]

    def union(value: Any) -> Any:
        # When exactly one variant got past the shape check (its error lies deeper inside the
        # value), that variant is what the model meant: report its error, not a bare mismatch.
        deeper: list[Invalid] = []
        for coerce in variants:
            try:
                return coerce(value)
            except Invalid as error:
                if error.path:
                    deeper.append(error)
        if len(deeper) == 1:
            raise deeper[0]
        raise Invalid("no_matching_type", value)

    return union


_BUILDERS: dict[str, Callable[[ir.Type, Resolver], Coercer]] = {
    "any": _any,
    "null": _null,
    "boolean": _boolean,
    "integer": _integer,
    "number": _number,
    "string": _string,
    "enum": _enum,
}
