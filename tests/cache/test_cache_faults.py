"""No fault of the disk or of a process breaks an import or leaves an entry that lies (issue 5.6).

A process killed mid-write, a full / forbidden / read-only disk, a symlink planted at an
entry, a tampered entry and eight processes racing to write one entry: none of them may break
an import or leave an entry a reader accepts that does not match the source.
``test_production`` already covers damaged or truncated entries, cold processes started
together and a directory that cannot be created; ``test_cache`` the store's own unit cases.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import signal
import subprocess
import textwrap
import time
import types
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

import subproc
import toolcall
from projects import EMIT_ALL, write_project
from toolcall import ir
from toolcall._cache import maintenance
from toolcall._cache import store as _cache
from toolcall._derive import module as derivation
from toolcall._load import warm

# Wraps os.open / os.write / os.replace in the child so that only the cache's own temp file
# is affected: the fds it creates under TOOLCALL_CACHE_DIR are recorded.
FAULTS = """
import os, sys, time
CACHE = os.environ["TOOLCALL_CACHE_DIR"]
real_open, real_write, real_replace = os.open, os.write, os.replace
ours = set()

def _open(path, flags, mode=0o777, **kwargs):
    fd = real_open(path, flags, mode, **kwargs)
    if flags & os.O_CREAT and os.fspath(path).startswith(CACHE):
        ours.add(fd)
    return fd

os.open = _open
"""

KILLED_CHILD = (
    FAULTS
    + """
stage, flag = sys.argv[1], sys.argv[2]

def hang():
    open(flag, "w").close()
    time.sleep(120)

