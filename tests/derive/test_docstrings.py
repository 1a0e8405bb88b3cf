"""Docstring parsing: the description paragraph and the four parameter-doc styles."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolcall._derive.docstrings import parse_docstring

SPEC_EXAMPLE = """Get the forecast for a city.

    Args:
        city: city name, e.g. "Oslo"
        days: how many days ahead (1-7)
    """


def test_spec_example() -> None:
    """The SPEC's example docstring gives its description and both Google entries."""
    assert parse_docstring(SPEC_EXAMPLE) == (
        "Get the forecast for a city.",
        {"city": 'city name, e.g. "Oslo"', "days": "how many days ahead (1-7)"},
    )


@pytest.mark.parametrize("doc", [None, "", "   ", "\n\n  \n"])
def test_empty(doc: str | None) -> None:
    """An absent or blank docstring has no description and no entries."""
    assert parse_docstring(doc) == ("", {})


# --- description ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "description"),
    [
        ("One line.", "One line."),
        ("First line\n    second line.\n\n    Second paragraph.", "First line second line."),
        ("\n    Indented first\n      deeper line.\n    ", "Indented first deeper line."),
        ("Tabs\tkept  inside.\n", "Tabs    kept  inside."),
        ("Windows\r\nline endings.\r\n\r\nMore.", "Windows line endings."),
        ("# Weather\n\nGet the forecast.\n\nMore.", "Get the forecast."),
        ("# Weather\nGet the forecast\nfor a city.\n\nMore.", "Get the forecast for a city."),
        ("## Summary\nBody text\nhere.\n\nOther.", "Body text here."),
        ("### Overview\n\nBody.", "Body."),
        ("# Title\n\n## Overview\n\nBody.", "Body."),
        ("Summary\n-------\nBody.", "Body."),
        ("#hashtag is not a heading.", "#hashtag is not a heading."),
    ],
)
def test_description_paragraph(doc: str, description: str) -> None:
    """The description is the first paragraph, lines stripped and joined; headings dropped."""
    assert parse_docstring(doc)[0] == description


@pytest.mark.parametrize(
    "doc",
    [
        "Args:\n    city: the city",
        "Parameters\n----------\ncity : str\n    the city",
        ":param city: the city",
        "## Parameters\n* city - the city",
        "# Weather\n\n## Parameters\n* city - the city",
        "Returns:\n    the forecast",
    ],
)
def test_description_empty_when_docstring_opens_with_a_section(doc: str) -> None:
    """A docstring that begins with a parameter (or other) section has no description."""
    assert parse_docstring(doc)[0] == ""


@pytest.mark.parametrize(
    "doc",
    [
        "Get it.\nArgs:\n    city: the city",
        "Get it.\nParameters\n----------\ncity : str\n    the city",
        "Get it.\n:param city: the city",
        "Get it.\n## Parameters\n* city - the city",
        "Get it.\nReturns:\n    the forecast",
    ],
)
def test_description_stops_at_a_section_without_blank_line(doc: str) -> None:
    """The first paragraph ends where a section starts, even with no blank line before it."""
    assert parse_docstring(doc)[0] == "Get it."


# --- Google ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "header", ["Args:", "Arguments:", "Parameters:", "Keyword Args:", "Keyword Arguments:"]
)
def test_google_headers(header: str) -> None:
    """Every Google parameter section title is recognised."""
    doc = f"Do it.\n\n{header}\n    city: the city\n"
    assert parse_docstring(doc) == ("Do it.", {"city": "the city"})


def test_google_types_stars_and_continuations() -> None:
    """``name (type):`` entries, ``*args``/``**kwargs`` and deeper continuation lines."""
    doc = """Do it.

    Args:
        city (str): the city
            to look up,   spelled
            out.
        days (dict[str, tuple(int)], optional): how many
        *args: extra positionals
        **kwargs: extra keywords
        \\*\\*options: escaped stars
    """
    assert parse_docstring(doc)[1] == {
        "city": "the city to look up, spelled out.",
        "days": "how many",
        "args": "extra positionals",
        "kwargs": "extra keywords",
        "options": "escaped stars",
    }


