"""A function's annotations as derivation reads them: evaluated one by one where they must
be, the name an annotation's source text declares, and an annotation shown in a warning."""

from __future__ import annotations

import ast
import inspect
import typing
from collections.abc import Callable
from typing import Any

from toolcall._signatures import annotations_of

__all__ = ["declared_name", "evaluated_hints", "shown"]


def declared_name(text: str) -> str | None:
    """``Location``, ``Location | None``, ``Optional[Location]`` -> ``Location``."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return declared_name(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [n for n in (node.left, node.right) if not _is_none(n)]
        node = sides[0] if len(sides) == 1 else node
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name | ast.Attribute):
        head = node.value.id if isinstance(node.value, ast.Name) else node.value.attr
        if head == "Optional":
            node = node.slice
        elif head == "Union" and isinstance(node.slice, ast.Tuple):
            sides = [n for n in node.slice.elts if not _is_none(n)]
            if len(sides) == 1:
                node = sides[0]
    return node.id if isinstance(node, ast.Name) else None


def shown(obj: Any) -> str:
    """An annotation or an exception in a warning: one line, bounded."""
    try:
        text = str(obj).replace("typing.", "").replace("\n", " ")
    except Exception:
        text = f"<{type(obj).__name__}>"
    return text if len(text) <= 200 else text[:197] + "..."


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def evaluated_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """Evaluated annotations; one bad forward reference must not lose the others."""
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
