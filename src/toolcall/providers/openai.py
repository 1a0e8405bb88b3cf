"""OpenAI's Chat Completions (``tool_calls``) and Responses (``function_call`` items).

Both send ``arguments`` as JSON text, which :func:`decode_arguments` reads (the OpenAI Agents
adapter too). A ``str`` result is sent as itself, data as JSON text. A media result is a list of
``input_text``/``input_image``/``input_file`` items in a Responses ``function_call_output``;
a Chat Completions tool message carries text only, so each media part there (and audio in
Responses) is a text line saying what it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypedDict

import toolcall
import toolcall.providers._wire as wire
from toolcall._shared.responses import flat_function

__all__ = [
    "OpenAIToolMessage",
    "ResponsesFunctionCallOutput",
    "ResponsesToolSearchOutput",
    "aopenai_tool_message",
    "aopenai_tool_messages",
    "aresponses_output",
    "aresponses_outputs",
    "decode_arguments",
    "openai_tool_message",
    "openai_tool_messages",
    "responses_output",
    "responses_outputs",
    "responses_tool_search_output",
    "responses_tool_search_outputs",
    "responses_tools",
]


class _OpenAIToolMessage(TypedDict):
    role: Literal["tool"]
    tool_call_id: str
    content: str


class _ResponsesFunctionCallOutput(TypedDict):
    type: Literal["function_call_output"]
    call_id: str
    output: str | list[dict[str, Any]]


if TYPE_CHECKING:  # the SDK's own types, to a checker (see toolcall.providers._wire)
    from openai.types.chat import ChatCompletionToolMessageParam as OpenAIToolMessage
    from openai.types.responses.response_input_param import (
        FunctionCallOutput as ResponsesFunctionCallOutput,
    )
    from openai.types.responses.response_tool_search_output_item_param_param import (
        ResponseToolSearchOutputItemParamParam as ResponsesToolSearchOutput,
    )
else:
    OpenAIToolMessage: TypeAlias = _OpenAIToolMessage
    ResponsesFunctionCallOutput: TypeAlias = _ResponsesFunctionCallOutput
    ResponsesToolSearchOutput: TypeAlias = dict[str, Any]


def decode_arguments(arguments: Any) -> Any:
    """What ``run`` is given for a call's ``arguments``: the text itself, ``{}`` for blank text.

    ``run`` reads JSON text itself, through the tool's typed route (checked in C as it is
    decoded), and its one decoder phrases what is wrong with text that is not JSON. Blank
    text means ``{}``: some OpenAI-compatible servers send ``""`` for a call without
    arguments. Anything else (arguments a server sent already decoded) is handed on as it is.
    """
    if isinstance(arguments, _TEXT) and not arguments.strip():
        return {}
    return arguments


_TEXT = (str, bytes, bytearray)


# Chat Completions.


def _chat_call(tool_call: Any) -> wire.Call:
    what = "an OpenAI tool call"
    wire.check_type(tool_call, "function", what)
    function = wire.field(tool_call, "function", what)
    return wire.Call(
        wire.field(tool_call, "id", what),
        wire.field(function, "name", "a tool call's function"),
        decode_arguments(wire.field(function, "arguments", "a tool call's function")),
    )


def _chat_calls(message: Any) -> list[Any]:
    return [
        call
        for call in wire.items(message, "tool_calls", "an assistant message")
        if wire.optional(call, "type") in ("function", None)
    ]


def _chat_message(call: wire.Call, reply: wire.Reply, failed: bool) -> OpenAIToolMessage:
    text = reply.text if reply.parts is None else reply.fallback("Chat Completions")
    return {"role": "tool", "tool_call_id": call.id, "content": text}


_CHAT = wire.Provider(_chat_call, _chat_calls, _chat_message)


def openai_tool_message(toolbox: wire.SupportsRun, tool_call: Any) -> OpenAIToolMessage:
    """Run one ``tool_calls`` entry; the ``role: tool`` message that answers it."""
    return _CHAT.answer(toolbox, tool_call)


def openai_tool_messages(toolbox: wire.SupportsRun, message: Any) -> list[OpenAIToolMessage]:
    """One tool message per function call of an assistant message (its ``tool_calls``, or
    the list itself); append them after the assistant message."""
    return _CHAT.answer_all(toolbox, message)


async def aopenai_tool_message(toolbox: wire.SupportsArun, tool_call: Any) -> OpenAIToolMessage:
    """Like :func:`openai_tool_message`, awaiting the call."""
    return await _CHAT.aanswer(toolbox, tool_call)


async def aopenai_tool_messages(
    toolbox: wire.SupportsArun, message: Any
) -> list[OpenAIToolMessage]:
    """Like :func:`openai_tool_messages`, running the calls concurrently (a model's parallel
    tool calls), the messages in the calls' order."""
    return await _CHAT.aanswer_all(toolbox, message)


