"""Annotations as derivation reads them: the name an annotation's source text declares,
and an annotation shown in a warning (evaluating them is ``toolcall._shared.signatures``)."""

from __future__ import annotations

import ast
from typing import Any, Final

__all__ = ["declared_name", "shown"]

_CONSTANTS: Final = frozenset({"None", "True", "False"})
"""The names that parse as constants, not as names."""


def declared_name(text: str) -> str | None:
    """``Location``, ``Location | None``, ``Optional[Location]`` -> ``Location``."""
    # most annotations are one ASCII name (a non-ASCII one the parser would normalize)
    if text.isascii() and text.isidentifier() and text not in _CONSTANTS:
        return text
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
