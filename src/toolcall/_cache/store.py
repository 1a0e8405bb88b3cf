"""The on-disk cache of derived modules: keys, entry format, atomic writes, cleaning.

An entry lets a warm process skip derivation and rendering, and lets a process without
docstrings (``-OO``) or without ``.py`` files emit full descriptions. The cache never
imports user code and knows nothing about derivation: it stores, finds and validates
entries that the registry builds.

Reading is paranoid because the directory is shared with whatever else the user runs:
every problem (missing, symlinked, truncated, foreign, other format, bad checksum,
undecodable, wrong shape) is a miss logged at DEBUG on logger ``toolcall``, never an
error. Entries are msgpack decoded into typed ``msgspec`` structs, so reading one cannot
run code. Writing never raises either: a read-only, full or missing directory only costs
the next process a derivation.

Layout of an entry file ``<module>-<key>.tcc``::

    b"TOOLCALL"  2-byte version  16-byte blake2b of the payload  msgpack payload

The version's first byte is this file layout, the second ``ir.FORMAT_VERSION``; the key
covers the module name, the source, the IR format and the Python minor version. An entry
only counts when its file name is the one its own contents hash to (``read_entry``), so a
copied or renamed file is a miss and a reader that computed the path from the source needs
no further comparison. What an entry depends on beyond its source (modules that
contributed types or providers) is only known after derivation, so it is recorded in the
entry as ``Dep`` values (see ``_fingerprint``) and checked by ``deps_current``.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.util
import logging
import os
import stat
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeAlias

import msgspec

from toolcall._cache.fingerprint import (
    UINT32,
    Dep,
    dep_current,
    dep_for_module,
    digest,
    file_dep,
    header_matches,
    pyc_header,
    sourceless_matches,
)
from toolcall.ir import FORMAT_VERSION, ModuleIR

__all__ = [
    "MAGIC",
    "SUFFIX",
    "VERSION",
    "Dep",
    "Entry",
    "EntryInfo",
    "cache_dir",
    "clean",
    "clear",
    "dep_for_module",
    "deps_current",
    "digest",
    "entry_path",
    "file_dep",
    "find_sourceless",
    "make_entry",
    "read_entry",
    "scan",
    "source_key",
    "touch_if_old",
    "write_entry",
]

StrPath: TypeAlias = "str | os.PathLike[str]"

MAGIC: Final = b"TOOLCALL"
_LAYOUT_VERSION: Final = 1
VERSION: Final = bytes((_LAYOUT_VERSION, FORMAT_VERSION))
"""Layout of the file, then the IR format: an entry of another IR format is "old format"
even where its key cannot be recomputed (a sourceless module is found by scanning)."""
SUFFIX: Final = ".tcc"

_CHECKSUM_SIZE: Final = 16
_HEADER_SIZE: Final = len(MAGIC) + len(VERSION) + _CHECKSUM_SIZE
_KEY_CHARS: Final = 32
_TEMP_SUFFIX: Final = ".tmp"
_DAY: Final = 86400.0
_STALE_TEMP_SECONDS: Final = 60.0
_PYTHON_MINOR: Final = f"{sys.version_info[0]}.{sys.version_info[1]}"

_NOFOLLOW: Final[int] = getattr(os, "O_NOFOLLOW", 0)
_BINARY: Final[int] = getattr(os, "O_BINARY", 0)
# O_NONBLOCK: opening a FIFO planted at an entry's path must not hang the import.
_READ_FLAGS: Final = os.O_RDONLY | _NOFOLLOW | _BINARY | getattr(os, "O_NONBLOCK", 0)
_CREATE_FLAGS: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY

_log = logging.getLogger("toolcall")


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One marked module's derived IR and rendered schemas, with what they came from.

    ``pyc_hash`` (``importlib.util.source_hash`` of the source, hex), ``source_mtime`` and
    ``source_size`` are what a hash-based or timestamp ``.pyc`` of the source carries:
    ``find_sourceless`` matches them against a ``.pyc`` when the source is gone.
    ``variants`` is opaque here.
    """

    module: str
    source_path: str
    source_digest: str
    pyc_hash: str
    source_mtime: int
    source_size: int
    deps: tuple[Dep, ...]
    ir: ModuleIR
    variants: dict[str, Any]
    created: float


class _Undecoded(msgspec.Struct, frozen=True, kw_only=True):
    """An ``Entry`` whose variants stay msgpack (``msgspec.Raw``) until someone decodes them.

    Most of an entry is its rendered variants, and a process usually emits one or two of
    them: a warm import that leaves the rest undecoded spends a fifth of the time decoding.
    """

    module: str
    source_path: str
    source_digest: str
    pyc_hash: str
    source_mtime: int
    source_size: int
    deps: tuple[Dep, ...]
    ir: ModuleIR
    variants: dict[str, msgspec.Raw]
    created: float


