"""The on-disk cache of derived modules: keys, entry format, reading and atomic writes.

An entry lets a warm process skip derivation and rendering, and lets a process without
docstrings (``-OO``) or without ``.py`` files emit full descriptions. The cache never
imports user code and knows nothing about derivation: it stores, finds and validates
entries that the pipeline builds (``toolcall-cache``'s listing and cleaning live in
``maintenance``).

Reading is paranoid because the directory is shared with whatever else the user runs:
every problem (missing, symlinked, not a regular file, over 16 MiB, truncated, foreign,
other format, bad checksum, undecodable, wrong shape) is a miss logged at DEBUG on logger
``toolcall``, never an error. A directory or entry file that another user could write is
not used at all, with a WARNING naming it (``trusted``). Entries are msgpack decoded into
typed ``msgspec`` structs, so reading one cannot run code; what an entry says is still only
data, checked against the live module by the pipeline before anything in it is used.
Writing never raises either: a read-only, full or missing directory only costs the next
process a derivation.

Layout of an entry file ``<module>-<key>.tcc``::

    b"TOOLCALL"  2-byte version  4-byte CRC-32 of the payload (big-endian)  msgpack payload

The version's first byte is this file layout, the second ``ir.FORMAT_VERSION``; the key
covers the module name, the source, the IR format and the Python minor version. An entry
only counts when its file name is the one its own contents hash to (``read_entry``), so a
copied or renamed file is a miss and a reader that computed the path from the source needs
no further comparison. The checksum catches damage, not forgery (the trust check is for
that), so it is a CRC-32 (``_digest.checksum``), a quarter of a blake2b's cost.
What an entry depends on beyond its source is only known after derivation, so it is
recorded in the entry as ``Dep`` values (see ``fingerprint``), checked by ``deps_current``.
Tool search's term counts (``<module>-<key>.tcs``, ``StoredTerms``) share the header, the
writes and the trust rules; their key is the digest of what was counted.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Final, Generic, TypeAlias, TypeVar

import msgspec

from toolcall._cache.fingerprint import (
    UINT32,
    Dep,
    dep_current,
    dep_for_module,
    digest,
    file_dep,
    header_matches,
    import_relative,
    pyc_header,
    read_regular,
    source_hash,
)
from toolcall._cache.summary import NO_SUMMARY, Summary, ToolHead, ir_digest, summarize
from toolcall._shared.digest import CHECKSUM_SIZE, blake2b, checksum
from toolcall._shared.log import debug
from toolcall.ir import FORMAT_VERSION, ModuleIR

__all__ = [
    "ENTRY_LIMIT",
    "MAGIC",
    "NO_SUMMARY",
    "SUFFIX",
    "TERMS_SUFFIX",
    "VERSION",
    "Counts",
    "Dep",
    "Entry",
    "Head",
    "Reject",
    "StoredTerms",
    "Summary",
    "ToolHead",
    "WarmEntry",
    "atomic_write",
    "cache_dir",
    "decode_counts",
    "dep_for_module",
    "deps_current",
    "digest",
    "encode_counts",
    "entry_name",
    "entry_path",
    "file_dep",
    "find_sourceless",
    "ir_digest",
    "is_temp_name",
    "key",
    "make_entry",
    "payload",
    "read_bytes",
    "read_entry",
    "read_terms",
    "read_terms_module",
    "read_warm",
    "source_key",
    "terms_path",
    "touch_if_old",
    "trusted",
    "write_entry",
    "write_terms",
]

StrPath: TypeAlias = "str | os.PathLike[str]"
V = TypeVar("V")

MAGIC: Final = b"TOOLCALL"
_LAYOUT_VERSION: Final = 4
VERSION: Final = bytes((_LAYOUT_VERSION, FORMAT_VERSION))
"""Layout of the file, then the IR format: an entry of another IR format is "old format"
even where its key cannot be recomputed (a sourceless module is found by scanning)."""
SUFFIX: Final = ".tcc"
ENTRY_LIMIT: Final = 16 << 20
"""Largest entry read: the library writes a few hundred KiB for hundreds of tools, so
anything over this was not written by it, and reading it whole on every import is a cost
nobody asked for."""

_HEADER_SIZE: Final = len(MAGIC) + len(VERSION) + CHECKSUM_SIZE
_KEY_CHARS: Final = 32
_TEMP_SUFFIX: Final = ".tmp"
_DAY: Final = 86400.0
_STALE_TEMP_SECONDS: Final = 60.0
_PYTHON_MINOR: Final = f"{sys.version_info[0]}.{sys.version_info[1]}"

_NOFOLLOW: Final[int] = getattr(os, "O_NOFOLLOW", 0)
_BINARY: Final[int] = getattr(os, "O_BINARY", 0)
_CREATE_FLAGS: Final = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY


class Head(msgspec.Struct, frozen=True, kw_only=True):
    """What an entry was derived from; ``toolcall-cache`` decodes only this part.

    ``source_path`` is where the source was when the entry was written, ``source_rel`` the
    same relative to its ``sys.path`` entry (how a moved deployment finds it again).
    ``pyc_hash`` (``importlib.util.source_hash`` of the source, hex), ``source_mtime`` and
    ``source_size`` are what a hash-based or timestamp ``.pyc`` of the source carries:
    ``find_sourceless`` matches them against a ``.pyc`` when the source is gone.
    """

    module: str
    source_path: str
    source_rel: str
    source_digest: str
    pyc_hash: str
    source_mtime: int
    source_size: int
    deps: tuple[Dep, ...]


class WarmEntry(Head, frozen=True, kw_only=True):
    """An entry as a warm load decodes it: the summary, the IR and variants still msgpack."""

    ir: msgspec.Raw
    summary: Summary
    variants: dict[str, msgspec.Raw]
    created: float


class Entry(Head, Generic[V], frozen=True, kw_only=True):
    """One marked module's derived IR and rendered schemas, with what they came from.

    ``variants`` is opaque here (the pipeline stores the node table of the module's
    schemas, ``nodes``): ``Entry[Any]`` decodes it, ``Entry[msgspec.Raw]`` leaves each
    value msgpack until someone emits.
    """

    ir: ModuleIR
    summary: Summary = NO_SUMMARY
    variants: dict[str, V]
    created: float


_encoder: Final = msgspec.msgpack.Encoder()
_decoder: Final = msgspec.msgpack.Decoder(Entry[Any])
_raw_decoder: Final = msgspec.msgpack.Decoder(Entry[msgspec.Raw])
_warm_decoder: Final = msgspec.msgpack.Decoder(WarmEntry)


class _TermsHead(msgspec.Struct):
    """The part of a search-terms file ``toolcall-cache`` reads: whose it is."""

    module: str


class Reject(Exception):
    """Bytes on disk that are not a usable entry; ``status`` is what ``scan`` reports."""

    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status


# -- locating entries -------------------------------------------------------------------


_absolute: dict[str, Path] = {}
"""Absolute ``TOOLCALL_CACHE_DIR`` values met so far: ``cache_dir`` runs once per processed
module, and 500 modules need not build the same ``Path`` 500 times."""


def cache_dir() -> Path | None:
    """Where entries live: None when ``TOOLCALL_CACHE=0`` keeps everything in memory.

    A relative ``TOOLCALL_CACHE_DIR`` is pinned to the current directory now, so a later
    ``chdir`` does not move the cache.
    """
    if os.environ.get("TOOLCALL_CACHE") == "0":
        return None
    configured = os.environ.get("TOOLCALL_CACHE_DIR")
    if configured:
        known = _absolute.get(configured)
        if known is not None:
            return known
        found = Path(os.path.abspath(os.path.expanduser(configured)))
        if os.path.isabs(configured):  # relative or ~ ones depend on the cwd and HOME
            _absolute[configured] = found
        return found
    import platformdirs  # only paid for when no directory is configured

    return Path(platformdirs.user_cache_dir("toolcall", appauthor=False))


def key(module: str, source_digest: str) -> str:
    """The key of ``module``'s entry for a source digest, this IR format and Python minor."""
    h = blake2b()
    for part in (module, source_digest, str(FORMAT_VERSION), _PYTHON_MINOR):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:_KEY_CHARS]


