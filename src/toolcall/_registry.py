"""Processed modules: the one place ``emit``, ``run`` and ``describe`` read from.

A marked module is processed once (by the import hook, or lazily on first use when the
hook never saw it): its IR is derived, every variant rendered and frozen, and a dispatch
plan built per tool. Later calls are a dict lookup.

An entry read from the cache is used as it was decoded: each variant is frozen the first
time it is asked for, and each tool's fast path generated on its first call, so that a warm
import pays for decoding the entry and little else.
"""

from __future__ import annotations

import importlib
import logging
import sys
import threading
import types
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from toolcall import ir
from toolcall._cache import store as _cache
from toolcall._derive.module import Derived, derive_module, is_marked, providers_of
from toolcall._derive.types import class_ref
from toolcall._dispatch.plan import Result, ToolPlan, build_plan
from toolcall._frozen import FrozenList, freeze
from toolcall._render.schema import FORMATS, render_variants

__all__ = ["ModuleEntry", "NotAToolModule", "build_entry", "lookup", "process"]


class NotAToolModule(TypeError):
    """The module does not declare ``__toolcall__ = True``."""


_decode = msgspec.msgpack.Decoder().decode


class Variants:
    """A module's rendered tool lists by ``(format, strict)``, and ``("describe", False)``.

    Each is decoded (when it comes from the cache as msgpack) and frozen (a deep copy into
    read-only containers) the first time it is asked for, and the same object is returned
    from then on, whichever thread asked first. ``plain`` and ``strict`` hold the frozen
    ones by format, for ``strict=False`` and ``strict=True``: ``emit`` reads them without
    building a key tuple, a sixth of its time.
    """

    __slots__ = ("_frozen", "plain", "stored", "strict")

    def __init__(self, stored: dict[tuple[str, bool], Any]) -> None:
        self.stored = stored
        self._frozen: dict[tuple[str, bool], FrozenList] = {}
        self.plain: dict[str, FrozenList] = {}
        self.strict: dict[str, FrozenList] = {}

    def __getitem__(self, key: tuple[str, bool]) -> FrozenList:
        try:
            return self._frozen[key]
        except KeyError:
            pass
        stored = self.stored[key]
        if isinstance(stored, msgspec.Raw):
            stored = _decode(stored)
        value: FrozenList = self._frozen.setdefault(key, freeze(stored))
        fmt, strict = key
        if fmt in FORMATS:
            (self.strict if strict else self.plain)[fmt] = value
        return value


@dataclass(frozen=True, slots=True)
class ModuleEntry:
    """Everything the public API needs about one processed module, prebuilt."""

    module: types.ModuleType | None
    name: str
    ir: ir.ModuleIR
    variants: Variants
    tool_names: tuple[str, ...]
    plans: dict[str, ToolPlan]
    plain: dict[str, FrozenList]
    """``variants.plain``, one attribute nearer for ``emit``; so is ``strict``."""
    strict: dict[str, FrozenList]
    runs: dict[str, Callable[[Any], Result]] = field(default_factory=dict)
    """The prepared ``run`` of each tool called so far, for ``run`` to call without going
    through its plan (a fifth of its overhead); ``aruns`` the same for ``arun``."""
    aruns: dict[str, Callable[[Any], Coroutine[Any, Any, Result]]] = field(default_factory=dict)

    @property
    def describe(self) -> FrozenList:
        return self.variants["describe", False]


class LiveResolver:
    """Finds the live classes and providers an IR names, for dispatch plans.

    A freshly derived module hands over what derivation met; an IR read from the cache
    starts empty and imports by ``module:qualname`` on demand.
    """

    def __init__(self, classes: dict[str, Any], providers: dict[str, Any]) -> None:
        self._classes = classes
        self._providers = providers

    def cls(self, ref: str) -> type:
        found = self._classes.get(ref)
        if found is None:
            found = import_ref(ref)
            self._classes[ref] = found
        return found  # type: ignore[no-any-return]

    def provider(self, ref: str) -> Any:
        try:
            return self._providers[ref]
        except KeyError:
            msg = f"no type provider {ref}"
            raise LookupError(msg) from None


def import_ref(ref: str) -> Any:
    """``"pkg.mod:Outer.Inner"`` -> the object; ``LookupError`` when it is not reachable."""
    module_name, _, qualname = ref.partition(":")
    try:
        obj: Any = sys.modules.get(module_name) or importlib.import_module(module_name)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except Exception as exc:
        msg = f"cannot find {ref}"
        raise LookupError(msg) from exc
    return obj


_log = logging.getLogger("toolcall")

_entries: dict[str, ModuleEntry] = {}
index: dict[object, ModuleEntry] = {}
"""Each current entry under its module's name and under the module object itself, so that
``run`` and ``emit`` find it with one subscript whichever they are given (written under
``_lock``, read without it). Anything else (a stale module object, an unprocessed module,
a value that is not a module) misses and goes through :func:`lookup`."""
_lock = threading.RLock()


def build_entry(
    module: types.ModuleType | None,
    module_ir: ir.ModuleIR,
    functions: dict[str, Callable[..., Any]],
    resolver: LiveResolver,
    variants: dict[tuple[str, bool], Any] | None = None,
) -> ModuleEntry:
    """Plans for every tool, plus the rendered variants (rendered now unless given)."""
    ready = Variants(
        render_variants(module_ir.tools, module_ir.module) if variants is None else variants
    )
    plans = {
        tool.name: build_plan(tool, functions[tool.name], resolver) for tool in module_ir.tools
    }
    return ModuleEntry(
        module=module,
        name=module_ir.module,
        ir=module_ir,
        variants=ready,
        tool_names=tuple(tool.name for tool in module_ir.tools),
        plans=plans,
        plain=ready.plain,
        strict=ready.strict,
    )


