"""How a cache entry recognises what it was derived from, without importing anything.

Content digests for the user's files; versions standing in for the standard library and
installed distributions (so a warm import hashes only the user's own files); and the
``.pyc`` header fields (PEP 552) that let an entry verify a source that a deployment
compiled and then deleted.

Every path read here comes from an entry, which anyone who can write the cache directory
can forge, so files are opened the way ``read_regular`` does: non-blocking (a FIFO must not
hang an import), regular files only (``/dev/zero`` must not exhaust memory), and bounded.
File dependencies are recorded relative to the ``sys.path`` entry they were imported from,
so a deployment tree that is moved after ``toolcall-cache build`` still verifies.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import weakref
from collections.abc import Iterator
from functools import cache
from types import ModuleType
from typing import Final, TypeAlias

import msgspec

from toolcall._shared.digest import blake2b
from toolcall._shared.log import debug

__all__ = [
    "SOURCE_LIMIT",
    "Dep",
    "compiled_from",
    "dep_current",
    "dep_for_module",
    "digest",
    "file_dep",
    "header_matches",
    "import_relative",
    "locate",
    "pyc_header",
    "read_regular",
    "source_hash",
    "sourceless_matches",
]

StrPath: TypeAlias = "str | os.PathLike[str]"

UINT32: Final = 0xFFFFFFFF
SOURCE_LIMIT: Final = 64 << 20
"""Largest source or dependency file read: anything bigger is not a file we recorded."""

_NOFOLLOW: Final[int] = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS: Final = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)


def read_regular(
    path: StrPath, limit: int, *, follow: bool = True, prefix: bool = False
) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file and its ``fstat``; ``OSError`` for anything else.

    Opened non-blocking (a FIFO planted at the path returns at once instead of hanging),
    checked with ``fstat`` before reading (a device, FIFO or directory is refused), and
    read at most ``limit`` bytes: a larger file is refused, or with ``prefix`` only its
    first ``limit`` bytes are read. ``follow=False`` refuses a symlink (cache entries).
    """
    if not follow and not _NOFOLLOW and os.path.islink(path):
        raise OSError(errno.ELOOP, "is a symbolic link", os.fspath(path))
    fd = os.open(path, _OPEN_FLAGS | (0 if follow else _NOFOLLOW))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        if st.st_size > limit and not prefix:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", os.fspath(path))
        chunks: list[bytes] = []
        remaining = limit + (0 if prefix else 1)
        # The first read asks for the size fstat gave: asking for a megabyte allocates it
        # and cuts it down, which took longer than reading a 19 KB entry.
        ask = st.st_size + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, ask))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
            ask = 1 << 16
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"grew past {limit} bytes", os.fspath(path))
    return data, st


def digest(data: bytes) -> str:
    """The content hash used for sources and file dependencies (blake2b, hex)."""
    return blake2b(data).hexdigest()


def source_hash(data: bytes) -> str:
    """``importlib.util.source_hash`` of ``data``, hex: what a hash-based ``.pyc`` stores.

    ``importlib.util`` is imported here, on the paths that need it (writing an entry, finding
    a sourceless one), not by a warm load.
    """
    import importlib.util

    return importlib.util.source_hash(data).hex()


class Dep(msgspec.Struct, frozen=True, omit_defaults=True):
    """Something an entry was derived from besides its own source.

    ``kind`` says how ``digest`` is checked: ``"file"`` (``name`` is the file's path
    relative to the ``sys.path`` entry it was imported from, or absolute when it was not
    under one; ``digest`` the blake2b hex of its bytes), ``"dist"`` (an installed
    distribution and its version), ``"python"`` (a standard library module and
    ``platform.python_version()``). ``"unknown"`` marks a module that cannot be
    fingerprinted; it is never current, so an entry that depends on one is never trusted.
    ``module`` is the dotted name of the module the dependency stands for: it is where a
    moved file is looked for first, and what the trust check accepts class references from.

    ``pyc_hash``, ``source_mtime`` and ``source_size`` are what a ``.pyc`` header of a
    ``"file"`` dependency carries, so that the dependency still verifies in a deployment
    that deleted its ``.py`` files after compiling them.
    """

    kind: str
    name: str
    digest: str
    module: str = ""
    pyc_hash: str = ""
    source_mtime: int = 0
    source_size: int = 0


