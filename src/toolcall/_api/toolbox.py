"""Several tool modules (and runtime functions) behind one name-routed front."""

from __future__ import annotations

import types
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from toolcall import ir
from toolcall._derive.module import derive_function
from toolcall._dispatch.plan import ToolPlan
from toolcall._dispatch.result import Err, Ok, ToolError, check_timeout
from toolcall._frozen import FrozenList
from toolcall._load.cold import entry_from_derived
from toolcall._load.registry import ModuleEntry
from toolcall._load.warm import lookup
from toolcall._render.variants import CAPS, check_cap
from toolcall._shared.gather import gather
from toolcall._shared.names import FORMATS, check_format

if TYPE_CHECKING:
    from toolcall._search.index import Hit, Index, Ranker

__all__ = ["Toolbox", "search"]


class Toolbox:
    """Tools of several modules and plain functions, routed by tool name.

    A Toolbox given as a member stands for the tools it holds.

    Everything is assembled when the box is built: a duplicate tool name raises
    ``ValueError`` naming both owners, and ``emit`` is a lookup like the module-level one.
    When both are the same function (a module and one of its own functions, or one member
    given twice), the message says so rather than naming one owner twice. The search index
    is not: it is built on the box's first :meth:`search` and kept for the next ones.

    Examples
    --------
    >>> import toolcall
    >>> box = toolcall.Toolbox("examples.weather", "examples.orders")
    >>> "get_weather" in box.tool_names()
    True
    """

    __slots__ = (
        "_describe",
        "_functions",
        "_index",
        "_names",
        "_owners",
        "_plans",
        "_rows",
        "_tools",
        "_variants",
    )

    def __init__(self, *members: types.ModuleType | str | Callable[..., Any] | Toolbox) -> None:
        rows: list[_Row] = []
        for member in members:
            if isinstance(member, Toolbox):
                rows.extend(member._rows)
            else:
                rows.extend(_rows_of(_entry(member), member))
        self._fill(rows)

    def _fill(self, rows: Sequence[_Row]) -> None:
        owners: dict[str, tuple[str, object]] = {}
        for row in rows:
            if row.name in owners:
                raise ValueError(_clash(row.name, owners[row.name], row.owner))
            owners[row.name] = row.owner
        self._rows = tuple(rows)
        self._owners = owners
        self._names = tuple(owners)
        self._plans = {row.name: row.plan for row in rows}
        self._tools = {row.name: row.tool for row in rows}
        self._functions = {row.name: row.owner[1] for row in rows}
        self._variants = {
            key: FrozenList(row.items[i] for row in rows) for i, key in enumerate(_KEYS)
        }
        self._describe = FrozenList(row.describe for row in rows)
        self._index: Index | None = None

    def emit(self, format: str = "openai", strict: bool = False) -> FrozenList:
        """Every tool's definition, modules in the order given, tools in definition order.

        A list longer than the provider accepts (OpenAI 128 tools, Gemini 512) raises
        ``ValueError`` naming the cap: send :meth:`select`'s few, or a
        :class:`toolcall.ToolSearch`.
        """
        found = self._variant(format, strict)
        if len(found) > _SMALLEST_CAP:
            check_cap(format, len(found))
        return found

    def definitions(
        self, names: Iterable[str], format: str = "openai", strict: bool = False
    ) -> list[Any]:
        """The definitions of the tools ``names``, in that order, as :meth:`emit` gives
        them (read-only), for a caller sending some of a catalog's tools (no cap applies:
        the caller chose them). A name the box lacks raises ``ValueError``."""
        every = self._variant(format, strict)
        where = {name: i for i, name in enumerate(self._names)}
        chosen = list(names)
        unknown = [name for name in chosen if name not in where]
        if unknown:
            msg = f"no tool {', '.join(map(repr, unknown))} in this Toolbox"
            raise ValueError(msg)
        return [every[where[name]] for name in chosen]

    def _variant(self, format: str, strict: bool) -> FrozenList:
        try:
            return self._variants[format, strict]
        except (KeyError, TypeError):
            check_format(format)
            msg = f"strict must be True or False, not {strict!r}"
            raise ValueError(msg) from None

    def describe(self) -> FrozenList:
        return self._describe

    def tool_names(self) -> tuple[str, ...]:
        return self._names

    def tools(self) -> tuple[ir.Tool, ...]:
        """Each tool's IR, in :meth:`tool_names` order (for adapters: title, annotations, the
        parameters a framework injects)."""
        return tuple(self._tools.values())

    def function(self, name: str) -> Callable[..., Any] | None:
        """The function behind tool ``name`` (None when it cannot be found from its module),
        for an adapter that reads its annotations."""
        found = self._functions[name]
        return found if callable(found) else None

    def search(self, query: str, k: int = 5, *, ranker: Ranker | None = None) -> tuple[Hit, ...]:
        """The ``k`` tools that best answer ``query``, best first (fewer when fewer match).

        The default ranking is BM25F over each tool's IR (its name split into words, its
        description, parameter names and descriptions, enum values, module name and the
        search-only keywords of ``@toolcall.tool(search=...)``); a tool the query names comes
        first. ``ranker`` replaces the scoring (embeddings, say); see :class:`toolcall.Ranker`.
        The index is built on the first search and reused.
        """
        _check_search(query, k)
        return self._search_index().search(query, k, ranker)

    def _search_index(self) -> Index:
        """The box's index, built on first use from its modules' kept (or cached) counts."""
        if self._index is None:
            from toolcall._search import stored  # the first search pays for it, not the import

            rows = self._rows
            self._index = stored.box_index([r.entry for r in rows], [r.tool for r in rows])
        return self._index

    def _unknown(self, name: object) -> ToolError:
        """The error for a name the box lacks, with the tools a search for it finds."""
        suggested: tuple[str, ...] = ()
        if isinstance(name, str):
            from toolcall._search.stored import suggest

            suggested = suggest(self._search_index(), name)
        return ToolError.unknown_tool(name, self._names, suggested)

    def select(
        self,
        query: str,
        k: int = 5,
        *,
        pinned: Iterable[str] = (),
        ranker: Ranker | None = None,
    ) -> Toolbox:
        """A Toolbox of the pinned tools, then the hits of :meth:`search` not already pinned.

        Pinned tools come first, in the order given, so the start of the tool list a request
        sends stays the same from one request to the next. The box emits, runs and searches
        like any other. A pinned name the box lacks raises ``ValueError``.
        """
        keep = list(dict.fromkeys(pinned if not isinstance(pinned, str) else (pinned,)))
        unknown = [name for name in keep if name not in self._plans]
        if unknown:
            msg = f"cannot pin {', '.join(map(repr, unknown))}: no such tool in this Toolbox"
            raise ValueError(msg)
        keep.extend(hit.name for hit in self.search(query, k, ranker=ranker))
        rows = {row.name: row for row in self._rows}
        box = Toolbox.__new__(Toolbox)
        box._fill([rows[name] for name in dict.fromkeys(keep)])
        return box

    def run(
        self, name: str, args: Any, *, inject: Mapping[str, Any] | None = None
    ) -> Ok[Any] | Err:
        """Dispatch to whichever member owns ``name``; see :func:`toolcall.run`."""
        try:
            plan = self._plans[name]
        except (KeyError, TypeError):
            return Err(self._unknown(name))
        if inject is not None:
            return plan.run_with(args, inject)
        return plan.run(args)

    async def arun(
        self,
        name: str,
        args: Any,
        *,
        inject: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Ok[Any] | Err:
        """Dispatch, awaiting ``async def`` tools; see :func:`toolcall.arun` (``timeout``
        included: a plain tool given one runs in a worker thread that cannot be killed)."""
        try:
            plan = self._plans[name]
        except (KeyError, TypeError):
            return Err(self._unknown(name))
        if inject is None and timeout is None:
            return await plan.arun(args)
        check_timeout(timeout)
        return await plan.arun_within(args, inject, timeout)

    async def arun_many(
        self,
        calls: Iterable[tuple[str, Any]],
        *,
        timeout: float | None = None,
        limit: int | None = None,
    ) -> list[Ok[Any] | Err]:
        """Run a model's parallel tool calls, ``(name, args)`` pairs, concurrently.

        The results come in the order of ``calls``. ``limit`` caps how many run at once;
        ``timeout`` bounds each call on its own (as :meth:`arun`'s does), from when it
        starts, not from when it was queued. A failed call is its own ``Err`` and never
        stops the others; an exception that is the program's mistake (a missing injected
        value) is raised once every call has finished, so none is left running unawaited.
        Plain tools without a timeout run inline, one after another: concurrency comes from
        ``async def`` tools (and from timeouts, which move plain tools to threads).
        """
        import asyncio  # here, not at the top: a box that never runs calls at once does not pay

        check_timeout(timeout)
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit < 1
        ):
            msg = f"limit must be a positive integer or None, not {limit!r}"
            raise ValueError(msg)
        pairs = [(name, args) for name, args in calls]  # a malformed pair fails before any runs
        pending = [self.arun(name, args, timeout=timeout) for name, args in pairs]
        if limit is not None and limit < len(pending):
            gate = asyncio.Semaphore(limit)

            async def gated(call: Awaitable[Ok[Any] | Err]) -> Ok[Any] | Err:
                async with gate:
                    return await call

            pending = [gated(call) for call in pending]
        return await gather(pending)


