"""The schema walker: an ``ir.Tool`` becomes the JSON Schema of its arguments object.

Rendering reads only the IR, so a tool from the cache, from ``derive`` or built by hand
renders the same way. It runs in two layers, the shape pydantic-ai uses: one walker turns an
``ir.Type`` into a schema, with the strict rules (SPEC section 4) applied at every depth when
asked; a thin envelope per format (``formats``) wraps the arguments schema.

Decisions the SPEC leaves open: docs/decisions.md, "Emitting" and "Strict mode".

Examples
--------
>>> from toolcall import ir
>>> tool = ir.Tool(
...     name="echo",
...     parameters=(ir.Parameter(name="times", type=ir.Type(kind="integer"), required=False),),
... )
>>> schema = parameters_schema(tool, strict=True)
>>> schema["required"], schema["properties"]
(['times'], {'times': {'type': ['integer', 'null']}})
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any, Final

from toolcall import ir
from toolcall._frozen import thaw
from toolcall._render.given import given_schema, merge_extra
from toolcall._render.limits import SUPPORTED_KEYWORDS

__all__ = [
    "add_item_bounds",
    "collect_strict_problems",
    "enum_type",
    "parameters_schema",
    "strict_problems",
    "type_schema",
    "widen",
]

_CONSTRAINTS: Final = (
    ("format", "format"),
    ("pattern", "pattern"),
    ("content_encoding", "contentEncoding"),
    ("min_length", "minLength"),
    ("max_length", "maxLength"),
    ("minimum", "minimum"),
    ("maximum", "maximum"),
    ("exclusive_minimum", "exclusiveMinimum"),
    ("exclusive_maximum", "exclusiveMaximum"),
    ("multiple_of", "multipleOf"),
)

_SCALARS: Final = frozenset({"null", "boolean", "integer", "number", "string"})
# A scalar's constraints read in one call, and what they are on a scalar that has none (most
# of them): comparing the two spares a scalar without constraints one look per keyword.
_CONSTRAINT_VALUES: Final = operator.attrgetter(*(attr for attr, _ in _CONSTRAINTS))
_UNCONSTRAINED: Final = _CONSTRAINT_VALUES(ir.Type(kind="string"))

# Keywords OpenAI's strict mode rejects (``limits``). Dispatch still enforces what they say,
# so strict schemas leave them out instead of failing: the model merely is not told.
_NOT_STRICT: Final = frozenset(key for _, key in _CONSTRAINTS) - SUPPORTED_KEYWORDS
_UNIQUE_IN_STRICT: Final = "uniqueItems" in SUPPORTED_KEYWORDS

# How a problem names the value type of an open object, in Python terms.
_PY_NAMES: Final = {
    "any": "Any",
    "null": "None",
    "boolean": "bool",
    "integer": "int",
    "number": "float",
    "string": "str",
}


def parameters_schema(tool: ir.Tool, *, strict: bool = False) -> dict[str, Any]:
    """Return the JSON Schema of *tool*'s arguments object, a fresh plain dict.

    Examples
    --------
    >>> from toolcall import ir
    >>> tool = ir.Tool(name="f", parameters=(ir.Parameter(name="x", type=ir.Type(kind="any")),))
    >>> parameters_schema(tool)
    {'type': 'object', 'properties': {'x': {}}, 'required': ['x'], 'additionalProperties': False}
    """
    return _parameters(tool, strict, [])


def strict_problems(tool: ir.Tool) -> list[str]:
    """Return what strict mode cannot express in *tool*, one human-readable line each.

    Each line names the tool and the property path (``filters.tags[]``, ``pair[0]``,
    ``**kwargs``) and says what the strict schema does instead; duplicates are dropped.

    Examples
    --------
    >>> from toolcall import ir
    >>> mapping = ir.Type(kind="object", py="dict", additional=ir.Type(kind="string"))
    >>> strict_problems(ir.Tool(name="f", parameters=(ir.Parameter(name="tags", type=mapping),)))
    ['f: tags (dict[str, str]) is an open object, which strict mode cannot express; it is closed']
    """
    return collect_strict_problems(tool)[1]


def collect_strict_problems(tool: ir.Tool) -> tuple[dict[str, Any], list[str]]:
    """*tool*'s strict arguments schema and its `strict_problems`, from one rendering."""
    problems: list[str] = []
    schema = _parameters(tool, True, problems)
    return schema, [f"{tool.name}: {problem}" for problem in dict.fromkeys(problems)]


def _parameters(tool: ir.Tool, strict: bool, problems: list[str]) -> dict[str, Any]:
    properties, required = _properties(tool.parameters, strict, "", problems)
    additional: dict[str, Any] | bool = False
    if tool.kwargs is not None:
        if strict:
            problems.append(_open_problem("**kwargs", tool.kwargs))
        else:
            additional = _schema(tool.kwargs, False, "**kwargs", problems)
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": additional,
    }


def _properties(
    members: Iterable[ir.Parameter | ir.Field], strict: bool, prefix: str, problems: list[str]
) -> tuple[dict[str, Any], list[str]]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    for member in members:
        name = member.name
        schema = _schema(member.type, strict, f"{prefix}.{name}" if prefix else name, problems)
        if strict:
            # Strict providers require every property; "absent" is spelled null instead,
            # which dispatch turns back into the default.
            if not member.required:
                widen(schema)
            required.append(name)
        elif member.required:
            required.append(name)
        if member.description:
            schema["description"] = member.description
        if member.has_default and not strict:
            schema["default"] = thaw(member.default)
        if member.examples and not strict:  # strict mode rejects "examples"
            schema["examples"] = thaw(list(member.examples))
        properties[name] = schema
    return properties, required


