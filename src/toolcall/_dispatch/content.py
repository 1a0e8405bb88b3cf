"""Media a tool returns: ``toolcall.Image``, ``toolcall.Audio`` and ``toolcall.File``.

A tool returns one of these (or a list mixing them with text) and each destination sends it
in its own form: MCP content blocks, Anthropic image and document blocks, OpenAI Responses
``input_image``/``input_file``, Gemini inline data, Bedrock image and document blocks, or a
documented text line where the API carries only text (docs/dispatching.md, "Results").

They take the same arguments as FastMCP's helpers of the same names (``path`` or ``data``,
``format``), so code written for FastMCP needs only its import changed. The size is checked
when the object is made, inside the tool, so an oversized file is the tool's ``raised`` error
naming the limit, not a request every provider refuses later.
"""

from __future__ import annotations

import base64
import mimetypes
import os
from pathlib import Path
from typing import ClassVar, Final

__all__ = ["MAX_MEDIA_BYTES", "Audio", "File", "Image", "Media"]

MAX_MEDIA_BYTES: Final = 20 * 1024 * 1024
"""The largest media a tool may return: 20 MiB, what OpenAI's and Gemini's inline requests
take (Anthropic's request limit is 32 MB, base64 included)."""

# The leading bytes of the formats models read, for data given without a format.
_MAGIC: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"ID3", "audio/mpeg"),
    (b"\xff\xfb", "audio/mpeg"),
    (b"fLaC", "audio/flac"),
    (b"OggS", "audio/ogg"),
)
# RIFF containers name their format at offset 8
_RIFF: Final = {b"WEBP": "image/webp", b"WAVE": "audio/wav"}
# what mimetypes does not know on every platform, or names differently
_SUFFIXES: Final = {
    ".webp": "image/webp",
    ".jpg": "image/jpeg",
    ".svg": "image/svg+xml",
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".m4a": "audio/mp4",
    ".flac": "audio/flac",
    ".ogg": "audio/ogg",
    ".md": "text/markdown",
    ".csv": "text/csv",
    ".json": "application/json",
}


def _sniff(data: bytes) -> str | None:
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF":
        return _RIFF.get(data[8:12])
    return None


def _by_suffix(name: str) -> str | None:
    _, dot, extension = name.rpartition(".")
    if not dot:
        return None
    suffix = f".{extension.lower()}"
    return _SUFFIXES.get(suffix) or mimetypes.guess_type(f"x{suffix}", strict=False)[0]


class Media:
    """What ``Image``, ``Audio`` and ``File`` share: the bytes, from memory or a file, and
    their MIME type.

    ``mime_type`` is, in order: the one given, the one ``format`` names, the one the file's
    suffix (or ``name``'s) names, the one the data's leading bytes name, else the kind's
    default.
    """

    kind: ClassVar[str] = "file"
    _default: ClassVar[str] = "application/octet-stream"

    __slots__ = ("_data", "mime_type", "name", "path")

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        data: bytes | bytearray | memoryview | None = None,
        format: str | None = None,
        *,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        if (path is None) == (data is None):
            msg = f"{type(self).__name__} takes a path or data, exactly one of them"
            raise ValueError(msg)
        self.path = None if path is None else Path(os.path.expandvars(path)).expanduser()
        if data is not None:
            data = bytes(data)
            size = len(data)
        else:
            assert self.path is not None
            size = self.path.stat().st_size  # a missing file is the tool's error, now
        if size > MAX_MEDIA_BYTES:
            where = f" {str(self.path)!r}" if self.path is not None else ""
            msg = (
                f"{type(self).__name__}{where} is {size:,} bytes; a tool result carries at "
                f"most {MAX_MEDIA_BYTES:,} (make it smaller, or return a link to it)"
            )
            raise ValueError(msg)
        self._data = data
        self.name = name if name is not None else (self.path.name if self.path else None)
        self.mime_type = mime_type or self._detect(format, data)

    def _detect(self, format: str | None, data: bytes | None) -> str:
        if format:
            named = _by_suffix(f".{format.lower()}")
            return named if named is not None else f"{self._default.partition('/')[0]}/{format}"
        if self.name:
            named = _by_suffix(self.name)
            if named is not None:
                return named
        if data is None:
            assert self.path is not None
            with self.path.open("rb") as f:
                data = f.read(16)
        return _sniff(data) or self._default

    @property
    def data(self) -> bytes:
        """The bytes (a path is read on each use, when the result is sent)."""
        if self._data is not None:
            return self._data
        assert self.path is not None
        return self.path.read_bytes()

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def __repr__(self) -> str:
        source = f"path={str(self.path)!r}" if self.path is not None else "data=..."
        return f"{type(self).__name__}({source}, mime_type={self.mime_type!r})"


class Image(Media):
    """An image a tool returns (PNG, JPEG, GIF, WebP: what every provider reads).

    Examples
    --------
    >>> Image(data=b"\\x89PNG\\r\\n\\x1a\\n...").mime_type
    'image/png'
    >>> Image(data=b"...", format="jpg").mime_type
    'image/jpeg'
    """

    kind = "image"
    _default = "image/png"
    __slots__ = ()


class Audio(Media):
    """Audio a tool returns (WAV, MP3, ...): MCP and Gemini carry it; elsewhere it is the
    text fallback."""

    kind = "audio"
    _default = "audio/wav"
    __slots__ = ()


class File(Media):
    """A document a tool returns (PDF, text, CSV, ...): an embedded resource to MCP, a
    document block to Anthropic and Bedrock, an ``input_file`` to OpenAI Responses.

    Examples
    --------
    >>> File(data=b"a,b\\n1,2\\n", name="table.csv").mime_type
    'text/csv'
    """

    kind = "file"
    __slots__ = ()
