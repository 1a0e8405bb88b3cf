"""SPEC section 6 across real processes: the cache, -OO, and sourceless deployments."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import subproc
from projects import EMIT_ALL, write_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj")


def settings(cache: Path) -> dict[str, str | None]:
    """The cache on, in ``cache``, and no bytecode written next to the project's sources."""
    return {
        "TOOLCALL_CACHE": None,
        "TOOLCALL_CACHE_DIR": str(cache),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def python(project: Path, cache: Path, *args: str, env: dict[str, str] | None = None):
    return subproc.python(
        *args, paths=[project], env={**settings(cache), **(env or {})}, cwd=project
    )


def emitted(project: Path, cache: Path, *flags: str) -> tuple[dict, str]:
    done = python(project, cache, *flags, "-W", "always::UserWarning", "-c", EMIT_ALL)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.tcc"))


def test_second_process_reuses_the_entry(project, tmp_path):
    """A warm process loads the entry: no derivation warnings, the entry file untouched."""
    cache = tmp_path / "cache"
    first, warnings_first = emitted(project, cache)
    assert "loose" in warnings_first
    (entry,) = entries(cache)
    before = entry.stat()
    second, warnings_second = emitted(project, cache)
    assert second == first
    assert "loose" not in warnings_second
    after = entry.stat()
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)
    assert oct(entry.stat().st_mode & 0o777) == oct(0o600)
    assert oct(cache.stat().st_mode & 0o777) == oct(0o700)


def test_entry_is_the_same_under_optimize_2(project, tmp_path):
    """An entry derived under -OO is byte-identical in content to one derived without it."""
    plain, _ = emitted(project, tmp_path / "a")
    optimized, _ = emitted(project, tmp_path / "b", "-OO")
    assert optimized == plain
    assert "Ship a parcel." in json.dumps(optimized)
    assert "A postal address." in json.dumps(optimized)


def test_dependency_change_invalidates(project, tmp_path):
    """Editing a TypedDict in another module changes the next process's schema."""
    cache = tmp_path / "cache"
    before, _ = emitted(project, cache)
    types_file = project / "app" / "types_.py"
    types_file.write_text(
        types_file.read_text().replace("    city: str", "    city: str\n    zip: str")
    )
    after, _ = emitted(project, cache)
    props = after["mcp:False"][0]["inputSchema"]["properties"]["to"]["properties"]
    assert "zip" in props
    assert before != after


@pytest.mark.parametrize("damage", ["truncate", "garbage", "foreign", "empty"])
def test_damaged_entries_are_rebuilt(project, tmp_path, damage):
    """A truncated, corrupt, foreign or empty entry is ignored and rewritten."""
    cache = tmp_path / "cache"
    good, _ = emitted(project, cache)
    (entry,) = entries(cache)
    data = entry.read_bytes()
    entry.write_bytes(
        {
            "truncate": data[: len(data) // 2],
            "garbage": b"\x00" * 40 + data[40:],
            "foreign": b"PK\x03\x04 not ours",
            "empty": b"",
        }[damage]
    )
    again, warnings_again = emitted(project, cache)
    assert again == good
    assert "loose" in warnings_again
    assert entries(cache)[0].read_bytes() == data or len(entries(cache)[0].read_bytes()) > 100


def test_unwritable_cache_directory(project, tmp_path):
    """A cache directory that cannot be created or written never breaks an import.

    The suite runs as root, which ignores permission bits, so the directory is made
    impossible instead: its parent is a regular file.
    """
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    result, _ = emitted(project, blocker / "cache")
    reference, _ = emitted(project, tmp_path / "cache")
    assert result == reference


def test_cache_disabled(project, tmp_path):
    """TOOLCALL_CACHE=0 keeps everything in memory: no file written."""
    cache = tmp_path / "cache"
    done = python(project, cache, "-c", EMIT_ALL, env={"TOOLCALL_CACHE": "0"})
    assert done.returncode == 0, done.stderr
    assert not cache.exists()


def test_eight_cold_processes(project, tmp_path):
    """8 processes importing the same cold module at once all succeed; one valid entry."""
    cache = tmp_path / "cache"
    procs = [subproc.spawn("-c", EMIT_ALL, paths=[project], env=settings(cache)) for _ in range(8)]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0] * 8
    assert len({out for out, _ in outputs}) == 1
    assert len(entries(cache)) == 1
    assert not list(cache.glob("*.tmp"))


