"""The on-disk cache: entry format, misses, atomic writes, dependencies, cleaning."""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import logging
import os
import pickle
import platform
import py_compile
import time
import types
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

import subproc
from toolcall import ir
from toolcall._cache import maintenance as _maint
from toolcall._cache import store as _cache
from toolcall._cache.store import Dep, Entry
from work import count_calls

MODULE = "pkg.tools"
SOURCE = '"""Weather tools."""\n\n\ndef get_weather(city: str) -> str:\n    return city\n'
VARIANTS: dict[str, Any] = {
    "openai": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}],
    "openai:strict": [{"type": "function", "function": {"name": "get_weather", "strict": True}}],
}


def module_ir(module: str = MODULE, tools: int = 1) -> ir.ModuleIR:
    """A hand-built IR with ``tools`` tools of a few parameters each."""
    field = ir.Field(name="zip", type=ir.Type(kind="string", pattern=r"^\d{5}$"), description="ZIP")
    params = (
        ir.Parameter(name="city", type=ir.Type(kind="string"), description="city name"),
        ir.Parameter(
            name="days",
            type=ir.Type(kind="integer", minimum=1),
            required=False,
            has_default=True,
            default=3,
        ),
        ir.Parameter(name="where", type=ir.Type(kind="object", py="dict", fields=(field,))),
    )
    return ir.ModuleIR(
        module=module,
        tools=tuple(
            ir.Tool(
                name=f"tool_{i}",
                description="Get the forecast.",
                parameters=params,
                module=module,
                qualname=f"tool_{i}",
            )
            for i in range(tools)
        ),
    )


def write_source(path: Path, text: str = SOURCE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def unwritten(
    directory: Path, source: Path, module: str = MODULE, deps: tuple[Dep, ...] = (), tools: int = 1
) -> tuple[Path, Entry]:
    """A valid entry for ``source`` and the path it belongs at, for a test to plant something
    there before writing it."""
    data = source.read_bytes()
    entry = _cache.make_entry(module_ir(module, tools), source, data, deps=deps, variants=VARIANTS)
    return _cache.entry_path(directory, module, _cache.source_key(module, data)), entry


def store(
    directory: Path, source: Path, module: str = MODULE, deps: tuple[Dep, ...] = (), tools: int = 1
) -> tuple[Path, Entry]:
    """Write a valid entry for ``source`` and return where it went."""
    path, entry = unwritten(directory, source, module, deps, tools)
    assert _cache.write_entry(path, entry)
    return path, entry


def frame(payload: bytes, version: bytes = _cache.VERSION) -> bytes:
    """Bytes with a correct header around ``payload``."""
    return _cache.MAGIC + version + zlib.crc32(payload).to_bytes(4, "big") + payload


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then), follow_symlinks=False)


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def source(tmp_path: Path) -> Path:
    return write_source(tmp_path / "src" / "pkg" / "tools.py")


# -- keys and location -------------------------------------------------------------------


def test_source_key_covers_module_source_format_and_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """The key is 32 hex chars and changes with the module, source, IR format or Python."""
    key = _cache.source_key("a", b"x = 1\n")
    assert len(key) == 32
    assert int(key, 16) >= 0
    assert key == _cache.source_key("a", b"x = 1\n")
    others = {_cache.source_key("b", b"x = 1\n"), _cache.source_key("a", b"x = 2\n")}
    monkeypatch.setattr(_cache, "FORMAT_VERSION", ir.FORMAT_VERSION + 1)
    others.add(_cache.source_key("a", b"x = 1\n"))
    monkeypatch.undo()
    monkeypatch.setattr(_cache, "_PYTHON_MINOR", "3.99")
    others.add(_cache.source_key("a", b"x = 1\n"))
    assert len(others) == 4
    assert key not in others


def test_entry_path_names_module_and_key(tmp_path: Path) -> None:
    """An entry lives at ``<dir>/<module>-<key>.tcc``."""
    assert _cache.entry_path(tmp_path, "a.b", "f" * 32) == tmp_path / f"a.b-{'f' * 32}.tcc"


