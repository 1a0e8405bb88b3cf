"""Which text describes a tool, a parameter or a field: the precedence, in one place.

Parameters (SPEC 2 and 3b): ``@toolcall.param``, then ``Param`` in the annotation, then a
description in the annotation's metadata (``Field(description=...)``, ``Doc``,
``msgspec.Meta``, a plain string), then a ``Field`` default's description, then the
docstring's entry, then the doc of the declared type. Fields follow the same order, their
attribute docstring standing where a parameter's docstring entry stands; a field never
inherits its type's doc. The first source that says anything wins, ``""`` included, so
``Param(description="")`` suppresses every fallback.

A tool's description is ``@toolcall.tool(description=...)``, else the docstring's first
paragraph, or, with ``__toolcall_description__ = "full"`` in the module, the whole docstring
except its parameter sections (real MCP tools put usage guidance after the first paragraph).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any, Final

from toolcall._derive.annotations import doc_metadata, param_override
from toolcall._derive.docstrings import read_docstring
from toolcall._markers import Param

__all__ = ["DESCRIPTION_MODES", "field_description", "parameter_description", "tool_description"]

DESCRIPTION_MODES: Final = ("summary", "full")

_PARAM_TITLES: Final = frozenset(
    {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments"}
)
_HEADING: Final = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*:?[ \t]*$")
_SPHINX_PARAM: Final = re.compile(r":(?:param|parameter|arg|argument|key|keyword|type)\b")


def parameter_description(
    *,
    decorator: Param | None,
    extras: tuple[Any, ...],
    default_field: Any,
    doc_entry: str | None,
    type_doc: Callable[[], str],
) -> str:
    """The description of one parameter; ``type_doc`` is called only when nothing else says."""
    if decorator is not None and decorator.description is not None:
        return decorator.description
    found = _annotated(extras)
    if found is not None:
        return found
    if default_field is not None and default_field.description is not None:
        return str(default_field.description)
    if doc_entry:
        return doc_entry
    return type_doc()


def field_description(extras: tuple[Any, ...], attribute_doc: str) -> str:
    """The description of an object's field: its metadata, else its attribute docstring."""
    found = _annotated(extras)
    return attribute_doc if found is None else found


def _annotated(extras: tuple[Any, ...]) -> str | None:
    override = param_override(extras)
    if override is not None and override.description is not None:
        return override.description
    return doc_metadata(extras)


def tool_description(override: str | None, raw_doc: str | None, mode: str) -> str:
    """The tool's description (see the module docstring)."""
    if override is not None:
        return override
    read = read_docstring(raw_doc)
    if mode != "full" or not raw_doc:
        return read.tool_description
    return _without_parameter_sections(raw_doc) or read.tool_description


def _without_parameter_sections(doc: str) -> str:
    """The cleaned docstring minus its parameter sections, in every style the parser reads.

    A Google ``Args:`` block ends at the first non-blank line indented no deeper than its
    title; a NumPy ``Parameters`` block (title underlined with dashes) at the next underlined
    title; a Markdown ``## Parameters`` block at the next heading of the same or a higher
    level; Sphinx ``:param x:`` / ``:type x:`` fields at the first line that is not indented
    under them. Blank lines left on either side of a removed block collapse into one.
    """
    lines = inspect.cleandoc(doc.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    kept: list[str] = []
    index, count = 0, len(lines)
    while index < count:
        line = lines[index]
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        heading = _HEADING.fullmatch(line)
        end = index
        if stripped.endswith(":") and " ".join(stripped[:-1].split()).lower() in _PARAM_TITLES:
            end = index + 1
            while end < count and (
                not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
            ):
                end += 1
        elif (
            stripped.lower() in _PARAM_TITLES
            and index + 1 < count
            and re.fullmatch(r"-{3,}", lines[index + 1].strip())
        ):
            end = index + 2
            while end < count and not (
                lines[end].strip()
                and end + 1 < count
                and re.fullmatch(r"[-=]{3,}", lines[end + 1].strip())
            ):
                end += 1
        elif heading is not None and heading.group(2).lower() in _PARAM_TITLES:
            level = len(heading.group(1))
            end = index + 1
            while end < count:
                other = _HEADING.fullmatch(lines[end])
                if other is not None and len(other.group(1)) <= level:
                    break
                end += 1
        elif _SPHINX_PARAM.match(stripped):
            end = index + 1
            while (
                end < count
                and lines[end].strip()
                and (
                    len(lines[end]) - len(lines[end].lstrip()) > indent
                    or _SPHINX_PARAM.match(lines[end].strip())
                )
            ):
                end += 1
        if end == index:
            kept.append(line)
            index += 1
            continue
        index = end
    text = "\n".join(kept)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
