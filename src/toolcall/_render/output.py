"""The output walker: an ``ir.Type`` becomes the schema of what ``encode_result`` writes for it.

The arguments schema (``schema``) says what ``run`` reads; a tool's result is written by
``encode_result`` (msgspec), which for several types writes another shape than the one read:
a ``Decimal`` becomes a JSON number, a ``string_integer`` an integer, a naive ``datetime`` or
any ``time`` a string without an offset (which ``format: date-time``/``time`` would refuse), a
``NamedTuple`` an array, a renamed, tagged or ``array_like`` Struct what its config says, a
non-finite float ``null``. An MCP client validates ``structuredContent`` against the declared
``outputSchema`` and drops the whole call on a mismatch, so this schema promises only what the
encoder always writes. Each scalar's form is its row's ``output`` column (``_scalars``).

Decisions the SPEC leaves open: docs/decisions.md, "Output schemas".
"""

from __future__ import annotations

import sys
from typing import Any, Final

import msgspec

from toolcall import ir
from toolcall._frozen import thaw
from toolcall._render.schema import add_item_bounds, enum_type, widen
from toolcall._scalars import row_of

__all__ = ["output_schema"]

# pydantic writes these itself (model_dump(mode="json", by_alias=True)): pydantic describes them
_PYDANTIC_PY: Final = frozenset({"model", "pydantic"})
# JSON Schema keywords whose value maps names to schemas (a "title" key there is a name)
_NAMED: Final = frozenset({"properties", "patternProperties", "$defs", "definitions"})


def output_schema(t: ir.Type) -> dict[str, Any]:
    """Return the JSON Schema every ``encode_result(value)`` of a value of *t* validates against.

    A fresh plain dict.

    Examples
    --------
    >>> from toolcall import ir
    >>> output_schema(ir.Type(kind="string", py="decimal", pattern="^[0-9]+$"))
    {'type': 'number'}
    >>> output_schema(ir.Type(kind="object", py="namedtuple", fields=(
    ...     ir.Field(name="x", type=ir.Type(kind="integer")),
    ... )))
    {'type': 'array', 'prefixItems': [{'type': 'integer'}], 'minItems': 1, 'maxItems': 1}
    """
    if t.provider:  # what a type provider's values become is the provider's secret
        return {}
    if t.py in _PYDANTIC_PY:
        described = _pydantic(t.ref)
        if described and t.nullable:
            widen(described)
        return described
    kind = t.kind
    schema: dict[str, Any]
    if kind == "any":
        return {}
    if kind == "enum":
        values = thaw(t.values)
        json_type = enum_type(values)
        schema = {"enum": values} if json_type is None else {"type": json_type, "enum": values}
    elif kind == "array":
        schema = _array(t)
    elif kind == "object":
        schema = _object(t)
        if not schema:
            return schema
    elif kind == "union":
        variants: list[dict[str, Any]] = []
        for variant in t.variants:
            written = output_schema(variant)
            if not written:
                return {}
            if written not in variants:
                variants.append(written)
        schema = variants[0] if len(variants) == 1 else {"anyOf": variants}
    else:
        row = row_of(kind, t.py, t.wire)
        schema = {"type": kind} if row is None else thaw(row.output)
    if t.nullable:
        widen(schema)
    return schema


def _array(t: ir.Type) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array"}
    if t.prefix_items:
        schema["prefixItems"] = [output_schema(item) for item in t.prefix_items]
    if t.items is not None:
        schema["items"] = output_schema(t.items)
    if t.py in ("set", "frozenset") and not _holds_decimal(t):
        schema["uniqueItems"] = True
    if t.py == "tuple":
        add_item_bounds(t, schema)
    return schema


