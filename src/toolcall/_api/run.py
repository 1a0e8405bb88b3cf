"""``run`` and ``arun``: route a model's tool call to its module's dispatch plan."""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from toolcall._dispatch.result import Err, Ok, ToolError, check_timeout
from toolcall._load.registry import ModuleEntry, index
from toolcall._load.warm import lookup

if TYPE_CHECKING:
    from toolcall._dispatch.plan import ToolPlan

__all__ = ["arun", "run"]

Target: TypeAlias = types.ModuleType | str
"""A module, or its dotted name, as ``run`` is given it."""
Inject: TypeAlias = Mapping[str, Any] | None


def run(
    module: types.ModuleType | str,
    name: str,
    args: Any,
    *,
    inject: Mapping[str, Any] | None = None,
) -> Ok[Any] | Err:
    """Validate ``args``, restore their Python shapes and call the tool.

    Never raises for bad input: every problem is an ``Err`` whose ``ToolError`` a model
    can act on. ``NotAToolModule`` is raised for a module that is not marked, since
    that is the program's mistake, not the model's. ``inject`` supplies the parameters the
    model never sees (a framework's context, ``Annotated[T, toolcall.Injected]``); names the
    tool does not inject are ignored, and a ``TypeError`` says which one is missing.
    """
    if inject is not None:
        return _run(module, name, args, inject)
    # The common case is one expression: a processed module, a tool called before. The
    # first calls, unknown names and values that are not modules go the long way round.
    try:
        call = index[module].runs[name]
    except (KeyError, TypeError):
        pass  # not called inside the handler: a tool's exception would chain this KeyError
    else:
        return call(args)
    return _run(module, name, args)


async def arun(
    module: types.ModuleType | str,
    name: str,
    args: Any,
    *,
    inject: Mapping[str, Any] | None = None,
    timeout: float | None = None,
) -> Ok[Any] | Err:
    """Like :func:`run`, awaiting ``async def`` tools; plain tools run inline.

    ``timeout`` (seconds) bounds the call: past it the answer is ``Err`` with kind
    ``timeout``. An ``async def`` tool is cancelled; a plain one is then run in a worker
    thread, which Python cannot kill: it runs to its end and its result is dropped.
    """
    if inject is not None or timeout is not None:
        check_timeout(timeout)
        return await _arun(module, name, args, inject, timeout)
    try:
        call = index[module].aruns[name]
    except (KeyError, TypeError):
        pass  # not called inside the handler: a tool's exception would chain this KeyError
    else:
        return await call(args)
    return await _arun(module, name, args)


def _run(module: Target, name: str, args: Any, inject: Inject = None) -> Ok[Any] | Err:
    found = _plan(module, name)
    if isinstance(found, Err):
        return found
    entry, plan = found
    result = plan.run_with(args, inject)
    if plan.prepared:
        entry.runs[name] = plan.run
    return result


async def _arun(
    module: Target, name: str, args: Any, inject: Inject = None, timeout: float | None = None
) -> Ok[Any] | Err:
    found = _plan(module, name)
    if isinstance(found, Err):
        return found
    entry, plan = found
    result = await plan.arun_within(args, inject, timeout)
    if plan.prepared:
        entry.aruns[name] = plan.arun
    return result


def _plan(module: Target, name: str) -> tuple[ModuleEntry, ToolPlan] | Err:
    """The module's entry (processing it on first use) and the plan of ``name``; an
    ``unknown_tool`` error when it has none."""
    entry = lookup(module)
    try:
        return entry, entry.plans[name]
    except (KeyError, TypeError):
        return Err(_unknown(entry, name))


def _unknown(entry: ModuleEntry, name: object) -> ToolError:
    """The error for a name the module lacks, with the tools a search for it finds (the
    module's index is built on its first unknown name and kept on its entry)."""
    suggested: tuple[str, ...] = ()
    if isinstance(name, str):
        from toolcall._search.stored import module_search, suggest

        suggested = suggest(module_search(entry).index(), name)
    return ToolError.unknown_tool(name, entry.tool_names, suggested)
