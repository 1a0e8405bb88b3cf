"""Gemini (google-genai): ``FunctionCall`` parts in, ``function_response`` parts out.

The response is an object: the value under ``output`` (a ``str`` as itself), or the error
object. A media result's text parts are joined under ``output`` and its media go in the
function response's ``parts`` as inline data (Gemini 3's multimodal function responses).
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

import msgspec

import toolcall.providers._wire as wire

__all__ = [
    "GeminiFunctionResponse",
    "agemini_function_responses",
    "gemini_function_response",
    "gemini_function_responses",
]

_decoder = msgspec.json.Decoder()


class _GeminiFunctionResponse(TypedDict):
    function_response: dict[str, Any]


if TYPE_CHECKING:  # the SDK's own type, to a checker (see toolcall.providers._wire)
    from google.genai.types import PartDict as GeminiFunctionResponse
else:
    GeminiFunctionResponse: TypeAlias = _GeminiFunctionResponse


def _read(call: Any) -> wire.Call:
    """A ``FunctionCall`` (or a ``Part`` holding one, or the same as dicts)."""
    inner = wire.optional(call, "function_call")
    if inner is not None:
        call = inner
    args = wire.optional(call, "args")
    what = "a Gemini function call"
    return wire.Call(
        wire.optional(call, "id"), wire.field(call, "name", what), {} if args is None else args
    )


def _calls(response: Any) -> list[Any]:
    """The function calls of a ``GenerateContentResponse``, a ``Content`` or a list."""
    if isinstance(response, list | tuple):
        return [item for item in response if _is_call(item)]
    calls = wire.optional(response, "function_calls")
    if calls is not None:
        return list(calls)
    return [part for part in wire.items(response, "parts", "a Content") if _is_call(part)]


def _is_call(item: Any) -> bool:
    return (
        wire.optional(item, "function_call") is not None or wire.optional(item, "name") is not None
    )


def _write(call: wire.Call, reply: wire.Reply, failed: bool) -> GeminiFunctionResponse:
    """The ``function_response`` part; its ``response`` is an object (what this API takes):
    the value under ``output``, or the error object itself."""
    answered: Any = {"name": call.name}
    if call.id is not None:
        answered["id"] = call.id
    if reply.parts is None:
        response = _decoder.decode(reply.json)
        answered["response"] = response if failed else {"output": response}
        return {"function_response": answered}
    texts: list[str] = []
    media: list[Any] = []
    for part in reply.parts:
        if isinstance(part, str):
            texts.append(part)
        elif part.kind == "link":
            texts.append(wire.fallback_text(part, "Gemini"))
        else:
            blob = {"mime_type": part.mime_type, "data": base64.b64decode(part.data)}
            if part.name:
                blob["display_name"] = part.name
            media.append({"inline_data": blob})
    answered["response"] = {"output": "\n".join(texts)}
    answered["parts"] = media
    return {"function_response": answered}


_GEMINI = wire.Provider(_read, _calls, _write)


def gemini_function_response(toolbox: wire.SupportsRun, call: Any) -> GeminiFunctionResponse:
    """Run one ``FunctionCall`` (or a ``Part`` holding one); the ``function_response`` part."""
    return _GEMINI.answer(toolbox, call)


def gemini_function_responses(
    toolbox: wire.SupportsRun, response: Any
) -> list[GeminiFunctionResponse]:
    """One ``function_response`` part per function call of a ``GenerateContentResponse``
    (its ``function_calls``), a ``Content`` (its parts) or a list: the parts of the next
    ``Content(role="user", parts=...)``."""
    return _GEMINI.answer_all(toolbox, response)


async def agemini_function_responses(
    toolbox: wire.SupportsArun, response: Any
) -> list[GeminiFunctionResponse]:
    """Like :func:`gemini_function_responses`, running the calls concurrently, in order."""
    return await _GEMINI.aanswer_all(toolbox, response)
