"""The reading and writing behind :mod:`toolcall.providers`: each SDK's call shape in, its
result shape out, and running one response's calls concurrently for the async helpers.

Fields are read by name, so the SDKs' objects and plain dicts are read alike and no SDK is
imported.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, NotRequired, Protocol, TypeAlias, TypedDict

import msgspec

from toolcall._dispatch.result import Err, Ok, ToolError, encode_result

__all__ = [  # what providers re-exports; the helpers' parts are imported by name
    "AnthropicToolResult",
    "BedrockToolResult",
    "GeminiFunctionResponse",
    "OpenAIToolMessage",
    "ResponsesFunctionCallOutput",
    "SupportsArun",
    "SupportsRun",
    "gather",
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
        return ToolError.invalid_arguments(arguments, detail)
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


async def gather(calls: Iterable[Awaitable[Ok[Any] | Err]]) -> list[Ok[Any] | Err]:
    """Await one response's tool calls concurrently, their results in the calls' order.

    A call's failure is its own ``Err``; an exception (the program's mistake) is raised once
    every call has finished, so no call is left running unawaited.
    """
    import asyncio  # the sync helpers never need it

    answered: list[Ok[Any] | Err] = []
    for result in await asyncio.gather(*calls, return_exceptions=True):
        if isinstance(result, BaseException):
            raise result
        answered.append(result)
    return answered
