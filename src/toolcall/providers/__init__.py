"""A provider's tool call in, the tool-result message it expects back out.

The SDKs are not dependencies: every helper reads fields by name, so it takes the SDK's
objects (``ChatCompletionMessage`` / ``ChatCompletionMessageToolCall``, ``Response`` /
``ResponseFunctionToolCall``, ``Message`` / ``ToolUseBlock``) and the same data as plain
dicts alike. ``toolbox`` is a :class:`toolcall.Toolbox`, or anything with
``run(name, args)`` (sync helpers) or ``arun(name, args)`` (the ``a``-prefixed async ones),
returning ``Ok`` / ``Err``; wrap one to log or meter calls.

Shapes produced (``content`` / ``output`` is always a ``str``):

========================  ===============================================================
OpenAI Chat Completions   ``{"role": "tool", "tool_call_id": id, "content": text}``
OpenAI Responses          ``{"type": "function_call_output", "call_id": id, "output": text}``
Anthropic Messages        ``{"type": "tool_result", "tool_use_id": id, "content": text}``
                          plus ``"is_error": True`` when the call failed
Gemini (google-genai)     ``{"function_response": {"id": id, "name": name, "response":
                          {"output": value}}}``, or ``{"error": message}`` as the response
Bedrock Converse          ``{"toolResult": {"toolUseId": id, "content": [{"text": text}],
                          "status": "success"}}`` (``"error"`` when the call failed)
========================  ===============================================================

Each shape is typed as the SDK's own type where the SDK has one (``ChatCompletionToolMessageParam``,
``FunctionCallOutput``, ``ToolResultBlockParam``, google-genai's ``PartDict``), so
``messages.extend(openai_tool_messages(...))`` type-checks on a
``list[ChatCompletionMessageParam]``; a checker that cannot import the SDK reads them as ``Any``.
Gemini's ``response`` is the value as JSON (``encode_result`` decoded again: an object, not
text, is what that API takes).

``text`` is ``toolcall.encode_result(value)`` when the tool returned ``value``, and
``{"error": "<message>"}`` (JSON) when it did not: the ``ToolError`` message names the
argument at fault, so the model can correct the call and retry. The same text for every
provider keeps one way to read results in logs; Anthropic's ``is_error`` flag is added because
that API has a place for it.

OpenAI sends ``arguments`` as JSON text (Anthropic sends ``input`` decoded). It is decoded with
msgspec; text that is not JSON answers an ``invalid_arguments`` error instead of raising, since
the model wrote it and can write it again. Blank ``arguments`` mean ``{}``: some
OpenAI-compatible servers send ``""`` for a call without arguments. A tool whose result cannot
be encoded as JSON answers a ``raised`` error and is logged with its traceback at ERROR on the
``toolcall`` logger, like a tool that raises: that is a bug in the tool, not the model's.

The plural helpers answer the calls a toolcall tool can receive (function calls, ``tool_use``
blocks) in the order the model made them and skip everything else (text, reasoning, custom or
server-side tools). The async ones await the calls one after another, in that order, so side
effects happen in the order the model listed them and any event loop works; to run calls
concurrently, gather the singular helpers yourself.

The Responses API takes function tools flat (``{"type": "function", "name", ...}``) rather than
nested under ``"function"`` as ``emit(..., "openai")`` gives them; :func:`responses_tools`
converts.

Examples
--------
>>> import toolcall
>>> from toolcall.providers import openai_tool_message
>>> box = toolcall.Toolbox("examples.weather")
>>> call = {"id": "call_1", "type": "function",
...         "function": {"name": "get_weather", "arguments": '{"city": "Oslo", "days": 1.5}'}}
>>> openai_tool_message(box, call)["content"]
'{"error":"days: expected an integer, got 1.5"}'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolcall.providers._wire import (
    AnthropicToolResult,
    BedrockToolResult,
    GeminiFunctionResponse,
    OpenAIToolMessage,
    ResponsesFunctionCallOutput,
    SupportsArun,
    SupportsRun,
    _anthropic_block,
    _anthropic_call,
    _bedrock_block,
    _bedrock_call,
    _bedrock_calls,
    _gemini_call,
    _gemini_calls,
    _gemini_part,
    _items,
    _openai_arun,
    _openai_call,
    _openai_message,
    _openai_run,
    _optional,
    _responses_call,
    _responses_item,
    gather,
)

__all__ = [  # the helpers, and the types they take and give
    "AnthropicToolResult",
    "BedrockToolResult",
    "GeminiFunctionResponse",
    "OpenAIToolMessage",
    "ResponsesFunctionCallOutput",
    "SupportsArun",
    "SupportsRun",
    "aanthropic_tool_result",
    "aanthropic_tool_results",
    "abedrock_tool_results",
    "agemini_function_responses",
    "anthropic_tool_result",
    "anthropic_tool_results",
    "aopenai_tool_message",
    "aopenai_tool_messages",
    "aresponses_output",
    "aresponses_outputs",
    "bedrock_tool_result",
    "bedrock_tool_results",
    "gemini_function_response",
    "gemini_function_responses",
    "openai_tool_message",
    "openai_tool_messages",
    "responses_output",
    "responses_outputs",
    "responses_tools",
]

# OpenAI Chat Completions.


def openai_tool_message(toolbox: SupportsRun, tool_call: Any) -> OpenAIToolMessage:
    """Run one ``tool_calls`` entry; the ``role: tool`` message that answers it."""
    call_id, name, arguments = _openai_call(tool_call)
    return _openai_message(call_id, name, _openai_run(toolbox, name, arguments))


def openai_tool_messages(toolbox: SupportsRun, message: Any) -> list[OpenAIToolMessage]:
    """One tool message per function call of an assistant message (its ``tool_calls``, or
    the list itself); append them after the assistant message."""
    return [
        openai_tool_message(toolbox, call)
        for call in _items(message, "tool_calls", "an assistant message")
        if _optional(call, "type") in ("function", None)
    ]


async def aopenai_tool_message(toolbox: SupportsArun, tool_call: Any) -> OpenAIToolMessage:
    call_id, name, arguments = _openai_call(tool_call)
    return _openai_message(call_id, name, await _openai_arun(toolbox, name, arguments))


async def aopenai_tool_messages(toolbox: SupportsArun, message: Any) -> list[OpenAIToolMessage]:
    """Like :func:`openai_tool_messages`, running the calls concurrently (a model's parallel
    tool calls), the messages in the calls' order."""
    calls = [
        _openai_call(call)
        for call in _items(message, "tool_calls", "an assistant message")
        if _optional(call, "type") in ("function", None)
    ]
    results = await gather(_openai_arun(toolbox, name, arguments) for _, name, arguments in calls)
    return [
        _openai_message(call_id, name, result)
        for (call_id, name, _), result in zip(calls, results, strict=True)
    ]


