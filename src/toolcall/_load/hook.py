"""The import hook: notice marked modules as they are imported, so their tools are ready.

toolcall only *observes*: the standard loaders compile, cache bytecode and execute; once a
module has executed, a marked one is handed to the registry. Nothing is rewritten.

Why a ``sys.path_hooks`` entry and not a finder at ``sys.meta_path[0]``: a meta-path finder
that asks ``PathFinder`` directly takes the import away from every finder behind it, which
silently disables other hooks such as pytest's assertion rewriting (beartype documents the
same trap). A path hook instead hands out ordinary ``FileFinder`` objects whose loaders are
subclasses of the standard ones, so meta-path hooks ahead of it keep working,
``isinstance(spec.loader, SourceFileLoader)`` stays true, and ``pkgutil`` still recognises
the finders. Anything the hook never sees (zip files, custom loaders, modules imported before
``install``) is processed lazily on first use: the hook is an accelerator, never a requirement.
"""

from __future__ import annotations

import _thread
import os
import sys
import types
from collections.abc import Callable, Mapping
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    SourceFileLoader,
    SourcelessFileLoader,
)
from typing import TYPE_CHECKING, Any

from toolcall._shared.log import debug

if TYPE_CHECKING:  # importlib.abc costs milliseconds at `import toolcall`
    from importlib.abc import PathEntryFinder

__all__ = [
    "ToolcallSourceLoader",
    "ToolcallSourcelessLoader",
    "autoinstall",
    "install",
    "installed",
    "uninstall",
]


def _observe(module: types.ModuleType, source: object = None) -> None:
    """Process a freshly executed marked module; a failure here must never fail the import.

    ``source`` is what the loader executed (a ``warm.ExecutedSource``), ``warm.STALE``
    when the file changed after the loader validated its ``.pyc``, or None when unknown.
    ``warm`` is imported at call time, not at module level: it pulls in the cache and the
    trust check, and this module is imported by ``toolcall/__init__`` itself.
    """
    try:
        from toolcall._load import warm

        warm.process(module, source=source, executed=True)  # type: ignore[arg-type]
    except Exception:
        debug(
            "processing %s at import failed; it will be retried on first use",
            module.__name__,
            exc_info=True,
        )


class ToolcallSourceLoader(SourceFileLoader):
    """``SourceFileLoader`` that processes a module marked ``__toolcall__ = True`` after it ran.

    It also notes what the standard ``get_code`` read while loading: the source bytes when
    it compiled them, the source's mtime and size when it validated a ``.pyc`` against them.
    The cache key comes from those, never from a later read of a file that may have been
    saved in between.
    """

    _seen: bytes | None = None
    _stats: tuple[int, int] | None = None

    def path_stats(self, path: str) -> Mapping[str, Any]:
        stats = super().path_stats(path)
        if path == self.path:
            self._stats = (int(stats["mtime"]), int(stats["size"]))
        return stats

    def get_data(self, path: str) -> bytes:
        data = super().get_data(path)
        if path == self.path:
            self._seen = data
        return data

    def exec_module(self, module: types.ModuleType) -> None:
        self._seen = self._stats = None
        try:
            super().exec_module(module)
            # The marker rule of ``_derive.module.is_marked``, inlined: it runs for every import.
            if module.__dict__.get("__toolcall__") is True:
                _observe(module, self._executed_source())
        finally:
            self._seen = self._stats = None

    def _executed_source(self) -> object:
        from toolcall._load import warm

        stats = self._stats
        mtime = stats[0] if stats is not None else None
        if self._seen is not None:
            return warm.ExecutedSource(self._seen, mtime)
        if stats is None:
            return None
        try:  # the .pyc ran: the file now must be the one it was validated against
            st = os.stat(self.path)
            data = super().get_data(self.path)
        except OSError:
            return warm.STALE
        if (int(st.st_mtime), st.st_size) != stats or len(data) != stats[1]:
            return warm.STALE
        return warm.ExecutedSource(data, mtime)


