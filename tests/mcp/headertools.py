"""A tool whose schema declares an ``Mcp-Param`` header (the mcp SDK's ``x-mcp-header``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

__toolcall__ = True


def forecast(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    """The forecast for a region.

    Args:
        region: where, e.g. "eu"
    """
    return f"sunny in {region}"


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