# OpenAI Responses.


def responses_output(toolbox: SupportsRun, item: Any) -> ResponsesFunctionCallOutput:
    """Run one ``function_call`` output item; the ``function_call_output`` input item."""
    call_id, name, arguments = _responses_call(item)
    return _responses_item(call_id, name, _openai_run(toolbox, name, arguments))


def responses_outputs(toolbox: SupportsRun, response: Any) -> list[ResponsesFunctionCallOutput]:
    """One output item per ``function_call`` of a response (its ``output``, or the list
    itself); send them as input after the response's output items."""
    return [
        responses_output(toolbox, item)
        for item in _items(response, "output", "a response")
        if _optional(item, "type") == "function_call"
    ]


async def aresponses_output(toolbox: SupportsArun, item: Any) -> ResponsesFunctionCallOutput:
    call_id, name, arguments = _responses_call(item)
    return _responses_item(call_id, name, await _openai_arun(toolbox, name, arguments))


async def aresponses_outputs(
    toolbox: SupportsArun, response: Any
) -> list[ResponsesFunctionCallOutput]:
    """Like :func:`responses_outputs`, running the calls concurrently, in order."""
    calls = [
        _responses_call(item)
        for item in _items(response, "output", "a response")
        if _optional(item, "type") == "function_call"
    ]
    results = await gather(_openai_arun(toolbox, name, arguments) for _, name, arguments in calls)
    return [
        _responses_item(call_id, name, result)
        for (call_id, name, _), result in zip(calls, results, strict=True)
    ]


