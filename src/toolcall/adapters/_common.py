"""What every adapter does the same way: the tools of a source, which injected parameters
are the framework's context, and a call's result as the value a framework hands the model
(text, or media in the framework's own classes)."""

from __future__ import annotations

import logging
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

import toolcall
from toolcall import Err, Ok, ToolError, encode_result, ir
from toolcall._dispatch.encode import Part, block_json, fallback_text, parts
from toolcall._shared.kinds import unwrap_annotated
from toolcall._shared.signatures import signature

__all__ = [
    "Media",
    "Part",
    "Source",
    "Spec",
    "answer",
    "block_json",
    "error_text",
    "fallback_text",
    "specs",
    "subclass_of",
    "toolbox",
]

Source = types.ModuleType | str | toolcall.Toolbox | Iterable[types.ModuleType | str | Any]
Media = Callable[[tuple[Part, ...]], Any]
"""A media result's parts (text and media, in order) as the framework's own value."""

_log = logging.getLogger("toolcall")
_encoder = msgspec.json.Encoder()


def toolbox(source: Source) -> toolcall.Toolbox:
    """One Toolbox for a module, a dotted name, a function, a Toolbox or a list of them."""
    if isinstance(source, toolcall.Toolbox):
        return source
    if isinstance(source, types.ModuleType | str) or callable(source):
        return toolcall.Toolbox(source)
    return toolcall.Toolbox(*source)


class Spec:
    """One tool as an adapter needs it: its IR, its rendered definition, and which injected
    parameters take the framework's context (the rest come from the adapter's ``inject``)."""

    __slots__ = ("contexts", "definition", "fixed", "name", "tool")

    def __init__(
        self,
        tool: ir.Tool,
        definition: Mapping[str, Any],
        contexts: tuple[str, ...],
        fixed: dict[str, Any] | None,
    ) -> None:
        self.name = tool.name
        self.tool = tool
        self.definition = definition
        self.contexts = contexts
        self.fixed = fixed

    def inject(self, context: Any) -> dict[str, Any] | None:
        """The ``inject`` mapping of one call: the framework's context under each name that
        takes it, and the adapter's fixed values. None when the tool injects nothing."""
        if not self.contexts:
            return self.fixed
        values = dict(self.fixed or ())
        for name in self.contexts:
            values[name] = context
        return values


def specs(
    box: toolcall.Toolbox,
    fmt: str,
    strict: bool,
    is_context: Callable[[Any], bool],
    inject: Mapping[str, Any] | None,
) -> list[Spec]:
    """Each tool of ``box`` with its ``fmt`` definition; an injected parameter whose
    annotation ``is_context`` accepts takes the framework's context object."""
    fixed = dict(inject) if inject else None
    found = []
    for tool, definition in zip(box.tools(), box.emit(fmt, strict), strict=True):
        contexts: tuple[str, ...] = ()
        if tool.injected:
            hints = _hints(box.function(tool.name))
            contexts = tuple(name for name in tool.injected if _is(hints.get(name), is_context))
        found.append(Spec(tool, definition, contexts, fixed))
    return found


def _hints(fn: Callable[..., Any] | None) -> dict[str, Any]:
    """The function's annotations, resolved where they can be (names as written otherwise)."""
    if fn is None:
        return {}
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception:  # an annotation that does not resolve: read it as written
        try:
            return {p.name: p.annotation for p in signature(fn).parameters.values()}
        except (TypeError, ValueError):
            return {}


def _is(hint: Any, is_context: Callable[[Any], bool]) -> bool:
    """Whether ``hint`` (``Annotated``, ``X | None`` and generic aliases looked through), or
    one of its ``Annotated`` metadata, names the framework's context."""
    if hint is None:
        return False
    core, extras = unwrap_annotated(hint)
    if any(is_context(extra) for extra in extras):  # LangChain's markers are metadata
        return True
    args = typing.get_args(core)
    origin = typing.get_origin(core)
    if origin is typing.Union or origin is types.UnionType:
        return any(_is(arg, is_context) for arg in args if arg is not type(None))
    return is_context(origin if origin is not None else core)


def subclass_of(*classes: type) -> Callable[[Any], bool]:
    """An ``is_context`` for annotations that are (subclasses of) ``classes``; a string
    annotation that did not resolve is matched by its last dotted name."""
    names = {cls.__name__ for cls in classes}

    def check(hint: Any) -> bool:
        if isinstance(hint, str):
            return hint.rpartition(".")[2].partition("[")[0] in names
        return isinstance(hint, type) and issubclass(hint, classes)

    return check


def answer(
    name: str, result: Ok[Any] | Err, media: Media | None = None
) -> tuple[Any, ToolError | None]:
    """The value to hand the framework and None, or None and the error.

    A ``str`` is handed over as it is, what each framework's own tools do with one; a media
    result (``toolcall.Image``, a list mixing text and media, ...) as ``media`` makes it;
    anything else as ``encode_result`` JSON text, so dataclasses, Structs, pydantic models
    and datetimes arrive as toolcall encodes them. A value that does not encode is the
    tool's bug: logged, and answered as a ``raised`` error.
    """
    if isinstance(result, Err):
        return None, result.error
    value = result.value
    if type(value) is str:
        return value, None
    try:
        found = None if media is None else parts(value)
        if found is not None and media is not None:
            return media(found), None
        return encode_result(value), None
    except Exception as exc:
        _log.error("the result of tool %s cannot be encoded as JSON", name, exc_info=exc)
        return None, ToolError.raised(exc)


def error_text(error: ToolError) -> str:
    """``{"error": message}`` as JSON, the text ``toolcall.providers`` answers errors with."""
    return _encoder.encode({"error": error.message}).decode()
