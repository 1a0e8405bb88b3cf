"""Names every stage agrees on: the output formats and the rule a tool name must follow.

Kept apart from rendering so that the warm path (``emit`` on a cached module), the command
line and derivation can check a format or a name without importing the schema walker.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "EXCLUDE_ATTR",
    "FORMATS",
    "PARAMS_ATTR",
    "TOOL_ATTR",
    "TOOL_NAME_RULE",
    "check_format",
    "valid_tool_name",
]

FORMATS: Final[tuple[str, ...]] = ("openai", "anthropic", "mcp", "gemini", "bedrock")
"""Every ``format`` ``emit`` and ``render`` accept, in the order error messages list them."""

EXCLUDE_ATTR: Final = "__toolcall_exclude__"
PARAMS_ATTR: Final = "__toolcall_params__"
TOOL_ATTR: Final = "__toolcall_tool__"
"""The attributes ``@toolcall.exclude``, ``@toolcall.param`` and ``@toolcall.tool`` set on a
function; discovery reads the first on a warm load, without importing the markers."""

TOOL_NAME_RULE: Final = "^[a-zA-Z0-9_-]{1,64}$"
"""What OpenAI and Anthropic both require of a tool name."""


def valid_tool_name(name: str) -> bool:
    """Whether ``name`` follows :data:`TOOL_NAME_RULE` (ASCII only: ``\\w`` would admit more)."""
    return 1 <= len(name) <= 64 and re.fullmatch(r"[a-zA-Z0-9_-]+", name, re.ASCII) is not None


def check_format(fmt: object) -> str:
    """``fmt`` itself when it is a known format; otherwise the one ``ValueError`` for it."""
    if isinstance(fmt, str) and fmt in FORMATS:
        return fmt
    msg = f"unknown format {fmt!r}; expected one of: {', '.join(FORMATS)}"
    raise ValueError(msg)
