"""toolcall's tools on a FastMCP server.

>>> from fastmcp import FastMCP
>>> from toolcall.adapters.fastmcp import register
>>> server = FastMCP("weather")
>>> register(server, "examples.weather")                                 # doctest: +SKIP

Each tool is listed with toolcall's ``mcp`` variant (input schema, title and annotations from
``@toolcall.tool``) and called through ``Toolbox.arun``. A failed call (bad arguments, a
raising tool, ``toolcall.ToolRetry``, a timeout) raises FastMCP's ``ToolError`` with toolcall's
message, which the client receives as an error result (``isError``), never masked. A
parameter annotated with FastMCP's ``Context`` (``Annotated[..., toolcall.Injected]`` too)
receives the request's context, for progress and logging.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from fastmcp import Context, FastMCP
from fastmcp.exceptions import ToolError as FastMCPFailure
from fastmcp.server.dependencies import get_context
from fastmcp.tools import Tool, ToolResult
from mcp.types import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    ToolAnnotations,
)

import toolcall
from pydantic import PrivateAttr
from toolcall.adapters._common import (
    Part,
    Source,
    Spec,
    answer,
    block_json,
    specs,
    subclass_of,
    toolbox,
)

__all__ = ["ToolcallTool", "register"]

_is_context = subclass_of(Context)


def register(
    server: FastMCP,
    source: Source,
    *,
    timeout: float | None = None,
    inject: Mapping[str, Any] | None = None,
) -> list[Tool]:
    """Add every tool of ``source`` (a marked module, a dotted name, a ``Toolbox`` or a list
    of them) to ``server``; the tools added, in definition order.

    ``timeout`` bounds each call as ``toolcall.arun``'s does. ``inject`` supplies the
    injected parameters that are not FastMCP's ``Context``, the same for every call.
    """
    box = toolbox(source)
    return [
        server.add_tool(ToolcallTool.build(box, spec, timeout))
        for spec in specs(box, "mcp", False, _is_context, inject)
    ]


class ToolcallTool(Tool):
    """One toolcall tool as a FastMCP ``Tool``; what :func:`register` adds."""

    _box: toolcall.Toolbox = PrivateAttr()
    _spec: Spec = PrivateAttr()
    _timeout: float | None = PrivateAttr(default=None)

    @classmethod
    def build(cls, box: toolcall.Toolbox, spec: Spec, timeout: float | None) -> ToolcallTool:
        definition = spec.definition
        annotations = definition.get("annotations")
        tool = cls(
            name=spec.name,
            title=definition.get("title"),
            description=definition.get("description"),
            parameters=copy.deepcopy(definition["inputSchema"]),
            annotations=ToolAnnotations(**annotations) if annotations else None,
        )
        tool._box = box
        tool._spec = spec
        tool._timeout = timeout
        return tool

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        spec = self._spec
        inject = spec.inject(get_context() if spec.contexts else None)
        result = await self._box.arun(self.name, arguments, inject=inject, timeout=self._timeout)
        value, error = answer(self.name, result, _media)
        if error is not None:
            raise FastMCPFailure(error.message)
        if isinstance(value, list):
            return ToolResult(content=value)
        return ToolResult(content=[TextContent(type="text", text=value)])


def _media(found: tuple[Part, ...]) -> list[Any]:
    """A media result as MCP content blocks, one per part, as serve-mcp sends it."""
    return [
        TextContent(type="text", text=part)
        if isinstance(part, str)
        else _BLOCKS[part.kind].model_validate(block_json(part))
        for part in found
    ]


_BLOCKS: dict[str, Any] = {
    "image": ImageContent,
    "audio": AudioContent,
    "file": EmbeddedResource,
    "link": ResourceLink,
}
