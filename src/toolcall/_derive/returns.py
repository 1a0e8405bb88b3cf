"""Whether what a return annotation promises can be sent back: checked once, at derivation.

The return type only describes (``outputSchema``), so derivation never refuses it; but a
class the result encoder cannot write (``toolcall._dispatch.encode``) would fail every call
of the tool at run time, the first failure a user would see. Derivation says so instead, a
warning naming the function, the class and the fix, so ``toolcall check`` fails on it.

Only what is certain is reported: a string annotation that did not resolve, ``Any`` and
``Iterable`` (usually a list) are given the benefit of the doubt.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime
import decimal
import enum
import pathlib
import types
import typing
import uuid
from typing import Any, Final

from toolcall._shared.kinds import (
    from_pydantic,
    is_model,
    is_namedtuple,
    is_struct,
    is_typeddict,
    unwrap_annotated,
)

__all__ = ["unencodable"]

_WRITTEN: Final = (
    str,
    int,
    float,
    bool,
    bytes,
    bytearray,
    memoryview,
    datetime.date,
    datetime.time,
    datetime.timedelta,
    uuid.UUID,
    decimal.Decimal,
    enum.Enum,
    pathlib.PurePath,
    collections.abc.Mapping,
    collections.abc.Collection,
)
"""What msgspec (or the encoder's hook) writes: scalars, and every mapping, sequence or set."""

# a value of these is consumed once or called, never data
_NEVER: Final[tuple[Any, ...]] = (
    collections.abc.Iterator,
    collections.abc.AsyncIterator,
    collections.abc.AsyncIterable,
    collections.abc.Awaitable,
    collections.abc.Callable,
)

# media the encoder recognises by module and class name, without importing their packages
_MEDIA: Final = {
    "toolcall": {"Image", "Audio", "File", "Media"},
    "mcp": {"TextContent", "ImageContent", "AudioContent", "EmbeddedResource", "ResourceLink"},
    "mcp_types": {
        "TextContent",
        "ImageContent",
        "AudioContent",
        "EmbeddedResource",
        "ResourceLink",
    },
    "fastmcp": {"Image", "Audio", "File"},
}


def unencodable(hint: Any) -> str | None:
    """What in ``hint`` the encoder cannot write, and the fix; None when all of it can be."""
    found = _first(hint, 0)
    if found is None:
        return None
    return (
        f"the return annotation names {found}, which toolcall cannot encode as a tool "
        "result, so every call would fail; return plain data, a dataclass, a TypedDict, a "
        "msgspec Struct, an attrs class, a pydantic model or toolcall.Image/Audio/File (or "
        "convert the value in the tool)"
    )


def _first(hint: Any, depth: int) -> str | None:
    if depth > 20:  # a recursive alias: what was seen so far was fine
        return None
    hint, _ = unwrap_annotated(hint)
    if hint is None or hint is type(None) or hint is typing.Any or hint is object:
        return None
    if isinstance(hint, str | typing.ForwardRef | typing.TypeVar):
        return None
    if isinstance(hint, typing.NewType):
        return _first(hint.__supertype__, depth + 1)
    value = getattr(hint, "__value__", None)  # a ``type`` alias (3.12+)
    if value is not None and not isinstance(hint, type):
        return _first(value, depth + 1)
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return None
    if origin is not None:
        if origin is not typing.Union and origin is not types.UnionType:
            found = _class(origin)
            if found is not None:
                return found
        for arg in typing.get_args(hint):
            if arg is not Ellipsis and not isinstance(arg, list):
                found = _first(arg, depth + 1)
                if found is not None:
                    return found
        return None
    return _class(hint) if isinstance(hint, type) else None


def _class(cls: Any) -> str | None:
    """``cls``'s name when the encoder cannot write a value of it."""
    if not isinstance(cls, type):
        return None
    name = getattr(cls, "__qualname__", repr(cls))
    if issubclass(cls, _WRITTEN) or _known(cls):
        return None
    if issubclass(cls, _NEVER):
        return f"{name} (a value consumed once or called, not data)"
    return None if issubclass(cls, collections.abc.Iterable) else name


def _known(cls: type) -> bool:
    """A class whose instances the encoder writes field by field, or as media."""
    if dataclasses.is_dataclass(cls) or is_namedtuple(cls) or is_typeddict(cls):
        return True
    if is_struct(cls) or is_model(cls) or from_pydantic(cls):
        return True
    for klass in cls.__mro__:
        if "__attrs_attrs__" in vars(klass):
            return True
        top = (klass.__module__ or "").partition(".")[0]
        if klass.__name__ in _MEDIA.get(top, ()):
            return True
    return False
