"""toolcall: annotated Python functions as LLM tools.

Mark a module with ``__toolcall__ = True``; its public, annotated functions become tools.
``emit`` gives their definitions for OpenAI, Anthropic or MCP, ``run`` / ``arun`` dispatch
a model's call back to them with validation and errors a model can act on.
"""

from toolcall import _hook, ir
from toolcall._dispatch.result import Err, Ok, ToolError, encode_result
from toolcall._emit import derive, describe, emit, render, tool_names
from toolcall._errors import NotAToolModule, ToolcallWarning
from toolcall._hook import install, installed, uninstall
from toolcall._markers import Param, exclude, param
from toolcall._render.strict import check_strict
from toolcall._run import arun, run
from toolcall._toolbox import Toolbox

__all__ = [
    "Err",
    "NotAToolModule",
    "Ok",
    "Param",
    "ToolError",
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
    "tool_names",
    "uninstall",
]

_hook.autoinstall()
