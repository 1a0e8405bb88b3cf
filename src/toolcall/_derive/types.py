"""Python annotations -> ``ir.Type``.

The built-ins come first and type providers after them, so a provider can teach
toolcall a class but never change what a built-in means. Object types are inlined
(no ``$ref``: several MCP clients and Bedrock reject it); a type that re-enters itself
stops there as ``{}``, and a budget caps how many object types one tool inlines.

Everything a dispatch plan will need later is recorded by name (``module:qualname``), and
the live classes met on the way are kept aside in :attr:`TypeResolver.classes` so the
plan of a freshly derived module does not have to import them again.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import datetime
import decimal
import enum
import math
import pathlib
import sys
import types
import typing
import uuid
from collections.abc import Callable
from typing import Any

import msgspec

from toolcall import ir
from toolcall._markers import Param

__all__ = [
    "INLINE_BUDGET",
    "TypeResolver",
    "class_ref",
    "doc_metadata",
    "is_documenting_type",
    "json_default",
    "param_override",
    "schema_default",
    "unwrap_annotated",
]

INLINE_BUDGET = 100

_STRING_PY: dict[type, tuple[str, dict[str, str]]] = {
    datetime.datetime: ("datetime", {"format": "date-time"}),
    datetime.date: ("date", {"format": "date"}),
    datetime.time: ("time", {"format": "time"}),
    uuid.UUID: ("uuid", {"format": "uuid"}),
    decimal.Decimal: ("decimal", {"pattern": r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$"}),
    bytes: ("bytes", {"content_encoding": "base64"}),
}

_ARRAY_ORIGINS: dict[Any, str] = {
    list: "list",
    collections.abc.Sequence: "list",
    collections.abc.MutableSequence: "list",
    collections.abc.Iterable: "list",
    collections.abc.Collection: "list",
    set: "set",
    collections.abc.Set: "set",
    collections.abc.MutableSet: "set",
    frozenset: "frozenset",
}

_MAPPING_ORIGINS = {
    dict,
    collections.abc.Mapping,
    collections.abc.MutableMapping,
}

_NONE_TYPES = (None, type(None))
_ANNOTATED_META = {
    "ge": "minimum",
    "le": "maximum",
    "gt": "exclusive_minimum",
    "lt": "exclusive_maximum",
    "multiple_of": "multiple_of",
}
_REQUIRED_WRAPPERS = ("Required", "NotRequired", "ReadOnly")


def class_ref(cls: Any) -> str:
    """The ``module:qualname`` a dispatch plan imports the class back from."""
    return f"{getattr(cls, '__module__', '?')}:{getattr(cls, '__qualname__', repr(cls))}"


def unwrap_annotated(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    """``Annotated[T, m1, m2]`` -> ``(T, (m1, m2))``; nested Annotated flattened."""
    extras: tuple[Any, ...] = ()
    while typing.get_origin(tp) is typing.Annotated:
        extras = tp.__metadata__ + extras
        tp = tp.__origin__
    return tp, extras


def param_override(extras: tuple[Any, ...]) -> Param | None:
    """The last ``toolcall.Param`` among Annotated metadata (later overrides earlier)."""
    found: Param | None = None
    for extra in extras:
        if isinstance(extra, Param):
            found = extra
    return found


def _is_typeddict(tp: Any) -> bool:
    if not isinstance(tp, type):
        return False
    te = _typing_extensions()
    return typing.is_typeddict(tp) or (te is not None and te.is_typeddict(tp))


def _typing_extensions() -> Any:
    """typing_extensions only if the user's code imported it: it is not our dependency."""
    return sys.modules.get("typing_extensions")


def _is_special(tp: Any, name: str) -> bool:
    """``typing.<name>`` or ``typing_extensions.<name>``, whichever the user wrote."""
    if tp is None:
        return False
    if tp is getattr(typing, name, None):
        return True
    te = _typing_extensions()
    return te is not None and tp is getattr(te, name, None)


