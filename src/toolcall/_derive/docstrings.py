"""A raw docstring -> the tool description and the per-parameter descriptions.

Users document parameters in whichever style their project already uses, so every common one
is recognised without configuration: Google (``Args:``), NumPy (``Parameters`` + dashes),
Sphinx (``:param name:``) and Markdown (``## Parameters`` + bullets). Each style has its own
scanner over the cleaned lines; their entries are merged in line order so that the first
mention of a name wins whatever style it was written in.

The parser is total: any string gives an answer, never an exception, because a docstring is
user text and a derivation must not die of its formatting.
"""

from __future__ import annotations

import inspect
import re
from typing import Final

__all__ = ["parse_docstring"]

_PARAM_TITLES: Final = frozenset(
    {
        "args",
        "arguments",
        "parameters",
        "params",
        "keyword args",
        "keyword arguments",
        "other args",
        "other arguments",
        "other parameters",
        "other params",
    }
)
"""Section titles (lower case, no colon) whose entries document parameters, in every style."""

_OTHER_GOOGLE_TITLES: Final = frozenset(
    {
        "attention",
        "attributes",
        "caution",
        "danger",
        "error",
        "example",
        "examples",
        "hint",
        "important",
        "methods",
        "note",
        "notes",
        "raise",
        "raises",
        "receive",
        "receives",
        "references",
        "return",
        "returns",
        "see also",
        "tip",
        "todo",
        "warning",
        "warnings",
        "warn",
        "warns",
        "yield",
        "yields",
    }
)
"""Google section titles that end a parameter section (and the description)."""

_GOOGLE_TITLES: Final = _PARAM_TITLES | _OTHER_GOOGLE_TITLES

_NAME: Final = r"(?:\\?\*){0,2}[^\W\d]\w*"
"""A parameter name as written: ``*args`` / ``**kwargs`` (stars optionally escaped) allowed."""

_TYPE: Final = r"\((?:[^()]|\([^()]*\))*\)"
"""A parenthesised type, one level of inner parentheses allowed: ``(dict[str, int])``."""

_HEADING: Final = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_CLOSING_HASHES: Final = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_UNDERLINE: Final = re.compile(r"-{3,}|={3,}")
_DASHES: Final = re.compile(r"-{3,}")
_FIELD: Final = re.compile(r":[^\W\d][\w-]*(?:[ \t][^:]*)?:(?:\s|$)")
_SPHINX_PARAM: Final = re.compile(
    r":(?:param|parameter|arg|argument|key|keyword)[ \t]+([^:\s][^:]*):(.*)"
)
_GOOGLE_ENTRY: Final = re.compile(rf"({_NAME})(?:\s*{_TYPE})?\s*:(.*)")
_NUMPY_ENTRY: Final = re.compile(rf"({_NAME}(?:\s*,\s*{_NAME})*)\s*(?::.*)?")
_BULLET: Final = re.compile(r"[*+-][ \t]+(.*)")
_MARKDOWN_ENTRY: Final = re.compile(
    rf"(`?)({_NAME})\1(?:\s*{_TYPE})?\s*[-\u2013\u2014](?:\s+(.*)|$)"
)

_Entry = tuple[int, str, list[str]]
"""(line index, parameter name, text fragments still growing while the scan continues)."""


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Return (description, {parameter name: text}) from a raw docstring.

    The description is the first paragraph with its lines joined by single spaces; leading
    Markdown headings are dropped in favour of the text under them, and a docstring that opens
    with a parameter or other section has no description. Entry texts are whitespace-normalised;
    empty entries are left out so that they never hide a fallback description.
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    entries: list[_Entry] = []
    if ":" in doc:
        entries += _google(lines)
        entries += _sphinx(lines)
    if "---" in doc:
        entries += _numpy(lines)
    if "#" in doc:
        entries += _markdown(lines)
    entries.sort(key=lambda entry: entry[0])
    params: dict[str, str] = {}
    for _, name, parts in entries:
        if name not in params:
            text = " ".join(" ".join(parts).split())
            if text:
                params[name] = text
    return _description(lines), params


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _first_line_aware_indent(lines: list[str], index: int) -> int:
    """The indentation that lines nested under ``lines[index]`` must exceed.

    The first line's own indentation is lost (it follows the quotes), and the dedent sized on
    the other lines can leave its block at column 0 (``Args:`` on the quotes' line, then the
    entries), so everything after the first line counts as nested under it.
    """
    return _indent(lines[index]) if index else -1


def _heading(line: str) -> tuple[int, str] | None:
    """(level, lower-case title without closing hashes or trailing colon) of an ATX heading."""
    match = _HEADING.match(line)
    if match is None:
        return None
    title = _CLOSING_HASHES.sub("", line[match.end() :]).strip().rstrip(":").strip()
    return len(match.group(1)), title.lower()


def _google_title(stripped: str) -> str | None:
    if not stripped.endswith(":"):
        return None
    title = " ".join(stripped[:-1].split()).lower()
    return title if title in _GOOGLE_TITLES else None


def _underlined(lines: list[str], index: int, underline: re.Pattern[str]) -> bool:
    """Whether ``lines[index]`` is a section title underlined by the next line."""
    return (
        index + 1 < len(lines)
        and bool(lines[index].strip())
        and underline.fullmatch(lines[index + 1].strip()) is not None
        and underline.fullmatch(lines[index].strip()) is None
    )


