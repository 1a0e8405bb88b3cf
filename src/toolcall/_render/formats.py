"""Per-format envelopes around the arguments schema, and the rendering of whole modules.

The walker (``schema``) produces one arguments schema per tool and strict value; each
format only wraps it. Decisions the SPEC leaves open:

- A provider envelope omits ``"description"`` when the tool has none: every provider accepts
  a tool without one, and an empty string is noise in the prompt. ``describe`` always has
  the key (``""`` when there is none), since it is a listing, not a provider input.
- ``strict=True`` adds ``"strict": true`` where the format has such a field (OpenAI,
  Anthropic); elsewhere (MCP, Gemini, Bedrock) only the schema changes.
- Gemini gets the schema as ``parametersJsonSchema`` (JSON Schema, which google-genai passes
  on unchanged) rather than ``parameters`` (its own OpenAPI subset, which has no
  ``additionalProperties``, ``prefixItems`` or ``const`` and would lose constraints).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolcall import ir
from toolcall._frozen import FrozenList, freeze
from toolcall._names import FORMATS, check_format
from toolcall._render.schema import collect_strict_problems, parameters_schema
from toolcall._render.strict import strict_warnings

__all__ = ["describe_entry", "render", "render_variants"]


def render(tool: ir.Tool, fmt: str, strict: bool = False) -> dict[str, Any]:
    """Return *tool*'s definition for *fmt* (one of ``FORMATS``), a fresh plain dict.

    This renders on every call; modules are rendered once by `render_variants` instead.

    Raises
    ------
    ValueError
        *fmt* is not one of ``FORMATS``.
    """
    check_format(fmt)
    return _envelope(tool, fmt, strict, parameters_schema(tool, strict=strict))


def describe_entry(tool: ir.Tool, module: str) -> dict[str, Any]:
    """Return *tool*'s ``describe`` entry: its module, name, description and schema."""
    return _describe(tool, module, parameters_schema(tool))


def render_variants(
    tools: Sequence[ir.Tool], module: str
) -> tuple[dict[tuple[str, bool], FrozenList], list[list[str]]]:
    """Render every variant of a module's tools once, as read-only lists in tool order.

    Keys are ``(fmt, strict)`` for every format in ``FORMATS`` and both strict values, plus
    ``("describe", False)``. Each tool's schema is rendered once per strict value and the
    frozen result is shared by every envelope that carries it. The second value holds each
    tool's strict-mode warnings, found while its strict schema was rendered.
    """
    loose = [freeze(parameters_schema(tool)) for tool in tools]
    strict: list[Any] = []
    warnings: list[list[str]] = []
    for tool in tools:
        schema, problems = collect_strict_problems(tool)
        strict.append(freeze(schema))
        warnings.append(strict_warnings(tool.name, schema, problems))
    variants: dict[tuple[str, bool], FrozenList] = {}
    for fmt in FORMATS:
        for flag, schemas in ((False, loose), (True, strict)):
            variants[fmt, flag] = FrozenList(
                _envelope(tool, fmt, flag, schema)
                for tool, schema in zip(tools, schemas, strict=True)
            )
    variants["describe", False] = FrozenList(
        _describe(tool, module, schema) for tool, schema in zip(tools, loose, strict=True)
    )
    return variants, warnings


def _envelope(tool: ir.Tool, fmt: str, strict: bool, schema: dict[str, Any]) -> dict[str, Any]:
    if fmt == "openai":
        function: dict[str, Any] = {"name": tool.name}
        if tool.description:
            function["description"] = tool.description
        function["parameters"] = schema
        if strict:
            function["strict"] = True
        return {"type": "function", "function": function}
    definition: dict[str, Any] = {"name": tool.name}
    if tool.description:
        definition["description"] = tool.description
    if fmt == "gemini":
        # google-genai's FunctionDeclaration takes the JSON Schema as it is here
        definition["parametersJsonSchema"] = schema
        return definition
    if fmt == "bedrock":
        definition["inputSchema"] = {"json": schema}
        return {"toolSpec": definition}
    if fmt == "anthropic":
        definition["input_schema"] = schema
        if strict:
            definition["strict"] = True
    else:
        definition["inputSchema"] = schema
        if fmt == "mcp":
            if tool.title:
                definition["title"] = tool.title
            if tool.annotations:
                definition["annotations"] = dict(tool.annotations)
    return definition


def _describe(tool: ir.Tool, module: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "module": module,
        "name": tool.name,
        "description": tool.description,
        "parameters": schema,
    }