_SMALLEST_CAP: Final = min(CAPS.values())
"""Up to this many tools no format is refused: the one comparison a box's ``emit`` pays."""

_KEYS: Final = tuple((fmt, strict) for fmt in FORMATS for strict in (False, True))
"""The ``(format, strict)`` pairs a box emits, in the order each row holds its items."""


class _Row(NamedTuple):
    """One tool of a box: everything ``emit``, ``run`` and ``search`` read of it (``entry``:
    its module's, where search keeps the module's term counts)."""

    name: str
    owner: tuple[str, object]
    plan: ToolPlan
    tool: ir.Tool
    items: tuple[Any, ...]
    describe: Any
    entry: ModuleEntry


def search(
    *members: types.ModuleType | str | Callable[..., Any] | Toolbox,
    query: str,
    k: int = 5,
    ranker: Ranker | None = None,
) -> tuple[Hit, ...]:
    """``Toolbox(*members).search(query, k)``: for one search. A program that searches
    again should keep the Toolbox, whose index is built once."""
    return Toolbox(*members).search(query, k, ranker=ranker)


def _check_search(query: object, k: object) -> None:
    """Arguments from untyped callers (a model's tool call, a CLI) fail here, plainly."""
    if not isinstance(query, str):
        msg = f"query must be a string, not {type(query).__name__}"
        raise TypeError(msg)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        msg = f"k must be a positive integer, not {k!r}"
        raise ValueError(msg)