def _object(t: ir.Type) -> dict[str, Any]:
    if t.py == "namedtuple":
        # msgspec writes a NamedTuple as the array of its fields, every one of them
        count = len(t.fields)
        return {
            "type": "array",
            "prefixItems": [_described(f) for f in t.fields],
            "minItems": count,
            "maxItems": count,
        }
    if t.py == "struct":
        return _struct(t)
    # a dataclass is written with every field; a TypedDict or mapping with the keys it holds
    every_field = t.py == "dataclass"
    schema: dict[str, Any] = {"type": "object"}
    if t.fields or t.additional is None:
        schema["properties"] = {f.name: _described(f) for f in t.fields}
        schema["required"] = [f.name for f in t.fields if every_field or f.required]
    schema["additionalProperties"] = False if t.additional is None else output_schema(t.additional)
    return schema


def _struct(t: ir.Type) -> dict[str, Any]:
    """A ``msgspec.Struct`` as its config writes it: names, tag, omitted defaults, array_like."""
    cls = _class(t.ref)
    if not (isinstance(cls, type) and issubclass(cls, msgspec.Struct)):
        return {}
    config = cls.__struct_config__
    infos = {info.name: info for info in msgspec.structs.fields(cls)}
    tag: list[tuple[str, dict[str, Any]]] = []
    if config.tag is not None and config.tag_field is not None:
        tag = [(config.tag_field, {"const": config.tag})]
    fields: list[tuple[str, dict[str, Any], bool]] = []
    for f in t.fields:
        info = infos.get(f.name)
        if info is None:  # the IR and the class disagree: nothing certain can be said
            return {}
        # omit_defaults leaves a field out while it equals its default
        fields.append((info.encode_name, _described(f), info.required or not config.omit_defaults))
    if config.array_like:
        positions = [schema for _, schema in tag] + [schema for _, schema, _ in fields]
        schema: dict[str, Any] = {"type": "array", "prefixItems": positions}
        if not config.omit_defaults:
            schema["minItems"] = len(positions)
        schema["maxItems"] = len(positions)
        return schema
    return {
        "type": "object",
        "properties": dict(tag) | {name: schema for name, schema, _ in fields},
        "required": [name for name, _ in tag] + [name for name, _, needed in fields if needed],
        "additionalProperties": False,
    }


def _pydantic(ref: str) -> dict[str, Any]:
    """pydantic's serialization schema of the class, by alias as the encoder writes it, its
    ``$ref``s inlined (the schema may sit inside another) and its generated titles dropped.

    {} when pydantic is not loaded (no value of the class can exist) or cannot describe it.
    """
    cls = _class(ref)
    pydantic = sys.modules.get("pydantic")
    if cls is None or pydantic is None:
        return {}
    try:
        schema = pydantic.TypeAdapter(cls).json_schema(mode="serialization", by_alias=True)
    except Exception:
        return {}
    inlined = _inline(schema, schema.get("$defs", {}), ())
    return inlined if isinstance(inlined, dict) else {}


def _inline(node: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> Any:
    """``node`` with each ``#/$defs/X`` replaced by X's schema; a re-entry is ``{}``."""
    if isinstance(node, list):
        return [_inline(item, defs, seen) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        if name in seen or name not in defs:
            return {}
        target = _inline(defs[name], defs, (*seen, name))
        rest = {k: _inline(v, defs, seen) for k, v in node.items() if k not in ("$ref", "title")}
        return {**target, **rest}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$defs" or (key == "title" and isinstance(value, str)):
            continue
        if key in _NAMED and isinstance(value, dict):
            out[key] = {name: _inline(sub, defs, seen) for name, sub in value.items()}
        else:
            out[key] = _inline(value, defs, seen)
    return out


def _described(f: ir.Field) -> dict[str, Any]:
    schema = output_schema(f.type)
    if f.description:
        schema["description"] = f.description
    return schema


def _class(ref: str) -> Any:
    """The class ``ref`` names, from modules already imported (a tool's module imported it)."""
    module_name, _, qualname = ref.partition(":")
    found: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found


def _holds_decimal(t: ir.Type) -> bool:
    if t.py == "decimal":
        return True
    children = (*(f.type for f in t.fields), *t.prefix_items, *t.variants, t.items, t.additional)
    return any(_holds_decimal(child) for child in children if child is not None)
