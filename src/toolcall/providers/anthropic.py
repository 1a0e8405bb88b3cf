"""Anthropic's Messages API: ``tool_use`` blocks in, ``tool_result`` blocks out.

A ``str`` result is the block's text content; data is JSON text; a media result is a list of
content blocks: text, ``image`` (JPEG, PNG, GIF, WebP) and ``document`` (PDF, plain text),
anything else (audio, other files) a text line saying what it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypeAlias, TypedDict

import toolcall
import toolcall.providers._wire as wire

__all__ = [
    "AnthropicToolResult",
    "aanthropic_tool_result",
    "aanthropic_tool_results",
    "anthropic_tool_result",
    "anthropic_tool_results",
]


class _AnthropicToolResult(TypedDict):
    type: Literal["tool_result"]
    tool_use_id: str
    content: str | list[dict[str, Any]]
    is_error: NotRequired[bool]


if TYPE_CHECKING:  # the SDK's own type, to a checker (see toolcall.providers._wire)
    from anthropic.types import ToolResultBlockParam as AnthropicToolResult
else:
    AnthropicToolResult: TypeAlias = _AnthropicToolResult


def _read(block: Any) -> wire.Call:
    what = "an Anthropic tool_use block"
    wire.check_type(block, "tool_use", what)
    return wire.Call(
        wire.field(block, "id", what),
        wire.field(block, "name", what),
        wire.field(block, "input", what),
    )


def _calls(message: Any) -> list[Any]:
    return [
        block
        for block in wire.items(message, "content", "an assistant message")
        if wire.optional(block, "type") == "tool_use"
    ]


def _write(call: wire.Call, reply: wire.Reply, failed: bool) -> AnthropicToolResult:
    """The result block; ``is_error`` as well as the error text, since this API has a place
    for it."""
    block: AnthropicToolResult = {"type": "tool_result", "tool_use_id": call.id, "content": ""}
    if reply.parts is None:
        block["content"] = reply.text
    else:
        content: list[Any] = [_block(p) for p in reply.parts if p]
        block["content"] = content
    if failed:
        block["is_error"] = True
    return block


_IMAGES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def _block(part: str | wire.Blob) -> dict[str, Any]:
    if isinstance(part, str):
        return {"type": "text", "text": part}
    if part.kind == "image" and part.mime_type in _IMAGES:
        source = {"type": "base64", "media_type": part.mime_type, "data": part.data}
        return {"type": "image", "source": source}
    if part.kind == "file" and part.mime_type == "application/pdf":
        source = {"type": "base64", "media_type": "application/pdf", "data": part.data}
        return _document(source, part)
    text = part.as_text() if part.kind == "file" else None
    if text is not None:
        return _document({"type": "text", "media_type": "text/plain", "data": text}, part)
    return {"type": "text", "text": wire.fallback_text(part, "Anthropic")}


def _document(source: dict[str, Any], part: wire.Blob) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "document", "source": source}
    if part.name:
        block["title"] = part.name
    return block


_ANTHROPIC = wire.Provider(_read, _calls, _write)


def _references(toolbox: object, block: Any) -> AnthropicToolResult | None:
    """The answer of a ``search_tools`` call of a :class:`toolcall.ToolSearch` with
    ``defer="client"``: one ``tool_reference`` block per tool found, which loads the deferred
    tool of that name; None for any other call (and for a search whose arguments are wrong,
    which the ordinary path answers with the error)."""
    # the attribute first: a Toolbox has none, and does not import the ToolSearch module
    if getattr(toolbox, "defer", None) != "client" or not isinstance(toolbox, toolcall.ToolSearch):
        return None
    call = _read(block)
    if call.name != toolcall.ToolSearch.SEARCH_TOOL:
        return None
    found = toolbox.find(call.arguments)
    if isinstance(found, toolcall.Err):
        return None
    content: list[Any] = [{"type": "tool_reference", "tool_name": name} for name in found.value]
    if not content:
        content = [{"type": "text", "text": "No tool matches; describe the task in other words."}]
    return {"type": "tool_result", "tool_use_id": call.id, "content": content}


def anthropic_tool_result(toolbox: wire.SupportsRun, block: Any) -> AnthropicToolResult:
    """Run one ``tool_use`` block; the ``tool_result`` block that answers it.

    Given a :class:`toolcall.ToolSearch` with ``defer="client"``, a ``search_tools`` call is
    answered with ``tool_reference`` blocks, which load the deferred tools found.
    """
    return _references(toolbox, block) or _ANTHROPIC.answer(toolbox, block)


def anthropic_tool_results(toolbox: wire.SupportsRun, message: Any) -> list[AnthropicToolResult]:
    """One ``tool_result`` per ``tool_use`` block of an assistant message (its ``content``, or
    the list itself): the content of the next user message."""
    return [anthropic_tool_result(toolbox, block) for block in _calls(message)]


async def aanthropic_tool_result(toolbox: wire.SupportsArun, block: Any) -> AnthropicToolResult:
    """Like :func:`anthropic_tool_result`, awaiting the call."""
    return _references(toolbox, block) or await _ANTHROPIC.aanswer(toolbox, block)


async def aanthropic_tool_results(
    toolbox: wire.SupportsArun, message: Any
) -> list[AnthropicToolResult]:
    """Like :func:`anthropic_tool_results`, running the calls concurrently, in order."""
    blocks = _calls(message)
    for block in blocks:
        _read(block)  # a malformed block raises before any call runs
    searched = [_references(toolbox, block) for block in blocks]
    rest = iter(
        await _ANTHROPIC.aanswer_all(
            toolbox, [b for b, r in zip(blocks, searched, strict=True) if r is None]
        )
    )
    return [found if found is not None else next(rest) for found in searched]
