"""Which text describes a tool, a parameter or a field: the precedence, in one place.

Parameters (SPEC 2 and 3b): ``@toolcall.param``, then ``Param`` in the annotation, then a
description in the annotation's metadata (``Field(description=...)``, ``Doc``,
``msgspec.Meta``, a plain string), then the same read inside the arms of a union
(``Annotated[str, "text"] | None``), then a ``Field`` default's description, then the
docstring's entry, then the doc of the declared type. Fields follow the same order, their
attribute docstring standing where a parameter's docstring entry stands; a field never
inherits its type's doc. The first source that says anything wins, ``""`` included, so
``Param(description="")`` suppresses every fallback.

Arms that describe the value differently (``Annotated[int, "an id"] | Annotated[str, "a
name"]``) cannot all be the one description a property has: the first arm's is, and a
warning names the others, so nothing is dropped silently.

A tool's description is ``@toolcall.tool(description=...)``, else the docstring's first
paragraph, or, with ``__toolcall_description__ = "full"`` in the module, the whole docstring
except its parameter sections (real MCP tools put usage guidance after the first paragraph).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from toolcall._derive.annotations import doc_metadata, param_override
from toolcall._derive.docstrings import Docstring
from toolcall._markers import Param

__all__ = ["DESCRIPTION_MODES", "field_description", "parameter_description", "tool_description"]

DESCRIPTION_MODES: Final = ("summary", "full")


def parameter_description(
    *,
    decorator: Param | None,
    extras: tuple[Any, ...],
    arms: tuple[tuple[Any, ...], ...],
    default_field: Any,
    doc_entry: str | None,
    type_doc: Callable[[], str],
    warn: Callable[[str], None],
) -> str:
    """The description of one parameter; ``type_doc`` is called only when nothing else says.

    ``arms`` is ``arm_metadata`` of the annotation; ``warn`` gets the line saying which arm's
    description won, prefixed by the caller with the place."""
    if decorator is not None and decorator.description is not None:
        return decorator.description
    found = _annotated(extras)
    if found is None:
        found = _from_arms(arms, warn)
    if found is not None:
        return found
    if default_field is not None and default_field.description is not None:
        return str(default_field.description)
    if doc_entry:
        return doc_entry
    return type_doc()


def field_description(
    extras: tuple[Any, ...],
    arms: tuple[tuple[Any, ...], ...],
    attribute_doc: str,
    warn: Callable[[str], None],
) -> str:
    """The description of an object's field: its metadata (its arms' included), else its
    attribute docstring."""
    found = _annotated(extras)
    if found is None:
        found = _from_arms(arms, warn)
    return attribute_doc if found is None else found


def _annotated(extras: tuple[Any, ...]) -> str | None:
    override = param_override(extras)
    if override is not None and override.description is not None:
        return override.description
    return doc_metadata(extras)


def _from_arms(arms: tuple[tuple[Any, ...], ...], warn: Callable[[str], None]) -> str | None:
    """The first arm's description; the others, when they differ, are named in a warning."""
    said = list(dict.fromkeys(text for text in map(_annotated, arms) if text is not None))
    if len(said) > 1:
        warn(
            f"the union's arms are described differently ({', '.join(map(repr, said))}); "
            f"the first, {said[0]!r}, describes it and the rest are not sent (write one "
            'description for the whole annotation: Annotated[A | B, "text"])'
        )
    return said[0] if said else None


def tool_description(override: str | None, read: Docstring, mode: str) -> str:
    """The tool's description (see the module docstring), from its docstring as read."""
    if override is not None:
        return override
    if mode == "full":
        return read.body
    return read.tool_description
