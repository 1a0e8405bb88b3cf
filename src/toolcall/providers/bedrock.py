"""AWS Bedrock Converse: ``toolUse`` content blocks in, ``toolResult`` blocks out.

A ``str`` result is its ``text`` block, data JSON text. A media result is a list of blocks:
``text``, ``image`` (PNG, JPEG, GIF, WebP) and ``document`` (PDF, CSV, Word, Excel, HTML,
text, Markdown), their bytes raw (boto3 encodes them); anything else a text line saying what
it was.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any, Literal, TypedDict

import toolcall.providers._wire as wire

__all__ = [
    "BedrockToolResult",
    "abedrock_tool_results",
    "bedrock_tool_result",
    "bedrock_tool_results",
]


class _BedrockResult(TypedDict):
    toolUseId: str
    content: list[dict[str, Any]]
    status: Literal["success", "error"]


class BedrockToolResult(TypedDict):
    """A ``toolResult`` content block of a Converse user message (boto3 has no such type)."""

    toolResult: _BedrockResult


def _read(block: Any) -> wire.Call:
    what = "a Bedrock toolUse content block"
    use = wire.optional(block, "toolUse")
    if use is not None:
        block = use
    return wire.Call(
        wire.field(block, "toolUseId", what),
        wire.field(block, "name", what),
        wire.field(block, "input", what),
    )


def _calls(message: Any) -> list[Any]:
    """The ``toolUse`` blocks of a Converse response, its message, or its content list."""
    if isinstance(message, Mapping) and "output" in message:
        message = message["output"].get("message", {})
    return [block for block in wire.items(message, "content", "a message") if "toolUse" in block]


def _write(call: wire.Call, reply: wire.Reply, failed: bool) -> BedrockToolResult:
    status: Literal["success", "error"] = "error" if failed else "success"
    if reply.parts is None:
        content = [{"text": reply.text}]
    else:
        content = [_block(p) for p in reply.parts if p]
    return {"toolResult": {"toolUseId": call.id, "content": content, "status": status}}


_IMAGE_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}
_DOCUMENT_FORMATS = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html",
    "text/plain": "txt",
    "text/markdown": "md",
}
# Converse allows letters, digits, single spaces, hyphens, parentheses and brackets in a name
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9\-()\[\] ]+")


def _block(part: str | wire.Blob) -> dict[str, Any]:
    if isinstance(part, str):
        return {"text": part}
    image = _IMAGE_FORMATS.get(part.mime_type) if part.kind == "image" else None
    if image is not None:
        return {"image": {"format": image, "source": {"bytes": base64.b64decode(part.data)}}}
    document = _DOCUMENT_FORMATS.get(part.mime_type) if part.kind == "file" else None
    if document is not None:
        stem = (part.name or "document").rpartition(".")[0] or part.name or "document"
        name = " ".join(_NOT_IN_NAME.sub(" ", stem).split()) or "document"
        source = {"bytes": base64.b64decode(part.data)}
        return {"document": {"format": document, "name": name, "source": source}}
    return {"text": wire.fallback_text(part, "Bedrock")}


_BEDROCK = wire.Provider(_read, _calls, _write)


def bedrock_tool_result(toolbox: wire.SupportsRun, block: Any) -> BedrockToolResult:
    """Run one ``{"toolUse": ...}`` content block; the ``toolResult`` block that answers it."""
    return _BEDROCK.answer(toolbox, block)


def bedrock_tool_results(toolbox: wire.SupportsRun, message: Any) -> list[BedrockToolResult]:
    """One ``toolResult`` per ``toolUse`` block of a Converse response (or its ``message``,
    or the content list): the content of the next ``{"role": "user"}`` message."""
    return _BEDROCK.answer_all(toolbox, message)


async def abedrock_tool_results(
    toolbox: wire.SupportsArun, message: Any
) -> list[BedrockToolResult]:
    """Like :func:`bedrock_tool_results`, running the calls concurrently, in order."""
    return await _BEDROCK.aanswer_all(toolbox, message)