class _Head(msgspec.Struct):
    """The fields of an entry that cleaning needs; decoding it skips the IR and variants."""

    module: str
    source_path: str
    source_digest: str
    pyc_hash: str
    source_mtime: int
    source_size: int
    deps: tuple[Dep, ...]


_encoder: Final = msgspec.msgpack.Encoder()
_decoder: Final = msgspec.msgpack.Decoder(Entry)
_undecoded_decoder: Final = msgspec.msgpack.Decoder(_Undecoded)
_head_decoder: Final = msgspec.msgpack.Decoder(_Head)


class _Reject(Exception):
    """Bytes on disk that are not a usable entry; ``status`` is what ``scan`` reports."""

    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status


# -- locating entries -------------------------------------------------------------------


def cache_dir() -> Path | None:
    """Where entries live: None when ``TOOLCALL_CACHE=0`` keeps everything in memory.

    A relative ``TOOLCALL_CACHE_DIR`` is pinned to the current directory now, so a later
    ``chdir`` does not move the cache.
    """
    if os.environ.get("TOOLCALL_CACHE") == "0":
        return None
    configured = os.environ.get("TOOLCALL_CACHE_DIR")
    if configured:
        return Path(os.path.abspath(os.path.expanduser(configured)))
    import platformdirs  # only paid for when no directory is configured

    return Path(platformdirs.user_cache_dir("toolcall", appauthor=False))


def _key(module: str, source_digest: str) -> str:
    h = hashlib.blake2b()
    for part in (module, source_digest, str(FORMAT_VERSION), _PYTHON_MINOR):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:_KEY_CHARS]


def source_key(module: str, source: bytes) -> str:
    """The key of ``module``'s entry for this source, IR format and Python minor version.

    It hashes the source's ``digest``, so the key of an existing entry can be recomputed
    from the entry alone (which is how ``read_entry`` rejects a misplaced file).
    """
    return _key(module, digest(source))


def entry_path(directory: Path, module: str, key: str) -> Path:
    """The file holding ``module``'s entry for ``key``."""
    return directory / f"{module}-{key}{SUFFIX}"


def _entry_name(module: str, source_digest: str) -> str:
    return f"{module}-{_key(module, source_digest)}{SUFFIX}"


def make_entry(
    module_ir: ModuleIR,
    source_path: StrPath,
    source: bytes,
    *,
    deps: Iterable[Dep] = (),
    variants: dict[str, Any],
) -> Entry:
    """Build an entry whose fingerprints are exactly what reading and cleaning check.

    Raises ``OSError`` when ``source_path`` cannot be stat'ed.
    """
    absolute = os.path.abspath(source_path)
    st = os.stat(absolute)
    return Entry(
        module=module_ir.module,
        source_path=absolute,
        source_digest=digest(source),
        pyc_hash=importlib.util.source_hash(source).hex(),
        source_mtime=int(st.st_mtime),
        source_size=st.st_size & UINT32,
        deps=tuple(deps),
        ir=module_ir,
        variants=variants,
        created=time.time(),
    )


# -- reading and writing ----------------------------------------------------------------


def _read_untrusted(path: StrPath) -> bytes:
    """Read a regular file that is not a symlink: an entry reached through one is not ours."""
    if not _NOFOLLOW and os.path.islink(path):
        raise OSError(errno.ELOOP, "is a symbolic link", os.fspath(path))
    fd = os.open(path, _READ_FLAGS)
    with open(fd, "rb", buffering=0) as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        return f.readall()


def _payload(data: bytes) -> memoryview:
    if len(data) < _HEADER_SIZE:
        raise _Reject("unreadable", "too short")
    if not data.startswith(MAGIC):
        raise _Reject("unreadable", "not a toolcall cache entry")
    version = data[len(MAGIC) : len(MAGIC) + len(VERSION)]
    if version != VERSION:
        raise _Reject("old format", f"format version {version.hex()}, expected {VERSION.hex()}")
    payload = memoryview(data)[_HEADER_SIZE:]
    checksum = hashlib.blake2b(payload, digest_size=_CHECKSUM_SIZE).digest()
    if checksum != data[_HEADER_SIZE - _CHECKSUM_SIZE : _HEADER_SIZE]:
        raise _Reject("unreadable", "checksum mismatch")
    return payload


