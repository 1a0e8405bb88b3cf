"""Module -> entry, the warm half: read the cache, check it against the live module, and
build the entry whose IR and plans are made on first use; anything else goes to ``cold``.

This is where the hook and the public API hand modules. The hook passes freshly executed
marked modules with the source bytes its loader executed; the public API passes modules the
hook never saw (``lookup``). The cache is read first and what it holds is checked against the
live module (``trust``): every cache problem, forged or stale entries included, is a miss,
and the worst a broken cache costs is a derivation (``cold.derive_and_store``).

Freshness: an entry is keyed from the bytes that ran. The hook's loader captures them; a
module processed lazily (no hook) is keyed from a read of its file, trusted only when the
module's ``.pyc`` vouches for that read (same mtime and size, or the same hash), since the
file may have been saved after the import. A module still executing (``emit`` from another
thread mid-import, ``tool_names(__name__)`` in its own body) is derived in memory only and
not registered: the hook's processing after execution, or the next lookup, builds the real
entry.

No lock is held while user code runs (a provider's ``resolve``, a module's ``__getattr__``):
two threads processing the same module both derive, and the last to register wins.

Derivation and rendering live in ``cold``, imported on the first miss only (each import of it
here is in the function that needs it: a warm process never loads derivation).
"""

from __future__ import annotations

import functools
import importlib
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeAlias

import msgspec

from toolcall import ir
from toolcall._cache import nodes
from toolcall._cache import store as _cache
from toolcall._cache.fingerprint import SOURCE_LIMIT, compiled_from, read_regular
from toolcall._cache.summary import same_summary
from toolcall._derive.discovery import candidates, providers_of
from toolcall._errors import NotAToolModule
from toolcall._load import registry, trust
from toolcall._load.registry import ModuleEntry
from toolcall._render.variants import Schemas, Variants
from toolcall._shared.kinds import class_ref
from toolcall._shared.log import debug

if TYPE_CHECKING:
    from toolcall._dispatch.plan import ToolPlan

__all__ = [
    "STALE",
    "ExecutedSource",
    "LiveObjects",
    "Plans",
    "Prepared",
    "build",
    "lazy_source",
    "lookup",
    "process",
]

_DEFAULT_DIR: Any = object()
_decode: Final = msgspec.msgpack.Decoder().decode
_ir_decoder: Final = msgspec.msgpack.Decoder(ir.ModuleIR)


class ExecutedSource:
    """The source a loader executed: its bytes and the mtime it validated them with."""

    __slots__ = ("data", "mtime")

    def __init__(self, data: bytes, mtime: int | None) -> None:
        self.data = data
        self.mtime = mtime


STALE: Final = ExecutedSource(b"", None)
"""What the hook hands over when the source changed after its ``.pyc`` was validated: the
bytes that ran are unknown, so the module is derived in memory only."""


class LiveObjects:
    """The live classes and providers an IR names, for dispatch plans.

    Only what derivation met, or what the trust check verified for a cached entry: a name
    it does not hold is a ``LookupError``, never an import.
    """

    def __init__(self, classes: dict[str, Any], providers: dict[str, Any]) -> None:
        self._classes = classes
        self._providers = providers

    def cls(self, ref: str) -> type:
        try:
            return self._classes[ref]  # type: ignore[no-any-return]
        except KeyError:
            msg = f"no class {ref}"
            raise LookupError(msg) from None

    def provider(self, ref: str) -> Any:
        try:
            return self._providers[ref]
        except KeyError:
            msg = f"no type provider {ref}"
            raise LookupError(msg) from None


Prepared: TypeAlias = tuple[dict[str, ir.Tool], dict[str, Callable[..., Any]], LiveObjects]
"""What dispatch plans are built from: tools by name, their functions, the live classes."""


class Plans(dict[str, "ToolPlan"]):
    """A module's dispatch plans, each built on its tool's first call.

    A warm process that only emits never imports dispatch, nor decodes its IR: ``prepare``
    (or a function producing it) is called on the first call of any tool. An unknown name
    is a ``KeyError``, like any dict's. Two threads asking first may both build a plan; the
    one stored first is kept.
    """

    __slots__ = ("_prepared",)

    def __init__(self, prepare: Prepared | Callable[[], Prepared]) -> None:
        super().__init__()
        self._prepared = prepare

    def __missing__(self, name: str) -> ToolPlan:
        prepared = self._prepared
        if callable(prepared):
            prepared = self._prepared = prepared()
        tools, functions, resolver = prepared
        tool = tools[name]
        from toolcall._dispatch.plan import build_plan

        return self.setdefault(name, build_plan(tool, functions[name], resolver))


