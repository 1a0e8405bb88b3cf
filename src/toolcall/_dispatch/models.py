"""pydantic models and pydantic's own types at dispatch: pydantic validates them.

A model parameter or field (``py="model"``) is handed to the model's own validator, so
its field constraints, ``extra`` setting and validators run exactly as pydantic runs them,
and the function receives a model instance. pydantic's own types (``py="pydantic"``:
``EmailStr``, ``HttpUrl``, ``UUID4``) go through a ``TypeAdapter``. pydantic is imported only
when such a coercer is built, that is, for a tool that uses it.

Two toolcall rules hold inside a model too:

- an explicit ``null`` for an optional field whose type does not take ``None`` means
  "absent" (strict mode sends such nulls): it is removed before pydantic sees it;
- a nested object sent as JSON text is decoded, as for every other object.

A failure is ``invalid_argument`` at the path pydantic reports, below the argument; its
reason is toolcall's where the two agree (``out_of_range``, ``missing_field``), and the
message then names the rule as toolcall's own checks do, the bound from pydantic's error
context; else the reason is pydantic's error type, and the message carries pydantic's own
text (a validator's message is what the model needs to fix the call).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any, Final

import msgspec

from toolcall import ir
from toolcall._dispatch.coerce import ClassLookup, Coercer, Invalid, accepts_null, node_at
from toolcall._dispatch.result import one_line

__all__ = ["ModelInvalid", "build_model_coercer", "field_info_default", "pydantic_invalid"]

_REASONS: Final = {
    "missing": "missing_field",
    "extra_forbidden": "unknown_field",
    "greater_than": "out_of_range",
    "greater_than_equal": "out_of_range",
    "less_than": "out_of_range",
    "less_than_equal": "out_of_range",
    "multiple_of": "out_of_range",
    "string_too_short": "too_short",
    "string_too_long": "too_long",
    "too_short": "too_short",
    "too_long": "too_long",
    "string_pattern_mismatch": "pattern_mismatch",
    "int_type": "expected_integer",
    "int_parsing": "expected_integer",
    "int_from_float": "expected_integer",
    "float_type": "expected_number",
    "float_parsing": "expected_number",
    "finite_number": "not_finite",
    "string_type": "expected_string",
    "bool_type": "expected_boolean",
    "bool_parsing": "expected_boolean",
    "dict_type": "expected_object",
    "model_type": "expected_object",
    "model_attributes_type": "expected_object",
    "dataclass_type": "expected_object",
    "list_type": "expected_array",
    "tuple_type": "expected_array",
    "set_type": "expected_array",
    "enum": "not_in_enum",
    "literal_error": "not_in_enum",
}


class ModelInvalid(Invalid):
    """An ``Invalid`` from pydantic; ``detail`` is pydantic's message for it ("" when
    toolcall's own wording for ``reason`` says the same, the rule named as toolcall names
    it)."""

    __slots__ = ("detail",)

    def __init__(
        self,
        reason: str,
        value: Any,
        path: tuple[str | int, ...],
        detail: str = "",
        rule: Any = None,
    ) -> None:
        super().__init__(reason, value, path, rule=rule)
        self.detail = detail


def field_info_default(info: Any) -> Callable[[], Any] | None:
    """What a parameter whose default is ``Field(...)`` gets when the model omits it: the
    ``default`` or a fresh ``default_factory()``; None when the field is required."""
    factory = info.default_factory
    if factory is not None:
        return factory  # type: ignore[no-any-return]
    if info.is_required():
        return None
    value = info.default
    return lambda: value


def build_model_coercer(t: ir.Type, resolver: ClassLookup, json_text: bool) -> Coercer | None:
    """The coercer of a ``model`` / ``pydantic`` node; None when its class cannot be found
    (the value is then restored as the plain JSON shape, like any unresolvable class)."""
    try:
        target = resolver.cls(t.ref)
    except LookupError:
        return None
    validator = getattr(target, "__pydantic_validator__", None)
    if t.py != "model" or validator is None or not hasattr(validator, "validate_python"):
        from pydantic import TypeAdapter

        validator = TypeAdapter(target)
    validate = validator.validate_python
    prune = _pruner(t)
    closed = _closed(t)
    decode = json_text and t.kind == "object"

    def pydantic_value(value: Any) -> Any:
        if decode and isinstance(value, str) and value.lstrip(" \t\n\r").startswith("{"):
            with contextlib.suppress(ValueError, RecursionError):  # malformed: pydantic says
                value = msgspec.json.decode(value)
        if closed is not None:
            closed(value, ())
        if prune is not None:
            value = prune(value)
        try:
            return validate(value)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise pydantic_invalid(exc, value, t) from None

    return pydantic_value


# pydantic's error type -> the key of its context holding the bound, and the IR keyword
_BOUNDS: Final = {
    "greater_than": ("gt", "exclusive_minimum"),
    "greater_than_equal": ("ge", "minimum"),
    "less_than": ("lt", "exclusive_maximum"),
    "less_than_equal": ("le", "maximum"),
    "multiple_of": ("multiple_of", "multiple_of"),
}
_LENGTHS: Final = {
    "string_too_short": "min_length",
    "string_too_long": "max_length",
    "too_short": "min_length",
    "too_long": "max_length",
}


def pydantic_invalid(exc: ValueError, value: Any, t: ir.Type | None = None) -> Invalid:
    """pydantic's first error as toolcall's ``Invalid`` (its reason, path, rule and words).

    ``t``: the type validated, where an enum's allowed values are found (pydantic's context
    has them as one Python-quoted text)."""
    errors = getattr(exc, "errors", None)
    try:
        first = errors(include_url=False)[0] if callable(errors) else None
    except Exception:
        first = None
    if not isinstance(first, dict):
        return ModelInvalid("invalid_value", value, (), str(exc).partition("\n")[0])
    kind = str(first.get("type", "invalid_value"))
    path = tuple(part for part in first.get("loc", ()) if isinstance(part, str | int))
    sent = first.get("input", value)
    reason = _REASONS.get(kind)
    detail = "" if reason is not None else str(first.get("msg", ""))
    context = first.get("ctx")
    rule = _rule(kind, context if isinstance(context, dict) else {}, sent, t, path)
    if reason == "not_in_enum" and rule is None and isinstance(context, dict):
        # pydantic's own list ("'a' or 'b'"), when the IR cannot say which enum failed
        detail = one_line(f"expected {context.get('expected', 'one of the allowed values')}", 160)
    return ModelInvalid(reason or kind, sent, path, detail, rule)


def _rule(
    kind: str, context: dict[str, Any], sent: Any, t: ir.Type | None, path: tuple[Any, ...]
) -> Any:
    """The rule of a pydantic error as ``Invalid.rule`` states it; None when unknown."""
    if kind in _BOUNDS:
        key, keyword = _BOUNDS[kind]
        return (keyword, context[key]) if key in context else None
    if kind in _LENGTHS:
        limit = context.get(_LENGTHS[kind])
        length = context.get("actual_length")
        if length is None:
            with contextlib.suppress(TypeError):
                length = len(sent)
        return None if limit is None or length is None else (limit, length)
    if kind == "string_pattern_mismatch":
        return context.get("pattern")
    if kind in ("enum", "literal_error") and t is not None:
        node = node_at(t, path)[0]
        return node.values if node is not None and node.kind == "enum" else None
    return None


def _closed(t: ir.Type) -> Callable[[Any, tuple[str | int, ...]], None] | None:
    """Refuses keys a closed object of the schema does not declare, at every depth.

    pydantic's default ``extra="ignore"`` drops unknown keys, yet the schema of such a model
    is closed (``additionalProperties: false``) and says the key is not allowed: the call is
    refused with ``unknown_field`` as the schema says, not quietly half-used. None when
    nothing below ``t`` is a closed object (a union's variants are left to pydantic)."""
    if t.kind == "array" and t.items is not None:
        item = _closed(t.items)
        if item is None:
            return None

        def items(value: Any, path: tuple[str | int, ...]) -> None:
            if isinstance(value, list):
                for index, element in enumerate(value):
                    item(element, (*path, index))

        return items
    if t.kind != "object" or t.schema:
        return None
    names = frozenset(f.name for f in t.fields)
    nested = {f.name: c for f in t.fields if (c := _closed(f.type)) is not None}
    shut = t.additional is None
    if not shut and not nested:
        return None

    def check(value: Any, path: tuple[str | int, ...]) -> None:
        if type(value) is not dict:
            return
        for key, element in value.items():
            if key not in names:
                if shut and isinstance(key, str):
                    raise ModelInvalid("unknown_field", element, (*path, key))
                continue
            inner = nested.get(key)
            if inner is not None and element is not None:
                inner(element, (*path, key))

    return check


def _pruner(t: ir.Type) -> Callable[[Any], Any] | None:
    """Removes explicit nulls meaning "absent" from a model's value, at every model depth;
    None when the type has no such field (the common case pays nothing)."""
    if t.kind == "array" and t.items is not None:
        item = _pruner(t.items)
        if item is None:
            return None
        return lambda value: [item(v) for v in value] if isinstance(value, list) else value
    if t.kind != "object":
        return None
    absent = frozenset(f.name for f in t.fields if not f.required and not accepts_null(f.type))
    nested = {f.name: p for f in t.fields if (p := _pruner(f.type)) is not None}
    if not absent and not nested:
        return None

    def prune(value: Any) -> Any:
        if type(value) is not dict:
            return value
        out = {}
        for key, element in value.items():
            if element is None and key in absent:
                continue
            inner = nested.get(key)
            out[key] = element if inner is None or element is None else inner(element)
        return out

    return prune
