"""What kind of class a class is, and the other rules every stage applies to live objects:
one home, so that derivation, the trust check and dispatch cannot disagree.

Each rule reads ``vars(cls)`` or ``sys.modules`` and imports nothing, so the warm path may
call it; this module imports nothing from toolcall.
"""

from __future__ import annotations

from typing import Any

__all__ = ["class_ref"]


def class_ref(cls: Any) -> str:
    """The ``module:qualname`` a dispatch plan finds the class back under."""
    return f"{getattr(cls, '__module__', '?')}:{getattr(cls, '__qualname__', repr(cls))}"
