"""``toolcall-cache``: list, clean, clear, help, usage errors and exit statuses."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

import subproc
from toolcall import ir
from toolcall._cache import store as _cache
from toolcall.cli.cache import main


def store(directory: Path, source: Path, module: str) -> Path:
    """Write a valid entry for ``source`` (a one-tool module) and return its path."""
    source.parent.mkdir(parents=True, exist_ok=True)
    if not source.exists():
        source.write_text(f"def {module.rpartition('.')[2]}() -> None: ...\n")
    data = source.read_bytes()
    tool = ir.Tool(name="ping", description="Check the service.", module=module, qualname="ping")
    entry = _cache.make_entry(
        ir.ModuleIR(module=module, tools=(tool,)), source, data, variants={"mcp": []}
    )
    path = _cache.entry_path(directory, module, _cache.source_key(module, data))
    assert _cache.write_entry(path, entry)
    return path


def size(n: int) -> str:
    """The CLI's rendering of a byte count, for the sizes these small files have."""
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache dir named by TOOLCALL_CACHE_DIR, so commands without --cache-dir use it."""
    directory = tmp_path / "cache"
    monkeypatch.delenv("TOOLCALL_CACHE", raising=False)
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(directory))
    return directory


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The console script, as ``python -m toolcall.cli.cache``."""
    return subproc.python("-m", "toolcall.cli.cache", *args, env=env, timeout=60)


def test_list_shows_location_entries_and_total(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``list``: the location, one aligned line per entry, then the count and total size."""
    weather_src = tmp_path / "app" / "weather.py"
    weather = store(cache, weather_src, "app.weather")
    stale_src = tmp_path / "app" / "db.py"
    stale = store(cache, stale_src, "app.db")
    stale_src.write_text("# edited\n")
    assert main(["list"]) == 0
    a, b = stale.stat().st_size, weather.stat().st_size
    width = max(len(size(a)), len(size(b)))
    assert capsys.readouterr().out.splitlines() == [
        f"cache: {cache}",
        f"  app.db       {size(a):>{width}}  source changed  {stale_src}",
        f"  app.weather  {size(b):>{width}}  valid           {weather_src}",
        f"2 entries ({size(a + b)})",
    ]


def test_list_of_a_missing_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A cache that does not exist yet lists as empty, and says so."""
    missing = tmp_path / "nope"
    assert main(["list", "--cache-dir", str(missing)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"cache: {missing} (not created yet)",
        "0 entries (0 B)",
    ]


def test_clean_reports_what_it_removes(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``clean --dry-run`` only counts; ``clean`` removes orphans and keeps valid entries."""
    valid = store(cache, tmp_path / "valid.py", "valid")
    gone_src = tmp_path / "gone.py"
    gone = store(cache, gone_src, "gone")
    gone_src.unlink()
    removed = gone.stat().st_size
    assert main(["clean", "--dry-run"]) == 0
    assert capsys.readouterr().out == f"would remove 1 entry ({size(removed)})\n"
    assert gone.exists()
    assert main(["clean"]) == 0
    assert capsys.readouterr().out == f"removed 1 entry ({size(removed)})\n"
    assert sorted(cache.iterdir()) == [valid]


def test_clean_older_than(cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--older-than DAYS`` also removes valid entries unused for that long."""
    old = store(cache, tmp_path / "old.py", "old")
    then = time.time() - 3 * 86400
    os.utime(old, (then, then))
    assert main(["clean", "--older-than", "7"]) == 0
    assert capsys.readouterr().out == "removed 0 entries (0 B)\n"
    removed = old.stat().st_size
    assert main(["clean", "--older-than", "2.5", "--cache-dir", str(cache)]) == 0
    assert capsys.readouterr().out == f"removed 1 entry ({size(removed)})\n"
    assert not old.exists()


def test_clear_removes_everything_of_ours(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``clear`` removes valid entries too, and leaves files that are not the cache's."""
    first = store(cache, tmp_path / "a.py", "a")
    second = store(cache, tmp_path / "b.py", "b")
    total = first.stat().st_size + second.stat().st_size
    (cache / "README").write_text("keep me")
    assert main(["clear"]) == 0
    assert capsys.readouterr().out == f"removed 2 entries ({size(total)})\n"
    assert [p.name for p in cache.iterdir()] == ["README"]


def test_disabled_cache_without_cache_dir_fails(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """TOOLCALL_CACHE=0 and no --cache-dir: exit 1 with one line on stderr."""
    monkeypatch.setenv("TOOLCALL_CACHE", "0")
    for command in ("list", "clean", "clear"):
        assert main([command]) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err == (
            "toolcall-cache: error: the cache is disabled (TOOLCALL_CACHE=0); "
            "name one with --cache-dir DIR\n"
        )


def test_disabled_cache_with_cache_dir_works(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An explicit --cache-dir is honoured even when caching is disabled."""
    monkeypatch.setenv("TOOLCALL_CACHE", "0")
    store(tmp_path / "c", tmp_path / "m.py", "m")
    assert main(["clear", "--cache-dir", str(tmp_path / "c")]) == 0
    assert capsys.readouterr().out.startswith("removed 1 entry (")


def test_unusable_directory_is_one_line_and_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A --cache-dir that is a file: exit 1, one error line, no traceback."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    for command in ("list", "clean", "clear"):
        assert main([command, "--cache-dir", str(blocker)]) == 1
        captured = capsys.readouterr()
        assert captured.err == f"toolcall-cache: error: {blocker}: Not a directory\n"


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["list", "--bogus"],
        ["clean", "--older-than", "soon"],
        ["clean", "--older-than", "-1"],
        ["clean", "--older-than", "nan"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Bad usage exits 2 with argparse's usage and one error line."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: toolcall-cache")
    assert err.splitlines()[-1].startswith("toolcall-cache")
    assert "error: " in err.splitlines()[-1]


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    """``--help`` exits 0 and names every command; each command documents --cache-dir."""
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("list", "clean", "clear"):
        assert f"    {command} " in out
        assert main([command, "--help"]) == 0
        assert "--cache-dir DIR" in capsys.readouterr().out
    assert main(["clean", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--dry-run" in out
    assert "--older-than DAYS" in out


def test_console_script(tmp_path: Path) -> None:
    """``python -m toolcall.cli.cache`` runs main and exits with its status."""
    cache = tmp_path / "cache"
    entry = store(cache, tmp_path / "m.py", "m")
    listed = run_cli("list", "--cache-dir", str(cache))
    assert (listed.returncode, listed.stderr) == (0, "")
    assert listed.stdout.splitlines()[0] == f"cache: {cache}"
    assert listed.stdout.splitlines()[-1] == f"1 entry ({size(entry.stat().st_size)})"
    usage = run_cli("clean", "--older-than", "x")
    assert usage.returncode == 2
    disabled = run_cli("clear", env={"TOOLCALL_CACHE": "0"})
    assert (disabled.returncode, disabled.stdout) == (1, "")
    assert len(disabled.stderr.splitlines()) == 1
    removed = entry.stat().st_size
    cleared = run_cli("clear", "--cache-dir", str(cache))
    assert (cleared.returncode, cleared.stdout) == (0, f"removed 1 entry ({size(removed)})\n")
    assert not entry.exists()