def source_key(module: str, source: bytes) -> str:
    """The key of ``module``'s entry for this source, IR format and Python minor version.

    It hashes the source's ``digest``, so the key of an existing entry can be recomputed
    from the entry alone (which is how ``read_entry`` rejects a misplaced file).
    """
    return key(module, digest(source))


def entry_path(directory: Path, module: str, key: str) -> Path:
    """The file holding ``module``'s entry for ``key``."""
    return directory / f"{module}-{key}{SUFFIX}"


def entry_name(module: str, source_digest: str) -> str:
    """The file name an entry of this module and source digest must have."""
    return f"{module}-{key(module, source_digest)}{SUFFIX}"


def make_entry(
    module_ir: ModuleIR,
    source_path: StrPath,
    source: bytes,
    *,
    deps: Iterable[Dep] = (),
    variants: dict[str, Any],
    mtime: int | None = None,
    summary: Summary | None = None,
) -> Entry[Any]:
    """Build an entry whose fingerprints are exactly what reading and cleaning check.

    ``mtime`` is the source's modification time as the loader saw it when it validated or
    wrote the ``.pyc`` (what a timestamp ``.pyc`` records); without it the file is stat'ed,
    raising ``OSError`` when it cannot be. ``summary`` is ``summarize(module_ir)``,
    computed here when not given.
    """
    if summary is None:
        summary = summarize(module_ir)
    absolute = os.path.abspath(source_path)
    if mtime is None:
        mtime = int(os.stat(absolute).st_mtime)
    return Entry(
        module=module_ir.module,
        source_path=absolute,
        source_rel=import_relative(absolute, module_ir.module),
        source_digest=digest(source),
        pyc_hash=source_hash(source),
        source_mtime=mtime,
        source_size=len(source) & UINT32,
        deps=tuple(deps),
        ir=module_ir,
        summary=summary,
        variants=variants,
        created=time.time(),
    )


