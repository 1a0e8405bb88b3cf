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
The checks cost a walk over the IR and a dictionary lookup per name, no imports.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Iterable
from typing import Any, Final

from toolcall import ir

__all__ = ["MAX_DEPTH", "Untrusted", "verify"]

MAX_DEPTH: Final = 100
"""Deepest ``ir.Type`` nesting an entry may hold. Derivation stops inlining after 100 types
per tool, and rendering and dispatch recurse once per level: an IR much deeper than this was
not written by the library, and would make ``run`` raise ``RecursionError``."""


class Untrusted(Exception):
    """The entry does not describe the live module; the message says what did not match."""


def _is_enum(cls: type) -> bool:
    import enum

    return issubclass(cls, enum.Enum)


def _is_dataclass(cls: type) -> bool:
    return "__dataclass_fields__" in vars(cls)


def _is_namedtuple(cls: type) -> bool:
    return issubclass(cls, tuple) and "_fields" in vars(cls)


def _is_struct(cls: type) -> bool:
    import msgspec

    return issubclass(cls, msgspec.Struct)


def _is_typeddict(cls: type) -> bool:
    """``typing`` and ``typing_extensions`` TypedDicts alike (3.11's ``is_typeddict`` knows
    only its own): a dict subclass carrying the key sets their metaclasses set."""
    return issubclass(cls, dict) and "__required_keys__" in vars(cls)


def _is_model(cls: type) -> bool:
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None and issubclass(cls, pydantic.BaseModel):
        return True
    return "__pydantic_fields__" in vars(cls) and _is_dataclass(cls)


def _is_pydantic_owned(cls: type) -> bool:
    return cls.__module__.partition(".")[0] in ("pydantic", "pydantic_core")


_KINDS: Final[dict[str, Callable[[type], bool]]] = {
    "enum": _is_enum,
    "dataclass": _is_dataclass,
    "namedtuple": _is_namedtuple,
    "struct": _is_struct,
    "dict": _is_typeddict,
    "model": _is_model,
    "pydantic": _is_pydantic_owned,
}
"""What a class reference must be, by the ``py`` of the ``ir.Type`` that carries it."""


def verify(
    module: types.ModuleType,
    module_ir: ir.ModuleIR,
    dep_modules: Iterable[str],
    candidates: list[Callable[..., Any]],
    providers: dict[str, Any],
) -> tuple[dict[str, Callable[..., Any]], dict[str, type]]:
    """The functions and classes an entry's IR names, each checked; ``Untrusted`` if not.

    ``candidates`` is what discovery finds in ``module`` now, ``providers`` its
    ``__toolcall_types__`` by reference, ``dep_modules`` the modules the entry records as
    dependencies (class references may point into them).
    """
    name = module.__name__
    if module_ir.module != name:
        raise Untrusted(f"the entry is for {module_ir.module}")
    found = {fn.__name__: fn for fn in candidates}
    allowed = {name, *dep_modules}
    functions: dict[str, Callable[..., Any]] = {}
    classes: dict[str, type] = {}
    for tool in module_ir.tools:
        fn = found.get(tool.qualname)
        if fn is None or tool.module != name or tool.name in functions:
            raise Untrusted(f"tool {tool.name!r} names {tool.module}:{tool.qualname}, not a tool")
        functions[tool.name] = fn
        _check_defaults(tool, fn)
        for t, depth in _types(tool):
            if depth > MAX_DEPTH:
                raise Untrusted(f"tool {tool.name!r} nests types deeper than {MAX_DEPTH}")
            if t.provider and t.provider not in providers:
                raise Untrusted(f"provider {t.provider} is not in __toolcall_types__")
            if t.ref and t.ref not in classes:
                classes[t.ref] = _class(t, allowed)
    return functions, classes


