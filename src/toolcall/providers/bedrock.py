"""AWS Bedrock Converse: ``toolUse`` content blocks in, ``toolResult`` blocks out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict

from toolcall.providers._wire import (
    Call,
    Provider,
    SupportsArun,
    SupportsRun,
    field,
    items,
    optional,
)

__all__ = [
    "BedrockToolResult",
    "abedrock_tool_results",
    "bedrock_tool_result",
    "bedrock_tool_results",
]


class _BedrockResult(TypedDict):
    toolUseId: str
    content: list[dict[str, str]]
    status: Literal["success", "error"]


class BedrockToolResult(TypedDict):
    """A ``toolResult`` content block of a Converse user message (boto3 has no such type)."""

    toolResult: _BedrockResult


def _read(block: Any) -> Call:
    what = "a Bedrock toolUse content block"
    use = optional(block, "toolUse")
    if use is not None:
        block = use
    return Call(
        field(block, "toolUseId", what), field(block, "name", what), field(block, "input", what)
    )


def _calls(message: Any) -> list[Any]:
    """The ``toolUse`` blocks of a Converse response, its message, or its content list."""
    if isinstance(message, Mapping) and "output" in message:
        message = message["output"].get("message", {})
    return [block for block in items(message, "content", "a message") if "toolUse" in block]


def _write(call: Call, text: str, failed: bool) -> BedrockToolResult:
    status: Literal["success", "error"] = "error" if failed else "success"
    return {"toolResult": {"toolUseId": call.id, "content": [{"text": text}], "status": status}}


_BEDROCK = Provider(_read, _calls, _write)


def bedrock_tool_result(toolbox: SupportsRun, block: Any) -> BedrockToolResult:
    """Run one ``{"toolUse": ...}`` content block; the ``toolResult`` block that answers it."""
    return _BEDROCK.answer(toolbox, block)


def bedrock_tool_results(toolbox: SupportsRun, message: Any) -> list[BedrockToolResult]:
    """One ``toolResult`` per ``toolUse`` block of a Converse response (or its ``message``,
    or the content list): the content of the next ``{"role": "user"}`` message."""
    return _BEDROCK.answer_all(toolbox, message)


async def abedrock_tool_results(toolbox: SupportsArun, message: Any) -> list[BedrockToolResult]:
    """Like :func:`bedrock_tool_results`, running the calls concurrently, in order."""
    return await _BEDROCK.aanswer_all(toolbox, message)
