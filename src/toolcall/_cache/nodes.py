"""A module's rendered schemas as a table of distinct JSON nodes, each stored once.

A module's schemas repeat themselves: the same ``{"type": "string"}``, the same enum, the
same TypedDict's object schema in every tool that takes it, and the strict schemas share
most leaves with the loose ones. The entry stores each distinct node once, children as
indexes of earlier nodes, and a warm process builds each distinct node once, straight into
the read-only containers ``emit`` hands out (``_frozen``), sharing it wherever it occurs:
reading, building and holding the schemas cost what the distinct nodes cost, not what
their copies would. Every format's tool list is then these schemas in an envelope
(``_render.envelope``), which is why no per-format variant is stored.

Table layout (msgpack): ``nodes`` is a list in which a scalar (str, int, float, bool,
None) is itself, an object is ``[keys, child indexes]`` and an array ``[child indexes]``;
``loose`` and ``strict`` give each tool's schema as an index. Children always come before
their parents, so a table cannot hold a cycle, and building it is one loop without
recursion. Nothing in a table is trusted: ``build`` raises ``ValueError`` on anything it
could not have been written as (an index out of range, a node nested deeper than
``DEPTH_LIMIT``), which the caller answers by rendering from the (checked) IR instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import msgspec

from toolcall._frozen import FrozenDict, FrozenList

__all__ = ["DEPTH_LIMIT", "build", "pack"]

DEPTH_LIMIT: Final = 400
"""Deepest schema a table may hold: the IR nests at most ``summary.MAX_DEPTH`` (100) types,
each at most three JSON levels deep (``anyOf`` -> list -> schema, ``properties`` -> name
-> schema), so anything deeper was not written by the library."""

_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_CONTAINERS: Final = frozenset({dict, list, tuple, FrozenDict, FrozenList})
_encode: Final = msgspec.msgpack.Encoder().encode
_new_dict: Final = dict.__new__
_new_list: Final = list.__new__
_update: Final = dict.update
_extend: Final = list.extend


def pack(loose: Sequence[Any], strict: Sequence[Any]) -> dict[str, Any]:
    """The table of both schema lists: ``{"nodes", "loose", "strict"}``.

    Distinct means equal as JSON with its types kept apart: ``1``, ``1.0`` and ``True``
    are three nodes, and so are ``0.0`` and ``-0.0``. Raises ``RecursionError`` for a
    schema too deep to walk (the entry is then not written).
    """
    table = _Table()
    loose_roots = [table.add(schema) for schema in loose]
    strict_roots = [table.add(schema) for schema in strict]
    return {"nodes": table.nodes, "loose": loose_roots, "strict": strict_roots}


class _Table:
    """The nodes ``pack`` has written, and how to find a value's index among them. (A class,
    not closures calling each other, which would be a cycle holding all of it until the
    next garbage collection.)"""

    __slots__ = ("copies", "index", "nodes", "seen")

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.index: dict[Any, int] = {}
        self.seen: dict[int, int] = {}  # id -> index: shared (frozen) subtrees walked once
        # a subtree's msgpack bytes -> index: a copy of a subtree met before (the same
        # TypedDict in every tool that takes it) costs one encoding in C instead of a walk of
        # its nodes. Equal bytes are equal JSON with types kept apart; a subtree msgpack
        # cannot encode (an int past 64 bits, a lone surrogate) is walked as usual.
        self.copies: dict[bytes, int] = {}

    def add(self, value: Any) -> int:
        known = self.seen.get(id(value))
        if known is not None:
            return known
        kind = type(value)
        if kind in _CONTAINERS:
            try:
                blob: bytes | None = _encode(value)
            except RecursionError:
                raise
            except Exception:
                blob = None
            if blob is not None:
                known = self.copies.get(blob)
                if known is None:
                    known = self.copies[blob] = self.walk(value, kind)
                return known
        return self.walk(value, kind)

    def walk(self, value: Any, kind: type) -> int:
        node: Any
        if isinstance(value, dict):
            children = tuple(map(self.add, value.values()))
            key: Any = ("d", tuple(value), children)
            node = [list(value), list(children)]
        elif isinstance(value, list | tuple):
            children = tuple(map(self.add, value))
            key = ("l", children)
            node = [list(children)]
        else:
            key = (kind, repr(value) if kind is float else value)
            node = value
        index = self.index
        found = index.get(key)
        if found is None:
            nodes = self.nodes
            found = index[key] = len(nodes)
            nodes.append(node)
        if kind in _CONTAINERS:
            self.seen[id(value)] = found
        return found


def build(nodes: Any, loose: Any, strict: Any, count: int) -> tuple[list[Any], list[Any]]:
    """The frozen schemas of a table for ``count`` tools: ``(loose, strict)``.

    ``ValueError`` when the table is not one ``pack`` writes for that many tools.
    """
    if type(nodes) is not list or not _roots(loose, count) or not _roots(strict, count):
        raise ValueError("not a schema table for this module")
    built: list[Any] = []
    depths: list[int] = []
    get = built.__getitem__
    depth_of = depths.__getitem__
    append = built.append
    try:
        for node in nodes:
            if type(node) is not list:
                if type(node) not in _SCALARS:  # a map here would be a mutable leaf
                    raise ValueError("a node that is neither scalar, object nor array")
                append(node)
                depths.append(0)
                continue
            refs = node[-1]
            if type(refs) is not list:
                raise ValueError("a node's children are not a list")
            # an index must name an earlier node (a negative one counts back from the
            # newest, which is earlier too): no cycle can be built
            depth = max(map(depth_of, refs), default=0) + 1
            if depth > DEPTH_LIMIT:
                raise ValueError(f"a schema nests deeper than {DEPTH_LIMIT}")
            if len(node) == 2:
                keys = node[0]
                if type(keys) is not list or len(keys) != len(refs):
                    raise ValueError("an object node's keys and values do not pair up")
                frozen_dict = _new_dict(FrozenDict)
                _update(frozen_dict, zip(keys, map(get, refs)))  # noqa: B905  # lengths checked
                append(frozen_dict)
            elif len(node) == 1:
                frozen_list = _new_list(FrozenList)
                _extend(frozen_list, map(get, refs))
                append(frozen_list)
            else:
                raise ValueError("a node that is neither object nor array")
            depths.append(depth)
        return list(map(get, loose)), list(map(get, strict))
    except (IndexError, TypeError) as exc:
        raise ValueError(f"a broken schema table: {exc}") from None


def _roots(roots: Any, count: int) -> bool:
    return type(roots) is list and len(roots) == count and all(type(r) is int for r in roots)
