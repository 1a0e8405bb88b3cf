"""A small marked project on disk (a package whose tools use a TypedDict from a sibling
module), shared by the tests that run it in real processes."""

from __future__ import annotations

import textwrap
from pathlib import Path

TYPES_SOURCE = '''
from typing import TypedDict


class Address(TypedDict):
    """A postal address."""

    street: str
    """Street and number."""
    city: str
'''

TOOLS_SOURCE = '''
from app.types_ import Address

__toolcall__ = True


def ship(to: Address, express: bool = False) -> str:
    """Ship a parcel.

    Args:
        express: pay for next-day delivery
    """
    return to["city"]


def loose(a, b):
    return a
'''

EMIT_ALL = textwrap.dedent(
    """
    import json, sys, toolcall, app.tools as m
    out = {f"{f}:{s}": toolcall.emit(m, f, strict=s)
           for f in ("openai", "anthropic", "mcp") for s in (False, True)}
    out["describe"] = toolcall.describe(m)
    print(json.dumps(out, sort_keys=True))
    """
)


def write_project(root: Path) -> Path:
    """``root/app/{__init__,types_,tools}.py``; returns ``root`` (the import root)."""
    app = root / "app"
    app.mkdir(parents=True)
    (app / "__init__.py").write_text("")
    (app / "types_.py").write_text(TYPES_SOURCE)
    (app / "tools.py").write_text(TOOLS_SOURCE)
    return root