def entry_from_derived(module: types.ModuleType | None, derived: Derived) -> ModuleEntry:
    resolver = LiveResolver(derived.classes, derived.providers)
    return build_entry(module, derived.ir, derived.functions, resolver)


def entry_from_ir(
    module: types.ModuleType,
    module_ir: ir.ModuleIR,
    variants: dict[tuple[str, bool], Any] | None,
) -> ModuleEntry:
    """An entry for an IR that was not derived in this process (read from the cache)."""
    providers = {class_ref(type(p)): p for p in providers_of(module)}
    functions = {
        tool.name: import_ref(f"{module.__name__}:{tool.qualname}") for tool in module_ir.tools
    }
    return build_entry(module, module_ir, functions, LiveResolver({}, providers), variants)


def process(module: types.ModuleType) -> ModuleEntry:
    """Load a marked module's entry from the cache, or derive and cache it; register it."""
    with _lock:
        entry = _load_or_derive(module)
        _register(module.__name__, entry)
        return entry


def _load_or_derive(module: types.ModuleType) -> ModuleEntry:
    """Every cache problem is a miss: the worst a broken cache costs is a derivation."""
    directory = _cache.cache_dir()
    name = module.__name__
    origin = getattr(getattr(module, "__spec__", None), "origin", None) or ""
    source = _read_source(origin)
    path: Path | None = None
    if directory is not None:
        cached: _cache.Entry | None = None
        if source is not None:
            path = _cache.entry_path(directory, name, _cache.source_key(name, source))
            cached = _cache.read_entry(path, raw_variants=True)
            if cached is not None and (cached.module != name or not _cache.deps_current(cached)):
                cached = None
            if cached is not None:
                _cache.touch_if_old(path)
        elif origin.endswith(".pyc"):
            cached = _cache.find_sourceless(directory, name, origin)
        if cached is not None:
            try:
                return entry_from_ir(module, cached.ir, _variants_from_cache(cached.variants))
            except Exception:
                _log.debug("toolcall: cache entry of %s unusable; deriving", name, exc_info=True)
    derived = derive_module(module)
    entry = entry_from_derived(module, derived)
    if path is not None and source is not None:
        deps = [
            _cache.dep_for_module(sys.modules[dep])
            for dep in sorted(derived.dep_modules)
            if dep in sys.modules
        ]
        try:
            record = _cache.make_entry(
                derived.ir, origin, source, deps=deps, variants=_variants_for_cache(entry)
            )
        except OSError:
            _log.debug("toolcall: cannot stat %s; not caching %s", origin, name, exc_info=True)
        else:
            _cache.write_entry(path, record)
    return entry


def _read_source(origin: str) -> bytes | None:
    if not origin.endswith(".py"):
        return None
    try:
        with open(origin, "rb") as f:
            return f.read()
    except OSError:
        return None


def _variant_key(key: tuple[str, bool]) -> str:
    fmt, strict = key
    return f"{fmt}:strict" if strict else fmt


def _variants_for_cache(entry: ModuleEntry) -> dict[str, Any]:
    return {_variant_key(key): value for key, value in entry.variants.stored.items()}


def _variants_from_cache(stored: dict[str, Any]) -> dict[tuple[str, bool], Any]:
    """The variants as decoded (frozen on first use); ``KeyError`` when one is missing."""
    variants = {
        (fmt, strict): stored[_variant_key((fmt, strict))]
        for fmt in FORMATS
        for strict in (False, True)
    }
    variants["describe", False] = stored["describe"]
    return variants


def register(entry: ModuleEntry) -> None:
    with _lock:
        _register(entry.name, entry)


def _register(name: str, entry: ModuleEntry) -> None:
    """Make ``entry`` the current one for ``name``; the module object it replaces (if any)
    drops out of the index, so that the index never keeps a stale module alive."""
    previous = _entries.get(name)
    if previous is not None and previous.module is not None:
        index.pop(previous.module, None)
    _entries[name] = entry
    index[name] = entry
    if entry.module is not None:
        index[entry.module] = entry


def lookup(module: types.ModuleType | str) -> ModuleEntry:
    """The entry of a module object or dotted name, processing it on first use."""
    try:
        return index[module]
    except (KeyError, TypeError):
        return _lookup_slow(module)


def _lookup_slow(module: object) -> ModuleEntry:
    if isinstance(module, str):
        module = sys.modules.get(module) or importlib.import_module(module)
        entry = _entries.get(module.__name__)
        if entry is not None and entry.module is module:
            return entry
    if not isinstance(module, types.ModuleType):
        msg = f"expected a module or a dotted module name, got {type(module).__name__}"
        raise TypeError(msg)
    if not is_marked(module):
        msg = (
            f"{module.__name__} is not a tool module: add `__toolcall__ = True` at its top "
            "to make its public functions tools"
        )
        raise NotAToolModule(msg)
    with _lock:
        entry = _entries.get(module.__name__)
        if entry is not None and entry.module is module:
            return entry
        return process(module)
