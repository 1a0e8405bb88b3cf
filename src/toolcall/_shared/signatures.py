"""Signatures and annotations read without evaluating an annotation that cannot be evaluated.

Python 3.14 defers annotations (PEP 649/749): a module whose function names a class defined
later, or a name defined nowhere, imports fine, and the annotation is evaluated only when
someone reads ``__annotations__`` or asks ``inspect.signature``, which then raises
``NameError`` for the whole function. Reading them in ``annotationlib``'s ``FORWARDREF``
format instead gives every annotation that evaluates as its value and each one that does not
as a ``ForwardRef``, so one bad annotation costs one parameter, never the tool or the module.
Before 3.14 annotations are evaluated at definition time and these are the plain calls.
"""

from __future__ import annotations

import inspect
import sys
import typing
from collections.abc import Callable
from typing import Any

__all__ = ["annotations_of", "evaluated_hints", "signature"]

if sys.version_info >= (3, 14):
    import annotationlib

    def signature(fn: Callable[..., Any]) -> inspect.Signature:
        """``inspect.signature`` with annotations that fail to evaluate as ``ForwardRef``."""
        return inspect.signature(fn, annotation_format=annotationlib.Format.FORWARDREF)

    def annotations_of(obj: object) -> dict[str, Any]:
        """The annotations as values where they evaluate, ``ForwardRef`` where not."""
        try:
            return dict(annotationlib.get_annotations(obj, format=annotationlib.Format.FORWARDREF))
        except Exception:  # an object whose annotations are broken beyond a name error
            return {}

else:

    def signature(fn: Callable[..., Any]) -> inspect.Signature:
        """``inspect.signature``: annotations were evaluated when ``fn`` was defined."""
        return inspect.signature(fn)

    def annotations_of(obj: object) -> dict[str, Any]:
        """``__annotations__``: values, or strings under ``from __future__ import annotations``."""
        return dict(getattr(obj, "__annotations__", None) or {})


def evaluated_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """Evaluated annotations; one that does not resolve stays a ``ForwardRef`` (or its value)
    and never loses the others: derivation and dispatch both read them this way."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except Exception:
        pass
    raw = annotations_of(inspect.unwrap(fn))
    namespace = getattr(inspect.unwrap(fn), "__globals__", {})
    hints: dict[str, Any] = {}
    for name, value in raw.items():
        try:
            hints[name] = typing.get_type_hints(
                _Holder(name, value), globalns=namespace, include_extras=True
            )[name]
        except Exception:
            hints[name] = value if not isinstance(value, str) else typing.ForwardRef(value)
    return hints


class _Holder:
    """A stand-in carrying one annotation, so ``get_type_hints`` evaluates it alone."""

    def __init__(self, name: str, value: Any) -> None:
        self.__annotations__ = {name: value}
