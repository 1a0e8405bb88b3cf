"""How a cache entry recognises what it was derived from, without importing anything.

Content digests for the user's files; versions standing in for the standard library and
installed distributions (so a warm import hashes only the user's own files); and the
``.pyc`` header fields (PEP 552) that let an entry verify a source that a deployment
compiled and then deleted.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import logging
import os
import sys
from collections.abc import Iterator
from functools import cache
from types import ModuleType
from typing import Final, TypeAlias

import msgspec

__all__ = [
    "Dep",
    "dep_current",
    "dep_for_module",
    "digest",
    "file_dep",
    "header_matches",
    "pyc_header",
    "sourceless_matches",
]

StrPath: TypeAlias = "str | os.PathLike[str]"

UINT32: Final = 0xFFFFFFFF

_log = logging.getLogger("toolcall")


def digest(data: bytes) -> str:
    """The content hash used for sources and file dependencies (blake2b, hex)."""
    return hashlib.blake2b(data).hexdigest()


class Dep(msgspec.Struct, frozen=True, omit_defaults=True):
    """Something an entry was derived from besides its own source.

    ``kind`` says how ``digest`` is checked: ``"file"`` (``name`` is an absolute path,
    ``digest`` the blake2b hex of its bytes), ``"dist"`` (an installed distribution and
    its version), ``"python"`` (a standard library module and ``platform.python_version()``).
    ``"unknown"`` marks a module that cannot be fingerprinted; it is never current, so an
    entry that depends on one is never trusted.

    ``pyc_hash``, ``source_mtime`` and ``source_size`` are what a ``.pyc`` header of a
    ``"file"`` dependency carries, so that the dependency still verifies in a deployment
    that deleted its ``.py`` files after compiling them.
    """

    kind: str
    name: str
    digest: str
    pyc_hash: str = ""
    source_mtime: int = 0
    source_size: int = 0


def file_dep(path: StrPath) -> Dep:
    """A dependency on a file's contents. Raises ``OSError`` when it cannot be read."""
    absolute = os.path.abspath(path)
    with open(absolute, "rb") as f:
        data = f.read()
        st = os.fstat(f.fileno())
    return Dep(
        "file",
        absolute,
        digest(data),
        pyc_hash=importlib.util.source_hash(data).hex(),
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
    top = module.__name__.partition(".")[0]
    file = getattr(module, "__file__", None)
    if _is_stdlib(top, file):
        return Dep("python", top, _python_version())
    if isinstance(file, str):
        path = os.path.abspath(file)
        dist = _owning_dist(top, path)
        if dist is not None:
            return Dep("dist", dist[0], dist[1])
        with contextlib.suppress(OSError):
            return file_dep(path)
    return Dep("unknown", module.__name__, "")


def dep_current(dep: Dep) -> bool:
    if dep.kind == "file":
        try:
            with open(dep.name, "rb") as f:
                data = f.read()
        except OSError:
            return sourceless_matches(dep.name, dep.pyc_hash, dep.source_mtime, dep.source_size)
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
def _stdlib_dirs() -> tuple[str, ...]:
    import sysconfig

    paths = {sysconfig.get_path(name) for name in ("stdlib", "platstdlib")}
    return tuple(os.path.join(os.path.realpath(p), "") for p in paths if p)


def _is_stdlib(top: str, file: object) -> bool:
    if top not in sys.stdlib_module_names:
        return False
    if not isinstance(file, str):
        return True
    real = os.path.realpath(file)
    parts = real.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return False
    return real.startswith(_stdlib_dirs())


@cache
def _packages_distributions() -> dict[str, list[str]]:
    from importlib import metadata

    return dict(metadata.packages_distributions())


@cache
def _dist_record(name: str) -> tuple[str, frozenset[str], str] | None:
    """(root directory, files its RECORD lists, version) of an installed distribution."""
    from importlib import metadata

    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    files = dist.files
    if dist.read_text("RECORD") is None or files is None:
        return None
    root = os.path.realpath(str(dist.locate_file("")))
    return root, frozenset(f.as_posix() for f in files), dist.version


def _owning_dist(top: str, path: str) -> tuple[str, str] | None:
    """(name, version) of the installed distribution whose RECORD lists ``path``."""
    real = os.path.realpath(path)
    try:
        for name in _packages_distributions().get(top, ()):
            record = _dist_record(name)
            if record is None:
                continue
            root, files, version = record
            relative = os.path.relpath(real, root)
            if not relative.startswith("..") and relative.replace(os.sep, "/") in files:
                return name, version
    except Exception as exc:
        # Broken third-party metadata must not break an import; hashing the file is sound.
        _log.debug("toolcall cache: cannot tell which distribution has %s: %r", path, exc)
    return None


@cache
def _installed_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def pyc_header(path: StrPath) -> bytes | None:
    try:
        with open(path, "rb") as f:
            header = f.read(16)
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
            yield importlib.util.cache_from_source(source_path)


def sourceless_matches(source_path: str, pyc_hash: str, mtime: int, size: int) -> bool:
    for pyc in pyc_candidates(source_path):
        header = pyc_header(pyc)
        if header is not None and header_matches(header, pyc_hash, mtime, size):
            return True
    return False
