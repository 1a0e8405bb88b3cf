"""A tool's return value as what a destination sends: JSON text, plain text, or media parts.

One encoder serves ``run``'s callers, the providers, the adapters and the MCP server, so a
value reads the same everywhere:

- plain data, dataclasses, TypedDicts, NamedTuples, msgspec Structs and attrs classes as
  msgspec writes them; pydantic models (``BaseModel``, ``RootModel``, pydantic dataclasses)
  as ``model_dump(mode="json", by_alias=True)`` writes them, their serializers run and
  their aliases used, as pydantic-ai sends them and as toolcall reads them in arguments;
- a ``str`` is itself wherever the destination is text (each destination's rule);
- media (``toolcall.Image``/``Audio``/``File``, the MCP SDK's content blocks, FastMCP's
  ``Image``/``Audio``/``File``), alone or in a list mixed with text, are ``parts``: each
  destination writes them in its own form.

Nothing is imported to recognise a class: pydantic, the MCP SDK and FastMCP are looked up in
``sys.modules``, so a value of theirs exists only once its module is loaded.
"""

from __future__ import annotations

import base64
import pathlib
import sys
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Final, NamedTuple
from urllib.parse import quote

import msgspec

from toolcall._dispatch.content import Media
from toolcall._shared.kinds import from_pydantic, is_model

__all__ = [
    "Blob",
    "Part",
    "block_json",
    "encode_json",
    "fallback_text",
    "is_media_class",
    "part",
    "parts",
]


class Blob(NamedTuple):
    """One media part, whatever class the tool returned it as."""

    kind: str
    """``image``, ``audio``, ``file`` (an embedded resource), or ``link`` (a resource link:
    ``uri`` only, no data)."""
    mime_type: str
    data: str
    """The bytes as base64 (empty for a link)."""
    name: str | None = None
    uri: str | None = None
    text: str | None = None
    """A text resource's text (MCP ``TextResourceContents``); ``data`` holds it too."""

    def size(self) -> int:
        return len(self.data) * 3 // 4 - self.data[-2:].count("=")

    def as_text(self) -> str | None:
        """A text file's text (``text/*`` that is UTF-8); None for binary data."""
        if self.text is not None or not self.mime_type.startswith("text/"):
            return self.text
        try:
            return base64.b64decode(self.data).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None


Part = str | Blob
"""A part of a multi-part result: text, or media."""

_MCP_MODULES = ("mcp", "mcp_types")
_MCP_BLOCKS = frozenset(
    {"TextContent", "ImageContent", "AudioContent", "EmbeddedResource", "ResourceLink"}
)
_FASTMCP_TYPES = "fastmcp.utilities.types"


def _attr(obj: Any, *names: str) -> Any:
    """A field under its Python name in one SDK version and its wire name in another."""
    fields = getattr(type(obj), "model_fields", {})
    for name in names:
        if name in fields:  # read the SDK's own field, never a deprecated alias of it
            return getattr(obj, name)
    return None


def _mcp_part(value: Any) -> Part | None:
    """An MCP SDK content block as a part (v1 and v2 SDKs: classes found by module and name)."""
    cls = type(value)
    if cls.__name__ not in _MCP_BLOCKS:
        return None
    if (cls.__module__ or "").partition(".")[0] not in _MCP_MODULES:
        return None
    kind = cls.__name__
    if kind == "TextContent":
        return str(value.text)
    mime = _attr(value, "mime_type", "mimeType")
    if kind == "ImageContent":
        return Blob("image", mime or "image/png", value.data)
    if kind == "AudioContent":
        return Blob("audio", mime or "audio/wav", value.data)
    uri = str(value.uri) if kind == "ResourceLink" else str(value.resource.uri)
    name = uri.rstrip("/").rpartition("/")[2] or None
    if kind == "ResourceLink":
        return Blob("link", mime or "", "", _attr(value, "name") or name, uri)
    resource = value.resource
    mime = _attr(resource, "mime_type", "mimeType")
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
        return Blob("file", mime or "text/plain", encoded, name, uri, text)
    return Blob("file", mime or "application/octet-stream", resource.blob, name, uri)