def import_relative(path: str, module: str = "") -> str:
    """``path`` relative to the ``sys.path`` entry ``module`` was imported from.

    A dotted name ``a.b`` lives at ``<entry>/a/b.py`` (or ``a/b/__init__.py``), so the
    entry is found by stripping as many trailing components as the name implies; without a
    usable name, the longest ``sys.path`` entry containing the file decides. A path under
    none of them stays absolute.
    """
    absolute = os.path.abspath(path)
    parts = absolute.split(os.sep)
    depth = module.count(".") + 1 if module else 0
    if depth and parts[-1].startswith("__init__."):
        depth += 1
    if depth and len(parts) > depth:
        expected = module.split(".")
        tail = [os.path.splitext(p)[0] for p in parts[-depth:]]
        if tail[: len(expected)] == expected:
            return "/".join(parts[-depth:])
    best = ""
    for entry in sys.path:
        root = os.path.join(os.path.abspath(entry or os.curdir), "")
        if absolute.startswith(root) and len(root) > len(best):
            best = root
    if best:
        return absolute[len(best) :].replace(os.sep, "/")
    return absolute


def locate(name: str, module: str = "", roots: tuple[str, ...] | None = None) -> str:
    """Where a recorded file is now.

    At run time (``roots`` None): the loaded module's own file, else the first ``sys.path``
    entry (or the current directory) holding the file or a ``.pyc`` of it. ``toolcall-cache``
    passes the import roots its entry's source was found under instead, then searches
    ``sys.path``: the modules it has loaded itself say nothing about the application's.
    The path returned may not exist; checking it is the caller's business.
    """
    if roots is None:
        loaded = sys.modules.get(module) if module else None
        file = getattr(loaded, "__file__", None) if loaded is not None else None
        if isinstance(file, str):
            return file[:-1] if file.endswith(".pyc") else file
        roots = ()
    if os.path.isabs(name):
        return name
    relative = name.replace("/", os.sep)
    first = ""
    for entry in (*roots, *sys.path, os.curdir):
        candidate = os.path.join(os.path.abspath(entry or os.curdir), relative)
        if os.path.exists(candidate) or os.path.exists(candidate + "c"):
            return candidate
        first = first or candidate
    return first


def file_dep(path: StrPath, module: str = "") -> Dep:
    """A dependency on a file's contents. Raises ``OSError`` when it cannot be read."""
    absolute = os.path.abspath(path)
    data, st = read_regular(absolute, SOURCE_LIMIT)
    return Dep(
        "file",
        import_relative(absolute, module),
        digest(data),
        module=module,
        pyc_hash=source_hash(data),
        source_mtime=int(st.st_mtime),
        source_size=st.st_size & UINT32,
    )


def dep_for_module(module: ModuleType) -> Dep:
    """The dependency on ``module``, as cheap to verify as its origin allows.

    The standard library and installed distributions stand in with their versions, so a
    warm import hashes only the user's own files. A module counts as installed only when
    the distribution's RECORD lists its file: an editable install (whose source the user
    edits without bumping the version) is hashed like any other user file.
    """
    name = module.__name__
    file = getattr(module, "__file__", None)
    known = _loaded_deps.get(name)
    if known is not None and known[0]() is module:
        return known[1]
    path = os.path.abspath(file) if isinstance(file, str) else None
    dep = _stand_in(name, file, path)
    if dep is not None:
        with contextlib.suppress(TypeError):  # not a module: it may take no weak reference
            _loaded_deps[name] = (weakref.ref(module), dep)
        return dep
    if path is not None:
        with contextlib.suppress(OSError):
            return file_dep(path, name)
    return Dep("unknown", name, "", module=name)


def _stand_in(name: str, file: object, path: str | None) -> Dep | None:
    """The standard library's or an installed distribution's dependency for a module."""
    top = name.partition(".")[0]
    if _is_stdlib(top, file):
        return Dep("python", top, _python_version(), module=name)
    dist = _owning_dist(name, path) if path is not None else None
    if dist is not None:
        return Dep("dist", dist[0], dist[1], module=name)
    return None


_loaded_deps: dict[str, tuple[weakref.ref[ModuleType], Dep]] = {}
"""The standard library and installed modules met so far, by name, with the module object
they were found for: what stands in for a module does not change while that module stays
loaded (a module imported again, after an upgrade say, is looked at again), and every tool
module imports ``typing`` (finding that out resolved its path, a ``stat`` per directory,
each time). A user file is hashed on every call."""


def dep_current(dep: Dep, roots: tuple[str, ...] | None = None) -> bool:
    """Whether ``dep`` is unchanged (``roots`` as for ``locate``)."""
    if dep.kind == "file":
        path = locate(dep.name, dep.module, roots)
        try:
            data, _ = read_regular(path, SOURCE_LIMIT)
        except OSError:
            return sourceless_matches(path, dep.pyc_hash, dep.source_mtime, dep.source_size)
        return digest(data) == dep.digest
    if dep.kind == "dist":
        return _installed_version(dep.name) == dep.digest
    if dep.kind == "python":
        return dep.digest == _python_version()
    return False


