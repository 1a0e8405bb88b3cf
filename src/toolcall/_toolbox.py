"""Several tool modules (and runtime functions) behind one name-routed front."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from toolcall._derive.module import derive_function
from toolcall._dispatch.plan import ToolPlan
from toolcall._dispatch.result import Err, Ok, ToolError
from toolcall._frozen import FrozenList
from toolcall._names import FORMATS, check_format
from toolcall._pipeline import entry_from_derived, lookup
from toolcall._registry import ModuleEntry

__all__ = ["Toolbox"]


class Toolbox:
    """Tools of several modules and plain functions, routed by tool name.

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

    __slots__ = ("_describe", "_names", "_plans", "_variants")

    def __init__(self, *members: types.ModuleType | str | Callable[..., Any]) -> None:
        entries: list[ModuleEntry] = []
        owners: dict[str, tuple[str, object]] = {}
        self._plans: dict[str, ToolPlan] = {}
        for member in members:
            entry = self._entry(member)
            for name in entry.tool_names:
                owner = (_owner(entry, member), _function(entry, member, name))
                if name in owners:
                    raise ValueError(_clash(name, owners[name], owner))
                owners[name] = owner
                self._plans[name] = entry.plans[name]
            entries.append(entry)
        self._names = tuple(owners)
        self._variants = {
            (fmt, strict): FrozenList(
                tool for entry in entries for tool in entry.variants[fmt, strict]
            )
            for fmt in FORMATS
            for strict in (False, True)
        }
        self._describe = FrozenList(item for entry in entries for item in entry.describe)

    @staticmethod
    def _entry(member: object) -> ModuleEntry:
        if isinstance(member, types.ModuleType | str):
            return lookup(member)
        if callable(member):
            _, derived = derive_function(member)
            return entry_from_derived(None, derived)
        msg = f"a Toolbox takes modules, module names or functions, not {type(member).__name__}"
        raise ValueError(msg)

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

    def run(self, name: str, args: Any) -> Ok[Any] | Err:
        """Dispatch to whichever member owns ``name``; see :func:`toolcall.run`."""
        try:
            plan = self._plans[name]
        except (KeyError, TypeError):
            return Err(ToolError.unknown_tool(name, self._names))
        return plan.run(args)

    async def arun(self, name: str, args: Any) -> Ok[Any] | Err:
        try:
            plan = self._plans[name]
        except (KeyError, TypeError):
            return Err(ToolError.unknown_tool(name, self._names))
        return await plan.arun(args)


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
