"""Section 1 discovery: which module is marked, which functions are its tools, its providers.

Kept apart from derivation because a warm load needs it too: the pipeline checks a cached
entry's tools against ``candidates`` of the live module, and importing derivation (AST,
docstrings, type resolution) for that would cost a warm import what the cache saves.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import Any

from toolcall._shared.names import EXCLUDE_ATTR

__all__ = ["candidates", "is_marked", "providers_of"]


def is_marked(module: types.ModuleType) -> bool:
    """Only the literal ``__toolcall__ = True`` marks a module (not any truthy value).

    Read from the module's ``__dict__``: ``getattr`` would run a module ``__getattr__``
    (lazy-submodule packages), a side effect on a module that is not even marked.
    """
    return vars(module).get("__toolcall__") is True


def providers_of(module: types.ModuleType) -> list[Any]:
    """``__toolcall_types__`` entries, classes instantiated once without arguments."""
    entries = vars(module).get("__toolcall_types__") or ()
    providers = []
    for entry in entries:
        if isinstance(entry, type):
            entry = entry()
        providers.append(entry)
    return providers


def candidates(module: types.ModuleType, *, ordered: bool = True) -> list[Callable[..., Any]]:
    """The module's tools: public functions defined here under their own name, in source
    order unless ``ordered`` is false (a warm load only looks them up by name, and finding
    each one's first line would be a third of its cost)."""
    names = vars(module).get("__all__")
    allowed = set(names) if names is not None else None
    found: list[Callable[..., Any]] = []
    for name, obj in vars(module).items():
        if name.startswith("_") or (allowed is not None and name not in allowed):
            continue
        if not inspect.isfunction(obj) or obj.__name__ != name or name == "<lambda>":
            continue
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        if getattr(obj, EXCLUDE_ATTR, False):
            continue
        found.append(obj)
    if ordered:
        found.sort(key=_first_line)
    return found


def _first_line(fn: Callable[..., Any]) -> int:
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return code.co_firstlineno if code is not None else 0
