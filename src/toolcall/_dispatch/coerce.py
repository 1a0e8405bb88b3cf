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

import re
from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol

import msgspec

from toolcall import ir
from toolcall._dispatch.constraints import in_range, sized, string_checks, tightest
from toolcall._scalars import Invalid, row_of, text_of

__all__ = [
    "ClassLookup",
    "Coercer",
    "Invalid",
    "accepts_null",
    "build_coercer",
    "constructor",
    "enum_table",
    "node_at",
]

Coercer = Callable[[Any], Any]


class ClassLookup(Protocol):
    """Finds the live objects an IR names; both methods raise ``LookupError`` when they cannot."""

    def cls(self, ref: str) -> type: ...

    def provider(self, ref: str) -> Any: ...


def accepts_null(t: ir.Type) -> bool:
    """Whether ``None`` is a value of ``t`` (and so an explicit null is not "absent")."""
    if t.nullable or t.kind in ("any", "null"):
        return True
    if t.kind == "union":
        return any(accepts_null(variant) for variant in t.variants)
    return t.kind == "enum" and any(value is None for value in t.values)


def node_at(t: ir.Type, path: tuple[Any, ...], described: str = "") -> tuple[ir.Type | None, str]:
    """The node of ``t`` at ``path`` (field names and indices), and the description of the
    innermost field on the way (``described`` when none has one): what an error's message
    may name. None where the path leaves the IR (a union, whose variant pydantic names in
    its location, or an unknown key). Read on the error path only."""
    node: ir.Type | None = t
    for part in path:
        if node is None:
            break
        if node.kind == "object" and isinstance(part, str):
            field = next((f for f in node.fields if f.name == part), None)
            node = node.additional if field is None else field.type
            described = field.description if field is not None and field.description else described
        elif node.kind == "array" and isinstance(part, int):
            prefix = node.prefix_items
            node = prefix[part] if 0 <= part < len(prefix) else node.items
        else:
            node = None
    return node, described


def build_coercer(t: ir.Type, resolver: ClassLookup, *, json_text: bool = True) -> Coercer:
    """The coercer for ``t``: returns the restored value or raises :class:`Invalid`.

    ``json_text``: whether an array or object here may arrive as JSON text (see above).
    """
    if t.py in ("model", "pydantic") and t.ref:
        # pydantic validates its models and types itself (toolcall._dispatch.models)
        from toolcall._dispatch.models import build_model_coercer

        modelled = build_model_coercer(t, resolver, json_text)
        if modelled is not None:
            return _nullable(modelled) if t.nullable else modelled
    kind = t.kind
    if kind == "array":
        coerce = _array(t, resolver, json_text)
    elif kind == "object":
        coerce = _object(t, resolver, json_text)
    elif kind == "union":
        coerce = _union(t, resolver, json_text)
    elif kind == "enum":
        coerce = _enum(t, resolver)
    else:
        coerce = _scalar(t, resolver)
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


def _with_provider(coerce: Coercer, ref: str, resolver: ClassLookup) -> Coercer:
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


# Scalars: one row of toolcall._scalars each, with the constraints of the type ---------------


def _scalar(t: ir.Type, resolver: ClassLookup) -> Coercer:
    row = row_of(t.kind, t.py, t.wire)
    if row is None or row.kind == "any":
        return _identity
    coerce = restore = row.restore
    check = string_checks(t) if row.kind == "string" else None
    if check is not None and (t.pattern, t.min_length, t.max_length) == (
        row.keywords.get("pattern", ""),
        None,
        None,
    ):
        check = None  # the row's own pattern, which its restore function reads exactly
    if check is not None:
        reason, validate = row.reason, check

        def string(value: Any) -> Any:
            # restoring first: "expected a date" helps a model more than "pattern mismatch"
            restored = restore(value)
            if not isinstance(value, int):  # a decimal or string_integer sent as a number
                validate(text_of(value, reason), value)
            return restored

        coerce = string
    if row.kind in ("integer", "number") or row.py == "decimal" or row.wire:
        # a number's bounds, also on the number a decimal or a string_integer spells
        coerce = in_range(coerce, t)
    return coerce


# Enums --------------------------------------------------------------------------------------


