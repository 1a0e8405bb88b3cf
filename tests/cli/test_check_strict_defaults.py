"""`toolcall check --strict` names each parameter whose default strict mode cannot deliver
(issue 36): strict mode makes every property required, so a model with nothing to say sends
null, and for a type that accepts None that null is a value, never "use the default"."""

from __future__ import annotations

import sys
from pathlib import Path

import subproc
from files import write

BIN = Path(sys.executable).parent

SEARCH = '''\
from datetime import date
from typing import Optional
__toolcall__ = True


def search(
    query: str,
    units: Optional[str] = "none",
    limit: int | None = 10,
    since: date | None = date(2024, 1, 1),
    page: int = 1,
    cursor: str | None = None,
    tags: list[str] | None = ["all"],
) -> list[str]:
    """Search the index.

    Args:
        query: the text
        units: the units
        limit: how many
        since: the oldest date
        page: which page
        cursor: where to resume
        tags: which tags
    """
    return []
'''

FIX = (
    "is never used: every property is required there, so a model with nothing to say sends "
    "null, and this parameter accepts null, so the function receives None (drop None from "
    'its type, so that null means "not given", or make None the default)'
)


def check(*args: str, cwd: Path) -> tuple[int, list[str], str]:
    result = subproc.python(BIN / "toolcall", "check", *args, cwd=cwd)
    return result.returncode, result.stdout.splitlines(), result.stderr


def test_each_unreachable_default_is_one_line_naming_function_parameter_and_fix(
    tmp_path: Path,
) -> None:
    """A non-None default beside a type accepting None (`Optional[str] = "none"`, a date
    default JSON cannot carry, a list) is named; a None default, and a default of a type
    without None (`page: int = 1`, whose null means "not given"), are not."""
    write(tmp_path, "index.py", SEARCH)
    status, lines, stderr = check("--strict", cwd=tmp_path)
    assert status == 1
    assert lines == [
        f"index.py:6: search(units): under strict mode the default 'none' {FIX}",
        f"index.py:6: search(limit): under strict mode the default 10 {FIX}",
        f"index.py:6: search(since): under strict mode its default {FIX}",
        f"index.py:6: search(tags): under strict mode the default ['all'] {FIX}",
    ]
    assert stderr == "toolcall: checked 1 module (1 tool): 4 problems\n"


def test_without_strict_the_defaults_are_not_a_problem(tmp_path: Path) -> None:
    """Only strict mode takes the default away: a plain check is clean."""
    write(tmp_path, "index.py", SEARCH)
    assert check(cwd=tmp_path) == (0, [], "toolcall: checked 1 module (1 tool): no problems\n")


def test_the_fixes_it_names_are_clean(tmp_path: Path) -> None:
    """Both fixes the line offers satisfy it: None dropped from the type, or None the default."""
    write(
        tmp_path,
        "fixed.py",
        '''\
        from typing import Optional
        __toolcall__ = True


        def search(query: str, units: str = "none", limit: Optional[int] = None) -> list[str]:
            """Search the index.

            Args:
                query: the text
                units: the units
                limit: how many
            """
            return []
        ''',
    )
    assert check("--strict", cwd=tmp_path) == (
        0,
        [],
        "toolcall: checked 1 module (1 tool): no problems\n",
    )