def _rows_of(entry: ModuleEntry, member: object) -> Iterator[_Row]:
    tools = {tool.name: tool for tool in entry.ir.tools}
    lists = [entry.variants[key] for key in _KEYS]
    label = _owner(entry, member)
    for i, name in enumerate(entry.tool_names):
        yield _Row(
            name,
            (label, _function(entry, member, name)),
            entry.plans[name],
            tools[name],
            tuple(found[i] for found in lists),
            entry.describe[i],
            entry,
        )


def _entry(member: object) -> ModuleEntry:
    if isinstance(member, types.ModuleType | str):
        return lookup(member)
    if callable(member):
        _, derived = derive_function(member)
        return entry_from_derived(None, derived)
    msg = (
        "a Toolbox takes modules, module names, functions or Toolboxes, "
        f"not {type(member).__name__}"
    )
    raise ValueError(msg)


def _clash(name: str, first: tuple[str, object], second: tuple[str, object]) -> str:
    if first[1] is not None and first[1] is second[1]:
        given = (
            f"{first[0]} is given twice"
            if first[0] == second[0]
            else (f"{first[0]} and {second[0]} are the same tool")
        )
        return f"duplicate tool name {name!r}: {given}; pass each module or function once"
    return (
        f"duplicate tool name {name!r}: defined by both {first[0]} and {second[0]}; "
        "rename one of them"
    )


def _owner(entry: ModuleEntry, member: object) -> str:
    """How an error names where a tool came from: a module, or a function given on its own."""
    if isinstance(member, types.ModuleType | str):
        return f"module {entry.name}"
    qualname = getattr(member, "__qualname__", entry.name)
    return f"function {entry.name}.{qualname}"


def _function(entry: ModuleEntry, member: object, name: str) -> object | None:
    """The function behind tool ``name`` (None when it cannot be found), to spot one
    function reached twice: through its module and on its own."""
    if not isinstance(member, types.ModuleType | str):
        return member
    found: object = entry.module
    qualname = next((t.qualname for t in entry.ir.tools if t.name == name), name)
    for part in qualname.split("."):
        found = vars(found).get(part) if hasattr(found, "__dict__") else None
    return found