def test_google_section_ends_at_dedent_or_new_section() -> None:
    """A dedent to the header's level or another section header ends the parameter section."""
    doc = """Do it.

    Args:
        a: first
    Returns:
        b: not a parameter
    Other Parameters:
        c: third
    Note:
        d: not a parameter
    Arguments:
        e: fifth
    f: not a parameter
    """
    assert parse_docstring(doc)[1] == {"a": "first", "c": "third", "e": "fifth"}


def test_google_blank_lines_and_unmatched_lines() -> None:
    """Blank lines stay inside the section; a non-entry line at entry level is skipped."""
    doc = """Do it.

    Args:
        a: first

        b: second
            continued
        this is not an entry
            nor is its continuation
        c: third
    """
    assert parse_docstring(doc)[1] == {"a": "first", "b": "second continued", "c": "third"}


def test_google_section_on_the_first_line() -> None:
    """A header on the quotes' line still owns the entries the dedent left at column 0."""
    doc = """Args:
        city: the city
            continued
        days: how many
    Returns:
        ignored: not a parameter
    """
    assert parse_docstring(doc) == ("", {"city": "the city continued", "days": "how many"})


# --- NumPy ----------------------------------------------------------------------------------


def test_numpy() -> None:
    """NumPy entries: ``name : type``, bare names, shared ``x, y``, texts on deeper lines."""
    doc = """Do it.

    Parameters
    ----------
    city : str
        The city
        to look up.
    x, y : float
        A coordinate.

    flag
        Bare name.
    *args, **kwargs
        Passed on.
    empty : int

    Other Parameters
    ----------------
    extra : int
        Extra.

    Returns
    -------
    result : dict
        Not a parameter.
    """
    assert parse_docstring(doc) == (
        "Do it.",
        {
            "city": "The city to look up.",
            "x": "A coordinate.",
            "y": "A coordinate.",
            "flag": "Bare name.",
            "args": "Passed on.",
            "kwargs": "Passed on.",
            "extra": "Extra.",
        },
    )


# --- Sphinx ---------------------------------------------------------------------------------


def test_sphinx() -> None:
    """``:param name:`` and ``:param type name:``; continuations joined; ``:type:`` ignored."""
    doc = """Do it.

    :param city: the city
        to look up
    :type city: str
    :param dict[str, int] counts: per key
    :param int days:how many
    :param *args: extra
    :returns: not a parameter
        continued
    :param late: last

        not joined after a blank line
    """
    assert parse_docstring(doc) == (
        "Do it.",
        {
            "city": "the city to look up",
            "counts": "per key",
            "days": "how many",
            "args": "extra",
            "late": "last",
        },
    )


def test_sphinx_field_on_the_first_line() -> None:
    """A field on the quotes' line still takes the continuation the dedent left at column 0."""
    doc = """:param city: the city
        continued
    :param days: how many
    """
    assert parse_docstring(doc) == ("", {"city": "the city continued", "days": "how many"})


def test_sphinx_aliases() -> None:
    """``:arg:``, ``:argument:``, ``:key:``, ``:keyword:``, ``:parameter:`` are parameters."""
    doc = ":arg a: A\n:argument b: B\n:key c: C\n:keyword d: D\n:parameter e: E"
    assert parse_docstring(doc)[1] == {"a": "A", "b": "B", "c": "C", "d": "D", "e": "E"}


# --- Markdown -------------------------------------------------------------------------------


def test_markdown_original_example() -> None:
    """The original design's example: two-space bullets with backticked names."""
    doc = """Get the forecast for a city.

    ## Parameters
      * `city` - city name, e.g. "Oslo"
      * `days` - how many days ahead (1-7)
    """
    assert parse_docstring(doc) == (
        "Get the forecast for a city.",
        {"city": 'city name, e.g. "Oslo"', "days": "how many days ahead (1-7)"},
    )


