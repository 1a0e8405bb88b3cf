"""A tool's value as the ``CallToolResult`` an MCP client receives.

- a ``str`` is one text block holding the string itself (never JSON-quoted), as FastMCP
  and the protocol's reference servers send it;
- media (``toolcall.Image``/``Audio``/``File``, the SDK's own content blocks, FastMCP's
  ``Image``/``Audio``/``File``) are image, audio, embedded-resource and resource-link blocks,
  and a list mixing them with text is one block per item, in order;
- anything else is JSON text, and also ``structuredContent`` when the tool declares an
  ``outputSchema`` (its return annotation is an object type).

A value that cannot be sent (it does not encode, or an object-annotated tool returned
something else) is the tool's bug: logged, and answered as an ``unencodable`` error.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp.types as mcp_types
import msgspec

import toolcall
from toolcall import ir
from toolcall._dispatch.encode import Blob, block_json, is_media_class, parts

__all__ = ["sends_content", "tool_result"]

_log = logging.getLogger("toolcall")

_BLOCKS: dict[str, Any] = {
    "image": mcp_types.ImageContent,
    "audio": mcp_types.AudioContent,
    "file": mcp_types.EmbeddedResource,
    "link": mcp_types.ResourceLink,
}


def tool_result(
    name: str, value: Any, structured: bool
) -> mcp_types.CallToolResult | toolcall.ToolError:
    """The result of tool ``name`` returning ``value``; ``structured`` when the tool declares
    an ``outputSchema``. A ``ToolError`` when the value cannot be sent."""
    try:
        found = parts(value)
        text = None if found is not None or type(value) is str else toolcall.encode_result(value)
    except Exception as exc:  # the tool's own value: anything can fail to encode
        _log.error("toolcall: the result of %s cannot be encoded as JSON", name, exc_info=True)
        message = f"the tool's result cannot be encoded as JSON: {exc}"
        return toolcall.ToolError.unencodable(message)
    if text is None:  # a str, or media
        if structured:
            return _not_an_object(name, value)
        blocks = (value,) if found is None else found
        return mcp_types.CallToolResult(content=[_block(part) for part in blocks])
    content: list[mcp_types.ContentBlock] = [mcp_types.TextContent(text=text)]
    if not structured:
        return mcp_types.CallToolResult(content=content)
    data = msgspec.json.decode(text)
    if type(data) is not dict:
        return _not_an_object(name, value)
    return mcp_types.CallToolResult(content=content, structured_content=data)


def sends_content(t: ir.Type) -> bool:
    """Whether a return type is media (or an MCP text block): sent as content blocks, so the
    tool declares no ``outputSchema`` though the type is a class with fields."""
    return bool(t.ref) and is_media_class(t.ref)


def _not_an_object(name: str, value: Any) -> toolcall.ToolError:
    _log.error("toolcall: %s returned %s, not an object", name, type(value).__name__)
    message = (
        f"the tool returned {type(value).__name__}, but its return annotation declares an object"
    )
    return toolcall.ToolError.unencodable(message)


def _block(part: str | Blob) -> mcp_types.ContentBlock:
    if isinstance(part, str):
        return mcp_types.TextContent(text=part)
    block: mcp_types.ContentBlock = _BLOCKS[part.kind].model_validate(block_json(part))
    return block
