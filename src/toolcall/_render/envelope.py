"""Per-format envelopes around an already rendered arguments schema.

Apart from the schema walker so that a warm process can build a format's tool list from
the cached schemas on its first ``emit`` without importing the walker or the strict rules:
this module needs the IR's names and descriptions and nothing else.

Decisions the SPEC leaves open: docs/decisions.md, "Emitting".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

__all__ = ["Described", "Seal", "describe_item", "envelope"]

Seal = Callable[[dict[str, Any]], dict[str, Any]]
"""What an envelope does with each dict it builds: nothing, or ``_frozen.seal``."""


def _plain(value: dict[str, Any]) -> dict[str, Any]:
    return value


class Described(Protocol):
    """What an envelope reads of a tool: an ``ir.Tool``, or the ``ToolHead`` of a cached one."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def annotations(self) -> Mapping[str, bool] | tuple[tuple[str, bool], ...]: ...


def envelope(
    tool: Described, fmt: str, strict: bool, schema: Any, seal: Seal = _plain
) -> dict[str, Any]:
    """*tool*'s definition for *fmt* around its arguments *schema* (shared, not copied).

    Every dict the envelope adds goes through ``seal``: a warm list's envelopes are frozen
    as they are built (``_frozen.seal``) instead of walked again afterwards.
    """
    if fmt == "openai":
        function: dict[str, Any] = {"name": tool.name}
        if tool.description:
            function["description"] = tool.description
        function["parameters"] = schema
        if strict:
            function["strict"] = True
        return seal({"type": "function", "function": seal(function)})
    definition: dict[str, Any] = {"name": tool.name}
    if tool.description:
        definition["description"] = tool.description
    if fmt == "gemini":
        # google-genai's FunctionDeclaration takes the JSON Schema as it is here
        definition["parametersJsonSchema"] = schema
        return seal(definition)
    if fmt == "bedrock":
        definition["inputSchema"] = seal({"json": schema})
        return seal({"toolSpec": seal(definition)})
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
                definition["annotations"] = seal(dict(tool.annotations))
    return seal(definition)


def describe_item(tool: Described, module: str, schema: Any, seal: Seal = _plain) -> dict[str, Any]:
    """*tool*'s ``describe`` entry: its module, name, description and schema."""
    return seal(
        {
            "module": module,
            "name": tool.name,
            "description": tool.description,
            "parameters": schema,
        }
    )
