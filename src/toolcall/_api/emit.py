"""The schema side of the public API: precomputed variants out, on-demand rendering of
runtime tools.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from toolcall import ir
from toolcall._frozen import FrozenList
from toolcall._load.registry import index
from toolcall._render.variants import check_cap
from toolcall._shared.names import FORMATS, check_format

__all__ = ["derive", "describe", "emit", "render", "tool_names"]

ModuleRef = types.ModuleType | str


def emit(module: ModuleRef, format: str = "openai", strict: bool = False) -> FrozenList:
    """The tool definitions of a marked module, as the provider's ``tools`` field takes them.

    Rendered once when the module was processed; this is a lookup. The result is
    read-only (``copy.deepcopy`` it to change it), so no caller can alter what the next
    call returns. A list longer than the provider accepts (OpenAI 128 tools, Gemini 512)
    raises ``ValueError`` naming the cap.

    Examples
    --------
    >>> import toolcall
    >>> toolcall.emit("examples.weather", "anthropic")[0]["name"]
    'get_weather'
    """
    # ``strict`` is not keyword-only (as it is for ``render``): CPython 3.11 and 3.12 do not
    # specialise calls of a function with keyword-only parameters, which would cost a third
    # of this call.
    try:
        if strict is False:
            return index[module].plain[format]
        if strict is True:
            return index[module].strict[format]
    except (KeyError, TypeError):
        pass
    # first use, a value that is not a module, an unknown format, a ``strict`` that is not a
    # bool: the general lookup, whose errors are the ones to raise
    from toolcall._load.warm import lookup

    variants = lookup(module).variants
    if isinstance(format, str) and format in FORMATS:
        try:
            found = variants[format, strict]
        except (KeyError, TypeError):
            pass
        else:
            check_cap(format, len(found))
            return found
    check_format(format)
    msg = f"strict must be True or False, not {strict!r}"
    raise ValueError(msg)


def describe(module: ModuleRef) -> FrozenList:
    """``[{"module", "name", "description", "parameters"}]``: the tools without an envelope."""
    from toolcall._load.warm import lookup

    return lookup(module).describe


def tool_names(module: ModuleRef) -> tuple[str, ...]:
    """The module's tool names, in definition order."""
    from toolcall._load.warm import lookup

    return lookup(module).tool_names


def derive(fn: Callable[..., Any]) -> ir.Tool:
    """The IR of any annotated function, for tools built while the program runs."""
    from toolcall._load.cold import derive as _derive

    return _derive(fn)


def render(tool: ir.Tool, format: str = "openai", *, strict: bool = False) -> dict[str, Any]:
    """Render one ``ir.Tool`` on demand (a fresh, mutable dict each call)."""
    from toolcall._render.formats import render as _render

    return _render(tool, format, strict)