def test_cache_dir_honours_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """TOOLCALL_CACHE=0 disables; TOOLCALL_CACHE_DIR wins (made absolute); else platformdirs."""
    import platformdirs

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLCALL_CACHE", raising=False)
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", "rel/dir")
    assert _cache.cache_dir() == Path.cwd() / "rel" / "dir"
    monkeypatch.delenv("TOOLCALL_CACHE_DIR")
    assert _cache.cache_dir() == Path(platformdirs.user_cache_dir("toolcall", appauthor=False))
    monkeypatch.setenv("TOOLCALL_CACHE", "0")
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(tmp_path))
    assert _cache.cache_dir() is None


# -- reading -----------------------------------------------------------------------------


def test_round_trip(cache: Path, source: Path) -> None:
    """What was written reads back equal, IR and variants included."""
    deps = (Dep("python", "json", platform.python_version()),)
    path, entry = store(cache, source, deps=deps, tools=3)
    read = _cache.read_entry(path)
    assert read == entry
    assert read is not None
    assert read.ir.tools[0].parameters[2].type.fields[0].description == "ZIP"
    assert read.variants == VARIANTS
    assert read.source_path == str(source)
    assert read.pyc_hash == importlib.util.source_hash(source.read_bytes()).hex()


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _too_short(data: bytes) -> bytes:
    return data[:20]


def _flip_payload_byte(data: bytes) -> bytes:
    middle = len(data) - 10
    return data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :]


def _foreign(data: bytes) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + bytes(200)


def _other_ir_format(data: bytes) -> bytes:
    return data[:8] + bytes((_cache.VERSION[0], ir.FORMAT_VERSION + 1)) + data[10:]


def _other_layout(data: bytes) -> bytes:
    return data[:8] + bytes((_cache.VERSION[0] + 1, ir.FORMAT_VERSION)) + data[10:]


def _bad_checksum(data: bytes) -> bytes:
    return data[:10] + bytes(4) + data[14:]


def _wrong_shape(data: bytes) -> bytes:
    return frame(msgspec.msgpack.encode({"module": MODULE, "deps": "none", "ir": [1, 2]}))


def _not_msgpack(data: bytes) -> bytes:
    return frame(b"\xc1\xc1\xc1")


def _empty(data: bytes) -> bytes:
    return b""


@pytest.mark.parametrize(
    "mangle",
    [
        _truncate,
        _too_short,
        _flip_payload_byte,
        _foreign,
        _other_ir_format,
        _other_layout,
        _bad_checksum,
        _wrong_shape,
        _not_msgpack,
        _empty,
    ],
)
def test_every_read_problem_is_a_logged_miss(
    cache: Path, source: Path, mangle: Callable[[bytes], bytes], caplog: pytest.LogCaptureFixture
) -> None:
    """A damaged, foreign or other-format entry reads as None and logs at DEBUG."""
    path, _ = store(cache, source)
    path.write_bytes(mangle(path.read_bytes()))
    caplog.set_level(logging.DEBUG, logger="toolcall")
    assert _cache.read_entry(path) is None
    assert [r.levelno for r in caplog.records if r.name == "toolcall"] == [logging.DEBUG]


def test_missing_entry_is_a_miss(cache: Path) -> None:
    """No file (or no directory) is a miss, not an error."""
    assert _cache.read_entry(cache / f"m-{'0' * 32}.tcc") is None


def test_symlinked_entry_is_not_trusted(cache: Path, source: Path, tmp_path: Path) -> None:
    """A valid entry reached through a symlink is a miss."""
    path, _ = store(cache, source)
    real = tmp_path / "elsewhere"
    path.rename(real)
    path.symlink_to(real)
    assert _cache.read_entry(path) is None


def test_fifo_at_entry_path_is_a_miss_without_blocking(cache: Path) -> None:
    """Something that is not a regular file is a miss, and opening it does not hang."""
    cache.mkdir()
    path = cache / f"m-{'0' * 32}.tcc"
    os.mkfifo(path)
    assert _cache.read_entry(path) is None


