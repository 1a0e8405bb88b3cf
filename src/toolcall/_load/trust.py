"""Checking a cache entry against the live module before anything in it is used.

An entry is data, never authority over what runs (SPEC section 6, Trust). Its checksum is
unkeyed, so whoever can write the cache directory can write a consistent entry; what limits
the damage is that every name in it is resolved here, against the module that just ran,
under the rules derivation itself follows:

- a tool names a function that section 1 discovery finds in the module (``candidates``):
  no attribute paths, no private or imported functions, no ``__loader__.get_data``;
- a class reference names a class of the kind the IR says (an ``Enum`` for ``py="enum"``,
  a dataclass for ``"dataclass"``, ...), defined under that very ``module:qualname``, in the
  module itself or in a module the entry records as a dependency, found in ``sys.modules``
  by ``__dict__`` lookups only (nothing is imported, no ``__getattr__`` runs);
- a provider comes from the module's ``__toolcall_types__``;
- types nest no deeper than ``MAX_DEPTH``;
- every emitted default equals the default the function holds now (a default computed from
  the environment or from another module's constant changes without the source changing).

Any failure raises ``Untrusted``, which the pipeline turns into a miss (re-derive) logged
at DEBUG: a forged or stale entry costs a derivation, never a wrong tool or an exception.

A warm load checks the entry's ``Summary`` (what ``summarize`` extracts from the IR: names,
emitted defaults, class references, providers, depth), so that it costs a lookup per tool,
default and distinct class, no walk and no decoding of the IR. The IR is decoded when
dispatch first needs it and used only if it summarizes to exactly the summary that was
checked (``same_summary``): an IR that says anything else is treated as forged.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterable
from typing import Any, Final

from toolcall import ir
from toolcall._cache.summary import MAX_DEPTH, Summary, summarize
from toolcall._shared import kinds

__all__ = ["KINDS", "Untrusted", "verify", "verify_summary"]


class Untrusted(Exception):
    """The entry does not describe the live module; the message says what did not match."""


KINDS: Final[dict[str, Callable[[type], bool]]] = {
    "enum": kinds.is_enum,
    "dataclass": kinds.is_dataclass,
    "namedtuple": kinds.is_namedtuple,
    "struct": kinds.is_struct,
    "dict": kinds.is_typeddict,
    "model": kinds.is_model,
    "pydantic": kinds.from_pydantic,
}
"""What a class reference must be, by the ``py`` of the ``ir.Type`` that carries it."""


def verify(
    module: types.ModuleType,
    module_ir: ir.ModuleIR,
    dep_modules: Iterable[str],
    candidates: list[Callable[..., Any]],
    providers: dict[str, Any],
) -> tuple[dict[str, Callable[..., Any]], dict[str, type]]:
    """``verify_summary`` of a whole IR."""
    if module_ir.module != module.__name__:
        raise Untrusted(f"the entry is for {module_ir.module}")
    return verify_summary(module, summarize(module_ir), dep_modules, candidates, providers)


def verify_summary(
    module: types.ModuleType,
    summary: Summary,
    dep_modules: Iterable[str],
    candidates: list[Callable[..., Any]],
    providers: dict[str, Any],
) -> tuple[dict[str, Callable[..., Any]], dict[str, type]]:
    """The functions and classes an entry names, each checked; ``Untrusted`` if not.

    ``candidates`` is what discovery finds in ``module`` now, ``providers`` its
    ``__toolcall_types__`` by reference, ``dep_modules`` the modules the entry records as
    dependencies (class references may point into them). Each class reference and provider
    is checked once per module, not once per tool naming it.
    """
    name = module.__name__
    if summary.depth > MAX_DEPTH:
        raise Untrusted(f"types nest deeper than {MAX_DEPTH}")
    found = {fn.__name__: fn for fn in candidates}
    functions: dict[str, Callable[..., Any]] = {}
    for head in summary.tools:
        qualname = head.qualname or head.name
        fn = found.get(qualname)
        if fn is None or head.module not in ("", name) or head.name in functions:
            where = head.module or name
            raise Untrusted(f"tool {head.name!r} names {where}:{qualname}, not a tool")
        functions[head.name] = fn
        if head.defaults:
            _check_defaults(head.name, head.defaults, fn)
    for provider in summary.providers:
        if provider not in providers:
            raise Untrusted(f"provider {provider} is not in __toolcall_types__")
    allowed = {name, *dep_modules}
    classes: dict[str, type] = {}
    for ref, py in summary.refs:
        cls = _class(ref, py, allowed)
        if classes.setdefault(ref, cls) is not cls:
            raise Untrusted(f"{ref}: two classes under one reference")
    return functions, classes


def _class(ref: str, py: str, allowed: set[str]) -> type:
    """The class ``ref`` names on a type of this ``py``, if it is one the entry may name."""
    module_name, _, qualname = ref.partition(":")
    kind = KINDS.get(py)
    if kind is None:
        raise Untrusted(f"{ref}: a class reference on a {py or 'plain'} type")
    if module_name not in allowed:
        raise Untrusted(f"{ref}: not in the module or a recorded dependency")
    obj: object = sys.modules.get(module_name)
    for part in qualname.split("."):
        namespace = getattr(obj, "__dict__", None)
        obj = namespace.get(part) if isinstance(namespace, dict | types.MappingProxyType) else None
        if obj is None:
            raise Untrusted(f"{ref}: not found without importing")
    if py == "pydantic" and module_name.partition(".")[0] == "pydantic":
        return obj  # type: ignore[return-value]  # an alias such as pydantic.types:UUID4
    if not (
        isinstance(obj, type)
        and vars(obj).get("__module__") == module_name
        and obj.__qualname__ == qualname
        and kind(obj)
    ):
        raise Untrusted(f"{ref}: not a {py} class defined there")
    return obj


_NOT_JSON: Final[Any] = object()
_PLAIN: Final = frozenset({bool, int, float, str, type(None)})


def _same(live: Any, emitted: Any) -> bool:
    """``live == emitted`` with JSON's types kept apart (``True`` is not ``1``)."""
    if type(live) is not type(emitted):
        # string_integer defaults travel as strings; an integral float may come back an int
        if type(emitted) is str and type(live) is int:
            return str(live) == emitted
        return type(live) in (int, float) and type(emitted) in (int, float) and live == emitted
    if isinstance(live, list):
        return len(live) == len(emitted) and all(map(_same, live, emitted))
    if isinstance(live, dict):
        return live.keys() == emitted.keys() and all(_same(live[k], emitted[k]) for k in live)
    return bool(live == emitted)