def _is_namedtuple(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def is_documenting_type(tp: Any) -> bool:
    """The kinds of class whose own docstring may describe a parameter (SPEC 2)."""
    return isinstance(tp, type) and (
        _is_typeddict(tp)
        or dataclasses.is_dataclass(tp)
        or _is_namedtuple(tp)
        or _is_struct(tp)
        or issubclass(tp, enum.Enum)
    )


def _strip_required(tp: Any) -> tuple[Any, bool | None]:
    """Unwrap ``Required[...]`` / ``NotRequired[...]``; returns (type, required or None)."""
    required: bool | None = None
    while True:
        origin = typing.get_origin(tp)
        name = next((n for n in _REQUIRED_WRAPPERS if _is_special(origin, n)), None)
        if name is not None:
            if name == "Required":
                required = True
            elif name == "NotRequired":
                required = False
            tp = typing.get_args(tp)[0]
        elif origin is typing.Annotated:
            inner, extras = unwrap_annotated(tp)
            inner, req = _strip_required(inner)
            return typing.Annotated[(inner, *extras)] if extras else inner, req
        else:
            return tp, required


def json_default(value: Any) -> tuple[bool, Any]:
    """(True, JSON value) when a Python default can travel as JSON, else (False, None)."""
    if isinstance(value, enum.Enum):
        return json_default(value.value)
    if value is None or isinstance(value, bool | int):
        return True, value
    if isinstance(value, float):
        return (True, value) if math.isfinite(value) else (False, None)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False, None
        return True, value
    if isinstance(value, list | tuple):
        out = []
        for item in value:
            ok, item_json = json_default(item)
            if not ok:
                return False, None
            out.append(item_json)
        return True, out
    if isinstance(value, dict):
        obj = {}
        for key, item in value.items():
            ok, item_json = json_default(item)
            if not ok or not isinstance(key, str):
                return False, None
            obj[key] = item_json
        return True, obj
    return False, None


def schema_default(value: Any, t: ir.Type) -> tuple[bool, Any, bool]:
    """``(emit, JSON value, inside the domain)`` for a Python default of type ``t``.

    A default JSON cannot carry is simply not emitted; one outside the type's domain is not
    emitted either, and says so, so derivation can warn. ``None`` on a non-nullable type is
    the conventional "not given" and counts as inside.
    """
    has, json = json_default(value)
    if not has:
        return False, None, True
    if isinstance(json, float) and t.kind == "integer" and json.is_integer():
        json = int(json)
    if not default_fits(json, t):
        return False, None, json is None
    if t.wire == "string_integer" and isinstance(json, int):
        json = str(json)
    return True, json, True


def default_fits(value: Any, t: ir.Type) -> bool:
    """Whether a JSON default lies inside the type's domain (shape, enum values, bounds)."""
    if value is None:
        return t.nullable or t.kind in ("any", "null")
    kind = t.kind
    if kind == "any":
        return True
    if kind == "union":
        return any(default_fits(value, variant) for variant in t.variants)
    if kind == "enum":
        return any(type(value) is type(v) and value == v for v in t.values)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool) and _in_bounds(value, t)
    if kind == "number":
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and _in_bounds(value, t)
        )
    if kind == "string":
        if t.wire == "string_integer":
            return isinstance(value, int) and not isinstance(value, bool)
        return isinstance(value, str) and not t.py
    if kind == "array":
        if not isinstance(value, list):
            return False
        if t.prefix_items:
            return len(value) == len(t.prefix_items) and all(
                default_fits(v, it) for v, it in zip(value, t.prefix_items, strict=True)
            )
        return t.items is None or all(default_fits(v, t.items) for v in value)
    if kind == "object":
        return isinstance(value, dict) and t.py == "dict"
    return False


def _in_bounds(value: float, t: ir.Type) -> bool:
    return not (
        (t.minimum is not None and value < t.minimum)
        or (t.maximum is not None and value > t.maximum)
        or (t.exclusive_minimum is not None and value <= t.exclusive_minimum)
        or (t.exclusive_maximum is not None and value >= t.exclusive_maximum)
    )