def test_entry_under_another_name_is_a_miss(cache: Path, source: Path) -> None:
    """An entry copied to another module's or key's file name is not used."""
    path, _ = store(cache, source)
    for name in (f"pkg.other-{path.name.split('-')[1]}", f"{MODULE}-{'0' * 32}.tcc"):
        copy = cache / name
        copy.write_bytes(path.read_bytes())
        assert _cache.read_entry(copy) is None


def test_read_is_a_decode_with_bounded_work_per_tool(cache: Path, source: Path) -> None:
    """Reading an entry is one file read and one msgspec decode plus the checks run on each
    decoded IR node: its Python work grows linearly with the tools, by a small constant per
    tool (today ~60 calls; deriving or rendering on read would cost thousands)."""
    calls = {}
    for tools in (1, 40, 79):
        path, entry = store(cache, source, tools=tools)
        _cache.read_entry(path)  # warm: first-use caches are not the read's own work
        read, calls[tools] = count_calls(lambda path=path: _cache.read_entry(path))
        assert read == entry
    # the same 39 more tools cost the same again (a little slack for one-off first uses)
    assert calls[79] - calls[40] <= (calls[40] - calls[1]) * 1.1 + 20, calls
    assert calls[40] - calls[1] <= 39 * 200, calls


# -- writing -----------------------------------------------------------------------------


def test_write_creates_private_directory_and_file(tmp_path: Path, source: Path) -> None:
    """A created directory is 0700, the entry 0600, and no temp file is left."""
    directory = tmp_path / "a" / "cache"
    path, _ = store(directory, source)
    assert directory.stat().st_mode & 0o777 == 0o700
    assert path.stat().st_mode & 0o777 == 0o600
    assert os.listdir(directory) == [path.name]