def _starts_section(lines: list[str], index: int) -> bool:
    line = lines[index]
    stripped = line.strip()
    return (
        _heading(line) is not None
        or _google_title(stripped) is not None
        or _FIELD.match(stripped) is not None
        or _underlined(lines, index, _UNDERLINE)
    )


def _description(lines: list[str]) -> str:
    index, count = 0, len(lines)
    while index < count:
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        heading = _heading(line)
        if heading is not None:
            if heading[0] >= 2 and heading[1] in _PARAM_TITLES:
                return ""
            index += 1
        elif _underlined(lines, index, _UNDERLINE):
            if " ".join(line.split()).lower() in _PARAM_TITLES:
                return ""
            index += 2
        else:
            break
    paragraph: list[str] = []
    while index < count and lines[index].strip() and not _starts_section(lines, index):
        paragraph.append(lines[index].strip())
        index += 1
    return " ".join(paragraph)


def _clean_name(name: str) -> str:
    return name.replace("\\", "").lstrip("*")


def _google(lines: list[str]) -> list[_Entry]:
    """``Args:`` sections: ``name: text`` / ``name (type): text`` entries, deeper lines joined."""
    entries: list[_Entry] = []
    index, count = 0, len(lines)
    while index < count:
        header = lines[index]
        index += 1
        if _google_title(header.strip()) not in _PARAM_TITLES:
            continue
        header_indent = _first_line_aware_indent(lines, index - 1)
        entry_indent: int | None = None
        current: _Entry | None = None
        while index < count:
            line = lines[index]
            stripped = line.strip()
            if not stripped:
                index += 1
                continue
            indent = _indent(line)
            if indent <= header_indent or _google_title(stripped) is not None:
                break
            if entry_indent is None:
                entry_indent = indent
            if indent <= entry_indent:
                match = _GOOGLE_ENTRY.fullmatch(stripped)
                current = None
                if match is not None:
                    current = (index, _clean_name(match.group(1)), [match.group(2)])
                    entries.append(current)
            elif current is not None:
                current[2].append(stripped)
            index += 1
    return entries


def _numpy(lines: list[str]) -> list[_Entry]:
    """``Parameters`` + dashes sections: ``name : type`` lines, the text on deeper lines."""
    entries: list[_Entry] = []
    index, count = 0, len(lines)
    while index < count:
        header = lines[index]
        if not _underlined(lines, index, _DASHES) or (
            " ".join(header.split()).lower() not in _PARAM_TITLES
        ):
            index += 1
            continue
        header_indent = _indent(header)
        index += 2
        parts: list[str] | None = None
        while index < count:
            line = lines[index]
            stripped = line.strip()
            if not stripped:
                index += 1
                continue
            indent = _indent(line)
            if indent < header_indent or _underlined(lines, index, _DASHES):
                break
            if indent == header_indent:
                match = _NUMPY_ENTRY.fullmatch(stripped)
                parts = None
                if match is not None:
                    parts = []
                    for name in match.group(1).split(","):
                        entries.append((index, _clean_name(name.strip()), parts))
            elif parts is not None:
                parts.append(stripped)
            index += 1
    return entries


def _sphinx(lines: list[str]) -> list[_Entry]:
    """``:param [type] name: text`` fields; deeper lines up to a blank line are joined."""
    entries: list[_Entry] = []
    current: _Entry | None = None
    field_indent = 0
    for index, line in enumerate(lines):
        stripped = line.strip()
        match = _SPHINX_PARAM.fullmatch(stripped)
        name = _clean_name(match.group(1).split()[-1]) if match is not None else ""
        if match is not None and name.isidentifier():
            field_indent = _first_line_aware_indent(lines, index)
            current = (index, name, [match.group(2)])
            entries.append(current)
        elif (
            current is not None
            and stripped
            and _indent(line) > field_indent
            and _FIELD.match(stripped) is None
        ):
            current[2].append(stripped)
        else:
            current = None
    return entries


def _markdown(lines: list[str]) -> list[_Entry]:
    """``## Parameters`` sections of ``* name - text`` bullets; nested bullets are not entries."""
    entries: list[_Entry] = []
    index, count = 0, len(lines)
    while index < count:
        heading = _heading(lines[index])
        index += 1
        if heading is None or heading[0] < 2 or heading[1] not in _PARAM_TITLES:
            continue
        top_indent: int | None = None
        current: _Entry | None = None
        bullet_indent = 0
        while index < count:
            line = lines[index]
            stripped = line.strip()
            if not stripped:
                current = None
                index += 1
                continue
            if _heading(line) is not None:
                break
            indent = _indent(line)
            bullet = _BULLET.fullmatch(stripped)
            if bullet is not None:
                current = None
                if top_indent is None or indent <= top_indent:
                    top_indent = bullet_indent = indent
                    match = _MARKDOWN_ENTRY.fullmatch(bullet.group(1))
                    if match is not None:
                        current = (index, _clean_name(match.group(2)), [match.group(3) or ""])
                        entries.append(current)
            elif current is not None and indent > bullet_indent:
                current[2].append(stripped)
            else:
                current = None
            index += 1
    return entries
