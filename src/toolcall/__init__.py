"""toolcall: annotated Python functions as LLM tools.

Mark a module with ``__toolcall__ = True``; its public, annotated functions become tools.
``emit`` gives their definitions for OpenAI, Anthropic or MCP, ``run`` / ``arun`` dispatch
a model's call back to them with validation and errors a model can act on.

Only what a warm process needs is imported here (the hook, ``emit`` and friends, the
exceptions); every other public name is imported on first use (SPEC section 6, "Import
cost"), so ``import toolcall`` stays cheap for serverless and command-line agents.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolcall._api.emit import describe, emit, tool_names
from toolcall._errors import NotAToolModule, ToolcallWarning, ToolRetry
from toolcall._load import hook
from toolcall._load.hook import install, installed, uninstall

if TYPE_CHECKING:
    from toolcall import ir
    from toolcall._api.emit import derive, render
    from toolcall._api.run import arun, run
    from toolcall._api.toolbox import Toolbox, search
    from toolcall._api.toolsearch import ToolSearch
    from toolcall._dispatch.content import Audio, File, Image
    from toolcall._dispatch.result import Err, Ok, ToolError, encode_result
    from toolcall._markers import Injected, Param, exclude, param, tool
    from toolcall._render.strict import check_strict
    from toolcall._search.index import Hit, Ranker, SearchDocument
    from toolcall._version import __version__ as __version__

__all__ = [
    "Audio",
    "Err",
    "File",
    "Hit",
    "Image",
    "Injected",
    "NotAToolModule",
    "Ok",
    "Param",
    "Ranker",
    "SearchDocument",
    "ToolError",
    "ToolRetry",
    "ToolSearch",
    "Toolbox",
    "ToolcallWarning",
    "arun",
    "check_strict",
    "derive",
    "describe",
    "emit",
    "encode_result",
    "exclude",
    "install",
    "installed",
    "ir",
    "param",
    "render",
    "run",
    "search",
    "tool",
    "tool_names",
    "uninstall",
]

_LAZY: dict[str, str] = {
    "Err": "toolcall._dispatch.result",
    "Ok": "toolcall._dispatch.result",
    "ToolError": "toolcall._dispatch.result",
    "encode_result": "toolcall._dispatch.result",
    "Image": "toolcall._dispatch.content",
    "Audio": "toolcall._dispatch.content",
    "File": "toolcall._dispatch.content",
    "Param": "toolcall._markers",
    "exclude": "toolcall._markers",
    "param": "toolcall._markers",
    "Injected": "toolcall._markers",
    "tool": "toolcall._markers",
    "Toolbox": "toolcall._api.toolbox",
    "search": "toolcall._api.toolbox",
    "ToolSearch": "toolcall._api.toolsearch",
    "Hit": "toolcall._search.index",
    "Ranker": "toolcall._search.index",
    "SearchDocument": "toolcall._search.index",
    "arun": "toolcall._api.run",
    "run": "toolcall._api.run",
    "check_strict": "toolcall._render.strict",
    "derive": "toolcall._api.emit",
    "__version__": "toolcall._version",
    "render": "toolcall._api.emit",
}
"""Public names imported on first use, by the module that defines them."""


def __getattr__(name: str) -> Any:
    if name == "ir":
        return importlib.import_module("toolcall.ir")
    where = _LAZY.get(name)
    if where is None:
        msg = f"module 'toolcall' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


hook.autoinstall()
