"""What a warm load checks and uses of an entry's IR before the first call: its summary.

An entry's IR is most of what a warm load would otherwise decode, for a trust check that
needs only names, defaults and class references, and envelopes that need only names and
texts. The summary is written beside the IR (``_trust.summarize`` computes it), bound to it
by the digest of the IR's bytes; the IR itself is decoded on the first ``run``.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from toolcall._digest import checksum

__all__ = ["NO_SUMMARY", "Summary", "ToolHead", "ir_digest"]


class ToolHead(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """What a warm process needs of one tool before it is first run: what the trust check
    compares with the live function, and the names and texts of its envelopes."""

    name: str
    module: str
    """The tool's module, or "" for the entry's own (nearly always: 10,000 copies of a
    module name cost memory, and an empty string is one shared object)."""
    qualname: str
    """The function's name, or "" when it is the tool's name (likewise)."""
    description: str
    title: str
    annotations: tuple[tuple[str, bool], ...]
    defaults: tuple[tuple[str, Any], ...]
    """Each emitted default, by parameter name, in parameter order."""


class Summary(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """The part of an entry's IR a warm load checks and uses, written beside it.

    ``refs`` is every class reference with the ``py`` of the type carrying it (first
    occurrence order), ``providers`` every provider named, ``depth`` the deepest type nesting.
    It is ``_trust.summarize`` of the IR stored with it; the IR itself is decoded only when
    dispatch first needs it, and then checked to summarize to exactly this.
    """

    tools: tuple[ToolHead, ...]
    refs: tuple[tuple[str, str], ...]
    providers: tuple[str, ...]
    depth: int
    ir_digest: bytes
    """``ir_digest`` of the IR's msgpack: a load compares it with the stored IR's bytes, so
    an IR changed without its summary is a miss at once, not at the first call."""


def ir_digest(encoded_ir: Any) -> bytes:
    """The digest of an IR's msgpack bytes that its ``Summary`` records: the checksum, since
    it binds the two against damage, not forgery (the first call checks that the IR
    summarizes to the summary the load trusted)."""
    return checksum(encoded_ir)


NO_SUMMARY: Final = Summary((), (), (), 0, b"")
"""The summary of an entry built without one: it matches no IR, so such an entry is a miss."""
