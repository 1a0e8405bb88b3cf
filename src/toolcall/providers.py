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

import logging
from collections.abc import Awaitable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NotRequired, Protocol, TypeAlias, TypedDict

import msgspec

from toolcall._dispatch.result import Err, Ok, ToolError, encode_result

__all__ = [
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

_log = logging.getLogger("toolcall")
_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()
_MISSING: Any = object()


class SupportsRun(Protocol):
    def run(self, name: str, args: Any, /) -> Ok[Any] | Err: ...


class SupportsArun(Protocol):
    def arun(self, name: str, args: Any, /) -> Awaitable[Ok[Any] | Err]: ...


class _OpenAIToolMessage(TypedDict):
    role: Literal["tool"]
    tool_call_id: str
    content: str


class _ResponsesFunctionCallOutput(TypedDict):
    type: Literal["function_call_output"]
    call_id: str
    output: str


class _AnthropicToolResult(TypedDict):
    type: Literal["tool_result"]
    tool_use_id: str
    content: str
    is_error: NotRequired[bool]


class _GeminiFunctionResponse(TypedDict):
    function_response: dict[str, Any]


class _BedrockResult(TypedDict):
    toolUseId: str
    content: list[dict[str, str]]
    status: Literal["success", "error"]


class BedrockToolResult(TypedDict):
    """A ``toolResult`` content block of a Converse user message (boto3 has no such type)."""

    toolResult: _BedrockResult


# A TypedDict is invariant in its (mutable) fields, so no TypedDict of our own is accepted
# where the SDK's is wanted ("content: str" is not the SDK's "str | Iterable[...]"): to a type
# checker the results are the SDK's own types. At runtime they are plain dicts either way.
if TYPE_CHECKING:
    from anthropic.types import ToolResultBlockParam as AnthropicToolResult
    from google.genai.types import PartDict as GeminiFunctionResponse
    from openai.types.chat import ChatCompletionToolMessageParam as OpenAIToolMessage
    from openai.types.responses.response_input_param import (
        FunctionCallOutput as ResponsesFunctionCallOutput,
    )
else:
    OpenAIToolMessage: TypeAlias = _OpenAIToolMessage
    ResponsesFunctionCallOutput: TypeAlias = _ResponsesFunctionCallOutput
    AnthropicToolResult: TypeAlias = _AnthropicToolResult
    GeminiFunctionResponse: TypeAlias = _GeminiFunctionResponse


# Reading calls.


def _field(obj: Any, key: str, what: str) -> Any:
    """A required field of an SDK object or a dict; its absence is the program's mistake."""
    value = obj.get(key, _MISSING) if isinstance(obj, Mapping) else getattr(obj, key, _MISSING)
    if value is not _MISSING:
        return value
    msg = f"expected {what} with a {key!r} field, got {type(obj).__name__}"
    raise TypeError(msg)


def _optional(obj: Any, key: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _check_type(obj: Any, expected: str, what: str) -> None:
    kind = _optional(obj, "type")
    if kind is not None and kind != expected:
        msg = f"expected {what} (type {expected!r}), got type {kind!r}"
        raise TypeError(msg)


def _items(obj: Any, key: str, what: str) -> Any:
    """The list itself, or the list under ``key`` of a message / response that holds it.

    A dict without the key holds nothing (the API omits empty fields); an object without the
    attribute is the wrong object (a ``ChatCompletion`` instead of its message).
    """
    if isinstance(obj, list | tuple):
        return obj
    items = obj.get(key) if isinstance(obj, Mapping) else _field(obj, key, what)
    return items if isinstance(items, list | tuple) else ()


def _openai_call(tool_call: Any) -> tuple[Any, Any, Any]:
    what = "an OpenAI tool call"
    _check_type(tool_call, "function", what)
    function = _field(tool_call, "function", what)
    return (
        _field(tool_call, "id", what),
        _field(function, "name", "a tool call's function"),
        _field(function, "arguments", "a tool call's function"),
    )


def _responses_call(item: Any) -> tuple[Any, Any, Any]:
    what = "a Responses function_call item"
    _check_type(item, "function_call", what)
    return (
        _field(item, "call_id", what),
        _field(item, "name", what),
        _field(item, "arguments", what),
    )


def _gemini_call(call: Any) -> tuple[Any, Any, Any]:
    """A ``FunctionCall`` (or a ``Part`` holding one, or the same as dicts)."""
    inner = _optional(call, "function_call")
    if inner is not None:
        call = inner
    what = "a Gemini function call"
    args = _optional(call, "args")
    return _optional(call, "id"), _field(call, "name", what), {} if args is None else args


def _gemini_calls(response: Any) -> list[Any]:
    """The function calls of a ``GenerateContentResponse``, a ``Content`` or a list."""
    if isinstance(response, list | tuple):
        return [item for item in response if _gemini_is_call(item)]
    calls = _optional(response, "function_calls")
    if calls is not None:
        return list(calls)
    return [part for part in _items(response, "parts", "a Content") if _gemini_is_call(part)]


def _gemini_is_call(item: Any) -> bool:
    return _optional(item, "function_call") is not None or _optional(item, "name") is not None


def _bedrock_call(block: Any) -> tuple[Any, Any, Any]:
    what = "a Bedrock toolUse content block"
    use = _optional(block, "toolUse")
    if use is not None:
        block = use
    return (
        _field(block, "toolUseId", what),
        _field(block, "name", what),
        _field(block, "input", what),
    )


def _bedrock_calls(message: Any) -> list[Any]:
    """The ``toolUse`` blocks of a Converse response, its message, or its content list."""
    if isinstance(message, Mapping) and "output" in message:
        message = message["output"].get("message", {})
    return [block for block in _items(message, "content", "a message") if "toolUse" in block]


def _anthropic_call(block: Any) -> tuple[Any, Any, Any]:
    what = "an Anthropic tool_use block"
    _check_type(block, "tool_use", what)
    return _field(block, "id", what), _field(block, "name", what), _field(block, "input", what)


def _decode(arguments: Any) -> Any:
    """JSON text to the arguments it holds; anything else is handed to ``run`` as it is."""
    if isinstance(arguments, str | bytes | bytearray):
        if not arguments.strip():
            return {}
        try:
            return _decoder.decode(arguments)
        except (msgspec.DecodeError, UnicodeError) as exc:
            detail = str(exc)
        except RecursionError:
            detail = "nested too deeply"
        return ToolError(
            "invalid_arguments",
            f"arguments must be a JSON object; they are not valid JSON ({detail})",
            value=arguments,
        )
    return arguments


def _openai_run(toolbox: SupportsRun, name: Any, arguments: Any) -> Ok[Any] | Err:
    args = _decode(arguments)
    if isinstance(args, ToolError):
        return Err(args)
    return toolbox.run(name, args)


async def _openai_arun(toolbox: SupportsArun, name: Any, arguments: Any) -> Ok[Any] | Err:
    args = _decode(arguments)
    if isinstance(args, ToolError):
        return Err(args)
    return await toolbox.arun(name, args)


# Writing results.


def _content(name: Any, result: Ok[Any] | Err) -> tuple[str, bool]:
    """The result text and whether it reports an error."""
    if isinstance(result, Ok):
        try:
            return encode_result(result.value), False
        except Exception as exc:
            _log.error("the result of tool %s cannot be encoded as JSON", name, exc_info=exc)
            error = ToolError.raised(exc)
    else:
        error = result.error
    message = error.message.encode("utf-8", "backslashreplace").decode("utf-8")
    return _encoder.encode({"error": message}).decode(), True


def _openai_message(call_id: Any, name: Any, result: Ok[Any] | Err) -> OpenAIToolMessage:
    content, _ = _content(name, result)
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def _responses_item(call_id: Any, name: Any, result: Ok[Any] | Err) -> ResponsesFunctionCallOutput:
    output, _ = _content(name, result)
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _gemini_part(call_id: Any, name: Any, result: Ok[Any] | Err) -> GeminiFunctionResponse:
    content, failed = _content(name, result)
    response = _decoder.decode(content)
    answer: Any = {
        "name": name,
        "response": response if failed else {"output": response},
    }
    if call_id is not None:
        answer["id"] = call_id
    return {"function_response": answer}


def _bedrock_block(call_id: Any, name: Any, result: Ok[Any] | Err) -> BedrockToolResult:
    content, failed = _content(name, result)
    status: Literal["success", "error"] = "error" if failed else "success"
    return {"toolResult": {"toolUseId": call_id, "content": [{"text": content}], "status": status}}


def _anthropic_block(call_id: Any, name: Any, result: Ok[Any] | Err) -> AnthropicToolResult:
    content, failed = _content(name, result)
    block: AnthropicToolResult = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if failed:
        block["is_error"] = True
    return block


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
    return [
        await aopenai_tool_message(toolbox, call)
        for call in _items(message, "tool_calls", "an assistant message")
        if _optional(call, "type") in ("function", None)
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
    return [
        await aresponses_output(toolbox, item)
        for item in _items(response, "output", "a response")
        if _optional(item, "type") == "function_call"
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
    return [
        await aanthropic_tool_result(toolbox, block)
        for block in _items(message, "content", "an assistant message")
        if _optional(block, "type") == "tool_use"
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
    parts: list[GeminiFunctionResponse] = []
    for call in _gemini_calls(response):
        call_id, name, arguments = _gemini_call(call)
        parts.append(_gemini_part(call_id, name, await toolbox.arun(name, arguments)))
    return parts


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
    blocks: list[BedrockToolResult] = []
    for block in _bedrock_calls(message):
        call_id, name, arguments = _bedrock_call(block)
        blocks.append(_bedrock_block(call_id, name, await toolbox.arun(name, arguments)))
    return blocks
