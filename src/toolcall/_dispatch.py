"""``run`` and ``arun``: route a model's tool call to its module's dispatch plan."""

from __future__ import annotations

import types
from typing import Any

from toolcall._registry import lookup
from toolcall._result import Err, Ok, ToolError

__all__ = ["arun", "run"]


def run(module: types.ModuleType | str, name: str, args: Any) -> Ok[Any] | Err:
    """Validate ``args``, restore their Python shapes and call the tool.

    Never raises for bad input: every problem is an ``Err`` whose ``ToolError`` a model
    can act on. ``NotAToolModule`` is raised for a module that is not marked, since
    that is the program's mistake, not the model's.
    """
    entry = lookup(module)
    try:
        plan = entry.plans[name]
    except (KeyError, TypeError):
        return Err(ToolError.unknown_tool(name, entry.tool_names))
    return plan.run(args)


async def arun(module: types.ModuleType | str, name: str, args: Any) -> Ok[Any] | Err:
    """Like :func:`run`, awaiting ``async def`` tools; plain tools run inline."""
    entry = lookup(module)
    try:
        plan = entry.plans[name]
    except (KeyError, TypeError):
        return Err(ToolError.unknown_tool(name, entry.tool_names))
    return await plan.arun(args)