def responses_tools(tools: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``emit(..., "openai")`` tools in the Responses API's flat form.

    ``strict`` is always set: the Responses API treats an absent one as ``true``, which a
    schema rendered without ``strict=True`` does not satisfy. Tools already flat, and tools of
    other types, pass through unchanged.
    """
    flat: list[Mapping[str, Any]] = []
    for tool in tools:
        function = tool.get("function")
        if tool.get("type") != "function" or not isinstance(function, Mapping):
            flat.append(tool)
            continue
        converted: dict[str, Any] = {"type": "function", "name": function["name"]}
        if "description" in function:
            converted["description"] = function["description"]
        converted["parameters"] = function.get("parameters")
        converted["strict"] = bool(function.get("strict", False))
        flat.append(converted)
    return flat


# Anthropic Messages.


def anthropic_tool_result(toolbox: SupportsRun, block: Any) -> AnthropicToolResult:
    """Run one ``tool_use`` block; the ``tool_result`` block that answers it."""
    call_id, name, arguments = _anthropic_call(block)
    return _anthropic_block(call_id, name, toolbox.run(name, arguments))


def anthropic_tool_results(toolbox: SupportsRun, message: Any) -> list[AnthropicToolResult]:
    """One ``tool_result`` per ``tool_use`` block of an assistant message (its ``content``, or
    the list itself): the content of the next user message."""
    return [
        anthropic_tool_result(toolbox, block)
        for block in _items(message, "content", "an assistant message")
        if _optional(block, "type") == "tool_use"
    ]


async def aanthropic_tool_result(toolbox: SupportsArun, block: Any) -> AnthropicToolResult:
    call_id, name, arguments = _anthropic_call(block)
    return _anthropic_block(call_id, name, await toolbox.arun(name, arguments))


async def aanthropic_tool_results(toolbox: SupportsArun, message: Any) -> list[AnthropicToolResult]:
    """Like :func:`anthropic_tool_results`, running the calls concurrently, in order."""
    calls = [
        _anthropic_call(block)
        for block in _items(message, "content", "an assistant message")
        if _optional(block, "type") == "tool_use"
    ]
    results = await gather(toolbox.arun(name, arguments) for _, name, arguments in calls)
    return [
        _anthropic_block(call_id, name, result)
        for (call_id, name, _), result in zip(calls, results, strict=True)
    ]


# Gemini (google-genai).


def gemini_function_response(toolbox: SupportsRun, call: Any) -> GeminiFunctionResponse:
    """Run one ``FunctionCall`` (or a ``Part`` holding one); the ``function_response`` part."""
    call_id, name, arguments = _gemini_call(call)
    return _gemini_part(call_id, name, toolbox.run(name, arguments))


def gemini_function_responses(toolbox: SupportsRun, response: Any) -> list[GeminiFunctionResponse]:
    """One ``function_response`` part per function call of a ``GenerateContentResponse``
    (its ``function_calls``), a ``Content`` (its parts) or a list: the parts of the next
    ``Content(role="user", parts=...)``."""
    return [gemini_function_response(toolbox, call) for call in _gemini_calls(response)]


async def agemini_function_responses(
    toolbox: SupportsArun, response: Any
) -> list[GeminiFunctionResponse]:
    """Like :func:`gemini_function_responses`, running the calls concurrently, in order."""
    calls = [_gemini_call(call) for call in _gemini_calls(response)]
    results = await gather(toolbox.arun(name, arguments) for _, name, arguments in calls)
    return [
        _gemini_part(call_id, name, result)
        for (call_id, name, _), result in zip(calls, results, strict=True)
    ]


# AWS Bedrock Converse.


def bedrock_tool_result(toolbox: SupportsRun, block: Any) -> BedrockToolResult:
    """Run one ``{"toolUse": ...}`` content block; the ``toolResult`` block that answers it."""
    call_id, name, arguments = _bedrock_call(block)
    return _bedrock_block(call_id, name, toolbox.run(name, arguments))


def bedrock_tool_results(toolbox: SupportsRun, message: Any) -> list[BedrockToolResult]:
    """One ``toolResult`` per ``toolUse`` block of a Converse response (or its ``message``,
    or the content list): the content of the next ``{"role": "user"}`` message."""
    return [bedrock_tool_result(toolbox, block) for block in _bedrock_calls(message)]


async def abedrock_tool_results(toolbox: SupportsArun, message: Any) -> list[BedrockToolResult]:
    """Like :func:`bedrock_tool_results`, running the calls concurrently, in order."""
    calls = [_bedrock_call(block) for block in _bedrock_calls(message)]
    results = await gather(toolbox.arun(name, arguments) for _, name, arguments in calls)
    return [
        _bedrock_block(call_id, name, result)
        for (call_id, name, _), result in zip(calls, results, strict=True)
    ]