@pytest.mark.parametrize(
    "heading",
    ["## Parameters", "## Parameters:", "   ## Parameters", "### Parameters", "## Parameters ##"],
)
def test_markdown_heading_forms(heading: str) -> None:
    """Any level 2+ heading, a trailing colon and up to three spaces of indentation."""
    doc = f"Do it.\n\n{heading}\n* city - the city\n"
    assert parse_docstring(doc) == ("Do it.", {"city": "the city"})


@pytest.mark.parametrize("heading", ["# Parameters", "    ## Parameters", "Parameters"])
def test_markdown_not_a_parameter_heading(heading: str) -> None:
    """A level-1 heading, a four-space indented one, or plain text starts no section."""
    doc = f"Do it.\n\n{heading}\n* city - the city\n"
    assert parse_docstring(doc)[1] == {}


def test_markdown_bullets() -> None:
    """``*``/``+``/``-`` bullets, backticks optional, ``(Type)`` ignored, dashes of any width."""
    doc = """Do it.

    ## Parameters
    * city - the city
    + `days` - how many
    - zone (str) - the zone
    * `when` (datetime | None) - the time
    * `**kwargs` \u2013 extras
    * lang \u2014 the language
    * unit-name - not an identifier
    * Just prose, not an entry.
    """
    assert parse_docstring(doc)[1] == {
        "city": "the city",
        "days": "how many",
        "zone": "the zone",
        "when": "the time",
        "kwargs": "extras",
        "lang": "the language",
    }


def test_markdown_continuations_nested_and_blank_lines() -> None:
    """Continuations join; nested bullets and their lines are ignored; a blank line ends one."""
    doc = """Do it.

    ## Parameters
      * `city` - city name,
        spelled out
          and more.
          * nested - not a parameter
            nested continuation
        after the nested bullet
      * `days` - how many

        after a blank line
      * `zone` -
        text on the next line
    not indented, ends the bullet
      * `unit` - the unit
    """
    assert parse_docstring(doc)[1] == {
        "city": "city name, spelled out and more.",
        "days": "how many",
        "zone": "text on the next line",
        "unit": "the unit",
    }


def test_markdown_section_ends_at_next_heading() -> None:
    """Bullets under the next heading, of any level, are not parameters."""
    doc = """Do it.

    ## Parameters
    * city - the city

    ## Returns
    * value - not a parameter

    # Notes
    * other - not a parameter
    """
    assert parse_docstring(doc)[1] == {"city": "the city"}


# --- merging --------------------------------------------------------------------------------


def test_first_occurrence_wins_across_styles() -> None:
    """The entry closest to the top wins, whatever style wrote it; empty texts are skipped."""
    doc = """Do it.

    :param days: sphinx days
    :param zone:

    Args:
        city: google city
        days: google days
        zone: google zone

    ## Parameters
    * city - markdown city
    * unit - markdown unit
    """
    assert parse_docstring(doc)[1] == {
        "days": "sphinx days",
        "city": "google city",
        "zone": "google zone",
        "unit": "markdown unit",
    }


def test_whitespace_is_normalised() -> None:
    """Entry texts collapse runs of whitespace to one space and are stripped."""
    doc = "Args:\n    city:   the\u00a0\u00a0city \t here  \n"
    assert parse_docstring(doc)[1] == {"city": "the city here"}


# --- totality -------------------------------------------------------------------------------

_FRAGMENTS = st.sampled_from(
    [
        "Args:",
        "Parameters",
        "----------",
        "## Parameters:",
        "# Title",
        "* `x` (int) - ",
        "  - y - text",
        "    nested",
        ":param x:",
        ":param int",
        ":type x: int",
        "x, y : int",
        "Returns:",
        "(",
        ")",
        "`",
        "*",
        "**kwargs:",
        "\\*",
        "\t",
        "\r",
        "\n",
        " ",
        "",
        "\u2013",
        "\x00",
        "\ud800",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), st.lists(st.one_of(_FRAGMENTS, st.text(max_size=5))).map("".join)))
def test_never_raises(doc: str) -> None:
    """Any string parses into a (str, dict[str, str]) without raising."""
    description, params = parse_docstring(doc)
    assert isinstance(description, str)
    assert all(isinstance(k, str) and isinstance(v, str) and v for k, v in params.items())