def test_write_replaces_atomically(
    cache: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Until the rename, readers see the previous entry; the new one is complete before it."""
    path, old = store(cache, source)
    newer = msgspec.structs.replace(old, created=old.created + 1)
    seen: list[tuple[Entry | None, Entry | None]] = []
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:
        seen.append(
            (
                _cache.read_entry(dst),
                _cache._decoder.decode(Path(src).read_bytes()[_cache._HEADER_SIZE :]),
            )
        )
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    assert _cache.write_entry(path, newer)
    assert seen == [(old, newer)]
    assert _cache.read_entry(path) == newer


def test_planted_symlink_at_entry_path_is_replaced_not_followed(
    cache: Path, source: Path, tmp_path: Path
) -> None:
    """Writing over a symlink swaps the link for the entry and leaves its target alone."""
    path, entry = unwritten(cache, source)
    victim = tmp_path / "victim"
    victim.write_text("precious")
    cache.mkdir()
    path.symlink_to(victim)
    assert _cache.write_entry(path, entry)
    assert victim.read_text() == "precious"
    assert not path.is_symlink()
    assert _cache.read_entry(path) == entry


def test_planted_symlink_at_temp_path_is_not_written_through(
    cache: Path, source: Path, tmp_path: Path
) -> None:
    """A fresh symlink where the temp file goes fails the write instead of following it."""
    path, entry = unwritten(cache, source)
    victim = tmp_path / "victim"
    victim.write_text("precious")
    cache.mkdir()
    Path(f"{path}.{os.getpid()}.tmp").symlink_to(victim)
    assert _cache.write_entry(path, entry) is False
    assert victim.read_text() == "precious"
    assert not path.exists()


def test_stale_temp_file_of_our_pid_is_replaced(cache: Path, source: Path) -> None:
    """A temp file older than a minute with this pid (a crashed earlier process) is reused."""
    path, entry = unwritten(cache, source)
    cache.mkdir()
    temp = Path(f"{path}.{os.getpid()}.tmp")
    temp.write_bytes(b"half an entry")
    age(temp, 120)
    assert _cache.write_entry(path, entry)
    assert _cache.read_entry(path) == entry
    assert not temp.exists()


@pytest.mark.parametrize("code", [errno.EROFS, errno.EACCES, errno.ENOSPC])
def test_unwritable_directory_returns_false(
    cache: Path,
    source: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    code: int,
) -> None:
    """Read-only, forbidden or full: the write returns False, logs at DEBUG, raises nothing."""
    path, entry = unwritten(cache, source)
    cache.mkdir()

    def fail(*args: object, **kwargs: object) -> int:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "open", fail)
    caplog.set_level(logging.DEBUG, logger="toolcall")
    assert _cache.write_entry(path, entry) is False
    assert os.listdir(cache) == []
    assert [r.levelno for r in caplog.records if r.name == "toolcall"] == [logging.DEBUG]


def test_disk_full_mid_write_removes_temp_and_keeps_old_entry(
    cache: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC while writing leaves the previous entry intact and no temp file."""
    path, old = store(cache, source)

    def full(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    assert _cache.write_entry(path, msgspec.structs.replace(old, created=1.0)) is False
    monkeypatch.undo()
    assert os.listdir(cache) == [path.name]
    assert _cache.read_entry(path) == old


def test_directory_that_cannot_be_created_returns_false(tmp_path: Path, source: Path) -> None:
    """A cache path under a regular file cannot be created: False, no exception."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    path, entry = unwritten(blocker / "cache", source)
    assert _cache.write_entry(path, entry) is False


def test_write_refuses_a_path_that_is_not_the_entrys(cache: Path, source: Path) -> None:
    """An entry is only written under the name its own contents hash to."""
    entry = _cache.make_entry(module_ir(), source, source.read_bytes(), variants=VARIANTS)
    assert _cache.write_entry(cache / f"{MODULE}-{'0' * 32}.tcc", entry) is False
    assert not cache.exists()


def test_unencodable_entry_returns_false(cache: Path, source: Path) -> None:
    """Variants msgpack cannot carry fail the write quietly."""
    data = source.read_bytes()
    entry = _cache.make_entry(module_ir(), source, data, variants={"openai": object()})
    path = _cache.entry_path(cache, MODULE, _cache.source_key(MODULE, data))
    assert _cache.write_entry(path, entry) is False


_WRITER = """
import os, sys, time
from pathlib import Path
from toolcall import ir
from toolcall._cache import maintenance as _maint
from toolcall._cache import store as _cache

directory, source = Path(sys.argv[1]), Path(sys.argv[2])
data = source.read_bytes()
tools = tuple(ir.Tool(name=f"t{i}", description="x" * 200) for i in range(20))
entry = _cache.make_entry(ir.ModuleIR(module="race", tools=tools), source, data, variants={})
path = _cache.entry_path(directory, "race", _cache.source_key("race", data))
(directory / f"ready-{os.getpid()}").touch()
while not (directory / "go").exists():
    time.sleep(0.001)
writes = reads = 0
for _ in range(100):
    writes += _cache.write_entry(path, entry)
    reads += _cache.read_entry(path) is not None
print(writes, reads)
"""


def test_concurrent_writers_leave_one_valid_entry(tmp_path: Path) -> None:
    """Eight processes rewriting one entry: every write and read succeeds, no temp is left."""
    directory = tmp_path / "cache"
    directory.mkdir()
    source = write_source(tmp_path / "race.py")
    procs = [
        subproc.spawn("-c", _WRITER, directory, source, env={"TOOLCALL_HOOK": "0"})
        for _ in range(8)
    ]
    deadline = time.monotonic() + 30
    while len(list(directory.glob("ready-*"))) < 8 and time.monotonic() < deadline:
        time.sleep(0.01)
    (directory / "go").touch()
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        results.append((proc.returncode, out.split(), err))
    assert results == [(0, ["100", "100"], "")] * 8
    names = [p.name for p in directory.iterdir() if not p.name.startswith(("ready-", "go"))]
    assert len(names) == 1
    assert names[0].startswith("race-")
    assert names[0].endswith(".tcc")
    assert _cache.read_entry(directory / names[0]) is not None


# -- dependencies ------------------------------------------------------------------------


def test_file_dep_tracks_content(tmp_path: Path) -> None:
    """A file dependency is current until its bytes change or it disappears."""
    path = write_source(tmp_path / "models.py", "X = 1\n")
    dep = _cache.file_dep(path)
    assert dep.kind == "file"
    assert dep.name == str(path)
    assert dep.digest == hashlib.blake2b(b"X = 1\n").hexdigest()
    assert _cache.deps_current(_entry_with(dep))
    path.write_text("X = 2\n")
    assert not _cache.deps_current(_entry_with(dep))
    path.unlink()
    assert not _cache.deps_current(_entry_with(dep))


@pytest.mark.parametrize(
    "mode",
    [py_compile.PycInvalidationMode.TIMESTAMP, py_compile.PycInvalidationMode.UNCHECKED_HASH],
)
def test_deleted_file_dep_verifies_through_its_pyc(
    tmp_path: Path, mode: py_compile.PycInvalidationMode
) -> None:
    """A dependency compiled with ``compileall -b`` and then deleted is still current."""
    path = write_source(tmp_path / "models.py", "X = 1\n")
    dep = _cache.file_dep(path)
    py_compile.compile(str(path), cfile=str(tmp_path / "models.pyc"), invalidation_mode=mode)
    path.unlink()
    assert _cache.deps_current(_entry_with(dep))
    bare = Dep("file", dep.name, dep.digest)
    assert not _cache.deps_current(_entry_with(bare))


def test_dist_and_python_deps() -> None:
    """Installed distributions check their version, the standard library the Python's."""
    version = msgspec.__version__
    assert _cache.deps_current(_entry_with(Dep("dist", "msgspec", version)))
    assert not _cache.deps_current(_entry_with(Dep("dist", "msgspec", "0.0.1")))
    assert not _cache.deps_current(_entry_with(Dep("dist", "no-such-dist-toolcall", "1.0")))
    assert _cache.deps_current(_entry_with(Dep("python", "json", platform.python_version())))
    assert not _cache.deps_current(_entry_with(Dep("python", "json", "2.7.18")))
    assert not _cache.deps_current(_entry_with(Dep("unknown", "dyn", "")))
    assert _cache.deps_current(_entry_with())


def test_dep_for_module_picks_the_cheapest_sound_fingerprint(
    make_module: Callable[..., types.ModuleType], tmp_path: Path
) -> None:
    """Stdlib -> python, installed dist -> its version, user file -> content, else unknown."""
    import json

    python = platform.python_version()
    assert _cache.dep_for_module(json) == Dep("python", "json", python, module="json")
    version = msgspec.__version__
    assert _cache.dep_for_module(msgspec) == Dep("dist", "msgspec", version, module="msgspec")
    assert _cache.dep_for_module(msgspec.structs) == Dep(
        "dist", "msgspec", version, module="msgspec.structs"
    )
    user = make_module("X = 1\n")
    assert _cache.dep_for_module(user) == _cache.file_dep(user.__file__, user.__name__)
    dynamic = types.ModuleType("dynamic")
    assert _cache.dep_for_module(dynamic) == Dep("unknown", "dynamic", "", module="dynamic")


def test_dep_for_module_hashes_files_a_distribution_does_not_list(tmp_path: Path) -> None:
    """A module under an installed package name but outside its RECORD (an editable
    install) and a user module shadowing a stdlib name are hashed, not versioned."""
    for name in ("msgspec.extra", "json"):
        module = types.ModuleType(name)
        module.__file__ = str(write_source(tmp_path / f"{name}.py", "Y = 2\n"))
        assert _cache.dep_for_module(module) == _cache.file_dep(module.__file__, name)


def _entry_with(*deps: Dep) -> Entry:
    return Entry(
        module="m",
        source_path="/nowhere/m.py",
        source_rel="m.py",
        source_digest="",
        pyc_hash="",
        source_mtime=0,
        source_size=0,
        deps=deps,
        ir=ir.ModuleIR(module="m"),
        variants={},
        created=0.0,
    )


# -- sourceless deployments --------------------------------------------------------------

_MODES = [
    py_compile.PycInvalidationMode.TIMESTAMP,
    py_compile.PycInvalidationMode.CHECKED_HASH,
    py_compile.PycInvalidationMode.UNCHECKED_HASH,
]


@pytest.mark.parametrize("mode", _MODES)
def test_find_sourceless_matches_the_pyc_header(
    cache: Path, tmp_path: Path, mode: py_compile.PycInvalidationMode
) -> None:
    """With the source deleted, the entry is found through its ``.pyc`` header."""
    source = write_source(tmp_path / "app" / "sless.py")
    models = write_source(tmp_path / "app" / "models.py", "class Address: ...\n")
    _, entry = store(cache, source, module="sless", deps=(_cache.file_dep(models),))
    store(cache, write_source(tmp_path / "app" / "other.py"), module="other")
    for path in (source, models):
        py_compile.compile(str(path), cfile=str(path.with_suffix(".pyc")), invalidation_mode=mode)
        path.unlink()
    found = _cache.find_sourceless(cache, "sless", source.with_suffix(".pyc"))
    assert found is not None
    assert (found.ir, found.created, found.deps) == (entry.ir, entry.created, entry.deps)


@pytest.mark.parametrize("mode", _MODES)
def test_find_sourceless_rejects_a_pyc_of_other_source(
    cache: Path, tmp_path: Path, mode: py_compile.PycInvalidationMode
) -> None:
    """A ``.pyc`` compiled from a different source does not find the entry."""
    source = write_source(tmp_path / "sless.py")
    store(cache, source, module="sless")
    source.write_text(SOURCE + "\n# edited\n")
    pyc = tmp_path / "sless.pyc"
    py_compile.compile(str(source), cfile=str(pyc), invalidation_mode=mode)
    assert _cache.find_sourceless(cache, "sless", pyc) is None


def test_find_sourceless_misses_quietly(cache: Path, tmp_path: Path) -> None:
    """No pyc, no directory, or a stale dependency: None, no exception."""
    source = write_source(tmp_path / "sless.py")
    models = write_source(tmp_path / "models.py", "A = 1\n")
    pyc = tmp_path / "sless.pyc"
    assert _cache.find_sourceless(cache, "sless", pyc) is None
    py_compile.compile(str(source), cfile=str(pyc))
    assert _cache.find_sourceless(cache, "sless", pyc) is None
    store(cache, source, module="sless", deps=(_cache.file_dep(models),))
    models.write_text("A = 2\n")
    assert _cache.find_sourceless(cache, "sless", pyc) is None


# -- scan, clean, clear ------------------------------------------------------------------


def _statuses(directory: Path) -> dict[str, str]:
    return {info.path.name: info.status for info in _maint.scan(directory)}


def test_scan_classifies_every_file(cache: Path, tmp_path: Path) -> None:
    """Valid, source gone/changed, dependency changed, old format, unreadable, stale temp."""
    src = tmp_path / "src"
    valid, _ = store(cache, write_source(src / "valid.py"), module="valid")
    gone_src = write_source(src / "gone.py")
    gone, _ = store(cache, gone_src, module="gone")
    gone_src.unlink()
    changed_src = write_source(src / "changed.py")
    changed, _ = store(cache, changed_src, module="changed")
    changed_src.write_text("# new\n")
    dep_file = write_source(src / "dep.py", "D = 1\n")
    dep, _ = store(
        cache, write_source(src / "user.py"), module="user", deps=(_cache.file_dep(dep_file),)
    )
    dep_file.write_text("D = 2\n")
    old, _ = store(cache, write_source(src / "old.py"), module="old")
    old.write_bytes(_other_ir_format(old.read_bytes()))
    broken = cache / f"broken-{'0' * 32}.tcc"
    broken.write_bytes(b"garbage")
    link = cache / f"link-{'0' * 32}.tcc"
    link.symlink_to(valid)
    stale = cache / f"{valid.name}.4242.tmp"
    stale.write_bytes(b"x" * 10)
    age(stale, 120)
    (cache / f"{valid.name}.4243.tmp").write_bytes(b"in flight")
    (cache / "notes.txt").write_text("not ours")
    assert _statuses(cache) == {
        valid.name: "valid",
        gone.name: "source gone",
        changed.name: "source changed",
        dep.name: "dependency changed",
        old.name: "old format",
        broken.name: "unreadable",
        link.name: "unreadable",
        stale.name: "stale temp file",
    }
    info = next(i for i in _maint.scan(cache) if i.path == valid)
    assert (info.module, info.source_path, info.size) == (
        "valid",
        str(src / "valid.py"),
        valid.stat().st_size,
    )


@pytest.mark.parametrize("legacy", [True, False])
def test_scan_keeps_entries_of_sourceless_modules(
    cache: Path, tmp_path: Path, legacy: bool
) -> None:
    """A deleted source whose matching ``.pyc`` remains (beside it or in __pycache__) is valid."""
    source = write_source(tmp_path / "shipped.py")
    path, _ = store(cache, source, module="shipped")
    if legacy:
        pyc = str(source.with_suffix(".pyc"))
    else:
        pyc = importlib.util.cache_from_source(str(source), optimization=2)
    py_compile.compile(
        str(source), cfile=pyc, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
    )
    source.unlink()
    assert _statuses(cache) == {path.name: "valid"}
    Path(pyc).write_bytes(Path(pyc).read_bytes()[:8] + bytes(8))
    assert _statuses(cache) == {path.name: "source gone"}


def test_scan_keeps_entries_of_other_pythons(
    cache: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry keyed for another Python minor version is neither read nor cleaned here."""
    with monkeypatch.context() as m:
        m.setattr(_cache, "_PYTHON_MINOR", "3.99")
        path, _ = store(cache, source, deps=(Dep("python", "json", "3.99.0"),))
    assert _cache.read_entry(path) is None
    assert _statuses(cache) == {path.name: "valid"}
    assert _maint.clean(cache) == (0, 0)


def test_scan_of_missing_directory_is_empty(tmp_path: Path) -> None:
    """A cache that was never created has no entries."""
    assert _maint.scan(tmp_path / "none") == []
    assert _maint.clean(tmp_path / "none") == (0, 0)
    assert _maint.clear(tmp_path / "none") == (0, 0)


def test_clean_removes_orphans_only_and_counts_bytes(cache: Path, tmp_path: Path) -> None:
    """Orphans and stale temps go (dry run only counts); valid entries and other files stay."""
    valid, _ = store(cache, write_source(tmp_path / "valid.py"), module="valid")
    changed_src = write_source(tmp_path / "changed.py")
    changed, _ = store(cache, changed_src, module="changed")
    changed_src.write_text("# new\n")
    broken = cache / f"broken-{'0' * 32}.tcc"
    broken.write_bytes(b"garbage")
    stale = cache / f"{valid.name}.4242.tmp"
    stale.write_bytes(b"x" * 10)
    age(stale, 120)
    fresh = cache / f"{valid.name}.4243.tmp"
    fresh.write_bytes(b"in flight")
    (cache / "notes.txt").write_text("not ours")
    expected = (3, changed.stat().st_size + 7 + 10)
    before = sorted(os.listdir(cache))
    assert _maint.clean(cache, dry_run=True) == expected
    assert sorted(os.listdir(cache)) == before
    assert _maint.clean(cache) == expected
    assert sorted(os.listdir(cache)) == sorted([valid.name, fresh.name, "notes.txt"])
    assert _maint.clean(cache) == (0, 0)


def test_clean_older_than_removes_unused_valid_entries(cache: Path, tmp_path: Path) -> None:
    """``older_than_days`` also removes valid entries whose mtime is older than that."""
    recent, _ = store(cache, write_source(tmp_path / "recent.py"), module="recent")
    unused, _ = store(cache, write_source(tmp_path / "unused.py"), module="unused")
    age(unused, 10 * 86400)
    size = unused.stat().st_size
    assert _maint.clean(cache, older_than_days=20) == (0, 0)
    assert _maint.clean(cache, older_than_days=5) == (1, size)
    assert os.listdir(cache) == [recent.name]


def test_clean_spares_an_entry_replaced_since_the_scan(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An orphan replaced by a writer between scan and removal is not deleted."""
    source = write_source(tmp_path / "m.py")
    path, entry = store(cache, source, module="m")
    source.write_text("# changed\n")
    real_scan = _maint._scan

    def scan_then_rewrite(directory: Path) -> list[tuple[_maint.EntryInfo, int]]:
        found = real_scan(directory)
        assert _cache.write_entry(path, entry)
        return found

    monkeypatch.setattr(_maint, "_scan", scan_then_rewrite)
    assert _maint.clean(cache) == (0, 0)
    assert path.exists()


def test_touch_if_old_bumps_only_day_old_entries(cache: Path, source: Path) -> None:
    """Use is recorded on entries older than a day; recent ones are not written to."""
    path, _ = store(cache, source)
    age(path, 3600)
    hour_old = path.stat().st_mtime
    _cache.touch_if_old(path)
    assert path.stat().st_mtime == hour_old
    age(path, 2 * 86400)
    two_days_old = path.stat().st_mtime
    _cache.touch_if_old(path)
    assert path.stat().st_mtime > two_days_old + 86400
    _cache.touch_if_old(cache / "missing.tcc")


def test_clear_removes_all_entries_and_temps_only(cache: Path, tmp_path: Path) -> None:
    """Every ``.tcc`` and ``.tcc.<pid>.tmp`` goes, valid or not; other files stay."""
    valid, _ = store(cache, write_source(tmp_path / "valid.py"), module="valid")
    broken = cache / f"broken-{'0' * 32}.tcc"
    broken.write_bytes(b"garbage")
    temp = cache / f"{valid.name}.99.tmp"
    temp.write_bytes(b"12345")
    (cache / "notes.txt").write_text("not ours")
    (cache / "other.tmp").write_text("not ours either")
    (cache / "sub.tcc").mkdir()
    expected = (3, valid.stat().st_size + 7 + 5)
    assert _maint.clear(cache) == expected
    assert sorted(os.listdir(cache)) == ["notes.txt", "other.tmp", "sub.tcc"]


def test_clean_hashes_each_source_once_and_scales_linearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cleaning thousands of entries (half orphaned) hashes each source file and checks each
    dependency once, however many entries name them, and its work grows linearly."""
    kept = write_source(tmp_path / "kept.py")
    dropped = write_source(tmp_path / "dropped.py", SOURCE + "\n")
    dep = _cache.file_dep(write_source(tmp_path / "helper.py"))
    tools = module_ir("x", 3).tools

    def populate(cache: Path, count: int) -> None:
        cache.mkdir()
        for path in (kept, dropped):
            data = path.read_bytes()
            base = _cache.make_entry(module_ir("x", 0), path, data, deps=(dep,), variants=VARIANTS)
            for i in range(count):
                module = f"{path.stem}{i}"
                entry = msgspec.structs.replace(
                    base, module=module, ir=ir.ModuleIR(module=module, tools=tools)
                )
                key = _cache.source_key(module, data)
                encoded = frame(msgspec.msgpack.encode(entry))
                _cache.entry_path(cache, module, key).write_bytes(encoded)

    small, large = tmp_path / "small", tmp_path / "large"
    populate(small, 500)
    populate(large, 2500)
    dropped.write_text("# changed\n")
    hashed: list[int] = []
    checked: list[Dep] = []
    digest, dep_current = _maint.digest, _maint.dep_current
    monkeypatch.setattr(_maint, "digest", lambda data: hashed.append(len(data)) or digest(data))
    monkeypatch.setattr(
        _maint, "dep_current", lambda d, roots: checked.append(d) or dep_current(d, roots)
    )
    (count, _), small_calls = count_calls(lambda: _maint.clean(small))
    assert count == 500
    assert (len(hashed), checked) == (2, [dep])
    (count, _), large_calls = count_calls(lambda: _maint.clean(large))
    assert count == 2500
    assert (len(hashed), checked) == (4, [dep, dep])
    assert len(os.listdir(large)) == 2500
    assert large_calls <= 5 * small_calls, (small_calls, large_calls)


class _Payload:
    """Unpickling this would create a file: the reader must never get that far."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_pickle_payload_is_never_unpickled(cache: Path, source: Path, tmp_path: Path) -> None:
    """A well-framed pickle in an entry file is a miss and runs nothing."""
    marker = tmp_path / "pwned"
    path, _ = store(cache, source)
    path.write_bytes(frame(pickle.dumps(_Payload(marker))))
    assert _cache.read_entry(path) is None
    assert _statuses(cache) == {path.name: "unreadable"}
    assert not marker.exists()