def _write(fd, data):
    if fd in ours:
        real_write(fd, bytes(data[: len(data) // 2]))
        hang()
    return real_write(fd, data)

if stage == "write":
    os.write = _write
else:
    os.replace = lambda src, dst: hang()
import toolcall, app.tools
"""
)

RACING_CHILD = (
    FAULTS
    + """
import glob, json
sync, count = sys.argv[1], int(sys.argv[2])

def _write(fd, data):
    # Every process holds its temp file open until all of them are writing.
    if fd in ours:
        ours.discard(fd)
        open(os.path.join(sync, f"writing-{os.getpid()}"), "w").close()
        deadline = time.monotonic() + 30
        while len(glob.glob(os.path.join(sync, "writing-*"))) < count:
            if time.monotonic() > deadline:
                sys.exit("the other writers never arrived")
            time.sleep(0.002)
    return real_write(fd, data)

os.write = _write
while not os.path.exists(os.path.join(sync, "go")):
    time.sleep(0.002)
"""
    + EMIT_ALL
)


def environ(cache: Path) -> dict[str, str | None]:
    """The cache and the hook at their defaults, the cache in ``cache``, no bytecode written."""
    return {
        "TOOLCALL_CACHE": None,
        "TOOLCALL_HOOK": None,
        "TOOLCALL_CACHE_DIR": str(cache),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def emitted(project: Path, cache: Path) -> tuple[dict[str, Any], str]:
    """Every variant as a fresh process emits it, and its stderr (derivation warnings)."""
    done = subproc.python(
        "-W",
        "always::UserWarning",
        "-c",
        EMIT_ALL,
        paths=[project],
        env=environ(cache),
        cwd=project,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def derived(stderr: str) -> bool:
    """Whether the process derived the module: derivation warns about ``loose``."""
    return "loose" in stderr


class Reference:
    """What a clean cold process emits and writes, for comparison."""

    def __init__(self, project: Path, cache: Path) -> None:
        self.project = project
        self.output, stderr = emitted(project, cache)
        assert derived(stderr)
        (self.path,) = cache.glob("*.tcc")
        self.name = self.path.name
        self.data = self.path.read_bytes()
        entry = _cache.read_entry(self.path)
        assert entry is not None
        self.entry = entry

    def assert_rebuilt(self, cache: Path) -> None:
        """The cache holds exactly the entry a clean process writes (its timestamp aside)."""
        entry = _cache.read_entry(cache / self.name)
        assert entry is not None
        assert not (cache / self.name).is_symlink()
        assert msgspec.structs.replace(entry, created=0.0) == msgspec.structs.replace(
            self.entry, created=0.0
        )


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    project = write_project(tmp_path_factory.mktemp("faults") / "proj")
    return Reference(project, tmp_path_factory.mktemp("reference-cache"))


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then), follow_symlinks=False)


def wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        if proc.poll() is not None:
            pytest.fail(f"child exited early: {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("child never reached the fault")
        time.sleep(0.005)


# -- a process killed mid-write -----------------------------------------------------------


@pytest.mark.parametrize("stage", ["write", "replace"])
def test_process_killed_mid_write_leaves_no_entry(
    reference: Reference, tmp_path: Path, stage: str
) -> None:
    """SIGKILL half-way through the write, or with the temp complete but not yet renamed:
    only a temp file is left, no reader accepts it, the next process rebuilds the entry and
    ``clean`` later removes the temp."""
    cache = tmp_path / "cache"
    flag = tmp_path / "at-fault"
    proc = subproc.spawn(
        "-c", KILLED_CHILD, stage, flag, paths=[reference.project], env=environ(cache)
    )
    wait_for(flag, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    temp = cache / f"{reference.name}.{proc.pid}.tmp"
    assert sorted(cache.iterdir()) == [temp]
    left = temp.read_bytes()
    if stage == "write":
        assert left.startswith(_cache.MAGIC + _cache.VERSION)
        assert len(left) == len(reference.data) // 2
    else:
        # The temp is a whole, valid entry: only its name keeps readers away from it.
        complete = _cache._decoder.decode(_cache.payload(left))
        assert complete.ir == reference.entry.ir
    assert _cache.read_entry(temp) is None
    output, stderr = emitted(reference.project, cache)
    assert output == reference.output
    assert derived(stderr)
    assert sorted(cache.iterdir()) == sorted([cache / reference.name, temp])
    reference.assert_rebuilt(cache)
    age(temp, 120)
    assert maintenance.clean(cache) == (1, len(left))
    assert sorted(cache.iterdir()) == [cache / reference.name]


# -- full, forbidden and read-only disks ---------------------------------------------------

MODULE_SOURCE = '''
__toolcall__ = True


def ship(city: str, express: bool = False) -> str:
    """Ship a parcel.

    Args:
        city: where to
    """
    return city
'''

SHIP_OPENAI = [
    {
        "type": "function",
        "function": {
            "name": "ship",
            "description": "Ship a parcel.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "where to"},
                    "express": {"type": "boolean", "default": False},
                },
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    }
]


def _fail(code: int) -> OSError:
    return OSError(code, os.strerror(code))


@pytest.mark.parametrize(
    ("call", "code"),
    [
        ("open", errno.EACCES),
        ("open", errno.EROFS),
        ("open", errno.ENOSPC),
        ("write", errno.ENOSPC),
        ("write", errno.EIO),
        ("mkdir", errno.EROFS),
        ("mkdir", errno.EACCES),
        ("replace", errno.EACCES),
    ],
)
def test_write_faults_never_break_the_import(
    make_module: Callable[[str], types.ModuleType],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    call: str,
    code: int,
) -> None:
    """The cache's write failing at any step: the import, ``emit`` and ``run`` work, the
    failure is logged at DEBUG, and the directory holds no entry and no temp file."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(cache))
    if call != "mkdir":
        cache.mkdir()
    os_ = _cache.os
    real_open, real_write, real_mkdir = os_.open, os_.write, os_.mkdir
    ours: set[int] = set()
    failed: list[str] = []

    def inside(path: Any) -> bool:
        return os.fspath(path).startswith(str(cache))

    def fake_open(path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        if call == "open" and flags & os.O_CREAT and inside(path):
            failed.append(call)
            raise _fail(code)
        fd = real_open(path, flags, mode, **kwargs)
        if flags & os.O_CREAT and inside(path):
            ours.add(fd)
        return fd

    def fake_write(fd: int, data: Any) -> int:
        if fd in ours:
            if failed:  # the first chunk lands, the next one fails
                raise _fail(code)
            failed.append(call)
            return real_write(fd, bytes(data[:100]))
        return real_write(fd, data)

    def fake_mkdir(path: Any, *args: Any, **kwargs: Any) -> None:
        if not inside(path):
            return real_mkdir(path, *args, **kwargs)
        failed.append(call)
        raise _fail(code)

    def fake_replace(src: Any, dst: Any, **kwargs: Any) -> None:
        failed.append(call)
        raise _fail(code)

    monkeypatch.setattr(os_, "open", fake_open)
    if call == "write":
        monkeypatch.setattr(os_, "write", fake_write)
    elif call == "mkdir":
        monkeypatch.setattr(os_, "mkdir", fake_mkdir)
    elif call == "replace":
        monkeypatch.setattr(os_, "replace", fake_replace)
    caplog.set_level(logging.DEBUG, logger="toolcall")
    module = make_module(MODULE_SOURCE)
    assert toolcall.emit(module, "openai") == SHIP_OPENAI
    assert toolcall.run(module, "ship", {"city": "Oslo"}) == toolcall.Ok("Oslo")
    monkeypatch.undo()
    assert failed == [call]
    key = _cache.source_key(module.__name__, textwrap.dedent(MODULE_SOURCE).encode())
    path = _cache.entry_path(cache, module.__name__, key)
    assert [r.getMessage() for r in caplog.records if "could not write" in r.getMessage()] == [
        f"toolcall cache: could not write {path}: {_fail(code)}"
    ]
    assert (list(cache.iterdir()) if cache.exists() else []) == []


def test_read_only_cache_still_serves_its_entries(
    make_module: Callable[[str], types.ModuleType],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Shipped entries on a read-only disk: a day-old entry is used without deriving, and the
    failed touch that records its use is only logged."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(cache))
    module = make_module(MODULE_SOURCE)
    (entry,) = cache.iterdir()
    age(entry, 2 * 86400)
    before = entry.stat().st_mtime_ns
    real_open, real_utime = os.open, os.utime

    def read_only_open(path: Any, flags: int, mode: int = 0o777, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            raise _fail(errno.EROFS)
        return real_open(path, flags, mode, **kwargs)

    def read_only_utime(path: Any, *args: Any, **kwargs: Any) -> None:
        if os.fspath(path).startswith(str(cache)):
            raise _fail(errno.EROFS)
        real_utime(path, *args, **kwargs)

    def no_derivation(module: types.ModuleType) -> Any:
        raise AssertionError(f"{module.__name__} was derived")

    monkeypatch.setattr(_cache.os, "open", read_only_open)
    monkeypatch.setattr(_cache.os, "utime", read_only_utime)
    monkeypatch.setattr(derivation, "derive_module", no_derivation)
    caplog.set_level(logging.DEBUG, logger="toolcall")
    warm.process(module)
    assert toolcall.emit(module, "openai") == SHIP_OPENAI
    monkeypatch.undo()
    assert entry.stat().st_mtime_ns == before
    assert [r.getMessage() for r in caplog.records] == [
        f"toolcall cache: could not touch {entry}: {_fail(errno.EROFS)}"
    ]


# -- symlinks planted at an entry path ------------------------------------------------------


@pytest.mark.parametrize("target", ["other file", "dangling", "valid entry"])
def test_symlink_at_entry_path_is_neither_followed_nor_trusted(
    reference: Reference, tmp_path: Path, target: str
) -> None:
    """A symlink where the entry goes: the process derives instead of reading through it, and
    replaces the link with a real entry, leaving its target as it was."""
    cache = tmp_path / "cache"
    cache.mkdir()
    victim = tmp_path / "outside" / "victim"
    victim.parent.mkdir()
    if target == "other file":
        victim.write_bytes(b"precious")
    elif target == "valid entry":
        victim.write_bytes(reference.data)
    link = cache / reference.name
    link.symlink_to(victim)
    output, stderr = emitted(reference.project, cache)
    assert output == reference.output
    assert derived(stderr)
    reference.assert_rebuilt(cache)
    assert sorted(cache.iterdir()) == [link]
    if target == "dangling":
        assert not victim.exists()
    else:
        assert victim.read_bytes() == (b"precious" if target == "other file" else reference.data)


# -- tampered entries -----------------------------------------------------------------------


def frame(payload: bytes, version: bytes = _cache.VERSION) -> bytes:
    """An entry file around ``payload`` whose header and checksum are correct."""
    return _cache.MAGIC + version + zlib.crc32(payload).to_bytes(4, "big") + payload


def reframe(entry: _cache.Entry, **changes: Any) -> bytes:
    return frame(msgspec.msgpack.encode(msgspec.structs.replace(entry, **changes)))


def _content_edited(data: bytes, entry: _cache.Entry) -> bytes:
    assert b"Ship a parcel." in data
    return data.replace(b"Ship a parcel.", b"Ship a rocket.")


def _checksum_edited(data: bytes, entry: _cache.Entry) -> bytes:
    at = len(_cache.MAGIC) + len(_cache.VERSION)
    return data[:at] + bytes([data[at] ^ 1]) + data[at + 1 :]


def _other_source(data: bytes, entry: _cache.Entry) -> bytes:
    return reframe(entry, source_digest=_cache.digest(b"def ship(): ...\n"))


def _other_module(data: bytes, entry: _cache.Entry) -> bytes:
    return reframe(entry, module="app.other")


def _other_ir_format(data: bytes, entry: _cache.Entry) -> bytes:
    return frame(data[_cache._HEADER_SIZE :], bytes((_cache.VERSION[0], ir.FORMAT_VERSION + 1)))


def _not_an_entry(data: bytes, entry: _cache.Entry) -> bytes:
    return frame(msgspec.msgpack.encode({"module": "app.tools", "ir": [1, 2, 3]}))


def _missing_function(data: bytes, entry: _cache.Entry) -> bytes:
    tools = tuple(msgspec.structs.replace(t, qualname=f"gone_{t.name}") for t in entry.ir.tools)
    return reframe(entry, ir=msgspec.structs.replace(entry.ir, tools=tools))


def _missing_variant(data: bytes, entry: _cache.Entry) -> bytes:
    variants = {k: v for k, v in entry.variants.items() if k != "strict"}
    return reframe(entry, variants=variants)


@pytest.mark.parametrize(
    "tamper",
    [
        _content_edited,
        _checksum_edited,
        _other_source,
        _other_module,
        _other_ir_format,
        _not_an_entry,
        _missing_function,
        _missing_variant,
    ],
)
def test_tampered_entry_is_detected_and_rebuilt(
    reference: Reference, tmp_path: Path, tamper: Callable[[bytes, _cache.Entry], bytes]
) -> None:
    """Edited content under a stale checksum, a wrong checksum, another source's or module's
    entry, another IR format, or a well-framed entry the module cannot use: the process
    derives, emits what a clean one does, and rewrites the entry."""
    cache = tmp_path / "cache"
    cache.mkdir()
    path = cache / reference.name
    path.write_bytes(tamper(reference.data, reference.entry))
    assert path.read_bytes() != reference.data
    output, stderr = emitted(reference.project, cache)
    assert output == reference.output
    assert derived(stderr)
    reference.assert_rebuilt(cache)
    assert sorted(cache.iterdir()) == [path]


# -- eight processes deriving at once -------------------------------------------------------


@pytest.fixture
def racers(reference: Reference, tmp_path: Path) -> Iterator[list[subprocess.Popen[str]]]:
    sync = tmp_path / "sync"
    sync.mkdir()
    env = environ(tmp_path / "cache")
    procs = [
        subproc.spawn(
            "-W",
            "always::UserWarning",
            "-c",
            RACING_CHILD,
            sync,
            "8",
            paths=[reference.project],
            env=env,
        )
        for _ in range(8)
    ]
    (sync / "go").touch()
    try:
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()


def test_eight_processes_deriving_at_once_leave_one_valid_entry(
    reference: Reference, tmp_path: Path, racers: list[subprocess.Popen[str]]
) -> None:
    """Eight cold processes all derive and all hold their temp file open at the same moment:
    each emits what a clean process does, and one valid entry remains, with no temp file."""
    results = [proc.communicate(timeout=60) for proc in racers]
    assert [proc.returncode for proc in racers] == [0] * 8, [err for _, err in results]
    assert [json.loads(out) for out, _ in results] == [reference.output] * 8
    assert all(derived(err) for _, err in results)
    cache = tmp_path / "cache"
    assert sorted(cache.iterdir()) == [cache / reference.name]
    reference.assert_rebuilt(cache)
    warm, stderr = emitted(reference.project, cache)
    assert warm == reference.output
    assert not derived(stderr)
