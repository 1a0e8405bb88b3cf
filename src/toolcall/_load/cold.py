"""Module -> entry, the cold half: derive, render, issue the warnings of a fresh derivation
(never of a cached one), and write the entry for the next process.

Every stage a cold load needs is imported here, at the top: a warm process never imports
this module (``warm`` does, on the first miss).
"""

from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolcall import ir
from toolcall._cache import nodes
from toolcall._cache import store as _cache
from toolcall._derive.module import Derived, derive_function, derive_module, warn_at
from toolcall._dispatch.coerce import accepts_null
from toolcall._errors import ToolcallWarning
from toolcall._frozen import freeze
from toolcall._load.registry import ModuleEntry
from toolcall._load.warm import ExecutedSource, LiveObjects, Plans, Prepared, lazy_source
from toolcall._render.formats import render_schemas
from toolcall._render.schema import collect_strict_problems
from toolcall._render.strict import check_strict, strict_warnings
from toolcall._render.variants import Schemas, Variants
from toolcall._shared.log import debug

__all__ = [
    "derive",
    "derive_and_store",
    "derive_fresh",
    "entry_from_derived",
    "prepared",
    "rederive",
    "render_again",
]


def prepared(derived: Derived) -> Prepared:
    """What a fresh derivation's dispatch plans are built from."""
    tools = {tool.name: tool for tool in derived.ir.tools}
    return tools, derived.functions, LiveObjects(derived.classes, derived.providers)


def entry_from_derived(
    module: types.ModuleType | None, derived: Derived, *, frozen: bool = True
) -> ModuleEntry:
    """Render a fresh derivation, issue its strict-mode warnings once, and build its entry
    (``frozen=False``: for a caller that ``share``s other schemas before anyone sees it)."""
    module_ir = derived.ir
    loose, strict, lines = render_schemas(module_ir.tools, frozen=frozen)
    for tool, found in zip(module_ir.tools, lines, strict=True):
        for line in found:
            warn_at(derived.functions[tool.name], line)
    plans = prepared(derived)
    return ModuleEntry(
        module=module,
        name=module_ir.module,
        ir=module_ir,
        variants=Variants(module_ir.tools, module_ir.module, (loose, strict)),
        tool_names=tuple(plans[0]),
        plans=Plans(plans),
    )


def derive_and_store(
    module: types.ModuleType,
    source: ExecutedSource | None,
    origin: str,
    path: Path | None,
    directory: Path | None,
) -> tuple[ModuleEntry, bool]:
    """Derive ``module``'s entry and write it at ``path`` (None: keep it in memory); the
    entry, and whether the write succeeded."""
    name = module.__name__
    if source is None and origin.endswith(".pyc"):
        _warn_sourceless(module, origin, directory)
    derived = derive_module(module, source.data if source is not None else None)
    if path is None or source is None:
        return entry_from_derived(module, derived), False
    entry = entry_from_derived(module, derived, frozen=False)  # the table's replace them
    deps = _dependencies(module, derived)
    try:
        table = nodes.pack(*entry.variants.schemas())
    except RecursionError:
        debug("toolcall: schemas of %s too deep to store; not caching it", name)
        _share_frozen(entry)
        return entry, False
    shared = _shared(table, len(entry.tool_names))
    if shared is None:
        _share_frozen(entry)
    else:
        entry.variants.share(shared)
    try:
        record = _cache.make_entry(
            derived.ir, origin, source.data, deps=deps, variants=table, mtime=source.mtime
        )
    except OSError:
        debug("toolcall: cannot stat %s; not caching %s", origin, name, exc_info=True)
        return entry, False
    return entry, _cache.write_entry(path, record)


def rederive(module: types.ModuleType) -> tuple[ir.ModuleIR, Prepared]:
    """A cached entry's IR and plans' inputs derived again, in memory: what a warm entry
    uses when its stored IR is gone or is not the one its load checked."""
    origin = getattr(vars(module).get("__spec__"), "origin", None) or ""
    source = lazy_source(module, origin)
    derived = derive_module(module, source.data if source is not None else None)
    return derived.ir, prepared(derived)


def render_again(module_ir: ir.ModuleIR) -> Schemas:
    """A cached entry's schemas rendered from its IR, when its node table is unusable."""
    loose, strict, _ = render_schemas(module_ir.tools)
    return loose, strict


def derive(fn: Callable[..., Any]) -> ir.Tool:
    """``toolcall.derive``: one function's IR, with the warnings a module's tool would get."""
    tool, _ = derive_function(fn)
    schema, problems = collect_strict_problems(tool)
    for line in strict_warnings(tool.name, schema, problems):
        warn_at(fn, line)
    return tool


def derive_fresh(module: types.ModuleType, *, strict: bool) -> int:
    """Derive and render ``module`` as a cold process would, issuing its warnings the way a
    cold load does (``strict`` adds every ``check_strict`` line and every default strict mode
    cannot deliver); the number of tools."""
    derived = derive_module(module)
    _, _, lines = render_schemas(derived.ir.tools)
    for tool, found in zip(derived.ir.tools, lines, strict=True):
        function = derived.functions[tool.name]
        for line in found:
            warn_at(function, line)
        if strict:
            for line in (*check_strict(tool), *_unreachable_defaults(tool)):
                warn_at(function, line)
    return len(derived.ir.tools)


def _unreachable_defaults(tool: ir.Tool) -> list[str]:
    """One line per parameter whose default a model under strict mode can never choose.

    Strict mode lists every property as required, so a model with nothing to say sends
    null. ``run`` reads that null as "not given" only when the type has no ``None`` (SPEC 4's
    explicit-null rule, ``accepts_null``); for ``Optional[str] = "none"`` null is a value,
    the function receives None, and the default is never used. A default of None is the
    null itself, and is reached.
    """
    found = []
    for p in tool.parameters:
        if p.required or (p.has_default and p.default is None) or not accepts_null(p.type):
            continue
        default = f"the default {p.default!r}" if p.has_default else "its default"
        found.append(
            f"{tool.qualname or tool.name}({p.name}): under strict mode {default} is never "
            "used: every property is required there, so a model with nothing to say sends "
            "null, and this parameter accepts null, so the function receives None (drop "
            'None from its type, so that null means "not given", or make None the default)'
        )
    return found


def _warn_sourceless(module: types.ModuleType, origin: str, directory: Path | None) -> None:
    """Production loudness: a sourceless module derived without an entry loses its docs."""
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


def _share_frozen(entry: ModuleEntry) -> None:
    """Freeze an entry's schemas rendered with ``frozen=False``, which no table replaces."""
    loose, strict = entry.variants.schemas()
    entry.variants.share(([freeze(s) for s in loose], [freeze(s) for s in strict]))


def _shared(table: dict[str, Any], count: int) -> Schemas | None:
    """The schemas a node table holds, each distinct subtree built once, as a warm load
    builds them; None for schemas nesting deeper than a table may (a warm load renders
    those again too)."""
    try:
        return nodes.build(table["nodes"], table["loose"], table["strict"], count)
    except ValueError:
        return None
