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

    Examples
    --------
    >>> import toolcall
    >>> box = toolcall.Toolbox("examples.weather", "examples.orders")
    >>> "get_weather" in box.tool_names()
    True
    """

    __slots__ = ("_describe", "_names", "_plans", "_variants")

    def __init__(self, *members: types.ModuleType | str | Callable[..., Any]) -> None:
        entries = [self._entry(member) for member in members]
        owners: dict[str, str] = {}
        self._plans: dict[str, ToolPlan] = {}
        for entry in entries:
            for name in entry.tool_names:
                if name in owners:
                    msg = (
                        f"duplicate tool name {name!r}: defined by both {owners[name]} and "
                        f"{entry.name}; rename one of them"
                    )
                    raise ValueError(msg)
                owners[name] = entry.name
                self._plans[name] = entry.plans[name]
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