# -- trust ------------------------------------------------------------------------------

_verdicts: dict[str, bool] = {}


def _foreign(st: os.stat_result) -> str:
    """Why another user could change this file or directory, or "" when none could."""
    if st.st_mode & 0o022:
        return f"it is writable by other users (mode {stat.S_IMODE(st.st_mode):o})"
    geteuid = getattr(os, "geteuid", None)
    if geteuid is not None and st.st_uid not in (geteuid(), 0):
        return f"it is owned by another user (uid {st.st_uid})"
    return ""


def _warn_untrusted(what: str, path: StrPath, why: str) -> None:
    import logging

    logging.getLogger("toolcall").warning(
        "toolcall cache: not using the %s %s: %s; anyone who can write it decides what "
        "this process's tools look like. Point TOOLCALL_CACHE_DIR at a directory only "
        "you (or root) can write.",
        what,
        path,
        why,
    )


def trusted(directory: Path) -> bool:
    """Whether entries in ``directory`` may be read: it is not a symlink, and no other
    (non-root) user can write it. Judged once per process and directory; a refusal is a
    WARNING naming it. A directory that does not exist yet is fine: it is created 0700.
    """
    name = os.fspath(directory)
    verdict = _verdicts.get(name)
    if verdict is None:
        why = ""
        try:
            st = os.lstat(name)
        except OSError:
            st = None
        if st is not None:
            if stat.S_ISLNK(st.st_mode):
                why = "it is a symbolic link"
            elif stat.S_ISDIR(st.st_mode):
                why = _foreign(st)
        verdict = _verdicts[name] = not why
        if why:
            _warn_untrusted("cache directory", name, why)
    return verdict


# -- reading and writing ----------------------------------------------------------------


def read_bytes(path: StrPath) -> bytes:
    """An entry file's bytes: a regular file, not a symlink, at most ``ENTRY_LIMIT`` bytes,
    and not writable by another user (that last refusal is a WARNING). ``OSError`` otherwise.
    """
    data, st = read_regular(path, ENTRY_LIMIT, follow=False)
    why = _foreign(st)
    if why:
        _warn_untrusted("cache entry", path, why)
        raise OSError(f"untrusted: {why}")
    return data


def payload(data: bytes) -> memoryview:
    """The msgpack payload of an entry file; ``Reject`` when the header says it is not one."""
    if len(data) < _HEADER_SIZE:
        raise Reject("unreadable", "too short")
    if not data.startswith(MAGIC):
        raise Reject("unreadable", "not a toolcall cache entry")
    version = data[len(MAGIC) : len(MAGIC) + len(VERSION)]
    if version != VERSION:
        raise Reject("old format", f"format version {version.hex()}, expected {VERSION.hex()}")
    body = memoryview(data)[_HEADER_SIZE:]
    if checksum(body) != data[_HEADER_SIZE - CHECKSUM_SIZE : _HEADER_SIZE]:
        raise Reject("unreadable", "checksum mismatch")
    return body


def read_warm(path: StrPath) -> WarmEntry | None:
    """``read_entry`` as a warm load wants it: a ``WarmEntry`` (only the head and summary
    decoded), or None when there is no usable entry at ``path``."""
    return _read(path, _warm_decoder)


