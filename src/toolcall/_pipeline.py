"""Module -> entry: ask the cache, else derive, render, build plans and warn, once.

This is the only module that knows all the stages. The hook hands it freshly executed
marked modules; the public API hands it modules the hook never saw (``lookup``). It reads the
cache first (every cache problem is a miss: the worst a broken cache costs is a derivation),
derives and renders otherwise, issues the derivation and strict-mode warnings of a fresh
derivation (never of a cached one), writes the entry, and registers it.

No lock is held while user code runs (a provider's ``resolve``, a module's ``__getattr__``):
two threads processing the same module both derive, and the first to register wins.
"""

from __future__ import annotations

import importlib
import logging
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolcall import _registry, ir
from toolcall._cache import store as _cache
from toolcall._derive.module import (
    Derived,
    class_ref,
    derive_function,
    derive_module,
    is_marked,
    providers_of,
    warn_at,
)
from toolcall._dispatch.plan import build_plan
from toolcall._errors import NotAToolModule
from toolcall._names import FORMATS
from toolcall._registry import ModuleEntry, Variants
from toolcall._render.formats import render_variants
from toolcall._render.schema import collect_strict_problems
from toolcall._render.strict import strict_warnings

__all__ = [
    "LiveResolver",
    "build",
    "derive",
    "entry_from_derived",
    "import_ref",
    "lookup",
    "process",
]

_log = logging.getLogger("toolcall")
_DEFAULT_DIR: Any = object()


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


def _entry(
    module: types.ModuleType | None,
    module_ir: ir.ModuleIR,
    functions: dict[str, Callable[..., Any]],
    resolver: LiveResolver,
    variants: dict[tuple[str, bool], Any],
) -> ModuleEntry:
    ready = Variants(variants)
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
    )


def entry_from_derived(module: types.ModuleType | None, derived: Derived) -> ModuleEntry:
    """Render a fresh derivation, issue its strict-mode warnings once, and build its entry."""
    variants, warnings = render_variants(derived.ir.tools, derived.ir.module)
    for tool, lines in zip(derived.ir.tools, warnings, strict=True):
        for line in lines:
            warn_at(derived.functions[tool.name], line)
    resolver = LiveResolver(derived.classes, derived.providers)
    return _entry(module, derived.ir, derived.functions, resolver, variants)


def _entry_from_ir(
    module: types.ModuleType,
    module_ir: ir.ModuleIR,
    variants: dict[tuple[str, bool], Any],
) -> ModuleEntry:
    """An entry for an IR that was not derived in this process (read from the cache)."""
    providers = {class_ref(type(p)): p for p in providers_of(module)}
    functions = {
        tool.name: import_ref(f"{module.__name__}:{tool.qualname}") for tool in module_ir.tools
    }
    return _entry(module, module_ir, functions, LiveResolver({}, providers), variants)


def derive(fn: Callable[..., Any]) -> ir.Tool:
    """``toolcall.derive``: one function's IR, with the warnings a module's tool would get."""
    tool, _ = derive_function(fn)
    schema, problems = collect_strict_problems(tool)
    for line in strict_warnings(tool.name, schema, problems):
        warn_at(fn, line)
    return tool


def process(module: types.ModuleType, *, directory: Any = _DEFAULT_DIR) -> ModuleEntry:
    """Load a marked module's entry from the cache, or derive and cache it; register it.

    ``directory`` overrides the cache location (``toolcall-cache build``); None keeps
    everything in memory.
    """
    if directory is _DEFAULT_DIR:
        directory = _cache.cache_dir()
    entry, _ = _load_or_derive(module, directory)
    return _registry.register(entry)


def build(module: types.ModuleType, directory: Path) -> bool:
    """Make sure ``directory`` holds a valid entry for ``module``; whether it does now."""
    entry, stored = _load_or_derive(module, directory)
    _registry.register(entry)
    return stored


def _load_or_derive(module: types.ModuleType, directory: Path | None) -> tuple[ModuleEntry, bool]:
    """The module's entry, and whether a valid entry for it is in ``directory`` afterwards."""
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
                entry = _entry_from_ir(module, cached.ir, _variants_from_cache(cached.variants))
            except Exception:
                _log.debug("toolcall: cache entry of %s unusable; deriving", name, exc_info=True)
            else:
                return entry, True
    derived = derive_module(module)
    entry = entry_from_derived(module, derived)
    if path is None or source is None:
        return entry, False
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
        return entry, False
    return entry, _cache.write_entry(path, record)


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
    if not is_marked(module):
        msg = (
            f"{module.__name__} is not a tool module: add `__toolcall__ = True` at its top "
            "to make its public functions tools"
        )
        raise NotAToolModule(msg)
    return process(module)