class TypeResolver:
    """Resolves the annotations of one module (or one runtime function).

    Holds the state that spans a whole module: the providers, the warnings, the live
    classes and provider instances met, and the modules that contributed types (the
    cache's dependencies). The inlining budget is per tool (:meth:`start_tool`): it guards
    against one runaway type hierarchy, not against a module with many tools.

    ``field_docs(cls)`` returns the attribute docstrings of a class's fields; it is
    supplied by derivation, which owns source reading.
    """

    def __init__(
        self,
        providers: list[Any],
        warn: Callable[[str], None],
        field_docs: Callable[[type], dict[str, str]],
    ) -> None:
        self.providers = providers
        self.warn = warn
        self.field_docs = field_docs
        self.budget = INLINE_BUDGET
        self.classes: dict[str, Any] = {}
        self.provider_instances: dict[str, Any] = {class_ref(type(p)): p for p in providers}
        self.dep_modules: set[str] = {type(p).__module__ for p in providers}
        self._stack: list[Any] = []
        self._budget_warned = False

    def start_tool(self) -> None:
        self.budget = INLINE_BUDGET
        self._budget_warned = False

    # entry point -----------------------------------------------------------------
    def resolve(self, tp: Any, where: str) -> ir.Type:
        """``where`` names the place for warnings, e.g. ``get_weather(days)``."""
        tp, extras = unwrap_annotated(tp)
        base = self._resolve_plain(tp, where)
        return self._apply_metadata(base, extras, where)

    # metadata (Annotated) --------------------------------------------------------
    def _apply_metadata(self, t: ir.Type, extras: tuple[Any, ...], where: str) -> ir.Type:
        changes: dict[str, Any] = {}
        for extra in extras:
            for key, value in _constraints(extra):
                target = self._constraint_target(t, key)
                if target is None:
                    self.warn(f"{where}: constraint {key}={value!r} does not apply to a {t.kind}")
                else:
                    changes[target] = value
        if changes:
            t = msgspec.structs.replace(t, **changes)
        override = param_override(extras)
        return self.with_wire(t, override.wire if override else None, where)

    def with_wire(self, t: ir.Type, wire: str | None, where: str) -> ir.Type:
        """``wire="string_integer"``: an int travels as a string of digits (ids past 2**53)."""
        if wire != "string_integer" or t.wire == wire:
            return t
        if t.kind != "integer":
            self.warn(f"{where}: wire='string_integer' needs an int, not a {t.kind}")
            return t
        return msgspec.structs.replace(t, kind="string", pattern=r"^-?\d+$", wire=wire)

    @staticmethod
    def _constraint_target(t: ir.Type, key: str) -> str | None:
        if key in _ANNOTATED_META.values():
            return key if t.kind in ("integer", "number") else None
        if key == "pattern":
            return key if t.kind == "string" else None
        if key in ("min_length", "max_length"):
            if t.kind == "string":
                return key
            if t.kind == "array":
                return "min_items" if key == "min_length" else "max_items"
        return None

    # the resolution itself ---------------------------------------------------------
    def _resolve_plain(self, tp: Any, where: str) -> ir.Type:
        if tp in _NONE_TYPES:
            return ir.Type(kind="null")
        if tp is object or _is_special(tp, "Any"):
            return ir.Type(kind="any")
        if isinstance(tp, str | typing.ForwardRef):
            self.warn(f"{where}: cannot resolve the annotation {_name(tp)!r}; sent as any value")
            return ir.Type(kind="any")
        if isinstance(tp, typing.NewType):
            return self.resolve(tp.__supertype__, where)
        if isinstance(tp, typing.TypeVar):
            if tp.__bound__ is not None:
                return self.resolve(tp.__bound__, where)
            if tp.__constraints__:
                return self._union(tp.__constraints__, where)
            return ir.Type(kind="any")
        if sys.version_info >= (3, 12) and isinstance(tp, typing.TypeAliasType):
            return self._inline(tp, where, lambda: self.resolve(tp.__value__, where))
        origin = typing.get_origin(tp)
        if origin is typing.Union or origin is types.UnionType:
            return self._union(typing.get_args(tp), where)
        if _is_special(origin, "Literal"):
            return self._literal(typing.get_args(tp), where)
        if origin is not None:
            return self._generic(tp, origin, typing.get_args(tp), where)
        if isinstance(tp, type):
            return self._class(tp, where)
        return self._unknown(tp, where)

    def _union(self, args: tuple[Any, ...], where: str) -> ir.Type:
        nullable = any(a in _NONE_TYPES for a in args)
        rest = [a for a in args if a not in _NONE_TYPES]
        if not rest:
            return ir.Type(kind="null")
        variants = [self.resolve(a, where) for a in rest]
        if len(variants) == 1:
            (only,) = variants
            return msgspec.structs.replace(only, nullable=True) if nullable else only
        if any(v.kind == "any" for v in variants):
            return ir.Type(kind="any")
        if all(v.kind == "enum" and v.py == "literal" for v in variants):
            values = tuple(dict.fromkeys(x for v in variants for x in v.values))
            return ir.Type(kind="enum", py="literal", values=values, nullable=nullable)
        nullable = nullable or any(v.nullable for v in variants)
        variants = [
            msgspec.structs.replace(v, nullable=False) if v.nullable else v for v in variants
        ]
        return ir.Type(kind="union", variants=tuple(variants), nullable=nullable)

    def _literal(self, args: tuple[Any, ...], where: str) -> ir.Type:
        values: list[Any] = []
        nullable = False
        for arg in args:
            if arg is None:
                nullable = True
            elif isinstance(arg, enum.Enum):
                values.append(arg.value)
            elif isinstance(arg, str | int | float | bool):
                values.append(arg)
            else:
                self.warn(
                    f"{where}: Literal value {arg!r} cannot travel as JSON; sent as any value"
                )
                return ir.Type(kind="any")
        if not values:
            return ir.Type(kind="null")
        return ir.Type(kind="enum", py="literal", values=tuple(values), nullable=nullable)

    def _generic(self, tp: Any, origin: Any, args: tuple[Any, ...], where: str) -> ir.Type:
        if origin in _ARRAY_ORIGINS:
            py = _ARRAY_ORIGINS[origin]
            items = self.resolve(args[0], where) if args else ir.Type(kind="any")
            return ir.Type(kind="array", py=py, items=items, unique_items=py != "list")
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return ir.Type(kind="array", py="tuple", items=self.resolve(args[0], where))
            if not args:  # tuple[()]
                return ir.Type(kind="array", py="tuple", min_items=0, max_items=0)
            prefix = tuple(self.resolve(a, where) for a in args)
            return ir.Type(
                kind="array",
                py="tuple",
                prefix_items=prefix,
                min_items=len(prefix),
                max_items=len(prefix),
            )
        if origin in _MAPPING_ORIGINS:
            return self._mapping(args, where)
        if origin is type:
            return self._unknown(tp, where)
        if isinstance(origin, type) and _is_typeddict(origin):
            return self._class(origin, where)
        provided = self._provided(origin, args, where)
        if provided is not None:
            return provided
        if isinstance(origin, type):
            return self._class(origin, where)
        return self._unknown(tp, where)

    def _mapping(self, args: tuple[Any, ...], where: str) -> ir.Type:
        if args:
            key, _ = unwrap_annotated(args[0])
            key_t = self.resolve(key, where)
            if key_t.kind not in ("string", "any") and not (
                key_t.kind == "enum" and all(isinstance(v, str) for v in key_t.values)
            ):
                self.warn(
                    f"{where}: JSON object keys are strings, so keys of type {_name(key)} "
                    "cannot be sent; the function receives string keys"
                )
        value = self.resolve(args[1], where) if len(args) > 1 else ir.Type(kind="any")
        return ir.Type(kind="object", py="dict", additional=value)

    def _class(self, tp: type, where: str) -> ir.Type:
        if tp is bool:
            return ir.Type(kind="boolean")
        if tp is int:
            return ir.Type(kind="integer")
        if tp is float:
            return ir.Type(kind="number")
        if tp is str:
            return ir.Type(kind="string")
        if tp is tuple:
            return ir.Type(kind="array", py="tuple", items=ir.Type(kind="any"))
        if tp in _ARRAY_ORIGINS or tp in _MAPPING_ORIGINS:
            return self._generic(tp, tp, (), where)
        for base, (py, extra) in _STRING_PY.items():
            if tp is base:
                return ir.Type(kind="string", py=py, **extra)  # type: ignore[arg-type]
        if issubclass(tp, pathlib.PurePath):
            return ir.Type(kind="string", py="path")
        if issubclass(tp, enum.Enum):
            return self._enum(tp, where)
        if (
            _is_typeddict(tp)
            or dataclasses.is_dataclass(tp)
            or _is_namedtuple(tp)
            or _is_struct(tp)
        ):
            return self._inline(tp, where, lambda: self._object(tp, where))
        provided = self._provided(tp, (), where)
        if provided is not None:
            return provided
        for base, (py, extra) in _STRING_PY.items():
            if issubclass(tp, base):
                return ir.Type(kind="string", py=py, **extra)  # type: ignore[arg-type]
        return self._unknown(tp, where)

    def _enum(self, tp: type[enum.Enum], where: str) -> ir.Type:
        values = tuple(member.value for member in tp)
        if not all(isinstance(v, str | int) for v in values):
            self.warn(
                f"{where}: enum {tp.__qualname__} has values JSON cannot carry; "
                "use str or int values"
            )
            return ir.Type(kind="any")
        self.classes[class_ref(tp)] = tp
        self.dep_modules.add(tp.__module__)
        return ir.Type(kind="enum", py="enum", ref=class_ref(tp), values=values)

    def _inline(self, key: Any, where: str, build: Callable[[], ir.Type]) -> ir.Type:
        """Inline an object type once per path: re-entry is ``{}``; the budget is per tool."""
        if key in self._stack:
            return ir.Type(kind="any")
        if self.budget <= 0:
            if not self._budget_warned:
                self._budget_warned = True
                self.warn(
                    f"{where}: more than {INLINE_BUDGET} nested types to inline; the rest "
                    "are sent as any value (flatten the types or enumerate the fields)"
                )
            return ir.Type(kind="any")
        self.budget -= 1
        self._stack.append(key)
        try:
            return build()
        finally:
            self._stack.pop()

    def _object(self, tp: type, where: str) -> ir.Type:
        ref = class_ref(tp)
        self.classes[ref] = tp
        self.dep_modules.add(tp.__module__)
        docs = self.field_docs(tp)
        try:
            hints = typing.get_type_hints(tp, include_extras=True)
        except Exception:
            hints = dict(getattr(tp, "__annotations__", {}))
        fields: list[ir.Field] = []
        if _is_typeddict(tp):
            required_keys = getattr(tp, "__required_keys__", frozenset(hints))
            py = "dict"
            for name, hint in hints.items():
                hint, _ = _strip_required(hint)
                fields.append(self._field(tp, name, hint, name in required_keys, _MISSING, docs))
        elif _is_struct(tp):
            py = "struct"
            for info in msgspec.structs.fields(tp):
                default = _MISSING if info.default is msgspec.NODEFAULT else info.default
                required = info.required
                fields.append(
                    self._field(
                        tp, info.name, hints.get(info.name, info.type), required, default, docs
                    )
                )
        elif dataclasses.is_dataclass(tp):
            py = "dataclass"
            for f in dataclasses.fields(tp):
                if not f.init:
                    continue
                has_default = f.default is not dataclasses.MISSING
                has_factory = f.default_factory is not dataclasses.MISSING
                fields.append(
                    self._field(
                        tp,
                        f.name,
                        hints.get(f.name, f.type),
                        not (has_default or has_factory),
                        f.default if has_default else _MISSING,
                        docs,
                    )
                )
        else:
            py = "namedtuple"
            defaults = getattr(tp, "_field_defaults", {})
            for name in tp._fields:  # type: ignore[attr-defined]
                fields.append(
                    self._field(
                        tp,
                        name,
                        hints.get(name, Any),
                        name not in defaults,
                        defaults.get(name, _MISSING),
                        docs,
                    )
                )
        return ir.Type(kind="object", py=py, ref=ref, fields=tuple(fields))

    def _field(
        self,
        owner: type,
        name: str,
        hint: Any,
        required: bool,
        default: Any,
        docs: dict[str, str],
    ) -> ir.Field:
        where = f"{owner.__qualname__}.{name}"
        t = self.resolve(hint, where)
        _, extras = unwrap_annotated(hint)
        override = param_override(extras)
        description = docs.get(name, "")
        doc_extra = doc_metadata(extras)
        if doc_extra is not None:
            description = doc_extra
        if override is not None and override.description is not None:
            description = override.description
        has_default, value = (False, None)
        if default is not _MISSING:
            has_default, value, _ = schema_default(default, t)
        return ir.Field(
            name=name,
            type=t,
            required=required,
            has_default=has_default,
            default=value,
            description=description,
        )

    def _provided(self, origin: Any, args: tuple[Any, ...], where: str) -> ir.Type | None:
        if not self.providers:
            return None
        arg_types = tuple(self.resolve(a, where) for a in args)
        for provider in self.providers:
            resolve = getattr(provider, "resolve", None)
            if resolve is None:
                continue
            try:
                result = resolve(origin, arg_types)
            except Exception as exc:
                self.warn(
                    f"{where}: type provider {type(provider).__qualname__} raised "
                    f"{type(exc).__name__}: {exc}"
                )
                continue
            if result is None:
                continue
            if not isinstance(result, ir.Type):
                self.warn(
                    f"{where}: type provider {type(provider).__qualname__} returned "
                    f"{type(result).__name__}, not toolcall.ir.Type; ignored"
                )
                continue
            ref = class_ref(type(provider))
            if isinstance(origin, type):
                self.classes[class_ref(origin)] = origin
                self.dep_modules.add(origin.__module__)
            if hasattr(provider, "coerce"):
                return msgspec.structs.replace(result, provider=ref)
            return result
        return None

    def _unknown(self, tp: Any, where: str) -> ir.Type:
        self.warn(
            f"{where}: toolcall does not know the type {_name(tp)}; it is sent as any "
            "value and passed through unchanged (register a type provider in "
            "__toolcall_types__ to describe it)"
        )
        return ir.Type(kind="any")