def _types(tool: ir.Tool) -> Iterable[tuple[ir.Type, int]]:
    """Every type node of a tool with its depth, iteratively (the depth is what is checked)."""
    stack: list[tuple[ir.Type, int]] = [(p.type, 1) for p in tool.parameters]
    if tool.kwargs is not None:
        stack.append((tool.kwargs, 1))
    if tool.returns is not None:
        stack.append((tool.returns, 1))
    while stack:
        t, depth = stack.pop()
        yield t, depth
        if depth > MAX_DEPTH:
            return
        below = depth + 1
        if t.items is not None:
            stack.append((t.items, below))
        if t.additional is not None:
            stack.append((t.additional, below))
        # most nodes are leaves: no generator is built for an empty tuple
        if t.fields:
            stack.extend((f.type, below) for f in t.fields)
        if t.prefix_items:
            stack.extend((v, below) for v in t.prefix_items)
        if t.variants:
            stack.extend((v, below) for v in t.variants)


def _class(t: ir.Type, allowed: set[str]) -> type:
    """The class ``t.ref`` names, if it is one the entry may name."""
    module_name, _, qualname = t.ref.partition(":")
    kind = _KINDS.get(t.py)
    if kind is None:
        raise Untrusted(f"{t.ref}: a class reference on a {t.py or 'plain'} type")
    if module_name not in allowed:
        raise Untrusted(f"{t.ref}: not in the module or a recorded dependency")
    obj: object = sys.modules.get(module_name)
    for part in qualname.split("."):
        namespace = getattr(obj, "__dict__", None)
        obj = namespace.get(part) if isinstance(namespace, dict | types.MappingProxyType) else None
        if obj is None:
            raise Untrusted(f"{t.ref}: not found without importing")
    if t.py == "pydantic" and module_name.partition(".")[0] == "pydantic":
        return obj  # type: ignore[return-value]  # an alias such as pydantic.types:UUID4
    if not (
        isinstance(obj, type)
        and vars(obj).get("__module__") == module_name
        and obj.__qualname__ == qualname
        and kind(obj)
    ):
        raise Untrusted(f"{t.ref}: not a {t.py} class defined there")
    return obj


_NOT_JSON: Final[Any] = object()


def _jsonish(value: Any) -> Any:
    """A default as derivation emits it (enum members as values, tuples as lists), or
    ``_NOT_JSON`` for a value derivation would not have emitted."""
    if value is None or type(value) in (bool, int, float, str):
        return value
    import enum

    if isinstance(value, enum.Enum):
        return _jsonish(value.value)
    if isinstance(value, list | tuple):
        items = [_jsonish(item) for item in value]
        return _NOT_JSON if any(item is _NOT_JSON for item in items) else items
    if isinstance(value, dict) and all(type(k) is str for k in value):
        mapping = {k: _jsonish(v) for k, v in value.items()}
        return _NOT_JSON if any(v is _NOT_JSON for v in mapping.values()) else mapping
    return _NOT_JSON


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


def _check_defaults(tool: ir.Tool, fn: Callable[..., Any]) -> None:
    """Every emitted default still is the function's default (it may be computed at import)."""
    emitted = [p for p in tool.parameters if p.has_default]
    if not emitted:
        return
    live = _live_defaults(fn)
    for p in emitted:
        value = live.get(p.name, _NOT_JSON)
        if value is _NOT_JSON:  # ``x: Annotated[int, Field(default=3)]``
            value = _annotated_field(fn, p.name)
        if type(value).__name__ == "FieldInfo":  # ``x: int = Field(3)``: its default is 3
            value = getattr(value, "default", _NOT_JSON)
        if value is _NOT_JSON or not _same(_jsonish(value), p.default):
            raise Untrusted(f"tool {tool.name!r}: the default of {p.name!r} changed")


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
        if type(extra).__name__ == "FieldInfo":
            found = extra
    return found


def _live_defaults(fn: Callable[..., Any]) -> dict[str, Any]:
    """Parameter name -> default, from the code object (``inspect.signature`` costs more)."""
    while True:  # the signature derivation read is the innermost function's
        inner = getattr(fn, "__wrapped__", None)
        if inner is None:
            break
        fn = inner
    code = getattr(fn, "__code__", None)
    if code is None:
        return {}
    positional = code.co_varnames[: code.co_argcount]
    defaults = getattr(fn, "__defaults__", None) or ()
    found = dict(zip(positional[len(positional) - len(defaults) :], defaults, strict=True))
    found.update(getattr(fn, "__kwdefaults__", None) or {})
    return found
