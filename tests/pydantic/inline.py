"""pydantic's own schema for a type, in the shape toolcall promises: refs inlined, no titles.

The reference the pydantic tests compare against. Besides inlining ``$ref`` and dropping
``title``, it spells a few things the way toolcall does (same meaning, one spelling):

- ``anyOf: [X, {"type": "null"}]`` is X widened with ``null`` (``"type": [t, "null"]``);
- ``const: v`` is ``enum: [v]``;
- an object is closed unless the model says ``extra="allow"`` (toolcall closes
  ``extra="ignore"`` models: the schema says exactly what ``run`` passes on), and an open
  one's ``additionalProperties: true`` is ``{}``; ``required`` is always present;
- a model's docstring describes the parameter, not the nested object, so a definition's
  ``description`` is dropped (a field's own ``description`` stays);
- a recursive definition stops at its first re-entry, as ``{}``.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import TypeAdapter


def pydantic_schema(tp: Any, *, keep_top_description: bool = False) -> dict[str, Any]:
    """``TypeAdapter(tp).json_schema()`` in toolcall's spelling (see the module docstring)."""
    schema = TypeAdapter(tp).json_schema()
    defs = schema.pop("$defs", {})
    if not keep_top_description and "$ref" not in schema:
        schema.pop("description", None)
    return _normal(schema, defs, [])


def _normal(node: Any, defs: dict[str, Any], stack: list[str]) -> Any:
    if isinstance(node, list):
        return [_normal(item, defs, stack) for item in node]
    if not isinstance(node, dict):
        return node
    node = dict(node)
    ref = node.pop("$ref", None)
    if ref is not None:
        name = ref.rpartition("/")[2]
        if name in stack:
            return {}
        target = copy.deepcopy(defs[name])
        target.pop("description", None)
        merged = _normal(target, defs, [*stack, name])
        merged.update(_normal(node, defs, stack))
        return merged
    node.pop("title", None)
    out = {
        key: (
            {name: _normal(prop, defs, stack) for name, prop in value.items()}
            if key == "properties"
            else _normal(value, defs, stack)
        )
        for key, value in node.items()
    }
    if "const" in out:
        out["enum"] = [out.pop("const")]
    variants = out.get("anyOf")
    if isinstance(variants, list) and {"type": "null"} in variants:
        rest = [v for v in variants if v != {"type": "null"}]
        if len(rest) == 1:
            del out["anyOf"]
            widened = dict(rest[0])
            kind = widened.get("type")
            if isinstance(kind, str):
                widened["type"] = [kind, "null"]
            if "enum" in widened:
                widened["enum"] = [*widened["enum"], None]
            out = {**widened, **out}
    if out.get("type") == "object" and "properties" in out:
        extra = out.get("additionalProperties", False)
        out["additionalProperties"] = {} if extra is True else extra
        out.setdefault("required", [])
    elif out.get("additionalProperties") is True:
        out["additionalProperties"] = {}
    return out
