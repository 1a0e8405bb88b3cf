"""A raw docstring -> the tool description and the per-parameter descriptions.

Users document parameters in whichever style their project already uses, so every common one
is recognised without configuration: Google (``Args:``), NumPy (``Parameters`` + dashes),
Sphinx (``:param name:``) and Markdown (``## Parameters`` + bullets). Each style has its own
scanner over the cleaned lines; their entries are merged in line order so that the first
mention of a name wins whatever style it was written in.

Code examples (``>>>`` sessions, ``::`` literal blocks, code directives and fences) are blanked
before the scanners run: a docstring that shows how to document a function is not documenting
its own parameters.

A parameter section none of whose entries can be read is reported as ``unread`` rather than
dropped, so that the caller can still send its text to the model and warn.

The parser is total: any string gives an answer, never an exception, because a docstring is
user text and a derivation must not die of its formatting. Its regular expressions are compiled
on the first parse, not at import, so that importing toolcall stays cheap.
"""

from __future__ import annotations

import inspect
from typing import Final

import msgspec

from toolcall._derive.docstring_styles import (
    NUMPY_PARAM_TITLES,
    PARAM_TITLES,
    Entry,
    Section,
    google,
    heading_of,
    indent_of,
    markdown,
    numpy,
    patterns,
    sphinx,
    starts_section,
    underlined,
)

__all__ = ["Docstring", "parse_docstring", "read_docstring"]


class Docstring(msgspec.Struct, frozen=True):
    """What a docstring says about a tool.

    ``unread`` is the text of the parameter sections (title included) from which no entry
    could be read, ``""`` when there are none: the caller keeps it in the tool description
    (``tool_description``) so the model still sees it, and warns.
    """

    description: str
    params: dict[str, str]
    unread: str = ""
    body: str = ""
    """The whole cleaned docstring without the parameter sections it read (unread ones stay),
    for ``__toolcall_description__ = "full"``."""

    @property
    def tool_description(self) -> str:
        """The description, followed by any unread parameter section."""
        return "\n\n".join(part for part in (self.description, self.unread) if part)


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Return (description, {parameter name: text}) from a raw docstring.

    The description is the first paragraph with its lines joined by single spaces; leading
    Markdown headings are dropped in favour of the text under them, and a docstring that opens
    with a parameter or other section has no description. Entry texts are whitespace-normalised;
    empty entries are left out so that they never hide a fallback description.
    """
    read = read_docstring(doc)
    return read.description, read.params


def read_docstring(doc: str | None) -> Docstring:
    """``parse_docstring``'s answer plus the parameter sections it could not read."""
    if not doc:
        return Docstring("", {})
    lines = inspect.cleandoc(doc.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    code_free = _without_code(lines) if any(mark in doc for mark in _CODE_MARKS) else lines
    entries: list[Entry] = []
    sections: list[Section] = []
    for applies, scanner in (
        (":" in doc, google),
        ("---" in doc, numpy),
        ("#" in doc, markdown),
    ):
        if applies:
            found, spans = scanner(code_free)
            entries += found
            sections += spans
    fields: list[Section] = []
    if ":" in doc and patterns().field_line.search("\n".join(code_free)) is not None:
        found, fields = sphinx(code_free)
        entries += found
    entries.sort(key=lambda entry: entry[0])
    params: dict[str, str] = {}
    for _, name, parts in entries:
        if name not in params:
            text = " ".join(" ".join(parts).split())
            if text:
                params[name] = text
    return Docstring(
        _description(lines),
        params,
        _unread(lines, sections, entries),
        _body(lines, [*_read(sections, entries), *fields]),
    )


def _read(sections: list[Section], entries: list[Entry]) -> list[Section]:
    """The sections from which at least one entry was read."""
    return [
        (start, end)
        for start, end in set(sections)
        if any(start < index < end for index, _, _ in entries)
    ]


def _body(lines: list[str], removed: list[Section]) -> str:
    """``lines`` without the ``removed`` spans, runs of blank lines collapsed to one."""
    gone = {index for start, end in removed for index in range(start, end)}
    kept: list[str] = []
    for index, line in enumerate(lines):
        if index in gone or (not line.strip() and (not kept or not kept[-1].strip())):
            continue
        kept.append(line)
    return "\n".join(kept).strip()


def _unread(lines: list[str], sections: list[Section], entries: list[Entry]) -> str:
    """The text of the sections with a body but no entry, in line order."""
    texts: list[str] = []
    for start, end in sorted(set(sections)):
        has_body = any(line.strip() for line in lines[start + 1 : end])
        if has_body and not any(start < index < end for index, _, _ in entries):
            body = lines[start:end]
            while not body[-1].strip():
                body.pop()
            margin = min(indent_of(line) for line in body if line.strip())
            texts.append("\n".join(line[margin:] for line in body))
    return "\n\n".join(texts)


_CODE_MARKS: Final = (">>>", "::", "```", "~~~")
"""Substrings without which a docstring has no code example to blank."""


def _without_code(lines: list[str]) -> list[str]:
    """``lines`` with code examples blanked (index-preserving), so no scanner reads them.

    Blanked: ``>>>`` sessions up to the next blank line, the indented block after a line ending
    in ``::`` or after a code directive, and fenced blocks.
    """
    rx = patterns()
    out = list(lines)
    index, count = 0, len(lines)
    while index < count:
        stripped = lines[index].strip()
        start = index
        if stripped.startswith(">>>"):
            session_indent = indent_of(lines[index])
            while (
                index < count and lines[index].strip() and indent_of(lines[index]) >= session_indent
            ):
                index += 1
        elif stripped[:3] in ("```", "~~~"):
            mark = stripped[:3]
            index += 1
            while index < count and not lines[index].strip().startswith(mark):
                index += 1
            index += 1
        elif stripped.endswith("::") or rx.code_directive.fullmatch(stripped) is not None:
            literal_indent = indent_of(lines[index])
            index += 1
            while index < count and (
                not lines[index].strip() or indent_of(lines[index]) > literal_indent
            ):
                index += 1
            start += 1
        else:
            index += 1
            continue
        for blank in range(start, min(index, count)):
            out[blank] = ""
    return out


def _description(lines: list[str]) -> str:
    index, count = 0, len(lines)
    while index < count:
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        heading = heading_of(line)
        if heading is not None:
            if heading[1] in PARAM_TITLES:
                return ""
            index += 1
        elif underlined(lines, index, patterns().underline):
            if " ".join(line.split()).lower() in NUMPY_PARAM_TITLES:
                return ""
            index += 2
        else:
            break
    paragraph: list[str] = []
    while index < count and lines[index].strip() and not starts_section(lines, index):
        paragraph.append(lines[index].strip())
        index += 1
    return " ".join(paragraph)
