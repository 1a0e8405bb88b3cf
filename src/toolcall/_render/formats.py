"""Rendering whole modules and single tools: the walker's schemas in each format's envelope.

The walker (``schema``) produces one arguments schema per tool and strict value; each
format only wraps it (``envelope``, where the format decisions are written down).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolcall import ir
from toolcall._frozen import FrozenList, freeze
from toolcall._render.envelope import describe_item as _describe
from toolcall._render.envelope import envelope as _envelope
from toolcall._render.schema import collect_strict_problems, parameters_schema
from toolcall._render.strict import strict_warnings
from toolcall._render.variants import Variants
from toolcall._shared.names import FORMATS, check_format

__all__ = ["describe_entry", "render", "render_schemas", "render_variants"]


def render(tool: ir.Tool, fmt: str, strict: bool = False) -> dict[str, Any]:
    """Return *tool*'s definition for *fmt* (one of ``FORMATS``), a fresh plain dict.

    This renders on every call; modules are rendered once by `render_variants` instead.

    Raises
    ------
    ValueError
        *fmt* is not one of ``FORMATS``.
    """
    check_format(fmt)
    return _envelope(tool, fmt, strict, parameters_schema(tool, strict=strict))


def describe_entry(tool: ir.Tool, module: str) -> dict[str, Any]:
    """Return *tool*'s ``describe`` entry: its module, name, description and schema."""
    return _describe(tool, module, parameters_schema(tool))


def render_schemas(
    tools: Sequence[ir.Tool], *, frozen: bool = True
) -> tuple[list[Any], list[Any], list[list[str]]]:
    """Each tool's arguments schema, frozen, for ``strict=False`` and ``strict=True``, and
    each tool's strict-mode warnings, found while its strict schema was rendered.

    This is all a module's variants hold beyond the IR's names: every format's list is
    these schemas in ``envelope``s, built when first asked for. ``frozen=False`` is for a
    caller that replaces them before anyone sees them (a cold entry takes its node table's
    schemas instead), which would only freeze them to throw them away.
    """
    done = freeze if frozen else _as_is
    loose = [done(parameters_schema(tool)) for tool in tools]
    strict: list[Any] = []
    warnings: list[list[str]] = []
    for tool in tools:
        schema, problems = collect_strict_problems(tool)
        strict.append(done(schema))
        warnings.append(strict_warnings(tool.name, schema, problems))
    return loose, strict, warnings


def _as_is(value: Any) -> Any:
    return value


def render_variants(
    tools: Sequence[ir.Tool], module: str
) -> tuple[dict[tuple[str, bool], FrozenList], list[list[str]]]:
    """Render every variant of a module's tools once, as read-only lists in tool order.

    Keys are ``(fmt, strict)`` for every format in ``FORMATS`` and both strict values, plus
    ``("describe", False)``: every list ``Variants`` builds, built now. The second value
    holds each tool's strict-mode warnings, found while its strict schema was rendered.
    """
    loose, strict, warnings = render_schemas(tools)
    lists = Variants(tools, module, (loose, strict))
    keys = [(fmt, flag) for fmt in FORMATS for flag in (False, True)] + [("describe", False)]
    return {key: lists[key] for key in keys}, warnings
