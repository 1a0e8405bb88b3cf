"""Every exception and warning toolcall defines, in one place.

::

    TypeError
     └── NotAToolModule        a module without ``__toolcall__ = True`` given to the API
    ValueError
     └── DiscoveryError        a marked file that cannot be imported under its name (CLI)
    UserWarning
     └── ToolcallWarning       a tool derived differently from what its code asks for

A model's mistakes are never exceptions: ``run`` answers them with ``Err`` (``ToolError``
lives with dispatch results, since it is data, not an exception).
"""

from __future__ import annotations

__all__ = ["DiscoveryError", "NotAToolModule", "ToolcallWarning"]


class NotAToolModule(TypeError):
    """The module does not declare ``__toolcall__ = True``."""


class DiscoveryError(ValueError):
    """A marked file was found that cannot be imported under its path's module name."""


class ToolcallWarning(UserWarning):
    """A tool was derived differently from what its code seems to ask for.

    Issued at derivation (never replayed from the cache), pointing at the function's
    file and line. ``toolcall check`` prints every one afresh and fails on any, for CI;
    ``warnings.simplefilter("error", toolcall.ToolcallWarning)`` makes them exceptions in a
    program, raised by the module's first ``emit``/``run`` (the hook never fails an import). (``python -W error::toolcall.ToolcallWarning`` cannot: ``-W`` is read before
    installed packages are importable, so Python ignores it.)
    """