def _json_type(value: Any) -> type:
    """The JSON type a value stands for, so ``True`` never matches ``1`` nor ``"a"`` a subclass."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind
    return type(value)


def enum_table(t: ir.Type, resolver: ClassLookup) -> dict[tuple[type, Any], Any]:
    """What each value of an enum restores to, keyed by ``(its JSON type, the value)``.

    A value of exactly that type is looked up as it is (the generated fast path does only
    that and leaves every other value to the coercer below).
    """
    restored: dict[tuple[type, Any], Any] = {(_json_type(v), v): v for v in t.values}
    if t.py == "enum":
        try:
            cls = resolver.cls(t.ref)
            restored = {key: cls(value) for key, value in restored.items()}
        except (LookupError, ValueError, TypeError):
            pass  # no such class (or not with these values): the values, as for a Literal
    return restored


def _enum(t: ir.Type, resolver: ClassLookup) -> Coercer:
    restored = enum_table(t, resolver)

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
        raise Invalid("not_in_enum", value, rule=t.values)

    return enum


# Arrays -------------------------------------------------------------------------------------


# Type tuples rather than ``list | tuple``: a union in an expression is built at each call.
_SEQUENCES: Final = (list, tuple)
_NUMBERS: Final = (int, float)


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


def _array(t: ir.Type, resolver: ClassLookup, json_text: bool) -> Coercer:
    if t.prefix_items:
        return _fixed_array(t, resolver, json_text)
    item = build_coercer(t.items, resolver) if t.items is not None else _identity
    container = _CONTAINERS.get(t.py)
    unique = t.unique_items
    size = sized(
        tightest(max, t.min_items, t.min_length),
        tightest(min, t.max_items, t.max_length),
    )

    def array(value: Any) -> Any:
        if not isinstance(value, _SEQUENCES):
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
            if unique and (repeated := _repeated(value)) is not None:
                raise Invalid("duplicate_items", value, rule=repeated)
            return items
        try:
            restored = container(items)
        except Exception:
            for index, element in enumerate(items):
                try:
                    hash(element)
                except Exception:
                    raise Invalid("unhashable_item", value[index], (index,)) from None
            raise Invalid("unhashable_item", value) from None
        # Only a collapse can mean a repeat; values that differ as JSON but restore equal
        # (two spellings of one UUID) collapse as a set does, since the schema allows them.
        if unique and len(restored) != len(items) and (repeated := _repeated(value)) is not None:
            raise Invalid("duplicate_items", value, rule=repeated)
        return restored

    return array


def _json_key(value: Any) -> Any:
    """A hashable key equal for two values exactly when JSON Schema's ``uniqueItems`` calls them
    equal: ``1`` and ``1.0`` are, ``1`` and ``true`` are not, objects regardless of key order."""
    if isinstance(value, bool) or value is None:
        return (type(value), value)
    if isinstance(value, _NUMBERS):
        return ("number", value)
    if isinstance(value, _SEQUENCES):
        return ("array", tuple(_json_key(item) for item in value))
    if isinstance(value, Mapping):
        return ("object", frozenset((key, _json_key(item)) for key, item in value.items()))
    return (type(value), value)


def _repeated(value: Any) -> tuple[Any] | None:
    """``(item,)``: the first item of the array ``value`` equal as JSON to an earlier one
    (``duplicate_items``, whose message names it); None when no two are equal."""
    seen: set[Any] = set()
    try:
        for item in value:
            key = _json_key(item)
            if key in seen:
                return (item,)
            seen.add(key)
    except Exception:  # an unhashable non-JSON value: the items restored, so none repeat
        return None
    return None


def _fixed_array(t: ir.Type, resolver: ClassLookup, json_text: bool) -> Coercer:
    positions = tuple(build_coercer(item, resolver) for item in t.prefix_items)
    length = len(positions)

    def fixed_array(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, _SEQUENCES):
            if json_text and (decoded := _decoded(value, _ARRAY_TEXT)) is not _UNDECODED:
                return fixed_array(decoded)
            raise Invalid("expected_array", value)
        if len(value) != length:
            raise Invalid("wrong_length", value, rule=length)
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


def constructor(t: ir.Type, resolver: ClassLookup) -> Callable[..., Any] | None:
    """The class an object is restored as; None for a plain ``dict`` (also when unresolvable)."""
    if t.py not in ("dataclass", "namedtuple", "struct"):
        return None
    try:
        return resolver.cls(t.ref)
    except LookupError:
        return None


def _object(t: ir.Type, resolver: ClassLookup, json_text: bool) -> Coercer:
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
    make = constructor(t, resolver)
    size = sized(t.min_length, t.max_length)

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
                    if not names.issuperset(value):  # an undeclared key is named first
                        undeclared(value)
                    error.path = (name, *error.path)
                    raise
            elif required:
                if not names.issuperset(value):
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


def _union(t: ir.Type, resolver: ClassLookup, json_text: bool) -> Coercer:
    # a string some variant could take as it is may be meant literally: no variant decodes it
    json_text = json_text and not _takes_text(t)
    variants = tuple(
        build_coercer(variant, resolver, json_text=json_text) for variant in t.variants
    )
    if len(variants) == 1:
        return variants[0]
    # A number goes first to the variant of its own JSON type, as pydantic's smart unions do:
    # ``int | float`` keeps 2.0 a float and ``float | int`` keeps 2 an int (issue 21).
    exact = {
        number: tuple(c for v, c in zip(t.variants, variants, strict=True) if v.kind == kind)
        for number, kind in ((int, "integer"), (float, "number"))
    }
    orders = {
        number: first + tuple(c for c in variants if c not in first)
        for number, first in exact.items()
        if first
    }

    def union(value: Any) -> Any:
        # When exactly one variant got past the shape check (its error lies deeper inside the
        # value), that variant is what the model meant: report its error, not a bare mismatch.
        deeper: list[Invalid] = []
        for coerce in orders.get(type(value), variants):
            try:
                return coerce(value)
            except Invalid as error:
                if error.path:
                    deeper.append(error)
        if len(deeper) == 1:
            raise deeper[0]
        raise Invalid("no_matching_type", value)

    return union