class ToolcallSourcelessLoader(SourcelessFileLoader):
    """The same for ``.pyc``-only deployments (``compileall -b``, sources deleted)."""

    def exec_module(self, module: types.ModuleType) -> None:
        super().exec_module(module)
        if module.__dict__.get("__toolcall__") is True:
            _observe(module)


# The standard order (extensions, source, bytecode) decides which file wins when several
# share a module name; keeping it means installing the hook never changes what is imported.
_LOADER_DETAILS = (
    (ExtensionFileLoader, EXTENSION_SUFFIXES),
    (ToolcallSourceLoader, SOURCE_SUFFIXES),
    (ToolcallSourcelessLoader, BYTECODE_SUFFIXES),
)

_FILE_FINDER_HOOK = "FileFinder.path_hook.<locals>.path_hook_for_FileFinder"

_lock = _thread.allocate_lock()
_hook: Callable[[str], PathEntryFinder] | None = None


def installed() -> bool:
    """Whether the hook is in ``sys.path_hooks`` now (someone else may have removed it)."""
    return _hook is not None and _hook in sys.path_hooks


def install() -> None:
    """Put the hook just before the standard ``FileFinder`` hook; a second call does nothing.

    Just before the standard hook, not at the front: a path hook another library placed
    earlier (beartype's claw) keeps priority, as it had before toolcall was imported.
    """
    global _hook
    with _lock:
        if installed():
            return
        _hook = _path_hook(FileFinder.path_hook(*_LOADER_DETAILS))
        sys.path_hooks.insert(_standard_hook_index(), _hook)
        _drop_file_finders()


def _path_hook(
    file_finder_hook: Callable[[str], PathEntryFinder],
) -> Callable[[str], PathEntryFinder]:
    """Our finders everywhere but in the standard library's directories, which hold no tool
    module: refusing one (``ImportError``) leaves it to the standard hook, so importing the
    standard library costs nothing more with toolcall than without. (A ``site-packages``
    below the standard library, as in an interpreter used without a venv, is not one.)
    Paths are compared as spelled, the way ``os.__file__`` and packages' ``__path__`` spell
    them: resolving links would cost every new path entry several system calls, and a
    spelling that does not match only keeps toolcall's finder."""
    stdlib = os.path.dirname(os.__file__)
    below = os.path.join(stdlib, "")

    def toolcall_path_hook(path: str) -> PathEntryFinder:
        if path == stdlib or (
            path.startswith(below)
            and path[len(below) :].partition(os.sep)[0] not in ("site-packages", "dist-packages")
        ):
            raise ImportError("the standard library is left to the standard finder")
        return file_finder_hook(path)

    return toolcall_path_hook


def uninstall() -> None:
    """Remove the hook; directories already searched get standard finders on their next use."""
    global _hook
    with _lock:
        if _hook is None:
            return
        while _hook in sys.path_hooks:
            sys.path_hooks.remove(_hook)
        _hook = None
        _drop_file_finders()


def autoinstall() -> None:
    """What ``import toolcall`` does: install, unless ``TOOLCALL_HOOK=0`` opts out."""
    if os.environ.get("TOOLCALL_HOOK") != "0":
        install()


def _standard_hook_index() -> int:
    """Position of the standard ``FileFinder`` hook (the last one of its kind), else the end.

    CPython appends it at start-up, and other libraries insert theirs at the front, so the
    last ``FileFinder`` path hook in the list is the standard one.
    """
    for index in range(len(sys.path_hooks) - 1, -1, -1):
        if getattr(sys.path_hooks[index], "__qualname__", None) == _FILE_FINDER_HOOK:
            return index
    return len(sys.path_hooks)


def _drop_file_finders() -> None:
    """Forget cached plain ``FileFinder`` objects so the next import builds them via the hooks.

    A finder is bound to its loaders when created, so the ones cached before ``install``
    would never use ours (and ours would outlive ``uninstall``). Any plain ``FileFinder`` is
    safe to drop: the path hooks rebuild an equivalent one, at the cost of one directory
    listing. Zip importers and other finder types are left alone.
    """
    cache = sys.path_importer_cache
    for path, finder in list(cache.items()):
        if type(finder) is FileFinder:
            cache.pop(path, None)
