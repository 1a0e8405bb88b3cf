"""Docstring parsing: the description paragraph and the four parameter-doc styles."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from toolcall._derive.docstrings import parse_docstring, read_docstring

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


# --- forms real projects write (issue 13) ----------------------------------------------


def test_markdown_colon_bullets() -> None:
    """cqlpy style: ``## Parameters`` then ``- `argument`: text`` bullets, types optional."""
    doc = """Count the elements of a list.

    ## Parameters
    - `argument`: The list to count
      the elements of.
    - `default` (int): Returned for an empty list.
    - plain:The last one.
    """
    assert parse_docstring(doc) == (
        "Count the elements of a list.",
        {
            "argument": "The list to count the elements of.",
            "default": "Returned for an empty list.",
            "plain": "The last one.",
        },
    )


@pytest.mark.parametrize("heading", ["# Arguments", "# Parameters"])
def test_markdown_level_one_heading_colon_entries(heading: str) -> None:
    """A level-1 parameter heading reads ``name: text`` bullets and bare (Keras-style) lines."""
    bullets = f"Stack the tensors.\n\n{heading}\n- `tensors`: The inputs.\n"
    keras = f"""Stack the tensors.

    {heading}
        tensors: List of tensors
            to stack.
        axis: Stacking axis.
        Note: not an argument.

    # Returns
        result: not an argument
    """
    assert parse_docstring(bullets) == ("Stack the tensors.", {"tensors": "The inputs."})
    assert parse_docstring(keras) == (
        "Stack the tensors.",
        {"tensors": "List of tensors to stack.", "axis": "Stacking axis."},
    )


def test_sphinx_continuation_paragraphs() -> None:
    """urllib3 style: a body on indented lines keeps the paragraphs indented like it."""
    doc = """Make a request.

    :param retries:
        How many times to retry before
        giving up.

        If ``None`` (the default), retry three times.
    :param body:

        The whole body after a blank line.
    :param timeout: Seconds to wait.

    Text after the field list.
    """
    assert parse_docstring(doc)[1] == {
        "retries": "How many times to retry before giving up. "
        "If ``None`` (the default), retry three times.",
        "body": "The whole body after a blank line.",
        "timeout": "Seconds to wait.",
    }


def test_sphinx_param_with_default() -> None:
    """sqlalchemy style: ``:param name=default:`` documents ``name``."""
    doc = """Create an engine.

    :param echo=False: Log every statement.
    :param int pool_size=5: Connections kept open.
    """
    assert parse_docstring(doc)[1] == {
        "echo": "Log every statement.",
        "pool_size": "Connections kept open.",
    }


def test_sphinx_unindented_continuation() -> None:
    """requests style: a line level with the field, directly under it, continues it."""
    doc = """Send a GET request.

    :param params: (optional) Dictionary to send
    in the query string.
    :param url: The address.
    Returns:
        not a parameter
    """
    assert parse_docstring(doc)[1] == {
        "params": "(optional) Dictionary to send in the query string.",
        "url": "The address.",
    }


def test_google_several_names_in_one_entry() -> None:
    """jax.lax style: ``x, y: text`` documents both names."""
    doc = """Add two arrays.

    Args:
        x, y: Input arrays
            of one shape.
        out (Array): Where to write.
    """
    assert parse_docstring(doc)[1] == {
        "x": "Input arrays of one shape.",
        "y": "Input arrays of one shape.",
        "out": "Where to write.",
    }


def test_google_bullets_inside_args() -> None:
    """``- name: text`` bullets inside ``Args:``; nested bullets stay in the text."""
    doc = """Search.

    Args:
        - query: What to look for.
        - mode (str): One of
            - fast: quick
            - slow: careful
    """
    assert parse_docstring(doc)[1] == {
        "query": "What to look for.",
        "mode": "One of - fast: quick - slow: careful",
    }


def test_google_types_with_typos_or_over_lines() -> None:
    """transformers' stray ``)`` and a ``Union[...]`` type spanning lines keep their entry."""
    doc = """Run the model.

    Args:
        attention_mask (`torch.Tensor`)`, *optional*):
            Mask to avoid attention on padding.
        credentials (Union[google.auth.credentials.Credentials,
            google.oauth2.Credentials]): The credentials
            to use.
        broken (Union[int,
        next_one: Not swallowed by the unclosed type.
    """
    assert parse_docstring(doc)[1] == {
        "attention_mask": "Mask to avoid attention on padding.",
        "credentials": "The credentials to use.",
        "next_one": "Not swallowed by the unclosed type.",
    }


def test_google_bold_names() -> None:
    """``**name**:`` and ``**name** (type):`` entries; ``**kwargs:`` is still ``kwargs``."""
    doc = """Render.

    Args:
        **template**: The template.
        **context** (dict): Values for it.
        **kwargs: Passed on.
    """
    assert parse_docstring(doc)[1] == {
        "template": "The template.",
        "context": "Values for it.",
        "kwargs": "Passed on.",
    }


