"""Every exception and warning toolcall defines, in one place.

::

    TypeError
     └── NotAToolModule        a module without ``__toolcall__ = True`` given to the API
    ValueError
     └── DiscoveryError        a marked file that cannot be imported under its name (CLI)
    UserWarning
     └── ToolcallWarning       a tool derived differently from what its code asks for
    Exception
     └── ToolRetry             raised by a tool: input the model can fix (``Err`` kind ``retry``)

A model's mistakes are never exceptions: ``run`` answers them with ``Err`` (``ToolError``
lives with dispatch results, since it is data, not an exception).
"""

from __future__ import annotations

__all__ = ["DiscoveryError", "NotAToolModule", "ToolRetry", "ToolcallWarning"]


class NotAToolModule(TypeError):
    """The module does not declare ``__toolcall__ = True``."""


class DiscoveryError(ValueError):
    """A marked file was found that cannot be imported under its path's module name."""


class ToolcallWarning(UserWarning):
    """A tool was derived differently from what its code seems to ask for.

    Issued at derivation (never replayed from the cache), pointing at the function's
    file and line. ``toolcall check`` prints every one afresh and fails on any, for CI;
    ``warnings.simplefilter("error", toolcall.ToolcallWarning)`` makes them exceptions in a
    program, raised by the module's first ``emit``/``run`` (the hook never fails an import).
    ``python -W error::toolcall.ToolcallWarning`` cannot: ``-W`` is read before installed
    packages are importable, so Python ignores it.
    """


class ToolRetry(Exception):
    """Raised by a tool for input the model can fix: ``raise toolcall.ToolRetry("no such city")``.

    ``run`` answers it as ``Err`` with kind ``retry`` and the message as it is, without
    logging it as a bug (a plain exception is logged at ERROR with its traceback). The
    framework adapters turn it into their own retry signal (pydantic-ai's ``ModelRetry``,
    FastMCP's ``ToolError``, the tool message of the Agents SDK and LangChain).
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