class _CachedIR(msgspec.Struct):
    """A cached entry's IR, read again and decoded on first use (holding 500 modules' IR
    bytes until then would cost more memory than the rest of the entries), and used only
    if it is the IR the load checked: the same digest, and it summarizes to the summary the
    trust check passed. Otherwise (a forged or replaced entry) the module is derived again,
    in memory, and its own IR, functions and classes are used."""

    module: types.ModuleType
    summary: _cache.Summary
    reread: Callable[[], _cache.WarmEntry | None]
    checked: Prepared
    found: tuple[ir.ModuleIR, Prepared] | None = None

    def prepared(self) -> tuple[ir.ModuleIR, Prepared]:
        found = self.found
        if found is None:
            found = self.found = self._load()
        return found

    def _load(self) -> tuple[ir.ModuleIR, Prepared]:
        module = self.module
        name = module.__name__
        summary = self.summary
        again = self.reread()
        trusted = False
        if again is not None and _cache.ir_digest(again.ir) == summary.ir_digest:
            try:
                module_ir = _ir_decoder.decode(again.ir)
                trusted = module_ir.module == name and same_summary(module_ir, summary)
            except (msgspec.DecodeError, RecursionError):
                trusted = False
        if trusted:
            _, functions, resolver = self.checked
            return module_ir, ({t.name: t for t in module_ir.tools}, functions, resolver)
        debug("toolcall: the cached IR of %s is gone or not what was checked; deriving", name)
        from toolcall._load import cold

        return cold.rederive(module)


def _cached_schemas(
    stored: dict[str, Any], cached_ir: _CachedIR, count: int
) -> Callable[[], Schemas]:
    """What produces a cached entry's schemas on first use: its node table, built; or, when
    the table is broken (it is data, never checked like the IR), the IR rendered again.
    ``KeyError`` now when the entry has no table at all."""
    # a Raw holds the whole file's buffer; copies hold only their bytes until first use
    raws = tuple(stored[part].copy() for part in ("nodes", "loose", "strict"))

    def load() -> Schemas:
        try:
            table, loose, strict = map(_decode, raws)
            return nodes.build(table, loose, strict, count)
        except (ValueError, msgspec.DecodeError) as exc:
            debug("toolcall: cached schemas unusable (%s); rendering", exc)
        module_ir, _ = cached_ir.prepared()
        from toolcall._load import cold

        return cold.render_again(module_ir)

    return load


def _entry_from_cache(
    module: types.ModuleType,
    cached: _cache.WarmEntry,
    reread: Callable[[], _cache.WarmEntry | None],
) -> ModuleEntry:
    """An entry for an IR read from the cache, once ``trust`` has checked its summary
    against ``module``; raises ``Untrusted`` (or ``KeyError`` for missing schemas) otherwise.
    ``reread`` reads the entry again, for the IR on first use."""
    providers = {class_ref(type(p)): p for p in providers_of(module)}
    summary = cached.summary
    if _cache.ir_digest(cached.ir) != summary.ir_digest:
        raise trust.Untrusted("the IR is not the one its summary was taken from")
    functions, classes = trust.verify_summary(
        module,
        summary,
        (dep.module for dep in cached.deps if dep.module),
        candidates(module, ordered=False),
        providers,
    )
    checked: Prepared = ({}, functions, LiveObjects(classes, providers))
    cached_ir = _CachedIR(module, summary, reread, checked)
    heads = summary.tools
    schemas = _cached_schemas(cached.variants, cached_ir, len(heads))
    return ModuleEntry(
        module=module,
        name=module.__name__,
        ir=lambda: cached_ir.prepared()[0],
        variants=Variants(heads, module.__name__, schemas),
        tool_names=tuple(head.name for head in heads),
        plans=Plans(lambda: cached_ir.prepared()[1]),
    )


def process(
    module: types.ModuleType,
    *,
    directory: Any = _DEFAULT_DIR,
    source: ExecutedSource | None = None,
    executed: bool = False,
) -> ModuleEntry:
    """Load a marked module's entry from the cache, or derive and cache it; register it.

    ``directory`` overrides the cache location (``toolcall-cache build``); None keeps
    everything in memory. ``source`` is what the hook's loader executed; ``executed`` says
    the caller knows the module body has finished (the hook, after ``exec_module``), which
    ``__spec__._initializing`` would not tell yet.
    """
    if directory is _DEFAULT_DIR:
        directory = _cache.cache_dir()
    finished = executed or not _executing(module)
    if not finished:
        directory = None
    entry, _ = _load_or_derive(module, directory, source)
    if not finished:
        debug("toolcall: %s is still executing; its tools so far are not kept", module.__name__)
        return entry
    return registry.register(entry)


