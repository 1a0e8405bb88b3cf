"""The index of processed modules: the one place ``emit``, ``run`` and ``describe`` read from.

An entry is built by the load stage (``warm``, ``cold``) and registered here; this module only
holds and finds entries. An entry read from the cache is used as it was decoded: its schemas
are built the first time a variant is asked for (``_render.variants``), and each tool's fast
path on its first call, so that a warm import pays for decoding the entry and little else.
"""

from __future__ import annotations

import _thread
import types
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from toolcall import ir
from toolcall._frozen import FrozenList

if TYPE_CHECKING:  # the plans module is imported by the load stage, not by the index
    from toolcall._dispatch.plan import Result, ToolPlan

__all__ = ["ModuleEntry", "VariantLists", "current", "find", "forget", "index", "names", "register"]


class VariantLists(Protocol):
    """A module's tool lists by ``(format, strict)`` (``_render.variants.Variants``, built
    on first use); ``plain`` and ``strict`` hold the ones built so far by format."""

    plain: dict[str, FrozenList]
    strict: dict[str, FrozenList]

    def __getitem__(self, key: tuple[str, bool], /) -> FrozenList: ...

    def schemas(self) -> tuple[Sequence[Any], Sequence[Any]]: ...

    def share(self, schemas: tuple[Sequence[Any], Sequence[Any]], /) -> None: ...


class ModuleEntry:
    """Everything the public API needs about one processed module, prebuilt.

    ``plain`` and ``strict`` are ``variants.plain`` / ``variants.strict``, one attribute
    nearer for ``emit``. ``runs`` holds the prepared ``run`` of each tool called so far, for
    ``run`` to call without going through its plan (a fifth of its overhead); ``aruns`` the
    same for ``arun``. ``search`` is what tool search keeps of the module (``_search``),
    made on its first search or first unknown tool name, never at import. ``ir`` is the
    module's IR, which an entry read from the cache decodes (and checks) only when first
    asked for: ``ir`` given as a function is called then, once. (A plain slotted class
    rather than a dataclass: ``dataclasses`` is not worth importing on the warm path.)
    """

    __slots__ = (
        "_ir",
        "aruns",
        "module",
        "name",
        "plain",
        "plans",
        "runs",
        "search",
        "strict",
        "tool_names",
        "variants",
    )

    def __init__(
        self,
        *,
        module: types.ModuleType | None,
        name: str,
        ir: ir.ModuleIR | Callable[[], ir.ModuleIR],
        variants: VariantLists,
        tool_names: tuple[str, ...],
        plans: dict[str, ToolPlan],
    ) -> None:
        self.module = module
        self.name = name
        self._ir = ir
        self.variants = variants
        self.tool_names = tool_names
        self.plans = plans
        self.plain = variants.plain
        self.strict = variants.strict
        self.runs: dict[str, Callable[[Any], Result]] = {}
        self.aruns: dict[str, Callable[[Any], Coroutine[Any, Any, Result]]] = {}
        self.search: Any = None

    @property
    def ir(self) -> ir.ModuleIR:
        found = self._ir
        if callable(found):
            found = self._ir = found()
        return found

    @property
    def describe(self) -> FrozenList:
        return self.variants["describe", False]


_entries: dict[str, ModuleEntry] = {}
index: dict[object, ModuleEntry] = {}
"""Each current entry under its module's name and under the module object itself, so that
``run`` and ``emit`` find it with one subscript whichever they are given (written under
``_lock``, read without it). Anything else (a stale module object, an unprocessed module,
a value that is not a module) misses, and ``warm.lookup`` takes over."""
_lock = _thread.allocate_lock()


def current(name: str, module: types.ModuleType) -> ModuleEntry | None:
    """The registered entry of ``module`` (by name), if it was built for this very object."""
    entry = _entries.get(name)
    return entry if entry is not None and entry.module is module else None


def register(entry: ModuleEntry) -> ModuleEntry:
    """Make ``entry`` the current one for its module (a reload replaces it) and return it.

    The module object an entry replaces (a re-import) drops out of the index, so that the
    index never keeps a stale module alive.
    """
    with _lock:
        previous = _entries.get(entry.name)
        if previous is not None and previous.module is not None:
            index.pop(previous.module, None)
        _entries[entry.name] = entry
        index[entry.name] = entry
        if entry.module is not None:
            index[entry.module] = entry
        return entry


def find(name: str) -> ModuleEntry | None:
    """The current entry registered under a module name, whichever module object it is for."""
    return _entries.get(name)


def names() -> list[str]:
    """The names of every registered module, sorted."""
    return sorted(_entries)


def forget(name: str) -> None:
    """Drop a module's entry, so that its next use processes it again (a test, a reload)."""
    with _lock:
        entry = _entries.pop(name, None)
        index.pop(name, None)
        if entry is not None and entry.module is not None:
            index.pop(entry.module, None)
