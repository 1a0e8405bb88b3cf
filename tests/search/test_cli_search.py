"""``toolcall search QUERY [MODULE ...] [-k N] [--explain]``: one line per hit, best first."""

from __future__ import annotations

import subprocess
from pathlib import Path

import subproc
from files import write

TOOLS = '''
__toolcall__ = True


def get_weather(city: str) -> str:
    """Get the forecast for a city.

    Args:
        city: city name, e.g. Oslo
    """
    return city


def send_email(to: str) -> None:
    """Send an email message."""


def list_files(path: str) -> list[str]:
    """List the files of a directory."""
    return []
'''


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subproc.python(
        "-m", "toolcall.cli.main", "search", *args, env={"TOOLCALL_CACHE": "0"}, cwd=cwd
    )


def test_one_line_per_hit_name_and_score(tmp_path: Path) -> None:
    write(tmp_path, "tools.py", TOOLS)
    done = run("forecast for Oslo", "tools", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    (line,) = done.stdout.splitlines()
    name, score = line.split("\t")
    assert name == "get_weather"
    assert float(score) > 0


def test_explain_says_which_fields_matched(tmp_path: Path) -> None:
    write(tmp_path, "tools.py", TOOLS)
    done = run("use list_files on the directory", "--explain", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0].split("\t")
    assert first[0] == "list_files"
    assert first[2] == "mention: list_files; name: list files; description: list files directory"


def test_k_limits_and_no_hit_prints_nothing(tmp_path: Path) -> None:
    write(tmp_path, "tools.py", TOOLS)
    assert len(run("files email forecast", "-k", "2", cwd=tmp_path).stdout.splitlines()) == 2
    done = run("zebra", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_failures_are_one_line(tmp_path: Path) -> None:
    write(tmp_path, "tools.py", TOOLS)
    write(tmp_path, "again.py", "__toolcall__ = True\ndef send_email() -> None: ...\n")
    clash = run("x", cwd=tmp_path)
    assert clash.returncode == 1
    assert clash.stderr.startswith("toolcall: error: duplicate tool name 'send_email'")
    assert len(clash.stderr.splitlines()) == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = run("x", cwd=empty)
    assert (nothing.returncode, nothing.stderr.count("\n")) == (1, 1)
    assert "no marked modules" in nothing.stderr
    usage = run("x", "-k", "0", cwd=tmp_path)
    assert usage.returncode == 2