# Responses.


def _responses_call(item: Any) -> wire.Call:
    what = "a Responses function_call item"
    wire.check_type(item, "function_call", what)
    return wire.Call(
        wire.field(item, "call_id", what),
        wire.field(item, "name", what),
        decode_arguments(wire.field(item, "arguments", what)),
    )


def _responses_calls(response: Any) -> list[Any]:
    return [
        item
        for item in wire.items(response, "output", "a response")
        if wire.optional(item, "type") == "function_call"
    ]


def _responses_item(
    call: wire.Call, reply: wire.Reply, failed: bool
) -> ResponsesFunctionCallOutput:
    if reply.parts is None:
        return {"type": "function_call_output", "call_id": call.id, "output": reply.text}
    output: list[Any] = [_responses_part(p) for p in reply.parts if p]
    return {"type": "function_call_output", "call_id": call.id, "output": output}


def _responses_part(part: str | wire.Blob) -> dict[str, Any]:
    if isinstance(part, str):
        return {"type": "input_text", "text": part}
    data_url = f"data:{part.mime_type};base64,{part.data}"
    if part.kind == "image":
        return {"type": "input_image", "image_url": data_url}
    if part.kind == "file":
        return {"type": "input_file", "file_data": data_url, "filename": part.name or "file"}
    return {"type": "input_text", "text": wire.fallback_text(part, "Responses")}


_RESPONSES = wire.Provider(_responses_call, _responses_calls, _responses_item)


def responses_output(toolbox: wire.SupportsRun, item: Any) -> ResponsesFunctionCallOutput:
    """Run one ``function_call`` output item; the ``function_call_output`` input item."""
    return _RESPONSES.answer(toolbox, item)


def responses_outputs(
    toolbox: wire.SupportsRun, response: Any
) -> list[ResponsesFunctionCallOutput]:
    """One output item per ``function_call`` of a response (its ``output``, or the list
    itself); send them as input after the response's output items."""
    return _RESPONSES.answer_all(toolbox, response)


async def aresponses_output(toolbox: wire.SupportsArun, item: Any) -> ResponsesFunctionCallOutput:
    """Like :func:`responses_output`, awaiting the call."""
    return await _RESPONSES.aanswer(toolbox, item)


async def aresponses_outputs(
    toolbox: wire.SupportsArun, response: Any
) -> list[ResponsesFunctionCallOutput]:
    """Like :func:`responses_outputs`, running the calls concurrently, in order."""
    return await _RESPONSES.aanswer_all(toolbox, response)


def responses_tools(tools: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``emit(..., "openai")`` tools in the Responses API's flat form.

    The Responses API takes function tools flat (``{"type": "function", "name", ...}``) rather
    than nested under ``"function"``. ``strict`` is always set: the Responses API treats an
    absent one as ``true``, which a schema rendered without ``strict=True`` does not satisfy.
    Tools already flat, and tools of other types, pass through unchanged.
    """
    return [flat_function(tool) or tool for tool in tools]


def responses_tool_search_output(
    search: toolcall.ToolSearch, item: Any, *, strict: bool = False
) -> ResponsesToolSearchOutput:
    """Answer one client-executed ``tool_search_call`` item (a :class:`toolcall.ToolSearch`
    with ``defer="client"``): the ``tool_search_output`` item that loads the tools found, as
    flat function tools (``strict`` as the request's tools were emitted).

    Arguments that are not a search load nothing: the item's ``tools`` is empty.
    """
    what = "a Responses tool_search_call item"
    wire.check_type(item, "tool_search_call", what)
    found = search.find(decode_arguments(wire.field(item, "arguments", what)))
    names = found.value if isinstance(found, toolcall.Ok) else ()
    return {
        "type": "tool_search_output",
        "call_id": wire.field(item, "call_id", what),
        "execution": "client",
        "status": "completed",
        "tools": search.definitions(names, "responses", strict),
    }


def responses_tool_search_outputs(
    search: toolcall.ToolSearch, response: Any, *, strict: bool = False
) -> list[ResponsesToolSearchOutput]:
    """One ``tool_search_output`` per client-executed ``tool_search_call`` of a response (its
    ``output``, or the list itself); send them as input after the response's output items,
    with :func:`responses_outputs`' answers to its function calls."""
    return [
        responses_tool_search_output(search, item, strict=strict)
        for item in wire.items(response, "output", "a response")
        if wire.optional(item, "type") == "tool_search_call"
        and wire.optional(item, "execution") in ("client", None)
    ]