def read_entry(path: StrPath, *, raw_variants: bool = False) -> Entry | None:
    """The entry stored at ``path``, or None when there is no usable one.

    A returned entry belongs at ``path``: its module, source digest, IR format and this
    Python's minor version hash to the file's name. Its dependencies are not checked here
    (``deps_current``). With ``raw_variants`` each value of ``variants`` is left as
    ``msgspec.Raw`` msgpack, for the caller to decode when it needs it.
    """
    try:
        payload = _payload(_read_untrusted(path))
        if raw_variants:
            undecoded = _undecoded_decoder.decode(payload)
            entry = Entry(**msgspec.structs.asdict(undecoded))
        else:
            entry = _decoder.decode(payload)
    except (OSError, _Reject, msgspec.DecodeError, RecursionError) as exc:
        _log.debug("toolcall cache: ignoring %s: %s", path, exc)
        return None
    if os.path.basename(path) != _entry_name(entry.module, entry.source_digest):
        _log.debug("toolcall cache: ignoring %s: it holds the entry of another key", path)
        return None
    return entry


def write_entry(path: StrPath, entry: Entry) -> bool:
    """Store ``entry`` at ``path`` atomically; False (logged at DEBUG) when it cannot.

    The temp file is created exclusively, without following symlinks, mode 0600, then
    renamed over ``path``: a reader never sees half an entry and a symlink planted at
    ``path`` is replaced, not written through. Never raises.
    """
    path = Path(path)
    if path.name != _entry_name(entry.module, entry.source_digest):
        _log.debug("toolcall cache: not writing %s: the entry's key names another file", path)
        return False
    try:
        payload = _encoder.encode(entry)
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError) as exc:
        _log.debug("toolcall cache: not writing %s: %s", path, exc)
        return False
    checksum = hashlib.blake2b(payload, digest_size=_CHECKSUM_SIZE).digest()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _write_atomic(path, MAGIC + VERSION + checksum + payload)
    except OSError as exc:
        _log.debug("toolcall cache: could not write %s: %s", path, exc)
        return False
    return True


def _write_atomic(path: Path, data: bytes) -> None:
    temp = f"{path}.{os.getpid()}{_TEMP_SUFFIX}"
    fd = _create_temp(temp)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _create_temp(temp: str) -> int:
    """Create the temp file; one left by a dead process whose pid we now have is replaced.

    Containers restart with the same small pids, so a temp file orphaned by a crash would
    otherwise block every later write of that entry.
    """
    try:
        return os.open(temp, _CREATE_FLAGS, 0o600)
    except FileExistsError:
        if time.time() - os.lstat(temp).st_mtime < _STALE_TEMP_SECONDS:
            raise
        os.unlink(temp)
        return os.open(temp, _CREATE_FLAGS, 0o600)


def touch_if_old(path: StrPath) -> None:
    """Record that an entry was used, for ``clean --older-than``.

    Only entries last touched more than a day ago are touched, so a warm import costs one
    ``stat`` and writes nothing.
    """
    try:
        if time.time() - os.stat(path).st_mtime > _DAY:
            os.utime(path)
    except OSError as exc:
        _log.debug("toolcall cache: could not touch %s: %s", path, exc)


# -- dependencies and sourceless modules -----------------------------------------------


def deps_current(entry: Entry) -> bool:
    """True when every dependency recorded in ``entry`` is unchanged."""
    return all(dep_current(dep) for dep in entry.deps)


def find_sourceless(directory: StrPath, module: str, pyc_path: StrPath) -> Entry | None:
    """The entry of a module loaded from ``pyc_path`` without its source, or None.

    The key cannot be computed without the source, so ``<module>-*.tcc`` entries are
    read and matched against the ``.pyc`` header: the source hash of a hash-based
    ``.pyc``, or the source mtime and size of a timestamp one. The returned entry has been
    fully validated, dependencies included; among several matches the newest wins.
    """
    header = pyc_header(pyc_path)
    if header is None:
        _log.debug("toolcall cache: no readable .pyc header in %s", pyc_path)
        return None
    try:
        names = os.listdir(directory)
    except OSError as exc:
        _log.debug("toolcall cache: cannot list %s: %s", directory, exc)
        return None
    prefix = f"{module}-"
    length = len(prefix) + _KEY_CHARS + len(SUFFIX)
    best: Entry | None = None
    for name in names:
        if len(name) != length or not name.startswith(prefix) or not name.endswith(SUFFIX):
            continue
        entry = read_entry(Path(directory, name))
        if (
            entry is not None
            and header_matches(header, entry.pyc_hash, entry.source_mtime, entry.source_size)
            and (best is None or entry.created > best.created)
            and deps_current(entry)
        ):
            best = entry
    return best


# -- maintenance ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntryInfo:
    """One file in the cache directory, as ``toolcall-cache list`` shows it.

    ``status`` is ``"valid"`` or why the file is an orphan: ``"source gone"``,
    ``"source changed"``, ``"dependency changed"``, ``"old format"``, ``"unreadable"``
    or ``"stale temp file"``. ``module`` and ``source_path`` are empty when unknown.
    """

    path: Path
    size: int
    module: str
    source_path: str
    status: str
    mtime: float