def _schema(t: ir.Type, strict: bool, path: str, problems: list[str]) -> dict[str, Any]:
    """Return a fresh schema for *t*; *problems* gets what strict mode cannot express."""
    if t.schema:
        return given_schema(t, strict, path, problems)
    kind = t.kind
    schema: dict[str, Any]
    if kind in _SCALARS:
        schema = {"type": kind}
        values = _CONSTRAINT_VALUES(t)
        if values != _UNCONSTRAINED:
            for (_, key), value in zip(_CONSTRAINTS, values, strict=True):
                if value is not None and value != "" and not (strict and key in _NOT_STRICT):
                    schema[key] = value
    elif kind == "enum":
        values = thaw(t.values)
        json_type = enum_type(values)
        schema = {"enum": values} if json_type is None else {"type": json_type, "enum": values}
    elif kind == "array":
        schema = _array(t, strict, path, problems)
    elif kind == "object":
        schema = _object(t, strict, path, problems)
    elif kind == "union":
        schema = {"anyOf": [_schema(v, strict, path, problems) for v in t.variants]}
    else:
        if strict:
            problems.append(
                f"{path} (Any) accepts any value, which strict mode cannot express; "
                "its schema stays {}"
            )
        return {}
    if t.nullable:
        widen(schema)
    if t.extra:
        merge_extra(schema, t.extra, strict, path, problems)
    return schema


def type_schema(t: ir.Type) -> dict[str, Any]:
    """The (non-strict) schema of one type node, a fresh dict."""
    return _schema(t, False, "", [])


def _array(t: ir.Type, strict: bool, path: str, problems: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array"}
    items = None if t.items is None else _schema(t.items, strict, f"{path}[]", problems)
    length = len(t.prefix_items) or None
    if length is None:
        if items is not None:
            schema["items"] = items
    else:
        positions = [
            _schema(item, strict, f"{path}[{i}]", problems) for i, item in enumerate(t.prefix_items)
        ]
        if strict:
            problems.append(
                f"{path} (tuple) has a type per position, which strict mode cannot express "
                "(no prefixItems); only its length is kept"
            )
            distinct: list[dict[str, Any]] = []
            for candidate in positions if items is None else [*positions, items]:
                if candidate not in distinct:
                    distinct.append(candidate)
            schema["items"] = distinct[0] if len(distinct) == 1 else {"anyOf": distinct}
        else:
            schema["prefixItems"] = positions
            if items is not None:
                schema["items"] = items
    if t.unique_items and (_UNIQUE_IN_STRICT or not strict):
        schema["uniqueItems"] = True
    add_item_bounds(t, schema)
    return schema


def add_item_bounds(t: ir.Type, schema: dict[str, Any]) -> None:
    """``minItems``/``maxItems`` of an array: the declared bounds, else a tuple's length."""
    length = len(t.prefix_items) or None
    min_items = length if t.min_items is None else t.min_items
    max_items = length if t.max_items is None else t.max_items
    if min_items is not None:
        schema["minItems"] = min_items
    if max_items is not None:
        schema["maxItems"] = max_items


def _object(t: ir.Type, strict: bool, path: str, problems: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    closed = t.additional is None or strict
    if t.fields or closed:
        schema["properties"], schema["required"] = _properties(t.fields, strict, path, problems)
    if t.additional is None:
        schema["additionalProperties"] = False
    elif strict:
        problems.append(_open_problem(path, t.additional))
        schema["additionalProperties"] = False
    else:
        schema["additionalProperties"] = _schema(t.additional, False, path, problems)
        # a dict's key counts (strict mode closes it: no key to count)
        if t.min_length is not None:
            schema["minProperties"] = t.min_length
        if t.max_length is not None:
            schema["maxProperties"] = t.max_length
    return schema


def _open_problem(path: str, value: ir.Type) -> str:
    value_name = _PY_NAMES.get(value.kind, "...")
    return (
        f"{path} (dict[str, {value_name}]) is an open object, which strict mode cannot "
        "express; it is closed"
    )


def enum_type(values: list[Any]) -> str | list[str] | None:
    """The JSON type(s) of an enum's values; None when a value has no scalar JSON type."""
    names: list[str] = []
    nullable = False
    for value in values:
        if value is None:
            nullable = True
            continue
        if isinstance(value, bool):
            name = "boolean"
        elif isinstance(value, int):
            name = "integer"
        elif isinstance(value, float):
            name = "number"
        elif isinstance(value, str):
            name = "string"
        else:
            return None
        if name not in names:
            names.append(name)
    if "number" in names and "integer" in names:
        # Every integer is a JSON number: one "number", where the first numeric value was.
        names.remove("number")
        names[names.index("integer")] = "number"
    if nullable:
        names.append("null")
    if not names:
        return None
    return names[0] if len(names) == 1 else names


def widen(schema: dict[str, Any]) -> None:
    """Let *schema* (freshly built, so ours to change) accept null too; ``{}`` already does."""
    json_type = schema.get("type")
    if isinstance(json_type, str):
        if json_type != "null":
            schema["type"] = [json_type, "null"]
    elif isinstance(json_type, list) and "null" not in json_type:
        json_type.append("null")
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"].append(None)
    if "anyOf" in schema and {"type": "null"} not in schema["anyOf"]:
        schema["anyOf"].append({"type": "null"})
