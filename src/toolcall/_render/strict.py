"""``check_strict``: report every way a tool schema breaks OpenAI's strict-mode limits.

The limits, their source and why they are checked before a request is sent are in
``limits``. Decisions the documentation leaves open: docs/decisions.md, "Strict mode".

Examples
--------
>>> check_strict({"type": "object", "properties": {"tags": {"type": "array", "items":
...     {"type": "string"}, "uniqueItems": True}}, "required": ["tags"],
...     "additionalProperties": False}, name="tag")
['tag: $.properties.tags: keyword "uniqueItems" is not supported in strict mode']
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, TypeAlias

from toolcall import ir
from toolcall._render.limits import (
    LARGE_ENUM,
    MAX_ENUM_VALUES,
    MAX_LARGE_ENUM_CHARS,
    MAX_NESTING,
    MAX_PROPERTIES,
    MAX_TOTAL_CHARS,
    SUPPORTED_FORMATS,
    SUPPORTED_KEYWORDS,
)
from toolcall._render.schema import parameters_schema

__all__ = ["check_strict", "strict_warnings"]

_TYPES: Final = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
_TYPED_BY: Final = ("type", "enum", "const", "anyOf", "$ref")
# The keywords checked only where a node has one of them (most have none).
_LESS_COMMON: Final = frozenset(
    {"anyOf", "enum", "const", "format", "$ref", "$defs", "definitions"}
)
# Past this many levels of any kind the schema is either absurd or cyclic (a dict that
# contains itself); either way the walk stops there instead of running forever.
_MAX_WALK_DEPTH: Final = 500
_MISSING: Final = object()
_SHORTHAND: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# A JSON path as a linked list, built for every node and formatted only for a problem.
_Link: TypeAlias = "tuple[_Link, str | int] | None"
# Schemas still to visit: (node, path, objects on the path above it, levels above it, is root).
_Pending: TypeAlias = "list[tuple[Any, _Link, int, int, bool]]"


def check_strict(schema_or_tool: Mapping[str, Any] | ir.Tool, *, name: str = "") -> list[str]:
    """Return every way a tool's parameters schema breaks OpenAI's strict-mode limits.

    *schema_or_tool* is a parameters schema, a rendered tool (OpenAI Chat Completions or
    Responses function, Anthropic or MCP tool, or a ``describe`` entry), or an ``ir.Tool``,
    whose strict schema is rendered first. Each problem is one line,
    ``"<tool>: <JSON path>: <problem>"``; the tool is *name* when given, else the rendered
    tool's name, and is left out (with its colon) when neither is known. The path is a
    JSONPath into the parameters schema (``$.properties.items.items``). An empty list means
    the schema is within the documented limits.

    Raises
    ------
    TypeError
        *schema_or_tool* is neither a mapping nor an ``ir.Tool``.
    """
    given: object = schema_or_tool  # callers without a type checker pass anything
    if isinstance(given, ir.Tool):
        schema: Any = parameters_schema(given, strict=True)
        name = name or given.name
    elif isinstance(given, Mapping):
        found, schema = _unwrap(given)
        name = name or found
    else:
        msg = f"expected a schema, a rendered tool or an ir.Tool, got {type(given)!r}"
        raise TypeError(msg)
    if schema is None:
        return []
    walk = _Walk()
    walk.run(schema)
    prefix = f"{name}: " if name else ""
    return [f"{prefix}{_format(link)}: {problem}" for link, problem in walk.problems]


def strict_warnings(name: str, schema: Mapping[str, Any], problems: list[str]) -> list[str]:
    """What strict mode changes in a tool (*problems*, from rendering its strict *schema*)
    plus what the providers' strict limits reject in that schema: the derivation warnings.

    *problems* already reports ``Any`` values, so the checker's "no type" lines would only
    repeat them.
    """
    limits = check_strict(schema, name=name)
    return problems + [line for line in limits if ": no type: " not in line]


def _unwrap(value: Mapping[str, Any]) -> tuple[str, Any]:
    """(tool name, parameters schema) of a rendered tool; ("", value) for a bare schema.

    A tool that declares no parameters schema gives None: every provider accepts it.
    """
    function = value.get("function")
    if value.get("type") == "function" and isinstance(function, Mapping):
        return _name(function), function.get("parameters")
    for key in ("input_schema", "inputSchema"):
        if key in value:
            return _name(value), value[key]
    if "parameters" in value and "name" in value:
        return _name(value), value["parameters"]
    return "", value


def _name(value: Mapping[str, Any]) -> str:
    name = value.get("name")
    return name if isinstance(name, str) else ""


def _format(link: _Link) -> str:
    parts: list[str | int] = []
    while link is not None:
        link, segment = link
        parts.append(segment)
    out = ["$"]
    for segment in reversed(parts):
        if isinstance(segment, int):
            out.append(f"[{segment}]")
        elif _SHORTHAND.fullmatch(segment):
            out.append(f".{segment}")
        else:
            escaped = segment.replace("\\", "\\\\").replace("'", "\\'")
            out.append(f"['{escaped}']")
    return "".join(out)


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int | float):
        return "a number"
    return type(value).__name__


class _Walk:
    """One pass over a schema: per-node problems in document order, then the totals."""

    def __init__(self) -> None:
        self.problems: list[tuple[_Link, str]] = []
        self.properties = 0
        self.enum_values = 0
        self.chars = 0

    def run(self, root: Any) -> None:
        stack: _Pending = [(root, None, 0, 0, True)]
        while stack:
            node, link, depth, level, is_root = stack.pop()
            if level > _MAX_WALK_DEPTH:
                self.problems.append(
                    (link, f"nested more than {_MAX_WALK_DEPTH} levels deep; not checked further")
                )
                continue
            children: _Pending = []
            self._node(node, link, depth, level, is_root, children)
            stack.extend(reversed(children))
        if self.properties > MAX_PROPERTIES:
            self.problems.append(
                (
                    None,
                    f"{self.properties} properties in total; strict mode allows {MAX_PROPERTIES}",
                )
            )
        if self.enum_values > MAX_ENUM_VALUES:
            self.problems.append(
                (
                    None,
                    f"{self.enum_values} enum values in total; strict mode allows "
                    f"{MAX_ENUM_VALUES}",
                )
            )
        if self.chars > MAX_TOTAL_CHARS:
            self.problems.append(
                (
                    None,
                    f"property names, definition names, enum values and const values total "
                    f"{self.chars} characters; strict mode allows {MAX_TOTAL_CHARS}",
                )
            )

    def _node(
        self,
        node: Any,
        link: _Link,
        depth: int,
        level: int,
        is_root: bool,
        children: _Pending,
    ) -> None:
        problems = self.problems
        if not isinstance(node, dict | Mapping):
            problems.append((link, f"expected a schema object, got {_type_name(node)}"))
            return
        if not SUPPORTED_KEYWORDS.issuperset(node):
            for key in node:
                if key not in SUPPORTED_KEYWORDS:
                    problems.append(
                        (link, f"keyword {_quote(key)} is not supported in strict mode")
                    )
        declared = node.get("type")
        if type(declared) is str and declared in _TYPES:  # the common case, in one test
            types: tuple[str, ...] = (declared,)
        else:
            types = self._types(declared, link)
        if is_root:
            if types != ("object",):
                problems.append((link, 'the root must be an object ("type": "object")'))
            if "anyOf" in node:
                problems.append((link, "the root must not be an anyOf"))
        elif not types and not any(key in node for key in _TYPED_BY):
            problems.append(
                (link, "no type: it accepts any value, which strict mode cannot express")
            )
        level += 1
        if "object" in types or (not types and "properties" in node):
            depth += 1
            if depth == MAX_NESTING + 1:
                problems.append(
                    (link, f"objects nested {depth} deep; strict mode allows {MAX_NESTING}")
                )
            self._object(node, link)
        properties = node.get("properties")
        if properties is None:  # before the ABC's check, which None would take slowest
            pass
        elif isinstance(properties, dict | Mapping):
            self.properties += len(properties)
            inner: _Link = (link, "properties")
            for key, value in properties.items():
                if isinstance(key, str):
                    self.chars += len(key)
                children.append((value, (inner, str(key)), depth, level, False))
        else:
            problems.append((link, f'"properties" must be an object, not {_type_name(properties)}'))
        items = node.get("items", _MISSING)
        if items is _MISSING:
            if "array" in types and node.get("maxItems") != 0:
                problems.append(
                    (link, 'array without "items": strict mode cannot express any item')
                )
        elif isinstance(items, dict | Mapping):
            children.append((items, (link, "items"), depth, level, False))
        else:
            problems.append((link, f'"items" must be one schema, not {_type_name(items)}'))
        if not _LESS_COMMON.isdisjoint(node):
            self._less_common(node, link, depth, level, children)

    def _less_common(
        self, node: Mapping[str, Any], link: _Link, depth: int, level: int, children: _Pending
    ) -> None:
        problems = self.problems
        if "anyOf" in node:
            variants = node["anyOf"]
            if isinstance(variants, list) and variants:
                inner = (link, "anyOf")
                for i, variant in enumerate(variants):
                    children.append((variant, (inner, i), depth, level, False))
            else:
                problems.append((link, '"anyOf" must be a non-empty array of schemas'))
        if "enum" in node:
            self._enum(node["enum"], link)
        const = node.get("const")
        if isinstance(const, str):
            self.chars += len(const)
        fmt = node.get("format")
        if fmt is not None and not (isinstance(fmt, str) and fmt in SUPPORTED_FORMATS):
            problems.append((link, f"format {_quote(fmt)} is not supported in strict mode"))
        ref = node.get("$ref", "")
        if not isinstance(ref, str):
            problems.append((link, f'"$ref" must be a string, not {_type_name(ref)}'))
        for key in ("$defs", "definitions"):
            definitions = node.get(key)
            if definitions is None:
                continue
            if isinstance(definitions, dict | Mapping):
                inner = (link, key)
                for def_name, value in definitions.items():
                    if isinstance(def_name, str):
                        self.chars += len(def_name)
                    children.append((value, (inner, str(def_name)), 0, level, False))
            else:
                problems.append((link, f"{_quote(key)} must be an object of schemas"))

    def _types(self, declared: Any, link: _Link) -> tuple[str, ...]:
        if declared is None:
            return ()
        if isinstance(declared, str):
            types: tuple[str, ...] = (declared,)
        elif (
            isinstance(declared, list)
            and declared
            and all(isinstance(name, str) for name in declared)
        ):
            types = tuple(declared)
        else:
            self.problems.append((link, '"type" must be a type name or an array of them'))
            return ()
        for name in types:
            if name not in _TYPES:
                self.problems.append((link, f"unknown type {_quote(name)}"))
        return types

    def _object(self, node: Mapping[str, Any], link: _Link) -> None:
        problems = self.problems
        additional = node.get("additionalProperties", _MISSING)
        if additional is _MISSING:
            problems.append(
                (link, '"additionalProperties": false is missing; strict mode requires it')
            )
        elif additional is not False:
            problems.append(
                (
                    link,
                    '"additionalProperties" must be false: strict mode cannot express an '
                    "open object",
                )
            )
        properties = node.get("properties")
        names = list(properties) if isinstance(properties, dict | Mapping) else []
        required = node.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            problems.append((link, '"required" must be an array of property names'))
            return
        listed = set(required)
        optional = [key for key in names if key not in listed]
        if optional:
            problems.append(
                (
                    link,
                    f'{_names(optional)} not in "required": strict mode requires every '
                    "property (spell optional as a type that accepts null)",
                )
            )
        declared = set(names)
        unknown = [key for key in required if key not in declared]
        if unknown:
            problems.append((link, f'"required" names undeclared {_names(unknown)}'))

    def _enum(self, values: Any, link: _Link) -> None:
        if not isinstance(values, list):
            self.problems.append((link, f'"enum" must be an array, not {_type_name(values)}'))
            return
        self.enum_values += len(values)
        chars = sum(len(value) for value in values if isinstance(value, str))
        self.chars += chars
        if len(values) > LARGE_ENUM and chars > MAX_LARGE_ENUM_CHARS:
            self.problems.append(
                (
                    link,
                    f"an enum of {len(values)} values totals {chars} characters; strict mode "
                    f"allows {MAX_LARGE_ENUM_CHARS} once an enum has more than {LARGE_ENUM} "
                    "values",
                )
            )


def _quote(value: object) -> str:
    """A keyword or name as JSON spells it, so the line can be pasted into a search."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _names(keys: list[str]) -> str:
    label = "property" if len(keys) == 1 else "properties"
    return f"{label} " + ", ".join(_quote(key) for key in keys)
