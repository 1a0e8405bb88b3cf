"""Schemas the user wrote: pydantic's ``WithJsonSchema`` and ``json_schema_extra``.

pydantic renders a ``WithJsonSchema`` schema as given, and merges a ``json_schema_extra``
dict into the schema it would have produced (``enum``, ``examples``, ``x-`` keys kept), so
toolcall does too (``ir.Type.schema`` / ``ir.Type.extra``). Strict mode keeps only the
keywords OpenAI's strict mode accepts (``limits``), at every depth, and reports the rest.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from toolcall import ir
from toolcall._render.limits import SUPPORTED_KEYWORDS

__all__ = ["given_schema", "merge_extra"]

# Keywords whose value maps names to schemas, and those holding one schema or a list of them.
_NAMED: Final = frozenset({"properties", "$defs", "definitions", "patternProperties"})
_NESTED: Final = frozenset(
    {"items", "additionalProperties", "not", "contains", "if", "then", "else"}
)
_LISTS: Final = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})


def given_schema(t: ir.Type, strict: bool, path: str, problems: list[str]) -> dict[str, Any]:
    """The schema ``t.schema`` holds, a fresh dict; nullable adds ``null`` as pydantic does."""
    schema: Any = msgspec.json.decode(t.schema)
    if not isinstance(schema, dict):
        schema = {}
    if strict:
        dropped: list[str] = []
        schema = _strict(schema, dropped)
        if dropped:
            problems.append(
                f"{path} has a schema of its own (WithJsonSchema, json_schema_extra) with "
                f"{', '.join(sorted(set(dropped)))}, which strict mode rejects; left out"
            )
    if t.nullable and not _takes_null(schema):
        schema = {"anyOf": [schema, {"type": "null"}]}
    return schema  # type: ignore[no-any-return]


def merge_extra(
    schema: dict[str, Any], extra: str, strict: bool, path: str, problems: list[str]
) -> None:
    """Merge a ``json_schema_extra`` dict into ``schema`` (strict: what strict allows)."""
    found: Any = msgspec.json.decode(extra)
    if not isinstance(found, dict):
        return
    if strict:  # words that only describe (``x-`` keys, examples): left out without a word
        found = _strict(found, [])
    schema.update(found)


def _strict(schema: dict[str, Any], dropped: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in SUPPORTED_KEYWORDS:
            dropped.append(key)
        elif key in _NAMED and isinstance(value, dict):
            out[key] = {
                name: _strict(sub, dropped) if isinstance(sub, dict) else sub
                for name, sub in value.items()
            }
        elif key in _NESTED and isinstance(value, dict):
            out[key] = _strict(value, dropped)
        elif key in _LISTS and isinstance(value, list):
            out[key] = [_strict(sub, dropped) if isinstance(sub, dict) else sub for sub in value]
        else:
            out[key] = value
    return out


def _takes_null(schema: dict[str, Any]) -> bool:
    if not schema:
        return True
    json_type = schema.get("type")
    if json_type == "null" or (isinstance(json_type, list) and "null" in json_type):
        return True
    return any(
        isinstance(v, dict) and _takes_null(v)
        for key in ("anyOf", "oneOf")
        for v in schema.get(key, ())
    )