def read_entry(path: StrPath, *, raw_variants: bool = False) -> Entry[Any] | None:
    """The entry stored at ``path``, or None when there is no usable one.

    A returned entry belongs at ``path``: its module, source digest, IR format and this
    Python's minor version hash to the file's name. Its dependencies are not checked here
    (``deps_current``), nor is it checked against the live module (the pipeline does that).
    With ``raw_variants`` each value of ``variants`` is left as ``msgspec.Raw``.
    """
    return _read(path, _raw_decoder if raw_variants else _decoder)


E = TypeVar("E", bound=Head)


def _read(path: StrPath, decoder: msgspec.msgpack.Decoder[E]) -> E | None:
    try:
        body = payload(read_bytes(path))
        entry = decoder.decode(body)
    except (OSError, Reject, msgspec.DecodeError, RecursionError) as exc:
        debug("toolcall cache: ignoring %s: %s", path, exc)
        return None
    if os.path.basename(path) != entry_name(entry.module, entry.source_digest):
        debug("toolcall cache: ignoring %s: it holds the entry of another key", path)
        return None
    return entry


def write_entry(path: StrPath, entry: Entry[Any]) -> bool:
    """Store ``entry`` at ``path`` atomically; False (logged at DEBUG) when it cannot.

    The temp file is created exclusively, without following symlinks, mode 0600, then
    renamed over ``path``: a reader never sees half an entry and a symlink planted at
    ``path`` is replaced, not written through. Never raises.
    """
    path = Path(path)
    if path.name != entry_name(entry.module, entry.source_digest):
        debug("toolcall cache: not writing %s: the entry's key names another file", path)
        return False
    try:
        body = _encoder.encode(entry)
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError) as exc:
        debug("toolcall cache: not writing %s: %s", path, exc)
        return False
    check = checksum(body)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write(path, MAGIC + VERSION + check + body)
    except OSError as exc:
        debug("toolcall cache: could not write %s: %s", path, exc)
        return False
    return True


