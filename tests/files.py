"""Project trees written file by file, so each test shows the layout it needs."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write(root: Path, relative: str, text: str = "") -> Path:
    """Write dedented ``text`` to ``root/relative`` in UTF-8, making its folders, so a test's
    source may be indented with the test and read the same on any locale."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path