_MISSING: Any = object()


def _name(tp: Any) -> str:
    if isinstance(tp, typing.ForwardRef):
        return tp.__forward_arg__
    if isinstance(tp, type):
        return tp.__qualname__
    return str(tp).replace("typing.", "")


def _constraints(extra: Any) -> list[tuple[str, Any]]:
    """Constraint metadata as (ir field, value): msgspec.Meta and annotated_types, duck-typed."""
    if isinstance(extra, msgspec.Meta):
        found = [
            (_ANNOTATED_META[k], getattr(extra, k))
            for k in _ANNOTATED_META
            if getattr(extra, k) is not None
        ]
        found += [
            (k, getattr(extra, k))
            for k in ("pattern", "min_length", "max_length")
            if getattr(extra, k) is not None
        ]
        return found
    if type(extra).__module__ != "annotated_types":
        return []
    if hasattr(extra, "__iter__"):
        return [pair for inner in extra for pair in _constraints(inner)]
    found = []
    for attr, target in (
        *_ANNOTATED_META.items(),
        ("min_length", "min_length"),
        ("max_length", "max_length"),
    ):
        value = getattr(extra, attr, None)
        if value is not None:
            found.append((target, value))
    return found


def doc_metadata(extras: tuple[Any, ...]) -> str | None:
    """A description carried by ``annotated_types.doc``, ``Doc`` or ``msgspec.Meta``."""
    found: str | None = None
    for extra in extras:
        if isinstance(extra, msgspec.Meta) and extra.description is not None:
            found = extra.description
        elif type(extra).__name__ in ("DocInfo", "Doc") and isinstance(
            getattr(extra, "documentation", None), str
        ):
            found = extra.documentation
    return found