def atomic_write(path: StrPath, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` in one step: a reader sees the old file or the new one.

    The temp file ``<path>.<pid>.tmp`` is created exclusively, without following symlinks,
    mode 0600 (less the umask) or, given ``mode``, that mode exactly, then renamed over
    ``path``. Raises ``OSError``; the temp file does not outlive a failure.
    """
    temp = f"{path}.{os.getpid()}{_TEMP_SUFFIX}"
    fd = _create_temp(temp)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        if mode is not None:
            os.chmod(temp, mode)
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
        debug("toolcall cache: could not touch %s: %s", path, exc)


# -- dependencies and sourceless modules -----------------------------------------------


def deps_current(entry: Head) -> bool:
    """True when every dependency recorded in ``entry`` is unchanged."""
    return all(dep_current(dep) for dep in entry.deps)


def find_sourceless(
    directory: StrPath, module: str, pyc_path: StrPath, *, warm: bool = False
) -> Any:
    """The entry of a module loaded from ``pyc_path`` without its source, or None.

    The key cannot be computed without the source, so ``<module>-*.tcc`` entries are
    read and matched against the ``.pyc`` header: the source hash of a hash-based
    ``.pyc``, or the source mtime and size of a timestamp one. The returned entry has been
    fully validated, dependencies included; among several matches the newest wins. It is
    an ``Entry`` (``Entry[msgspec.Raw]``), or with ``warm`` a ``WarmEntry``; None when none.
    """
    header = pyc_header(pyc_path)
    if header is None:
        debug("toolcall cache: no readable .pyc header in %s", pyc_path)
        return None
    try:
        names = os.listdir(directory)
    except OSError as exc:
        debug("toolcall cache: cannot list %s: %s", directory, exc)
        return None
    prefix = f"{module}-"
    length = len(prefix) + _KEY_CHARS + len(SUFFIX)
    best: Any = None
    decoder: Any = _warm_decoder if warm else _raw_decoder
    for name in names:
        if len(name) != length or not name.startswith(prefix) or not name.endswith(SUFFIX):
            continue
        entry = _read(Path(directory, name), decoder)
        if (
            entry is not None
            and header_matches(header, entry.pyc_hash, entry.source_mtime, entry.source_size)
            and (best is None or entry.created > best.created)
            and deps_current(entry)
        ):
            best = entry
    return best


def is_temp_name(name: str) -> bool:
    """Whether a file name is one of ``write_entry``'s or ``write_terms``' temp files."""
    return name.endswith(_TEMP_SUFFIX) and (f"{SUFFIX}." in name or f"{TERMS_SUFFIX}." in name)


# -- search terms -----------------------------------------------------------------------

TERMS_SUFFIX: Final = ".tcs"
"""A module's search terms, ``<module>-<key>.tcs`` beside its entries (``toolcall-cache``
lists, cleans and clears them with the entries)."""

Count: TypeAlias = Annotated[int, msgspec.Meta(ge=1)]


class StoredTerms(msgspec.Struct, frozen=True, kw_only=True):
    """What tool search counted of one module's tools, for the next process to read.

    ``key`` is the digest of what was counted (every field's text of every tool, and the
    counting rule's version), which the file is named after; ``tools`` holds, for each
    tool in order, the count of each term in each field. ``postings``, once a process built
    the module's own index, are its postings (each term's tools by position, and what the
    term adds to each one's score), so that a box of just this module reads its index
    whole; a box of several modules computes its own from the counts (``_search.stored``).
    """

    module: str
    key: str
    tools: msgspec.Raw
    """The counts, still msgpack (``encode_counts``, ``decode_counts``): a box of just this
    module reads its postings and never needs them."""
    postings: dict[str, tuple[list[int], list[float]]] | None = None


Counts: TypeAlias = tuple[tuple[dict[str, Count], ...], ...]
_counts_decoder: Final = msgspec.msgpack.Decoder(Counts)


def encode_counts(tools: Iterable[tuple[dict[str, int], ...]]) -> msgspec.Raw:
    """The ``tools`` of a ``StoredTerms``: each tool's count of each term in each field."""
    return msgspec.Raw(_encoder.encode(tuple(tools)))


def decode_counts(raw: msgspec.Raw) -> Counts | None:
    """What ``encode_counts`` wrote; None (logged at DEBUG) when it is not that."""
    try:
        return _counts_decoder.decode(raw)
    except (msgspec.DecodeError, RecursionError) as exc:
        debug("toolcall cache: stored search counts unusable: %s", exc)
        return None


_terms_decoder: Final = msgspec.msgpack.Decoder(StoredTerms)
_terms_head_decoder: Final = msgspec.msgpack.Decoder(_TermsHead)


def terms_path(directory: Path, module: str, key: str) -> Path:
    """The file holding ``module``'s search terms counted from content of digest ``key``."""
    return directory / f"{module}-{key}{TERMS_SUFFIX}"


def read_terms(path: StrPath, module: str, key: str) -> StoredTerms | None:
    """The terms stored at ``path`` if they are ``module``'s for ``key``: read and checked
    as an entry is (regular file, trusted, header, checksum, typed decode), and refused
    when they were counted from anything else. None is a miss, logged at DEBUG."""
    try:
        found = _terms_decoder.decode(payload(read_bytes(path)))
    except (OSError, Reject, msgspec.DecodeError, RecursionError) as exc:
        debug("toolcall cache: ignoring %s: %s", path, exc)
        return None
    if found.module != module or found.key != key:
        debug("toolcall cache: ignoring %s: it holds the terms of other content", path)
        return None
    touch_if_old(path)
    # a Raw holds the whole file's buffer; a copy holds only the counts until they are used
    return msgspec.structs.replace(found, tools=found.tools.copy())


def read_terms_module(path: StrPath) -> str:
    """The module a terms file says it belongs to (``toolcall-cache``); ``Reject`` or
    ``OSError`` when it is not a readable terms file."""
    try:
        return _terms_head_decoder.decode(payload(read_bytes(path))).module
    except msgspec.DecodeError as exc:
        raise Reject("unreadable", str(exc)) from None


def write_terms(path: StrPath, terms: StoredTerms) -> bool:
    """Store ``terms`` at ``path`` atomically, as ``write_entry`` does; False when it cannot
    (a read-only or missing directory, a full disk) or should not (over ``ENTRY_LIMIT``,
    which no read would accept; 10,000 tools of perf's catalog take 9 MB). Never raises."""
    try:
        body = _encoder.encode(terms)
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError) as exc:
        debug("toolcall cache: not writing %s: %s", path, exc)
        return False
    if len(body) + _HEADER_SIZE > ENTRY_LIMIT:
        debug("toolcall cache: not writing %s: %d bytes, over the limit", path, len(body))
        return False
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write(path, MAGIC + VERSION + checksum(body) + body)
    except OSError as exc:
        debug("toolcall cache: could not write %s: %s", path, exc)
        return False
    return True