def _fastmcp_part(value: Any) -> Part | None:
    module = sys.modules.get(_FASTMCP_TYPES)
    if module is None:
        return None
    for cls_name, convert in (
        ("Image", "to_image_content"),
        ("Audio", "to_audio_content"),
        ("File", "to_resource_content"),
    ):
        cls = getattr(module, cls_name, None)
        if isinstance(cls, type) and isinstance(value, cls):
            return _mcp_part(getattr(value, convert)())
    return None


def is_media_class(ref: str) -> bool:
    """Whether a ``module:qualname`` class reference names a type whose values are sent as
    content (media, or an MCP text block), never as structured data: a tool annotated with
    one declares no output schema."""
    module, _, name = ref.partition(":")
    if module.partition(".")[0] in _MCP_MODULES:
        return name in _MCP_BLOCKS
    if module == _FASTMCP_TYPES:
        return name in ("Image", "Audio", "File")
    return module == Media.__module__ and name in ("Image", "Audio", "File")


def part(value: Any) -> Part | None:
    """``value`` as a media part (or an MCP text block as its text); None for data."""
    if isinstance(value, Media):
        return Blob(value.kind, value.mime_type, value.base64(), value.name)
    return _mcp_part(value) or _fastmcp_part(value)


def parts(value: Any) -> tuple[Part, ...] | None:
    """The parts of a media result, in order; None when ``value`` is data (JSON or text).

    A list or tuple holding at least one media part is a multi-part result: its strings are
    text, its other items JSON text. ``str`` alone is data: a text destination sends it as is.
    """
    found = part(value)
    if found is not None:
        return (found,)
    if type(value) not in (list, tuple) or not value:
        return None
    converted = [part(item) for item in value]
    if all(item is None or isinstance(item, str) for item in converted):
        return None
    return tuple(
        found if found is not None else item if isinstance(item, str) else encode_json(item)
        for item, found in zip(value, converted, strict=True)
    )


def fallback_text(blob: Blob, api: str) -> str:
    """The line that stands for a part ``api`` cannot carry: what it was, never its bytes
    (base64 in a text result costs the model tokens and shows it nothing)."""
    if blob.kind == "link":
        return f"[resource {blob.uri}]"
    named = f" {blob.name!r}" if blob.name else ""
    return (
        f"[{blob.kind}{named}: {blob.mime_type}, {blob.size():,} bytes; {api} tool results "
        f"cannot carry it]"
    )


def block_json(blob: Blob) -> dict[str, Any]:
    """A part as the MCP content block JSON it would be: lossless, self-describing."""
    if blob.kind == "link":
        return {"type": "resource_link", "uri": blob.uri, "name": blob.name or blob.uri}
    if blob.kind in ("image", "audio"):
        return {"type": blob.kind, "data": blob.data, "mimeType": blob.mime_type}
    name = quote(blob.name or "resource")
    resource: dict[str, Any] = {"uri": blob.uri or f"file:///{name}", "mimeType": blob.mime_type}
    text = blob.as_text()
    if text is not None:
        resource["text"] = text
    else:
        resource["blob"] = blob.data
    return {"type": "resource", "resource": resource}


