"""The scanners of each docstring style: Google, NumPy, Sphinx and Markdown.

Each scanner reads the cleaned, code-free lines of one docstring and returns its entries
(line, name, text) and the parameter sections it saw; ``docstrings`` merges them. The
patterns are compiled on the first parse (``patterns``), not at import.
"""

from __future__ import annotations

import functools
import re
from typing import Final

PARAM_TITLES: Final = frozenset(
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

NUMPY_PARAM_TITLES: Final = PARAM_TITLES | {"options"}
"""scipy documents a solver's keyword parameters in a NumPy ``Options`` section."""

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

_GOOGLE_TITLES: Final = PARAM_TITLES | _OTHER_GOOGLE_TITLES

_NAME: Final = r"(?:\\?\*){0,2}[^\W\d]\w*"
"""A parameter name as written: ``*args`` / ``**kwargs`` (stars optionally escaped) allowed."""

_MARKED_NAME: Final = rf"(`|\*\*)?({_NAME})(?(1)(?:`|\*\*))"
"""A name, optionally in backticks or bold (``**city**``); groups: the mark, the name."""

_TYPE: Final = r"\((?:[^()]|\([^()]*\))*\)"
"""A parenthesised type, one level of inner parentheses allowed: ``(dict[str, int])``."""

_LOOSE_TYPE: Final = r"\(.*?\)"
"""A type up to the first ``)`` that the separator follows: typos such as an extra ``)`` pass."""


class _Regexes:
    """The compiled patterns, built once by ``patterns()``."""

    def __init__(self) -> None:
        self.heading = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
        self.closing_hashes = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
        self.underline = re.compile(r"-{3,}|={3,}")
        self.dashes = re.compile(r"-{3,}")
        self.field = re.compile(r":[^\W\d][\w-]*(?:[ \t][^:]*)?:(?:\s|$)")
        # a line opening with a colon (``\s`` and ``str.strip`` agree on whitespace): without
        # one ``sphinx`` finds no field, and a Google docstring is not scanned for them
        self.field_line = re.compile(r"^\s*:", re.MULTILINE)
        self.sphinx_type = re.compile(r":type[ \t]+[^:\s][^:]*:")
        self.sphinx_param = re.compile(
            r":(?:param|parameter|arg|argument|key|keyword)[ \t]+([^:\s][^:]*):(.*)"
        )
        self.google_entry = re.compile(
            rf"{_MARKED_NAME}((?:\s*,\s*{_NAME})*)(?:\s*{_LOOSE_TYPE})?\s*:(.*)"
        )
        self.google_type_start = re.compile(rf"{_MARKED_NAME}\s*\(")
        self.numpy_entry = re.compile(rf"({_NAME}(?:\s*,\s*{_NAME})*)\s*(?::.*)?")
        self.bullet = re.compile(r"[*+-][ \t]+(.*)")
        self.markdown_dash = re.compile(
            rf"{_MARKED_NAME}(?:\s*{_TYPE})?\s*[-\u2013\u2014](?:\s+(.*)|$)"
        )
        self.markdown_colon = re.compile(rf"{_MARKED_NAME}(?:\s*{_LOOSE_TYPE})?\s*:\s*(.*)")
        self.code_directive = re.compile(
            r"\.\.[ \t]+(?:code|code-block|sourcecode|doctest|testcode|ipython)::.*"
        )


@functools.cache
def patterns() -> _Regexes:
    return _Regexes()


Entry = tuple[int, str, list[str]]
"""(line index, parameter name, text fragments still growing while the scan continues)."""

Section = tuple[int, int]
"""(title line index, index one past its last line) of a parameter section."""


def indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _first_line_aware_indent(lines: list[str], index: int) -> int:
    """The indentation that lines nested under ``lines[index]`` must exceed.

    The first line's own indentation is lost (it follows the quotes), and the dedent sized on
    the other lines can leave its block at column 0 (``Args:`` on the quotes' line, then the
    entries), so everything after the first line counts as nested under it.
    """
    return indent_of(lines[index]) if index else -1


def heading_of(line: str) -> tuple[int, str] | None:
    """(level, lower-case title without closing hashes or trailing colon) of an ATX heading."""
    rx = patterns()
    match = rx.heading.match(line)
    if match is None:
        return None
    title = rx.closing_hashes.sub("", line[match.end() :]).strip().rstrip(":").strip()
    return len(match.group(1)), title.lower()


def _google_title(stripped: str) -> str | None:
    if not stripped.endswith(":"):
        return None
    title = " ".join(stripped[:-1].split()).lower()
    return title if title in _GOOGLE_TITLES else None


def underlined(lines: list[str], index: int, underline: re.Pattern[str]) -> bool:
    """Whether ``lines[index]`` is a section title underlined by the next line."""
    return (
        index + 1 < len(lines)
        and bool(lines[index].strip())
        and underline.fullmatch(lines[index + 1].strip()) is not None
        and underline.fullmatch(lines[index].strip()) is None
    )


def starts_section(lines: list[str], index: int) -> bool:
    line = lines[index]
    stripped = line.strip()
    rx = patterns()
    return (
        heading_of(line) is not None
        or _google_title(stripped) is not None
        or rx.field.match(stripped) is not None
        or underlined(lines, index, rx.underline)
    )


def _clean_name(name: str) -> str:
    return name.replace("\\", "").lstrip("*")


def _names(match: re.Match[str]) -> list[str]:
    """The names of a Google entry: the first, then any listed after it (``x, y: text``)."""
    listed = match.group(3)
    if not listed:  # one name, as nearly every entry has
        return [_clean_name(match.group(2))]
    others = [name.strip() for name in listed.split(",") if name.strip()]
    return [_clean_name(name) for name in (match.group(2), *others)]


def _google_entry(lines: list[str], index: int, indent: int) -> tuple[re.Match[str], int] | None:
    """The entry starting at ``lines[index]`` and the index after its head, or None.

    A bullet mark before the name is skipped; a type that spans lines
    (``credentials (Union[A,`` then ``B]): text``) takes the deeper lines it needs.
    """
    rx = patterns()
    stripped = lines[index].strip()
    bullet = rx.bullet.fullmatch(stripped)
    head = bullet.group(1) if bullet is not None else stripped
    match = rx.google_entry.fullmatch(head)
    if match is not None:
        return match, index + 1
    if rx.google_type_start.match(head) is None:
        return None
    end = index + 1
    while end < len(lines) and end - index <= 5 and lines[end].strip():
        if indent_of(lines[end]) <= indent:
            return None
        head += " " + lines[end].strip()
        end += 1
        match = rx.google_entry.fullmatch(head)
        if match is not None:
            return match, end
    return None


def google(lines: list[str]) -> tuple[list[Entry], list[Section]]:
    """``Args:`` sections: ``name: text`` / ``name (type): text`` entries, deeper lines joined.

    Entries sit deeper than the title, or, when the first one is level with it (MCP servers
    write ``Parameters:`` then ``- name: text``), level with it up to the next blank line.
    A title-like line level with deeper entries (``args:``) is an entry, not a new section.
    """
    entries: list[Entry] = []
    sections: list[Section] = []
    index, count = 0, len(lines)
    while index < count:
        header = lines[index]
        index += 1
        if _google_title(header.strip()) not in PARAM_TITLES:
            continue
        start = index - 1
        header_indent = _first_line_aware_indent(lines, start)
        entry_indent: int | None = None
        flush = False
        current: list[str] | None = None
        while index < count:
            line = lines[index]
            stripped = line.strip()
            if not stripped:
                if flush:
                    break
                index += 1
                continue
            indent = indent_of(line)
            title = _google_title(stripped) is not None
            if entry_indent is None:
                flush = (
                    indent == header_indent
                    and not title
                    and _google_entry(lines, index, indent) is not None
                )
                if not flush and (indent <= header_indent or (title and header_indent < 0)):
                    break
                entry_indent = indent
            else:
                dedented = indent < header_indent or (indent == header_indent and not flush)
                retitled = title and (header_indent < 0 or flush) and indent <= entry_indent
                if dedented or retitled:
                    break
            if indent <= entry_indent:
                found = _google_entry(lines, index, indent)
                current = None
                if found is None or (flush and _prose_in_flush(stripped, found[0])):
                    if flush:
                        break
                    index += 1
                    continue
                match, after = found
                current = [match.group(4)]
                entries += [(index, name, current) for name in _names(match)]
                index = after
                continue
            if current is not None:
                current.append(stripped)
            index += 1
        sections.append((start, index))
    return entries, sections


def _prose_in_flush(stripped: str, match: re.Match[str]) -> bool:
    """Whether a bare line level with a ``PARAMETERS:`` title is prose (``Note: ...``)."""
    return patterns().bullet.fullmatch(stripped) is None and match.group(2).lower() in (
        _OTHER_GOOGLE_TITLES
    )


def numpy(lines: list[str]) -> tuple[list[Entry], list[Section]]:
    """``Parameters`` + dashes sections: ``name : type`` lines, the text on deeper lines."""
    rx = patterns()
    entries: list[Entry] = []
    sections: list[Section] = []
    index, count = 0, len(lines)
    while index < count:
        header = lines[index]
        if not underlined(lines, index, rx.dashes) or (
            " ".join(header.split()).lower() not in NUMPY_PARAM_TITLES
        ):
            index += 1
            continue
        start = index
        header_indent = indent_of(header)
        index += 2
        parts: list[str] | None = None
        while index < count:
            line = lines[index]
            stripped = line.strip()
            if not stripped:
                index += 1
                continue
            indent = indent_of(line)
            if indent < header_indent or underlined(lines, index, rx.dashes):
                break
            if indent == header_indent:
                match = rx.numpy_entry.fullmatch(stripped)
                parts = None
                if match is not None:
                    parts = []
                    for name in match.group(1).split(","):
                        entries.append((index, _clean_name(name.strip()), parts))
            elif parts is not None:
                parts.append(stripped)
            index += 1
        sections.append((start, index))
    return entries, sections


def sphinx(lines: list[str]) -> tuple[list[Entry], list[Section]]:
    """``:param [type] name[=default]: text`` fields and the body under each, and the span
    of every parameter field (``:type name:`` fields included).

    The body is the deeper lines, a line level with the field that directly follows it, and,
    after a blank line, a paragraph indented like the body already is (or any indented
    paragraph when the field line had no text). A one-line field followed by an indented
    paragraph keeps the one line: that paragraph is as often about the whole list.
    """
    rx = patterns()
    entries: list[Entry] = []
    spans: list[Section] = []
    current: Entry | None = None
    field_indent = 0
    body_indent: int | None = None
    after_blank = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            after_blank = True
            continue
        if rx.sphinx_type.match(stripped) is not None:
            spans.append((index, index + 1))
            current = None
            after_blank = False
            continue
        match = rx.sphinx_param.fullmatch(stripped)
        words = match.group(1).partition("=")[0].split() if match is not None else []
        name = _clean_name(words[-1]) if words else ""
        indent = indent_of(line)
        if match is not None and name.isidentifier():
            field_indent = _first_line_aware_indent(lines, index)
            body_indent = None
            current = (index, name, [match.group(2)])
            entries.append(current)
            spans.append((index, index + 1))
        elif current is None or rx.field.match(stripped) is not None:
            current = None
        elif not after_blank and (
            indent > field_indent or (indent == field_indent and not starts_section(lines, index))
        ):
            body_indent = indent if body_indent is None and indent > field_indent else body_indent
            current[2].append(stripped)
            spans[-1] = (spans[-1][0], index + 1)
        elif (
            after_blank
            and indent > field_indent
            and not starts_section(lines, index)
            and (
                (body_indent is not None and indent >= body_indent)
                or (body_indent is None and not "".join(current[2]).strip())
            )
        ):
            body_indent = indent if body_indent is None else body_indent
            current[2].append(stripped)
            spans[-1] = (spans[-1][0], index + 1)
        else:
            current = None
        after_blank = False
    return entries, spans


def markdown(lines: list[str]) -> tuple[list[Entry], list[Section]]:
    """``# Parameters`` sections of bullets; nested bullets are not entries.

    Under a ``##`` (or deeper) heading a bullet is ``name - text`` or ``name: text``; under a
    level-1 heading, whose dash form is too often a title's subtitle, only ``name: text``.
    A section without bullets may list ``name: text`` lines (Keras writes ``# Arguments``).
    """
    rx = patterns()
    entries: list[Entry] = []
    sections: list[Section] = []
    index, count = 0, len(lines)
    while index < count:
        heading = heading_of(lines[index])
        index += 1
        if heading is None or heading[1] not in PARAM_TITLES:
            continue
        start = index - 1
        forms = (rx.markdown_dash, rx.markdown_colon) if heading[0] >= 2 else (rx.markdown_colon,)
        top_indent: int | None = None
        bullets = False
        current: Entry | None = None
        entry_indent = 0
        while index < count:
            line = lines[index]
            stripped = line.strip()
            if not stripped:
                current = None
                index += 1
                continue
            if heading_of(line) is not None:
                break
            indent = indent_of(line)
            bullet = rx.bullet.fullmatch(stripped)
            if bullet is not None:
                bullets = True
                current = None
                if top_indent is None or indent <= top_indent:
                    top_indent = entry_indent = indent
                    for form in forms:
                        match = form.fullmatch(bullet.group(1))
                        if match is not None:
                            name = _clean_name(match.group(2))
                            current = (index, name, [match.group(3) or ""])
                            entries.append(current)
                            break
            elif current is not None and indent > entry_indent:
                current[2].append(stripped)
            elif not bullets and (top_indent is None or indent <= top_indent):
                match = rx.markdown_colon.fullmatch(stripped)
                current = None
                if match is not None and match.group(2).lower() not in _OTHER_GOOGLE_TITLES:
                    top_indent = entry_indent = indent
                    current = (index, _clean_name(match.group(2)), [match.group(3)])
                    entries.append(current)
            else:
                current = None
            index += 1
        sections.append((start, index))
    return entries, sections