class _Checker:
    """Classifies entries, hashing each source and checking each dependency once."""

    def __init__(self) -> None:
        self._digests: dict[str, str | None] = {}
        self._deps: dict[Dep, bool] = {}

    def classify(self, path: str, module: str, key: str) -> tuple[str, str, str]:
        """(module, source path, status) of the entry file at ``path``."""
        try:
            head = _head_decoder.decode(_payload(_read_untrusted(path)))
        except _Reject as exc:
            return module, "", exc.status
        except (OSError, msgspec.DecodeError, RecursionError):
            return module, "", "unreadable"
        if head.module != module:
            return module, head.source_path, "unreadable"
        status = self._source_status(head)
        # Only this interpreter's entries can be judged on their dependencies; one written
        # by another Python minor version keys differently and is kept.
        if (
            status == "valid"
            and key == _key(head.module, head.source_digest)
            and not all(self._dep_current(dep) for dep in head.deps)
        ):
            status = "dependency changed"
        return head.module, head.source_path, status

    def _source_status(self, head: _Head) -> str:
        path = head.source_path
        if path not in self._digests:
            try:
                with open(path, "rb") as f:
                    self._digests[path] = digest(f.read())
            except OSError:
                self._digests[path] = None
        current = self._digests[path]
        if current is None:
            if sourceless_matches(path, head.pyc_hash, head.source_mtime, head.source_size):
                return "valid"
            return "source gone"
        return "valid" if current == head.source_digest else "source changed"

    def _dep_current(self, dep: Dep) -> bool:
        if dep not in self._deps:
            self._deps[dep] = dep_current(dep)
        return self._deps[dep]


def _is_temp_name(name: str) -> bool:
    return name.endswith(_TEMP_SUFFIX) and f"{SUFFIX}." in name


def _scan(directory: StrPath) -> list[tuple[EntryInfo, int]]:
    """Each file's info with its inode, so ``clean`` can tell it was replaced since."""
    try:
        listing = os.scandir(directory)
    except FileNotFoundError:
        return []
    now = time.time()
    checker = _Checker()
    found: list[tuple[EntryInfo, int]] = []
    with listing:
        for item in listing:
            name = item.name
            is_temp = _is_temp_name(name)
            if not (is_temp or name.endswith(SUFFIX)):
                continue
            try:
                st = item.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            if stat.S_ISDIR(st.st_mode):
                continue
            if is_temp:
                if now - st.st_mtime < _STALE_TEMP_SECONDS:
                    continue
                module, source_path, status = name.rpartition("-")[0], "", "stale temp file"
            else:
                module, _, key = name[: -len(SUFFIX)].rpartition("-")
                module, source_path, status = checker.classify(item.path, module, key)
            info = EntryInfo(Path(item.path), st.st_size, module, source_path, status, st.st_mtime)
            found.append((info, item.inode()))
    found.sort(key=lambda pair: (pair[0].module, pair[0].path.name))
    return found


def scan(directory: StrPath) -> list[EntryInfo]:
    """Every entry and stray temp file in ``directory``, by module; [] when it is missing.

    Temp files younger than a minute belong to writes in progress and are not listed.
    Raises ``OSError`` when the directory cannot be listed.
    """
    return [info for info, _ in _scan(directory)]


def clean(
    directory: StrPath, *, dry_run: bool = False, older_than_days: float | None = None
) -> tuple[int, int]:
    """Remove orphans (every status but ``"valid"``): (files removed, bytes freed).

    With ``older_than_days``, valid entries not used for that long go too (use bumps an
    entry's mtime at most once a day). An entry replaced since the scan is left alone.
    Raises ``OSError`` when a file cannot be removed.
    """
    cutoff = None if older_than_days is None else time.time() - older_than_days * _DAY
    count = size = 0
    for info, inode in _scan(directory):
        if info.status == "valid" and (cutoff is None or info.mtime >= cutoff):
            continue
        if not dry_run:
            try:
                if os.lstat(info.path).st_ino != inode:
                    continue
                os.unlink(info.path)
            except FileNotFoundError:
                continue
        count += 1
        size += info.size
    return count, size


def clear(directory: StrPath) -> tuple[int, int]:
    """Remove every entry and temp file, valid or not: (files removed, bytes freed).

    Only toolcall's own files go (``*.tcc`` and their ``*.tcc.<pid>.tmp`` temp files), so a
    cache directory pointed at a shared folder loses nothing else.
    """
    count = size = 0
    try:
        listing = os.scandir(directory)
    except FileNotFoundError:
        return 0, 0
    with listing:
        for item in listing:
            if not (item.name.endswith(SUFFIX) or _is_temp_name(item.name)):
                continue
            try:
                st = item.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    continue
                os.unlink(item.path)
            except FileNotFoundError:
                continue
            count += 1
            size += st.st_size
    return count, size