def _pydantic(value: Any) -> Any:
    """A pydantic model's ``model_dump(mode="json", by_alias=True)``; ``_NOT`` for others."""
    main = sys.modules.get("pydantic.main")
    if main is not None and isinstance(value, main.BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if is_model(type(value)):  # a pydantic dataclass: its serializers, not msgspec's fields
        return _adapter(type(value)).dump_python(value, mode="json", by_alias=True)
    if from_pydantic(type(value)) or type(value).__module__.startswith("pydantic_core"):
        # pydantic's own types (HttpUrl, SecretStr, ...): as a model field of theirs is written
        return sys.modules["pydantic_core"].to_jsonable_python(value, by_alias=True)
    return _NOT


_NOT: Any = object()


_adapters: dict[type, Any] = {}


def _adapter(cls: type) -> Any:
    """pydantic's ``TypeAdapter`` of a pydantic dataclass, made once per class (a list of
    them would otherwise build one per item); at most 256 kept."""
    found = _adapters.get(cls)
    if found is None:
        if len(_adapters) >= 256:
            _adapters.clear()
        found = _adapters[cls] = sys.modules["pydantic"].TypeAdapter(cls)
    return found


_LEAVES: Final = frozenset({str, int, float, bool, type(None), bytes})
_WALK_DEPTH: Final = 64


def _with_pydantic_dumps(value: Any, depth: int = 0) -> Any:
    """``value`` with every pydantic dataclass in it written as pydantic writes it; the very
    value when it holds none.

    msgspec writes any dataclass field by field, its own way, before an ``enc_hook`` could
    see it, so a pydantic dataclass loses its aliases and serializers wherever msgspec
    meets it. This walk reaches the containers msgspec writes as JSON arrays and objects
    (dicts, lists, tuples, NamedTuples, sets) and the fields of plain dataclasses, msgspec
    Structs and attrs classes, and rebuilds only what holds one, as msgspec would write it (a
    Struct or attrs instance as a copy whose field holds the dump, so its renames, omitted
    defaults and private fields stay msgspec's); a model dumps its own (``model_dump``).
    """
    cls = type(value)
    if cls in _LEAVES or depth > _WALK_DEPTH:
        return value
    if is_model(cls):
        return _pydantic(value)
    depth += 1
    if isinstance(value, dict):
        if _LEAVES.issuperset(map(type, value.values())):  # checked in C: most data is flat
            return value
        items = [(key, _with_pydantic_dumps(item, depth)) for key, item in value.items()]
        if any(new is not old for (_, new), old in zip(items, value.values(), strict=True)):
            return dict(items)
        return value
    if isinstance(value, list | tuple | set | frozenset):
        if _LEAVES.issuperset(map(type, value)):
            return value
        found = [_with_pydantic_dumps(item, depth) for item in value]
        if any(new is not old for new, old in zip(found, value, strict=True)):
            return found
        return value
    if isinstance(value, type):
        return value
    if hasattr(cls, "__dataclass_fields__"):
        import dataclasses

        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        dumped = {name: _with_pydantic_dumps(item, depth) for name, item in fields.items()}
        if any(dumped[name] is not item for name, item in fields.items()):
            return {name: item for name, item in dumped.items() if item is not msgspec.UNSET}
        return value
    names: Any = getattr(cls, "__struct_fields__", None)
    if names is None:
        attributes = getattr(cls, "__attrs_attrs__", None)
        if attributes is None:
            return value
        names = [a.name for a in attributes if not a.name.startswith("_")]  # msgspec skips those
    changed = {}
    for name in names:
        item = getattr(value, name, msgspec.UNSET)
        new = _with_pydantic_dumps(item, depth)
        if new is not item:
            changed[name] = new
    if not changed:
        return value
    setter: Any = object.__setattr__
    if hasattr(cls, "__struct_fields__"):  # a Struct refuses object's (frozen or not)
        setter = getattr(msgspec.structs, "force_setattr", None)  # msgspec 0.18.5 on
        if setter is None:
            return value
    import copy  # a copy runs no __init__, __post_init__, validator or converter

    copied = copy.copy(value)
    for name, new in changed.items():
        setter(copied, name, new)
    return copied


def _enc_hook(value: Any) -> Any:
    if isinstance(value, pathlib.PurePath):
        return str(value)
    dumped = _pydantic(value)
    if dumped is not _NOT:
        return dumped
    found = part(value)
    if found is not None:
        return found if isinstance(found, str) else block_json(found)
    # what a Mapping[str, T] or Sequence[T] annotation allows beyond dict and list
    # (MappingProxyType, ChainMap, deque, range, dict views), written as its output schema says
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence | AbstractSet):
        return list(value)
    msg = (
        f"cannot encode a {type(value).__name__} as JSON; return plain data, a dataclass, "
        "a pydantic model or toolcall.Image/Audio/File from the tool"
    )
    raise TypeError(msg)


_encoder = msgspec.json.Encoder(enc_hook=_enc_hook, decimal_format="number")


def encode_json(value: Any) -> str:
    """``value`` as JSON text; media as the MCP content block JSON they would be."""
    if "pydantic.dataclasses" in sys.modules:  # no pydantic dataclass exists before
        value = _with_pydantic_dumps(value)
    return _encoder.encode(value).decode()
