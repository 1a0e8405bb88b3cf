"""``run`` on a tool taking a pydantic model, against pydantic-ai's validation of the same call.

Issue 11 asks for at most 1.5x. Both sides validate the same arguments into a ``Book`` and
call the same function; pydantic-ai's validator is called the way its ``ToolManager`` calls it
(``allow_partial="off"``), without the agent machinery around it (in the peer's favour).
Measured in one run, candidates interleaved (``harness.compare``).

Run: ``cd perf && ../.venv/bin/python bench_models.py [--quick]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

import harness
import peers

SOURCE = '''
from typing import Annotated

from pydantic import BaseModel, Field

__toolcall__ = True


class Book(BaseModel):
    """A book to add to the catalogue."""

    title: str = Field(description="The title as printed on the cover")
    author: str
    year: Annotated[int, Field(ge=1450, le=2100)]
    tags: list[str] = []


def add_book(book: Book) -> str:
    """Add a book to the catalogue."""
    return book.title
'''

ARGS = {"book": {"title": "Kon-Tiki", "author": "Thor Heyerdahl", "year": 1948, "tags": ["sea"]}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few samples, to try it out")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "bench_books.py").write_text(textwrap.dedent(SOURCE), encoding="utf-8")
        sys.path.insert(0, tmp)
        import bench_books

        import toolcall

        validate = peers.pydantic_ai_validator(bench_books.add_book)
        namespace = {
            "run": toolcall.run,
            "tools": bench_books,
            "add_book": bench_books.add_book,
            "validate": validate,
            "A": ARGS,
        }
        statements = {
            "toolcall run": 'run(tools, "add_book", A)',
            "pydantic-ai validator + call": 'add_book(**validate(A, allow_partial="off"))',
        }
        assert toolcall.run(bench_books, "add_book", ARGS).value == "Kon-Tiki"  # type: ignore[union-attr]
        timings = harness.compare(statements, namespace, 3 if args.quick else 15)
    ours = statistics.median(timings["toolcall run"].samples)
    theirs = statistics.median(timings["pydantic-ai validator + call"].samples)
    print(f"toolcall run                    {ours * 1e6:7.3f} us")
    print(f"pydantic-ai validator + call    {theirs * 1e6:7.3f} us")
    verdict = "PASS" if ours / theirs <= 1.5 else "FAIL"
    print(f"  ratio                         {ours / theirs:7.2f}x   target <= 1.5x  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
