"""What a warm load checks and uses of an entry's IR before the first call: its summary.

An entry's IR is most of what a warm load would otherwise decode, for a trust check that
needs only names, defaults and class references, and envelopes that need only names and
texts. The summary is written beside the IR (``summarize`` computes it), bound to it
by the digest of the IR's bytes; the IR itself is decoded on the first ``run``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

import msgspec

from toolcall import ir
from toolcall._shared.digest import checksum

__all__ = [
    "MAX_DEPTH",
    "NO_SUMMARY",
    "Summary",
    "ToolHead",
    "ir_digest",
    "same_summary",
    "summarize",
]

MAX_DEPTH: Final = 100
"""Deepest ``ir.Type`` nesting an entry may hold. Derivation stops inlining after 100 types
per tool, and rendering and dispatch recurse once per level: an IR much deeper than this was
not written by the library, and would make ``run`` raise ``RecursionError``."""


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
    It is ``summarize`` of the IR stored with it; the IR itself is decoded only when
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


def summarize(module_ir: ir.ModuleIR, digest: bytes | None = None) -> Summary:
    """What ``verify_summary`` checks of an IR, and what a warm load uses of it before the
    first call: each tool's names, texts and emitted defaults, every class reference and
    provider, the deepest nesting; ``digest`` is the IR's ``ir_digest`` when known."""
    heads = []
    refs: dict[tuple[str, str], None] = {}
    providers: dict[str, None] = {}
    deepest = 0
    for tool in module_ir.tools:
        defaults = tuple((p.name, p.default) for p in tool.parameters if p.has_default)
        heads.append(
            ToolHead(
                tool.name,
                "" if tool.module == module_ir.module else tool.module,
                "" if tool.qualname == tool.name else tool.qualname,
                tool.description,
                tool.title,
                tuple(tool.annotations.items()),
                defaults,
            )
        )
        for t, depth in _types(tool):
            deepest = max(deepest, depth)
            if t.provider:
                providers[t.provider] = None
            if t.ref:
                refs[t.ref, t.py] = None
    if digest is None:
        digest = ir_digest(msgspec.msgpack.encode(module_ir))
    return Summary(tuple(heads), tuple(refs), tuple(providers), deepest, digest)


def same_summary(module_ir: ir.ModuleIR, summary: Summary) -> bool:
    """Whether an IR summarizes to exactly ``summary`` (as msgpack: ``True`` is not ``1``),
    its digest aside (the caller compared that with the bytes the IR was decoded from)."""
    encode = msgspec.msgpack.encode
    return encode(summarize(module_ir, summary.ir_digest)) == encode(summary)


def _types(tool: ir.Tool) -> Iterable[tuple[ir.Type, int]]:
    """Every type node of a tool with its depth, iteratively (the depth is what is checked)."""
    stack: list[tuple[ir.Type, int]] = [(p.type, 1) for p in tool.parameters]
    if tool.kwargs is not None:
        stack.append((tool.kwargs, 1))
    if tool.returns is not None:
        stack.append((tool.returns, 1))
    while stack:
        t, depth = stack.pop()
        yield t, depth
        if depth > MAX_DEPTH:
            return
        below = depth + 1
        if t.items is not None:
            stack.append((t.items, below))
        if t.additional is not None:
            stack.append((t.additional, below))
        # most nodes are leaves: no generator is built for an empty tuple
        if t.fields:
            stack.extend((f.type, below) for f in t.fields)
        if t.prefix_items:
            stack.extend((v, below) for v in t.prefix_items)
        if t.variants:
            stack.extend((v, below) for v in t.variants)