def build(module: types.ModuleType, directory: Path) -> bool:
    """Make sure ``directory`` holds a valid entry for ``module``; whether it does now."""
    entry, stored = _load_or_derive(module, directory, None)
    registry.register(entry)
    return stored


def _executing(module: types.ModuleType) -> bool:
    """Whether the module body is still running (importlib marks its spec meanwhile)."""
    spec = vars(module).get("__spec__")
    return getattr(spec, "_initializing", False) is True


def _load_or_derive(
    module: types.ModuleType, directory: Path | None, source: ExecutedSource | None
) -> tuple[ModuleEntry, bool]:
    """The module's entry, and whether a valid entry for it is in ``directory`` afterwards."""
    name = module.__name__
    spec = vars(module).get("__spec__")
    origin = getattr(spec, "origin", None) or ""
    if source is STALE:
        source, directory = None, None
    elif source is None:
        source = lazy_source(module, origin)
    if directory is not None and not _cache.trusted(directory):
        directory = None
    path: Path | None = None
    if directory is not None:
        if source is not None:
            path = _cache.entry_path(directory, name, _cache.source_key(name, source.data))
        entry = _read_cached(module, directory, path, origin)
        if entry is not None:
            return entry, True
    from toolcall._load import cold

    return cold.derive_and_store(module, source, origin, path, directory)


def _read_cached(
    module: types.ModuleType, directory: Path, path: Path | None, origin: str
) -> ModuleEntry | None:
    """The entry at ``path`` (or, for a sourceless module, the one built for its ``.pyc``),
    if it is current and passes the trust check; None is a miss, logged at DEBUG."""
    name = module.__name__
    reread: Callable[[], _cache.WarmEntry | None]
    if path is not None:
        reread = functools.partial(_cache.read_warm, path)
        cached = reread()
        if cached is not None and (cached.module != name or not _cache.deps_current(cached)):
            cached = None
        if cached is not None:
            _cache.touch_if_old(path)
    elif origin.endswith(".pyc"):
        reread = functools.partial(_cache.find_sourceless, directory, name, origin, warm=True)
        cached = reread()
    else:
        return None
    if cached is None:
        return None
    try:
        return _entry_from_cache(module, cached, reread)
    except (trust.Untrusted, KeyError) as exc:
        debug("toolcall: cache entry of %s not used: %s; deriving", name, exc)
    except Exception:
        debug("toolcall: cache entry of %s unusable; deriving", name, exc_info=True)
    return None


def lazy_source(module: types.ModuleType, origin: str) -> ExecutedSource | None:
    """The source of a module the hook did not load, when the bytes on disk are provably
    the ones that ran; None (derive in memory) otherwise.

    The file may have been saved since the import, so when the module has a ``.pyc``
    (``__cached__``), a read is used only if that ``.pyc`` was compiled from exactly these
    bytes (their hash, or this mtime and size). Without one nothing can vouch for the read,
    and it is used as is: the hook's loader is what makes keys exact (docs/cache.md).
    """
    if not origin.endswith(".py"):
        return None
    try:
        data, st = read_regular(origin, SOURCE_LIMIT)
    except OSError:
        return None
    cached = vars(module).get("__cached__")
    if isinstance(cached, str):
        try:
            header, _ = read_regular(cached, 16, prefix=True)
        except OSError:
            header = b""
        if len(header) == 16:
            if compiled_from(header, data, int(st.st_mtime)):
                return ExecutedSource(data, int(st.st_mtime))
            return None
    return ExecutedSource(data, int(st.st_mtime))


def lookup(given: types.ModuleType | str) -> ModuleEntry:
    """The entry of a module object or dotted name, processing it on first use."""
    try:
        return registry.index[given]
    except (KeyError, TypeError):
        pass
    module: object = given
    if isinstance(module, str):
        module = sys.modules.get(module) or importlib.import_module(module)
    if not isinstance(module, types.ModuleType):
        msg = f"expected a module or a dotted module name, got {type(module).__name__}"
        raise TypeError(msg)
    entry = registry.current(module.__name__, module)
    if entry is not None:
        return entry
    if vars(module).get("__toolcall__") is not True:  # the marker rule of _derive.module
        msg = (
            f"{module.__name__} is not a tool module: add `__toolcall__ = True` at its top "
            "to make its public functions tools"
        )
        raise NotAToolModule(msg)
    return process(module)