def _check_defaults(
    tool: str, emitted: tuple[tuple[str, Any], ...], fn: Callable[..., Any]
) -> None:
    """Every emitted default still is the function's default (it may be computed at import)."""
    live = _live_defaults(fn)
    for name, default in emitted:
        value = live.get(name, _NOT_JSON)
        kind = type(value)
        if kind is type(default) and kind in _PLAIN and value == default:
            continue  # most defaults: a number, a string, None, equal as they are
        if value is _NOT_JSON:  # ``x: Annotated[int, Field(default=3)]``
            value = _annotated_field(fn, name)
        if kinds.is_field_info(value):  # ``x: int = Field(3)``: its default is 3
            value = getattr(value, "default", _NOT_JSON)
        carried, json = kinds.json_default(value)  # False for _NOT_JSON
        if not carried or not _same(json, default):
            raise Untrusted(f"tool {tool!r}: the default of {name!r} changed")


def _annotated_field(fn: Callable[..., Any], name: str) -> Any:
    """The last ``FieldInfo`` in the parameter's ``Annotated`` metadata, else ``_NOT_JSON``.

    Only tools whose default is written this way pay for evaluating their annotations."""
    import typing

    try:
        hint = typing.get_type_hints(fn, include_extras=True).get(name)
    except Exception:
        return _NOT_JSON
    found: Any = _NOT_JSON
    for extra in getattr(hint, "__metadata__", ()):
        if kinds.is_field_info(extra):
            found = extra
    return found


def _live_defaults(fn: Callable[..., Any]) -> dict[str, Any]:
    """Parameter name -> default, from the code object (``inspect.signature`` costs more,
    and this runs for every tool of a warm load)."""
    inner = getattr(fn, "__wrapped__", None)
    while inner is not None:  # the signature derivation read is the innermost function's
        fn = inner
        inner = getattr(fn, "__wrapped__", None)
    code = getattr(fn, "__code__", None)
    if code is None:
        return {}
    found: dict[str, Any] = {}
    defaults = getattr(fn, "__defaults__", None)
    if defaults:
        count = code.co_argcount
        if len(defaults) > count:  # assigned by hand: no parameter has a known default
            return found
        found.update(zip(code.co_varnames[count - len(defaults) : count], defaults))  # noqa: B905
    kwdefaults = getattr(fn, "__kwdefaults__", None)
    if kwdefaults:
        found.update(kwdefaults)
    return found
