"""Module -> entry: ask the cache, else derive, render, build plans and warn, once.

This is the only module that knows all the stages. The hook hands it freshly executed
marked modules, with the source bytes its loader executed; the public API hands it modules
the hook never saw (``lookup``). It reads the cache first and checks what it read against
the live module (``_trust``): every cache problem, forged or stale entries included, is a
miss, and the worst a broken cache costs is a derivation. Otherwise it derives and renders,
issues the derivation and strict-mode warnings of a fresh derivation (never of a cached
one), writes the entry, and registers it.

Freshness: an entry is keyed from the bytes that ran. The hook's loader captures them; a
module processed lazily (no hook) is keyed from a read of its file, trusted only when the
module's ``.pyc`` vouches for that read (same mtime and size, or the same hash), since the
file may have been saved after the import. A module still executing (``emit`` from another
thread mid-import, ``tool_names(__name__)`` in its own body) is derived in memory only and
not registered: the hook's processing after execution, or the next lookup, builds the real
entry.

No lock is held while user code runs (a provider's ``resolve``, a module's ``__getattr__``):
two threads processing the same module both derive, and the last to register wins.

Derivation and rendering are imported on the first derivation, not by a warm load.
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

from toolcall import _registry, _trust, ir
from toolcall._cache import store as _cache
from toolcall._cache.fingerprint import SOURCE_LIMIT, compiled_from, read_regular
from toolcall._derive.discovery import candidates, providers_of
from toolcall._errors import NotAToolModule, ToolcallWarning
from toolcall._log import debug
from toolcall._registry import ModuleEntry
from toolcall._render.variants import Schemas, Variants

if TYPE_CHECKING:
    from toolcall._derive.module import Derived
    from toolcall._dispatch.plan import ToolPlan

__all__ = [
    "STALE",
    "LiveResolver",
    "Source",
    "build",
    "derive",
    "entry_from_derived",
    "lookup",
    "process",
]

_DEFAULT_DIR: Any = object()
_decode: Final = msgspec.msgpack.Decoder().decode
_ir_decoder: Final = msgspec.msgpack.Decoder(ir.ModuleIR)


class Source:
    """The source a loader executed: its bytes and the mtime it validated them with."""

    __slots__ = ("data", "mtime")

    def __init__(self, data: bytes, mtime: int | None) -> None:
        self.data = data
        self.mtime = mtime


STALE: Final = Source(b"", None)
"""What the hook hands over when the source changed after its ``.pyc`` was validated: the
bytes that ran are unknown, so the module is derived in memory only."""


class LiveResolver:
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


Prepared: TypeAlias = tuple[dict[str, ir.Tool], dict[str, Callable[..., Any]], LiveResolver]
"""What dispatch plans are built from: tools by name, their functions, the live classes."""


class _Plans(dict[str, "ToolPlan"]):
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


def entry_from_derived(
    module: types.ModuleType | None, derived: Derived, *, frozen: bool = True
) -> ModuleEntry:
    """Render a fresh derivation, issue its strict-mode warnings once, and build its entry
    (``frozen=False``: for a caller that ``share``s other schemas before anyone sees it)."""
    from toolcall._derive.module import warn_at
    from toolcall._render.formats import render_schemas

    module_ir = derived.ir
    loose, strict, warnings = render_schemas(module_ir.tools, frozen=frozen)
    for tool, lines in zip(module_ir.tools, warnings, strict=True):
        for line in lines:
            warn_at(derived.functions[tool.name], line)
    resolver = LiveResolver(derived.classes, derived.providers)
    tools = {tool.name: tool for tool in module_ir.tools}
    return ModuleEntry(
        module=module,
        name=module_ir.module,
        ir=module_ir,
        variants=Variants(module_ir.tools, module_ir.module, (loose, strict)),
        tool_names=tuple(tools),
        plans=_Plans((tools, derived.functions, resolver)),
    )


class _CachedIR:
    """A cached entry's IR, read again and decoded on first use (holding 500 modules' IR
    bytes until then would cost more memory than the rest of the entries), and used only
    if it is the IR the load checked: the same digest, and it summarizes to the summary the
    trust check passed. Otherwise (a forged or replaced entry) the module is derived again,
    in memory, and its own IR, functions and classes are used."""

    __slots__ = ("_checked", "_module", "_prepared", "_reread", "_summary")

    def __init__(
        self,
        module: types.ModuleType,
        summary: _cache.Summary,
        reread: Callable[[], _cache.WarmEntry | None],
        checked: Prepared,
    ) -> None:
        self._module = module
        self._summary = summary
        self._reread = reread
        self._checked = checked
        self._prepared: tuple[ir.ModuleIR, Prepared] | None = None

    def prepared(self) -> tuple[ir.ModuleIR, Prepared]:
        found = self._prepared
        if found is None:
            found = self._prepared = self._load()
        return found

    def _load(self) -> tuple[ir.ModuleIR, Prepared]:
        module = self._module
        name = module.__name__
        summary = self._summary
        again = self._reread()
        trusted = False
        if again is not None and _cache.ir_digest(again.ir) == summary.ir_digest:
            try:
                module_ir = _ir_decoder.decode(again.ir)
                trusted = module_ir.module == name and _trust.same_summary(module_ir, summary)
            except (msgspec.DecodeError, RecursionError):
                trusted = False
        if trusted:
            _, functions, resolver = self._checked
            return module_ir, ({t.name: t for t in module_ir.tools}, functions, resolver)
        debug("toolcall: the cached IR of %s is gone or not what was checked; deriving", name)
        from toolcall._derive.module import derive_module

        origin = getattr(vars(module).get("__spec__"), "origin", None) or ""
        source = _lazy_source(module, origin)
        derived = derive_module(module, source.data if source is not None else None)
        resolver = LiveResolver(derived.classes, derived.providers)
        tools = {tool.name: tool for tool in derived.ir.tools}
        return derived.ir, (tools, derived.functions, resolver)


def _cached_schemas(
    stored: dict[str, Any], cached_ir: _CachedIR, count: int
) -> Callable[[], Schemas]:
    """What produces a cached entry's schemas on first use: its node table, built; or, when
    the table is broken (it is data, never checked like the IR), the IR rendered again.
    ``KeyError`` now when the entry has no table at all."""
    # a Raw holds the whole file's buffer; copies hold only their bytes until first use
    raws = tuple(stored[part].copy() for part in ("nodes", "loose", "strict"))

    def load() -> Schemas:
        from toolcall._cache.nodes import build

        try:
            nodes, loose, strict = map(_decode, raws)
            return build(nodes, loose, strict, count)
        except (ValueError, msgspec.DecodeError) as exc:
            debug("toolcall: cached schemas unusable (%s); rendering", exc)
        from toolcall._render.formats import render_schemas

        module_ir, _ = cached_ir.prepared()
        loose, strict, _ = render_schemas(module_ir.tools)
        return loose, strict

    return load


def _entry_from_cache(
    module: types.ModuleType,
    cached: _cache.WarmEntry,
    reread: Callable[[], _cache.WarmEntry | None],
) -> ModuleEntry:
    """An entry for an IR read from the cache, once ``_trust`` has checked its summary
    against ``module``; raises ``Untrusted`` (or ``KeyError`` for missing schemas) otherwise.
    ``reread`` reads the entry again, for the IR on first use."""
    # keyed like ``_derive.types.class_ref``, which is not worth importing derivation for
    providers = {f"{type(p).__module__}:{type(p).__qualname__}": p for p in providers_of(module)}
    summary = cached.summary
    if _cache.ir_digest(cached.ir) != summary.ir_digest:
        raise _trust.Untrusted("the IR is not the one its summary was taken from")
    functions, classes = _trust.verify_summary(
        module,
        summary,
        (dep.module for dep in cached.deps if dep.module),
        candidates(module, ordered=False),
        providers,
    )
    checked: Prepared = ({}, functions, LiveResolver(classes, providers))
    cached_ir = _CachedIR(module, summary, reread, checked)
    heads = summary.tools
    schemas = _cached_schemas(cached.variants, cached_ir, len(heads))
    return ModuleEntry(
        module=module,
        name=module.__name__,
        ir=lambda: cached_ir.prepared()[0],
        variants=Variants(heads, module.__name__, schemas),
        tool_names=tuple(head.name for head in heads),
        plans=_Plans(lambda: cached_ir.prepared()[1]),
    )


def derive(fn: Callable[..., Any]) -> ir.Tool:
    """``toolcall.derive``: one function's IR, with the warnings a module's tool would get."""
    from toolcall._derive.module import derive_function, warn_at
    from toolcall._render.schema import collect_strict_problems
    from toolcall._render.strict import strict_warnings

    tool, _ = derive_function(fn)
    schema, problems = collect_strict_problems(tool)
    for line in strict_warnings(tool.name, schema, problems):
        warn_at(fn, line)
    return tool


def process(
    module: types.ModuleType,
    *,
    directory: Any = _DEFAULT_DIR,
    source: Source | None = None,
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
    return _registry.register(entry)


def build(module: types.ModuleType, directory: Path) -> bool:
    """Make sure ``directory`` holds a valid entry for ``module``; whether it does now."""
    entry, stored = _load_or_derive(module, directory, None)
    _registry.register(entry)
    return stored


def _executing(module: types.ModuleType) -> bool:
    """Whether the module body is still running (importlib marks its spec meanwhile)."""
    spec = vars(module).get("__spec__")
    return getattr(spec, "_initializing", False) is True


def _load_or_derive(
    module: types.ModuleType, directory: Path | None, source: Source | None
) -> tuple[ModuleEntry, bool]:
    """The module's entry, and whether a valid entry for it is in ``directory`` afterwards."""
    name = module.__name__
    spec = vars(module).get("__spec__")
    origin = getattr(spec, "origin", None) or ""
    if source is STALE:
        source, directory = None, None
    elif source is None:
        source = _lazy_source(module, origin)
    if directory is not None and not _cache.trusted(directory):
        directory = None
    path: Path | None = None
    sourceless = source is None and origin.endswith(".pyc")
    if directory is not None:
        cached: _cache.WarmEntry | None = None
        reread: Callable[[], _cache.WarmEntry | None]
        if source is not None:
            path = _cache.entry_path(directory, name, _cache.source_key(name, source.data))
            cached = _cache.read_warm(path)
            reread = functools.partial(_cache.read_warm, path)
            if cached is not None and (cached.module != name or not _cache.deps_current(cached)):
                cached = None
            if cached is not None:
                _cache.touch_if_old(path)
        elif sourceless:
            reread = functools.partial(_cache.find_sourceless, directory, name, origin, warm=True)
            cached = reread()
        if cached is not None:
            try:
                return _entry_from_cache(module, cached, reread), True
            except (_trust.Untrusted, KeyError) as exc:
                debug("toolcall: cache entry of %s not used: %s; deriving", name, exc)
            except Exception:
                debug("toolcall: cache entry of %s unusable; deriving", name, exc_info=True)
    if sourceless:
        _warn_sourceless(module, origin, directory)
    from toolcall._derive.module import derive_module

    derived = derive_module(module, source.data if source is not None else None)
    if path is None or source is None:
        return entry_from_derived(module, derived), False
    entry = entry_from_derived(module, derived, frozen=False)  # the table's replace them
    deps = _dependencies(module, derived)
    try:
        variants = _variants_for_cache(entry)
    except RecursionError:
        debug("toolcall: schemas of %s too deep to store; not caching it", name)
        _share_frozen(entry)
        return entry, False
    shared = _shared(variants, len(entry.tool_names))
    if shared is None:
        _share_frozen(entry)
    else:
        entry.variants.share(shared)
    try:
        record = _cache.make_entry(
            derived.ir, origin, source.data, deps=deps, variants=variants, mtime=source.mtime
        )
    except OSError:
        debug("toolcall: cannot stat %s; not caching %s", origin, name, exc_info=True)
        return entry, False
    return entry, _cache.write_entry(path, record)


