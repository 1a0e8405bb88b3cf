"""``toolcall-cache`` list, clean and clear: what is in the cache directory, and tidying it.

Only the command line uses this module; importing a tool module never does. Nothing here
imports user code, so whether an entry's module "can still be imported" is judged the way
an import would find it, on the file system: the recorded source path, then the entry's
import-relative path under the current directory and every ``sys.path`` entry, as source or
as a ``.pyc`` of it. An entry is only an orphan when none of those places holds the source
it was derived from: a deployment that was moved, or whose ``.py`` files were compiled and
deleted, keeps its entries.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeAlias

import msgspec

from toolcall._cache.fingerprint import (
    SOURCE_LIMIT,
    Dep,
    dep_current,
    digest,
    read_regular,
    sourceless_matches,
)
from toolcall._cache.store import (
    SUFFIX,
    TERMS_SUFFIX,
    Head,
    Reject,
    is_temp_name,
    key,
    payload,
    read_bytes,
    read_terms_module,
)

__all__ = ["EntryInfo", "clean", "clear", "scan"]

StrPath: TypeAlias = "str | os.PathLike[str]"

_DAY: Final = 86400.0
_STALE_TEMP_SECONDS: Final = 60.0
_head_decoder: Final = msgspec.msgpack.Decoder(Head)


@dataclass(frozen=True, slots=True)
class EntryInfo:
    """One file in the cache directory, as ``toolcall-cache list`` shows it.

    ``status`` is ``"valid"`` or why the file is an orphan: ``"source gone"``,
    ``"source changed"``, ``"dependency changed"``, ``"old format"``, ``"unreadable"``,
    ``"stale temp file"``, or for a module's search terms (``.tcs``) ``"entry gone"``: no
    valid entry of its module is left beside it. ``module`` and ``source_path`` are empty
    when unknown; ``source_path`` is where the module's source (or ``.pyc``) was found,
    else where it was when the entry was written.
    """

    path: Path
    size: int
    module: str
    source_path: str
    status: str
    mtime: float


def _places(head: Head) -> list[str]:
    """Where the entry's source may be now, recorded path first, without duplicates."""
    places = [head.source_path]
    relative = head.source_rel.replace("/", os.sep)
    if relative and not os.path.isabs(relative):
        import sys

        for entry in (os.curdir, *sys.path):
            places.append(os.path.join(os.path.abspath(entry or os.curdir), relative))
    return list(dict.fromkeys(places))


def _root(place: str, relative: str) -> str:
    """The import root of a source found at ``place`` (``/srv/app`` for ``app/tools.py``)."""
    depth = relative.count("/") + 1
    root = os.path.abspath(place)
    for _ in range(depth):
        root = os.path.dirname(root)
    return root


class _Checker:
    """Classifies entries, hashing each source and checking each dependency once."""

    def __init__(self) -> None:
        self._digests: dict[str, str | None] = {}
        self._deps: dict[tuple[Dep, tuple[str, ...]], bool] = {}

    def classify(self, path: str, module: str, entry_key: str) -> tuple[str, str, str]:
        """(module, source path, status) of the entry file at ``path``."""
        try:
            head = _head_decoder.decode(payload(read_bytes(path)))
        except Reject as exc:
            return module, "", exc.status
        except (OSError, msgspec.DecodeError, RecursionError):
            return module, "", "unreadable"
        if head.module != module:
            return module, head.source_path, "unreadable"
        where, status = self._source_status(head)
        # Only this interpreter's entries can be judged on their dependencies; one written
        # by another Python minor version keys differently and is kept. Dependencies are
        # looked for under the import root the source was found in first (a moved tree).
        roots = (_root(where, head.source_rel),)
        if (
            status == "valid"
            and entry_key == key(head.module, head.source_digest)
            and not all(self._dep_current(dep, roots) for dep in head.deps)
        ):
            status = "dependency changed"
        return head.module, where, status

    def _digest(self, path: str) -> str | None:
        if path not in self._digests:
            try:
                self._digests[path] = digest(read_regular(path, SOURCE_LIMIT)[0])
            except OSError:
                self._digests[path] = None
        return self._digests[path]

    def _source_status(self, head: Head) -> tuple[str, str]:
        """(where the source is, status): valid wherever the source or a ``.pyc`` of it is."""
        changed = ""
        for place in _places(head):
            current = self._digest(place)
            if current == head.source_digest:
                return place, "valid"
            if sourceless_matches(place, head.pyc_hash, head.source_mtime, head.source_size):
                return place, "valid"
            if current is not None and not changed:
                changed = place
        if changed:
            return changed, "source changed"
        return head.source_path, "source gone"

    def _dep_current(self, dep: Dep, roots: tuple[str, ...]) -> bool:
        if (dep, roots) not in self._deps:
            self._deps[dep, roots] = dep_current(dep, roots)
        return self._deps[dep, roots]