@pytest.mark.parametrize("mode", ["timestamp", "unchecked-hash"])
def test_sourceless_deployment(project, tmp_path, mode):
    """Compiled with -OO, .py deleted, run with -OO: the same schemas, descriptions included."""
    from_source, _ = emitted(project, tmp_path / "source-cache")
    cache = tmp_path / "shipped-cache"
    built = python(
        project, cache, "-m", "toolcall.cli.cache", "build", "app", "--cache-dir", str(cache)
    )
    assert (built.returncode, built.stdout) == (0, f"built 1 entry in {cache}\n"), built.stderr
    deployed = tmp_path / "deployed"
    shutil.copytree(project, deployed)
    compiled = subproc.python(
        "-OO", "-m", "compileall", "-q", "-b", "--invalidation-mode", mode, deployed
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    for source in deployed.rglob("*.py"):
        source.unlink()
    assert not list(deployed.rglob("*.py"))
    shipped, _ = emitted(deployed, cache, "-OO")
    assert shipped == from_source
    assert "pay for next-day delivery" in json.dumps(shipped)


@pytest.mark.parametrize("target", ["app", "app.tools", "PATH"])
def test_build_targets(project, tmp_path, target):
    """`toolcall-cache build` takes a package, a module or a path."""
    cache = tmp_path / "cache"
    arg = str(project / "app") if target == "PATH" else target
    done = python(
        project, cache, "-m", "toolcall.cli.cache", "build", arg, "--cache-dir", str(cache)
    )
    assert done.returncode == 0, done.stderr
    assert [p.name.split("-")[0] for p in entries(cache)] == ["app.tools"]


def test_build_failures_are_one_line(project, tmp_path):
    """An unknown module or a broken one: exit 1, one line on stderr, no traceback."""
    cache = tmp_path / "cache"
    missing = python(project, cache, "-m", "toolcall.cli.cache", "build", "nope.nothing")
    assert missing.returncode == 1
    assert missing.stderr.count("\n") == 1
    (project / "app" / "tools.py").write_text("__toolcall__ = True\ndef broken(:\n")
    broken = python(project, cache, "-m", "toolcall.cli.cache", "build", "app.tools")
    assert broken.returncode == 1
    assert "SyntaxError" in broken.stderr
    assert "Traceback" not in broken.stderr


def test_provider_change_invalidates(project, tmp_path):
    """A type provider's module is a dependency: editing it changes the next process's schema."""
    app = project / "app"
    provider = app / "money.py"
    provider.write_text(
        "import toolcall\n\n"
        "class Money:\n    pass\n\n"
        "class MoneyType:\n"
        "    def resolve(self, tp, args):\n"
        "        if tp is Money:\n"
        "            return toolcall.ir.Type(kind='string', pattern='^[0-9]+$')\n"
        "        return None\n"
    )
    tools = app / "tools.py"
    tools.write_text(
        tools.read_text().replace(
            "__toolcall__ = True",
            "from app.money import Money, MoneyType\n\n__toolcall__ = True\n"
            "__toolcall_types__ = [MoneyType]\n\n\ndef price(amount: Money) -> None:\n    pass\n",
        )
    )
    cache = tmp_path / "cache"

    def amount_schema() -> dict:
        out, _ = emitted(project, cache)
        (tool,) = [t for t in out["mcp:False"] if t["name"] == "price"]
        return tool["inputSchema"]["properties"]["amount"]

    assert amount_schema() == {"type": "string", "pattern": "^[0-9]+$"}
    provider.write_text(provider.read_text().replace("^[0-9]+$", "^[0-9]+[.][0-9]{2}$"))
    assert amount_schema() == {"type": "string", "pattern": "^[0-9]+[.][0-9]{2}$"}
