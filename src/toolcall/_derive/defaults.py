"""Python defaults -> the JSON ``default`` a schema may carry.

A default is emitted only when JSON can carry it and it lies inside the parameter's type,
so the model is never told of a value that dispatch would then reject. The same rule serves
parameters and object fields.
"""

from __future__ import annotations

from typing import Any

from toolcall import ir
from toolcall._shared.kinds import json_default

__all__ = ["default_fits", "schema_default"]


def schema_default(value: Any, t: ir.Type) -> tuple[bool, Any, bool]:
    """``(emit, JSON value, inside the domain)`` for a Python default of type ``t``.

    A default JSON cannot carry is simply not emitted; one outside the type's domain is not
    emitted either, and says so, so derivation can warn. ``None`` on a non-nullable type is
    the conventional "not given" and counts as inside.
    """
    has, json = json_default(value)
    if not has:
        return False, None, True
    if isinstance(json, float) and t.kind == "integer" and json.is_integer():
        json = int(json)
    if not default_fits(json, t):
        return False, None, json is None
    if t.wire == "string_integer" and isinstance(json, int):
        json = str(json)
    return True, json, True


def default_fits(value: Any, t: ir.Type) -> bool:
    """Whether a JSON default lies inside the type's domain (shape, enum values, bounds)."""
    if value is None:
        return t.nullable or t.kind in ("any", "null")
    kind = t.kind
    if kind == "any":
        return True
    if kind == "union":
        return any(default_fits(value, variant) for variant in t.variants)
    if kind == "enum":
        return any(type(value) is type(v) and value == v for v in t.values)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool) and _in_bounds(value, t)
    if kind == "number":
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and _in_bounds(value, t)
        )
    if kind == "string":
        if t.wire == "string_integer":
            return isinstance(value, int) and not isinstance(value, bool)
        # pydantic's own string types (EmailStr, HttpUrl) take text; datetimes, UUIDs... do not
        return isinstance(value, str) and t.py in ("", "pydantic")
    if kind == "array":
        if not isinstance(value, list):
            return False
        if t.prefix_items:
            return len(value) == len(t.prefix_items) and all(
                default_fits(v, it) for v, it in zip(value, t.prefix_items, strict=True)
            )
        return t.items is None or all(default_fits(v, t.items) for v in value)
    if kind == "object":
        return isinstance(value, dict) and t.py == "dict"
    return False


def _in_bounds(value: float, t: ir.Type) -> bool:
    return not (
        (t.minimum is not None and value < t.minimum)
        or (t.maximum is not None and value > t.maximum)
        or (t.exclusive_minimum is not None and value <= t.exclusive_minimum)
        or (t.exclusive_maximum is not None and value >= t.exclusive_maximum)
    )
