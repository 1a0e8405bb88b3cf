"""What every provider module shares: reading fields by name, and a :class:`Provider` that
answers an API's calls, sync or async, given how it shapes them.

Fields are read by name, so the SDKs' objects and plain dicts are read alike and no SDK is
imported. Each provider module types its results as the SDK's own types where the SDK has
them: a TypedDict is invariant in its (mutable) fields, so no TypedDict of our own is accepted
where the SDK's is wanted ("content: str" is not the SDK's "str | Iterable[...]"). At runtime
they are plain dicts either way.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

import msgspec

from toolcall import Err, Ok, ToolError, encode_result
from toolcall._dispatch.encode import Blob, Part, fallback_text, parts
from toolcall._shared.gather import gather

__all__ = [
    "Blob",
    "Call",
    "Provider",
    "Reply",
    "SupportsArun",
    "SupportsRun",
    "check_type",
    "fallback_text",
    "field",
    "items",
    "optional",
]

R = TypeVar("R")

_log = logging.getLogger("toolcall")
_encoder = msgspec.json.Encoder()
_MISSING: Any = object()


class SupportsRun(Protocol):
    def run(self, name: str, args: Any, /) -> Ok[Any] | Err: ...


class SupportsArun(Protocol):
    def arun(self, name: str, args: Any, /) -> Awaitable[Ok[Any] | Err]: ...


class Call(NamedTuple):
    """One tool call as a provider sent it."""

    id: Any
    name: Any
    arguments: Any
    """What ``run`` is given: a mapping, or OpenAI's JSON text as it came (``run`` reads it,
    and answers text that is not JSON as the model's error)."""


class Reply(NamedTuple):
    """A call's result, in each form a provider may send it."""

    text: str
    """A ``str`` result as itself, anything else as JSON: what a text content field takes.
    For a media result, its text parts and a fallback line per media part."""
    json: str
    """The result as JSON (a ``str`` quoted, media as MCP content blocks)."""
    parts: tuple[Part, ...] | None = None
    """A media result's parts, in order (text and media); None for data."""

    def fallback(self, api: str) -> str:
        """The parts as one text, each media part as the line that stands for it."""
        assert self.parts is not None
        return "\n".join(p if isinstance(p, str) else fallback_text(p, api) for p in self.parts)


class Provider(msgspec.Struct, Generic[R], frozen=True):
    """One API's shapes: how it sends a call, where a message holds its calls, and the shape
    ``R`` that answers one."""

    read: Callable[[Any], Call]
    """A call item to its id, name and arguments; raises ``TypeError`` when it is none."""
    calls: Callable[[Any], list[Any]]
    """A message or response (or the list itself) to the call items a toolcall tool answers,
    in the order the model made them; everything else (text, reasoning, server-side tools)
    is skipped."""
    write: Callable[[Call, Reply, bool], R]
    """The shape that answers a call, given the result and whether it reports an error
    (the text is the same for every provider, so results read one way in logs)."""

    def answer(self, toolbox: SupportsRun, item: Any) -> R:
        """Run one call; its answer."""
        call = self.read(item)
        return self._write(call, toolbox.run(call.name, call.arguments))

    def answer_all(self, toolbox: SupportsRun, message: Any) -> list[R]:
        """Run every call of ``message`` in turn; their answers in the calls' order."""
        return [self.answer(toolbox, item) for item in self.calls(message)]

    async def aanswer(self, toolbox: SupportsArun, item: Any) -> R:
        """:meth:`answer`, awaiting the call."""
        call = self.read(item)
        return self._write(call, await toolbox.arun(call.name, call.arguments))

    async def aanswer_all(self, toolbox: SupportsArun, message: Any) -> list[R]:
        """:meth:`answer_all`, running the calls concurrently (a model's parallel tool calls).

        Every call is read before any runs, so a malformed one raises with nothing started.
        """
        calls = [self.read(item) for item in self.calls(message)]
        results = await gather(toolbox.arun(call.name, call.arguments) for call in calls)
        return [self._write(call, result) for call, result in zip(calls, results, strict=True)]

    def _write(self, call: Call, result: Ok[Any] | Err) -> R:
        return self.write(call, *_content(call, result))


def _content(call: Call, result: Ok[Any] | Err) -> tuple[Reply, bool]:
    """The value (a ``str`` as itself, data as JSON, media as parts), or
    ``{"error": "<message>"}``; and whether it reports an error.

    A result that cannot be encoded is the tool's bug, not the model's: it is logged with its
    traceback and answered as a ``raised`` error.
    """
    if isinstance(result, Ok):
        value = result.value
        try:
            encoded = encode_result(value)
            found = parts(value)
            if found is not None:
                reply = Reply("", encoded, found)
                return reply._replace(text=reply.fallback("text-only")), False
            return Reply(value if type(value) is str else encoded, encoded), False
        except Exception as exc:
            _log.error("the result of tool %s cannot be encoded as JSON", call.name, exc_info=exc)
            error = ToolError.raised(exc)
    else:
        error = result.error
    message = error.message.encode("utf-8", "backslashreplace").decode("utf-8")
    text = _encoder.encode({"error": message}).decode()
    return Reply(text, text), True


# Reading calls.


def field(obj: Any, key: str, what: str) -> Any:
    """A required field of an SDK object or a dict; its absence is the program's mistake."""
    value = obj.get(key, _MISSING) if isinstance(obj, Mapping) else getattr(obj, key, _MISSING)
    if value is not _MISSING:
        return value
    msg = f"expected {what} with a {key!r} field, got {type(obj).__name__}"
    raise TypeError(msg)


def optional(obj: Any, key: str) -> Any:
    """A field that may be absent (None then)."""
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def check_type(obj: Any, expected: str, what: str) -> None:
    """Refuse an item whose ``type`` says it is another kind; an untyped one is taken."""
    kind = optional(obj, "type")
    if kind is not None and kind != expected:
        msg = f"expected {what} (type {expected!r}), got type {kind!r}"
        raise TypeError(msg)


def items(obj: Any, key: str, what: str) -> Any:
    """The list itself, or the list under ``key`` of a message / response that holds it.

    A dict without the key holds nothing (the API omits empty fields); an object without the
    attribute is the wrong object (a ``ChatCompletion`` instead of its message).
    """
    if isinstance(obj, list | tuple):
        return obj
    found = obj.get(key) if isinstance(obj, Mapping) else field(obj, key, what)
    return found if isinstance(found, list | tuple) else ()