def _warn_sourceless(module: types.ModuleType, origin: str, directory: Path | None) -> None:
    """Production loudness: a sourceless module derived without an entry loses its docs."""
    import warnings

    where = "the cache is disabled (TOOLCALL_CACHE=0)"
    if directory is not None:
        where = f"no valid entry for it in {directory}"
    warnings.warn_explicit(
        f"{module.__name__} has no source ({origin}) and {where}: its tools are derived "
        "without their source, so under -OO every description is empty. Build entries "
        "where the source is (`toolcall-cache build <package> --cache-dir DIR`), ship DIR "
        "and point TOOLCALL_CACHE_DIR at it.",
        ToolcallWarning,
        origin or "<unknown>",
        0,
    )


def _lazy_source(module: types.ModuleType, origin: str) -> Source | None:
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
                return Source(data, int(st.st_mtime))
            return None
    return Source(data, int(st.st_mtime))


def _dependencies(module: types.ModuleType, derived: Derived) -> list[_cache.Dep]:
    """Modules that contributed types or providers, plus the project modules the source
    imports (a constant, alias or description taken from one must not go stale)."""
    found: dict[str, _cache.Dep] = {}
    for name in derived.dep_modules - {module.__name__}:
        loaded = sys.modules.get(name)
        if loaded is not None:
            found[name] = _cache.dep_for_module(loaded)
    imported = _absolute(derived.imports, vars(module).get("__package__") or "")
    for name in imported - found.keys() - {module.__name__}:
        dep = _cache.dep_for_module(sys.modules[name])
        if dep.kind == "file":  # a user file: stdlib and installed ones are not imports to track
            found[name] = dep
    return [found[name] for name in sorted(found)]