def test_google_title_like_entry_inside_args() -> None:
    """``args:`` level with the entries, its text below, is an entry and not a new section."""
    doc = """Call a function later.

    Args:
        fn: The function.
        args:
            Positional arguments for it.
        returns: What to give back.
    Returns:
        handle: not a parameter
    """
    assert parse_docstring(doc)[1] == {
        "fn": "The function.",
        "args": "Positional arguments for it.",
        "returns": "What to give back.",
    }


def test_numpy_options_section() -> None:
    """scipy style: an ``Options`` section documents keyword parameters."""
    doc = """Minimise a function.

    Parameters
    ----------
    fun : callable
        The objective.

    Options
    -------
    maxiter : int
        Maximum number of iterations.
    """
    assert parse_docstring(doc)[1] == {
        "fun": "The objective.",
        "maxiter": "Maximum number of iterations.",
    }


def test_examples_are_not_parameters() -> None:
    """Entries inside ``>>>`` sessions, ``::`` literal blocks, code directives and fences."""
    doc = """Wrap a documented function.

    Example::

        def wrapped(x):
            \"\"\"Args:
                x: not a parameter
            \"\"\"

    >>> wrap(\"\"\":param y: not a parameter\"\"\")
    :param z: not a parameter either (doctest output)

    .. code-block:: python

        # Parameters
        - `w`: not a parameter

    ```
    Args:
        v: not a parameter
    ```

    Args:
        fn: The function to wrap.
            >>> wrap(f)
        name: Still read after the session.
    """
    assert parse_docstring(doc)[1] == {
        "fn": "The function to wrap.",
        "name": "Still read after the session.",
    }


def test_mcp_parameters_with_flush_bullets() -> None:
    """blender-mcp style: ``Parameters:`` then ``- name: text`` level with it."""
    doc = """Get the categories of an asset type.

    Parameters:
    - asset_type: The type of asset
      (hdris, textures, models, all)
    - limit: How many to return

    Returns a JSON list.
    """
    assert parse_docstring(doc) == (
        "Get the categories of an asset type.",
        {
            "asset_type": "The type of asset (hdris, textures, models, all)",
            "limit": "How many to return",
        },
    )


def test_mcp_upper_case_parameters_flush() -> None:
    """excel-mcp-server style: ``PARAMETERS:`` then bare ``name: text`` lines level with it."""
    doc = """Write data to a worksheet.

    PARAMETERS:
    filepath: Path to the workbook
    sheet_name: Name of the worksheet
    Note: this line ends the entries

    start_cell: not a parameter after the blank line
    """
    assert parse_docstring(doc) == (
        "Write data to a worksheet.",
        {"filepath": "Path to the workbook", "sheet_name": "Name of the worksheet"},
    )


# --- unread parameter sections -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "unread"),
    [
        (
            "Do it.\n\nArgs:\n    Everything is passed to `run`.\n",
            "Args:\n    Everything is passed to `run`.",
        ),
        ("Do it.\n\n# Parameters\n* city - the city\n", "# Parameters\n* city - the city"),
        (
            "Do it.\n\nParameters\n----------\nSee the class docs.\n",
            "Parameters\n----------\nSee the class docs.",
        ),
    ],
)
def test_unread_section_is_kept(doc: str, unread: str) -> None:
    """A parameter section with no readable entry is kept whole for the tool description."""
    read = read_docstring(doc)
    assert (read.description, read.params, read.unread) == ("Do it.", {}, unread)
    assert read.tool_description == f"Do it.\n\n{unread}"


@pytest.mark.parametrize(
    "doc",
    [
        SPEC_EXAMPLE,
        "Do it.\n\nArgs:\n    city: the city\n    prose that is not an entry\n",
        "Do it.\n\nArgs:\n",
        "Do it.\n\nExample::\n\n    Args:\n        nothing here\n",
    ],
)
def test_nothing_unread(doc: str) -> None:
    """A section that yields an entry, an empty one, or one inside an example is not unread."""
    read = read_docstring(doc)
    assert read.unread == ""
    assert read.tool_description == read.description


_COUNT_COMPILES = """
import re, sys
callers = []
real = re.compile
def counting(*args, **kwargs):
    callers.append(sys._getframe(1).f_globals.get("__name__"))
    return real(*args, **kwargs)
re.compile = counting
import toolcall
import toolcall._derive.docstrings as docstrings
ours = lambda: sum(1 for name in callers if name and name.startswith("toolcall"))
print(ours())
docstrings.parse_docstring("Do it.\\n\\nArgs:\\n    x: the x")
print(ours() > 0)
"""


def test_importing_compiles_no_regex() -> None:
    """The parser's patterns (and toolcall's others) are compiled on first use, not at import."""
    run = subprocess.run(
        [sys.executable, "-c", _COUNT_COMPILES], capture_output=True, text=True, check=True
    )
    assert run.stdout.split() == ["0", "True"]


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


@settings(max_examples=examples(400), deadline=None)
@given(st.one_of(st.text(), st.lists(st.one_of(_FRAGMENTS, st.text(max_size=5))).map("".join)))
def test_never_raises(doc: str) -> None:
    """Any string parses into a (str, dict[str, str]) without raising."""
    description, params = parse_docstring(doc)
    assert isinstance(description, str)
    assert all(isinstance(k, str) and isinstance(v, str) and v for k, v in params.items())
