"""MkDocs hooks for the toolcall site: the benchmark chart, and Sphinx roles in docstrings.

The chart. ``perf/results.png`` lives outside ``docs/`` and is written by ``scripts/bench``,
so a fresh checkout may not have it. Embedding it unconditionally would break
``mkdocs build --strict`` on such a checkout; leaving it out would hide it once it exists.
The page carries the marker ``<!-- perf-chart -->``, which becomes the image when the file is
there and a sentence saying how to produce it when it is not.

Roles. The library's docstrings cross-reference in Sphinx's style (``:func:`run```), which
mkdocstrings leaves as literal ``:func:`` text before the code span; the hook drops the role
so the reference reads as plain code.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

MARKER = "<!-- perf-chart -->"
CHART = "perf/results.png"
ROOT = Path(__file__).resolve().parents[2]
ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj):(?=<code>)")


def on_files(files: Files, config: Any) -> Files:
    """Publish the chart with the site when ``scripts/bench`` has written it."""
    if (ROOT / CHART).is_file():
        files.append(
            File(
                CHART,
                src_dir=str(ROOT),
                dest_dir=config["site_dir"],
                use_directory_urls=config["use_directory_urls"],
            )
        )
    return files


def on_page_markdown(markdown: str, page: Page, config: Any, files: Files) -> str:
    """Swap the marker for the chart, or for how to produce it."""
    if MARKER not in markdown:
        return markdown
    if files.get_file_from_path(CHART) is not None:
        depth = page.file.src_uri.count("/")
        replacement = f"![toolcall against its peers]({'../' * depth}{CHART})"
    else:
        replacement = (
            "*The chart is not in this build: run `scripts/bench` to write "
            f"`{CHART}` and `perf/RESULTS.md`, then build the site again.*"
        )
    return markdown.replace(MARKER, replacement)


def on_page_content(html: str, page: Page, config: Any, files: Files) -> str:
    """Drop Sphinx roles in front of code spans (API reference pages)."""
    return ROLE.sub("", html)