def _absolute(names: frozenset[str], package: str) -> set[str]:
    """The loaded modules among import names, relative ones (leading dots) resolved."""
    found: set[str] = set()
    for name in names:
        tail = name.lstrip(".")
        level = len(name) - len(tail)
        if level:
            anchor = package.rsplit(".", level - 1)[0] if level > 1 else package
            name = f"{anchor}.{tail}" if tail else anchor
        if name in sys.modules:
            found.add(name)
    return found


def _variants_for_cache(entry: ModuleEntry) -> dict[str, Any]:
    """What an entry stores of its variants: the node table of its schemas (``nodes``)."""
    from toolcall._cache.nodes import pack

    return pack(*entry.variants.schemas())


def _share_frozen(entry: ModuleEntry) -> None:
    """Freeze an entry's schemas rendered with ``frozen=False``, which no table replaces."""
    from toolcall._frozen import freeze

    loose, strict = entry.variants.schemas()
    entry.variants.share(([freeze(s) for s in loose], [freeze(s) for s in strict]))


def _shared(table: dict[str, Any], count: int) -> Schemas | None:
    """The schemas a node table holds, each distinct subtree built once, as a warm load
    builds them; None for schemas nesting deeper than a table may (a warm load renders
    those again too)."""
    from toolcall._cache.nodes import build

    try:
        return build(table["nodes"], table["loose"], table["strict"], count)
    except ValueError:
        return None


def lookup(given: types.ModuleType | str) -> ModuleEntry:
    """The entry of a module object or dotted name, processing it on first use."""
    try:
        return _registry.index[given]
    except (KeyError, TypeError):
        pass
    module: object = given
    if isinstance(module, str):
        module = sys.modules.get(module) or importlib.import_module(module)
    if not isinstance(module, types.ModuleType):
        msg = f"expected a module or a dotted module name, got {type(module).__name__}"
        raise TypeError(msg)
    entry = _registry.current(module.__name__, module)
    if entry is not None:
        return entry
    if vars(module).get("__toolcall__") is not True:  # the marker rule of _derive.module
        msg = (
            f"{module.__name__} is not a tool module: add `__toolcall__ = True` at its top "
            "to make its public functions tools"
        )
        raise NotAToolModule(msg)
    return process(module)