def _scan(directory: StrPath) -> list[tuple[EntryInfo, int]]:
    """Each file's info with its inode, so ``clean`` can tell it was replaced since."""
    try:
        listing = os.scandir(directory)
    except FileNotFoundError:
        return []
    now = time.time()
    checker = _Checker()
    found: list[tuple[EntryInfo, int]] = []
    terms: list[tuple[str, os.stat_result, int]] = []
    with listing:
        for item in listing:
            name = item.name
            is_temp = is_temp_name(name)
            if not (is_temp or name.endswith((SUFFIX, TERMS_SUFFIX))):
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
            elif name.endswith(TERMS_SUFFIX):
                terms.append((item.path, st, item.inode()))
                continue
            else:
                module, _, entry_key = name[: -len(SUFFIX)].rpartition("-")
                module, source_path, status = checker.classify(item.path, module, entry_key)
            info = EntryInfo(Path(item.path), st.st_size, module, source_path, status, st.st_mtime)
            found.append((info, item.inode()))
    valid = {info.module: info.source_path for info, _ in found if info.status == "valid"}
    for path, st, inode in terms:
        module, status = _terms_status(path, valid)
        info = EntryInfo(Path(path), st.st_size, module, valid.get(module, ""), status, st.st_mtime)
        found.append((info, inode))
    found.sort(key=lambda pair: (pair[0].module, pair[0].path.name))
    return found


def _terms_status(path: str, valid: dict[str, str]) -> tuple[str, str]:
    """(module, status) of a search-terms file: kept while its module has a valid entry in
    the directory (a module's older counts go with ``--older-than``, as unused entries do)."""
    module = os.path.basename(path)[: -len(TERMS_SUFFIX)].rpartition("-")[0]
    try:
        if read_terms_module(path) != module:
            return module, "unreadable"
    except Reject as exc:
        return module, exc.status
    except (OSError, msgspec.DecodeError, RecursionError):
        return module, "unreadable"
    return module, "valid" if module in valid else "entry gone"


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
        if dry_run or _remove(info.path, inode) is not None:
            count += 1
            size += info.size
    return count, size


def clear(directory: StrPath) -> tuple[int, int]:
    """Remove every entry and temp file, valid or not: (files removed, bytes freed).

    Only toolcall's own files go (``*.tcc`` entries, ``*.tcs`` search terms and their
    ``.<pid>.tmp`` temp files), so a cache directory pointed at a shared folder loses
    nothing else.
    """
    count = size = 0
    try:
        listing = os.scandir(directory)
    except FileNotFoundError:
        return 0, 0
    with listing:
        for item in listing:
            if not (item.name.endswith((SUFFIX, TERMS_SUFFIX)) or is_temp_name(item.name)):
                continue
            removed = _remove(item.path)
            if removed is not None:
                count += 1
                size += removed
    return count, size


def _remove(path: StrPath, inode: int | None = None) -> int | None:
    """Unlink the file at ``path``; its size, or None when it is gone, a directory, or (with
    ``inode``) no longer the file that was scanned: a writer replaced it since."""
    try:
        st = os.lstat(path)
        if stat.S_ISDIR(st.st_mode) or (inode is not None and st.st_ino != inode):
            return None
        os.unlink(path)
    except FileNotFoundError:
        return None
    return st.st_size
