"""Several tool modules (and runtime functions) behind one name-routed front."""

from __future__ import annotations

import types
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from toolcall import ir
from toolcall._derive.module import derive_function
from toolcall._dispatch.plan import ToolPlan, check_timeout
from toolcall._dispatch.result import Err, Ok, ToolError
from toolcall._frozen import FrozenList
from toolcall._load.cold import entry_from_derived
from toolcall._load.registry import ModuleEntry
from toolcall._load.warm import lookup
from toolcall._shared.gather import gather
from toolcall._shared.names import FORMATS, check_format

__all__ = ["Toolbox"]


class Toolbox:
    """Tools of several modules and plain functions, routed by tool name.

    A Toolbox given as a member stands for the members it was built of.

    Everything is assembled when the box is built: a duplicate tool name raises
    ``ValueError`` naming both owners, and ``emit`` is a lookup like the module-level one.
    When both are the same function (a module and one of its own functions, or one member
    given twice), the message says so rather than naming one owner twice.

    Examples
    --------
    >>> import toolcall
    >>> box = toolcall.Toolbox("examples.weather", "examples.orders")
    >>> "get_weather" in box.tool_names()
    True
    """

    __slots__ = ("_describe", "_functions", "_members", "_names", "_plans", "_tools", "_variants")

    def __init__(self, *members: types.ModuleType | str | Callable[..., Any] | Toolbox) -> None:
        entries: list[ModuleEntry] = []
        owners: dict[str, tuple[str, object]] = {}
        self._plans: dict[str, ToolPlan] = {}
        self._tools: dict[str, ir.Tool] = {}
        self._members = _flatten(members)
        for entry, given in self._members:
            tools = {tool.name: tool for tool in entry.ir.tools}
            for name in entry.tool_names:
                owner = (_owner(entry, given), _function(entry, given, name))
                if name in owners:
                    raise ValueError(_clash(name, owners[name], owner))
                owners[name] = owner
                self._plans[name] = entry.plans[name]
                self._tools[name] = tools[name]
            entries.append(entry)
        self._names = tuple(owners)
        self._functions = {name: owner[1] for name, owner in owners.items()}
        self._variants = {
            (fmt, strict): FrozenList(
                tool for entry in entries for tool in entry.variants[fmt, strict]
            )
            for fmt in FORMATS
            for strict in (False, True)
        }
        self._describe = FrozenList(item for entry in entries for item in entry.describe)

    def emit(self, format: str = "openai", strict: bool = False) -> FrozenList:
        """Every tool's definition, modules in the order given, tools in definition order."""
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

    def run(
        self, name: str, args: Any, *, inject: Mapping[str, Any] | None = None
    ) -> Ok[Any] | Err:
        """Dispatch to whichever member owns ``name``; see :func:`toolcall.run`."""
        try:
            plan = self._plans[name]
        except (KeyError, TypeError):
            return Err(ToolError.unknown_tool(name, self._names))
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
            return Err(ToolError.unknown_tool(name, self._names))
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


def _flatten(
    members: tuple[types.ModuleType | str | Callable[..., Any] | Toolbox, ...],
) -> tuple[tuple[ModuleEntry, object], ...]:
    """Each member's entry with the member itself; a Toolbox stands for what it was built of."""
    found: list[tuple[ModuleEntry, object]] = []
    for member in members:
        if isinstance(member, Toolbox):
            found.extend(member._members)
        else:
            found.append((_entry(member), member))
    return tuple(found)


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