@cache
def _python_version() -> str:
    import platform

    return platform.python_version()


@cache
def _stdlib_dir() -> str:
    """Where ``os`` came from: the standard library's directory, extension modules
    (``lib-dynload``) below it, as ``sysconfig`` would say at the price of importing it."""
    return os.path.join(os.path.realpath(os.path.dirname(os.__file__)), "")


def _is_stdlib(top: str, file: object) -> bool:
    if top not in sys.stdlib_module_names:
        return False
    if not isinstance(file, str):
        return True
    real = os.path.realpath(file)
    parts = real.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return False
    return real.startswith(_stdlib_dir())


def _owning_dist(module: str, path: str) -> tuple[str, str] | None:
    """(name, version) of the installed distribution whose RECORD lists ``path``.

    Only the ``*.dist-info`` directories beside the module's top-level package are read, as
    text, the one named like the package first: ``importlib.metadata.packages_distributions``
    would parse every file of every installed distribution (a second of a cold derivation
    where torch is installed).
    """
    real = os.path.realpath(path)
    levels = module.count(".") + 1 + os.path.basename(real).startswith("__init__.")
    site = real
    for _ in range(levels):
        site = os.path.dirname(site)
    relative = os.path.relpath(real, site).replace(os.sep, "/")
    top = _normal(module.partition(".")[0])
    try:
        for name, version, info in sorted(_dist_infos(site), key=lambda d: _normal(d[0]) != top):
            record = _record(info)
            if record.startswith(f"{relative},") or f"\n{relative}," in record:
                return name, version
    except Exception as exc:
        # Broken third-party metadata must not break an import; hashing the file is sound.
        debug("toolcall cache: cannot tell which distribution has %s: %r", path, exc)
    return None


def _normal(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


@cache
def _dist_infos(site: str) -> tuple[tuple[str, str, str], ...]:
    """(name, version, directory) of every distribution installed in ``site``."""
    found = []
    with contextlib.suppress(OSError), os.scandir(site) as entries:
        for entry in entries:
            if entry.name.endswith(".dist-info"):
                name, _, version = entry.name[: -len(".dist-info")].rpartition("-")
                found.append((name, version, entry.path))
    return tuple(found)


@cache
def _record(info: str) -> str:
    """A distribution's RECORD, as text ("" when it has none)."""
    try:
        with open(os.path.join(info, "RECORD"), encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return ""


@cache
def _installed_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def pyc_header(path: StrPath) -> bytes | None:
    try:
        header, _ = read_regular(path, 16, prefix=True)
    except OSError:
        return None
    return header if len(header) == 16 else None


def header_matches(header: bytes, pyc_hash: str, mtime: int, size: int) -> bool:
    """Whether a ``.pyc`` header (PEP 552) was compiled from the described source."""
    flags = int.from_bytes(header[4:8], "little")
    if flags & ~0b11:
        return False
    if flags & 0b1:
        return bool(pyc_hash) and header[8:16].hex() == pyc_hash
    return (
        int.from_bytes(header[8:12], "little") == mtime & UINT32
        and int.from_bytes(header[12:16], "little") == size & UINT32
    )


def compiled_from(header: bytes, data: bytes, mtime: int) -> bool:
    """Whether a ``.pyc`` header was compiled from the source ``data`` last modified at
    ``mtime``; the source hash (``importlib.util``) is computed only for a hash-based one."""
    hash_based = int.from_bytes(header[4:8], "little") & 0b1
    return header_matches(header, source_hash(data) if hash_based else "", mtime, len(data))


def pyc_candidates(source_path: str) -> Iterator[str]:
    """Where a ``.pyc`` of ``source_path`` may be: beside it (``compileall -b``), in
    ``__pycache__`` for any interpreter and optimisation level, or under
    ``sys.pycache_prefix``."""
    base, ext = os.path.splitext(source_path)
    if ext != ".py":
        return
    yield base + ".pyc"
    folder, stem = os.path.split(base)
    pycache = os.path.join(folder, "__pycache__")
    try:
        names = sorted(os.listdir(pycache))
    except OSError:
        names = []
    for name in names:
        if name.startswith(f"{stem}.") and name.endswith(".pyc"):
            yield os.path.join(pycache, name)
    if sys.pycache_prefix:
        with contextlib.suppress(ValueError, NotImplementedError):
            import importlib.util

            yield importlib.util.cache_from_source(source_path)


def sourceless_matches(source_path: str, pyc_hash: str, mtime: int, size: int) -> bool:
    for pyc in pyc_candidates(source_path):
        header = pyc_header(pyc)
        if header is not None and header_matches(header, pyc_hash, mtime, size):
            return True
    return False
