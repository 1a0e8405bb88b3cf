"""Python annotations -> ``ir.Type``.

The built-ins come first and type providers after them, so a provider can teach
toolcall a class but never change what a built-in means. Object types are inlined
(no ``$ref``: several MCP clients and Bedrock reject it); a type that re-enters itself
stops there as ``{}``, and a budget caps how many object types one tool inlines.

Everything a dispatch plan will need later is recorded by name (``module:qualname``), and
the live classes met on the way are kept aside in :attr:`AnnotationReader.classes` so the
plan of a freshly derived module does not have to import them again.
"""

from __future__ import annotations

import collections.abc
import enum
import pathlib
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec

from toolcall import ir
from toolcall._derive import pydantic_meta, pydantic_types
from toolcall._derive.annotations import BOUNDS, constraints, param_override
from toolcall._derive.objects import is_object_class, is_special, model_type, object_type
from toolcall._scalars import INTEGER_STRING_PATTERN, STRING_TYPES
from toolcall._shared.kinds import class_ref, is_model, is_typeddict, unwrap_annotated

__all__ = ["INLINE_BUDGET", "AnnotationReader"]

INLINE_BUDGET = 100


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
_REQUIRED_WRAPPERS = ("Required", "NotRequired", "ReadOnly")


class _Built(NamedTuple):
    """What building a shared object type produced and did (see ``AnnotationReader._inline``)."""

    type: ir.Type
    cost: int
    unknowns: int
    warnings: tuple[str, ...]


class AnnotationReader:
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
        self._cuts = 0  # how many times ``_inline`` cut a path short (re-entry, budget)
        self._built: dict[tuple[Any, int], _Built] = {}
        self._written: dict[str, tuple[Any, _Built]] = {}  # see ``resolve_written``
        self._unknowns = 0  # how many times ``_unknown`` ran: a union leaves those out
        self.in_model = 0  # inside a pydantic model, which runs its fields' validators

    def start_tool(self) -> None:
        self.budget = INLINE_BUDGET
        self._budget_warned = False

    # entry point -----------------------------------------------------------------
    def resolve(self, tp: Any, where: str) -> ir.Type:
        """``where`` names the place for warnings, e.g. ``get_weather(days)``."""
        owned = pydantic_types.owned_ref(tp)
        if owned is not None:
            return self._pydantic_owned(tp, owned, where)
        tp, extras = unwrap_annotated(tp)
        owned = pydantic_types.owned_ref(tp) if extras else None
        if owned is not None:  # ``u: HttpUrl = Field(..., description=...)``
            base = self._pydantic_owned(tp, owned, where)
        else:
            base = self._resolve_plain(tp, where)
        return self._apply_metadata(base, extras, where)

    def resolve_written(self, tp: Any, text: str | None, where: str) -> ir.Type:
        """``resolve`` for a parameter's whole annotation of source ``text``, reused for the
        same text meaning an equal annotation if it resolved without a word (no warning,
        nothing cut short), with the budget and unknowns it used replayed.

        Modules repeat their parameter types tool after tool. The text keeps the key exact:
        ``int | str == str | int``, ``Literal`` values compare as sets, schemas keep order."""
        if text is None:
            return self.resolve(tp, where)
        found = self._written.get(text)
        if found is not None:
            try:
                same = bool(found[0] == tp)
            except Exception:  # an annotation's own __eq__ failing: resolve it afresh
                same = False
            if same and found[1].cost <= self.budget:
                return self._replay(found[1])
        budget, unknowns, cuts = self.budget, self._unknowns, self._cuts
        t, said = self._recorded(lambda: self.resolve(tp, where))
        if not said and self._cuts == cuts and found is None:
            built = _Built(t, budget - self.budget, self._unknowns - unknowns, ())
            self._written[text] = (tp, built)
        return t

    def _recorded(self, build: Callable[[], ir.Type]) -> tuple[ir.Type, list[str]]:
        """``build()``, and the warnings it gave (each given as usual too)."""
        warn = self.warn
        said: list[str] = []

        def recording(message: str) -> None:
            said.append(message)
            warn(message)

        self.warn = recording
        try:
            return build(), said
        finally:
            self.warn = warn

    def _replay(self, built: _Built) -> ir.Type:
        """A type built before, with what building it did done again."""
        self.budget -= built.cost
        self._unknowns += built.unknowns
        for message in built.warnings:
            self.warn(message)
        return built.type

    def quiet(self, tp: Any, where: str, text: str | None = None) -> ir.Type:
        """``resolve_written`` without warnings (a return type only describes, never refuses)."""
        warn, self.warn = self.warn, _silent
        try:
            return self.resolve_written(tp, text, where)
        finally:
            self.warn = warn

    # metadata (Annotated) --------------------------------------------------------
    def _apply_metadata(self, t: ir.Type, extras: tuple[Any, ...], where: str) -> ir.Type:
        meta = constraints(extras)
        changes: dict[str, Any] = {}
        for key, value in meta.found:
            target = self._constraint_target(t, key)
            if target is None:
                self.warn(f"{where}: constraint {key}={value!r} does not apply to a {t.kind}")
            else:
                changes[target] = value
        if meta.unhonoured:
            self.warn(
                f"{where}: {', '.join(meta.unhonoured)} is not honoured by toolcall (neither "
                "sent to the model nor checked); remove it, or check it in the function"
            )
        if changes:
            t = msgspec.structs.replace(t, **changes)
        override = param_override(extras)
        t = self.with_wire(t, override.wire if override else None, where)
        words = pydantic_meta.schema_words(extras)
        return pydantic_meta.with_words(t, words, where, self.warn) if words else t

    def _pydantic_owned(self, tp: Any, ref: str, where: str) -> ir.Type:
        """A type pydantic defines (``EmailStr``, ``HttpUrl``, ``UUID4``): pydantic's schema,
        and pydantic validates it."""
        self.dep_modules.update(("pydantic", ref.partition(":")[0]))
        t, dropped = pydantic_types.owned_type(tp, ref)
        self.classes[ref] = tp
        if dropped:
            self.warn(
                f"{where}: pydantic's schema for {_name(tp)} has {', '.join(dropped)}, which "
                "toolcall cannot express; the model is not told (pydantic still validates it)"
            )
        return t

    def with_wire(self, t: ir.Type, wire: str | None, where: str) -> ir.Type:
        """``wire="string_integer"``: an int travels as a string of digits (ids past 2**53)."""
        if wire != "string_integer" or t.wire == wire:
            return t
        if t.kind != "integer":
            self.warn(f"{where}: wire='string_integer' needs an int, not a {t.kind}")
            return t
        return msgspec.structs.replace(t, kind="string", pattern=INTEGER_STRING_PATTERN, wire=wire)

    @staticmethod
    def _constraint_target(t: ir.Type, key: str) -> str | None:
        """The IR field a constraint sets on ``t``, None where it does not apply. A ``Decimal``
        or a ``string_integer`` travels as text but is a number: its bounds apply; a dict's
        lengths are its key counts."""
        if key in BOUNDS.values():
            numeric = t.kind in ("integer", "number") or t.py == "decimal" or bool(t.wire)
            return key if numeric else None
        if key == "pattern":
            return key if t.kind == "string" else None
        if key in ("min_length", "max_length"):
            if t.kind in ("string", "object"):
                return key
            if t.kind == "array":
                return "min_items" if key == "min_length" else "max_items"
        return None

    # the resolution itself ---------------------------------------------------------
    def _resolve_plain(self, tp: Any, where: str) -> ir.Type:
        if tp in _NONE_TYPES:
            return ir.Type(kind="null")
        if tp is object or is_special(tp, "Any"):
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
        if is_special(origin, "Literal"):
            return self._literal(typing.get_args(tp), where)
        if origin is not None:
            return self._generic(tp, origin, typing.get_args(tp), where)
        if isinstance(tp, type):
            return self._class(tp, where)
        return self._unknown(tp, where)

    def _union(self, args: tuple[Any, ...], where: str) -> ir.Type:
        # ``int | SkipJsonSchema[None]``: the variant is not in the schema, nor accepted
        args = tuple(a for a in args if not pydantic_meta.is_skipped(unwrap_annotated(a)[1]))
        nullable = any(a in _NONE_TYPES for a in args)
        rest = [a for a in args if a not in _NONE_TYPES]
        if not rest:
            return ir.Type(kind="null")
        variants = self._variants(rest, where)
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

    def _variants(self, args: list[Any], where: str) -> list[ir.Type]:
        """The union's variants; one JSON cannot carry (``Callable``) is left out with a
        warning when another variant remains, as pydantic leaves it out of its schema."""
        variants: list[ir.Type] = []
        unknown: list[Any] = []
        held: list[str] = []
        warn, self.warn = self.warn, held.append
        try:
            for arg in args:
                before = self._unknowns
                variant = self.resolve(arg, where)
                if self._unknowns != before and variant.kind == "any":
                    unknown.append(arg)
                else:
                    variants.append(variant)
        finally:
            self.warn = warn
        if not variants:
            variants = [ir.Type(kind="any")]
        elif unknown:
            names = ", ".join(_name(arg) for arg in unknown)
            held = [m for m in held if "toolcall does not know the type" not in m]
            held.append(
                f"{where}: the union's {names} cannot travel as JSON, so the schema leaves "
                "it out (as pydantic's does); the model can send only the other types"
            )
        for message in held:
            self.warn(message)
        return variants

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
        if isinstance(origin, type) and is_typeddict(origin):
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
        for base, (py, extra) in STRING_TYPES.items():
            if tp is base:
                return ir.Type(kind="string", py=py, **extra)  # type: ignore[arg-type]
        if issubclass(tp, pathlib.PurePath):
            return ir.Type(kind="string", py="path")
        if issubclass(tp, enum.Enum):
            return self._enum(tp, where)
        if is_model(tp):
            return self._inline(tp, where, lambda: model_type(self, tp, where), shared=True)
        if is_object_class(tp):
            return self._inline(tp, where, lambda: object_type(self, tp, where), shared=True)
        provided = self._provided(tp, (), where)
        if provided is not None:
            return provided
        for base, (py, extra) in STRING_TYPES.items():
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

    def _inline(
        self, key: Any, where: str, build: Callable[[], ir.Type], *, shared: bool = False
    ) -> ir.Type:
        """Inline an object type once per path: re-entry is ``{}``; the budget is per tool.

        A ``shared`` type (a class: its warnings name its own fields, never ``where``) is
        built once per module and reused by every tool that takes it, with what building it
        did replayed: its warnings, the budget it used, the unknowns it met. A build that
        was cut short somewhere depends on the path to it and is never reused.
        """
        if key in self._stack:
            self._cuts += 1
            return ir.Type(kind="any")
        if self.budget <= 0:
            self._cuts += 1
            if not self._budget_warned:
                self._budget_warned = True
                self.warn(
                    f"{where}: more than {INLINE_BUDGET} nested types to inline; the rest "
                    "are sent as any value (flatten the types or enumerate the fields)"
                )
            return ir.Type(kind="any")
        memo_key = (key, self.in_model)
        built = self._built.get(memo_key) if shared else None
        if built is not None and built.cost <= self.budget:
            return self._replay(built)
        budget, unknowns, cuts = self.budget, self._unknowns, self._cuts
        self.budget -= 1
        self._stack.append(key)
        try:
            t, said = self._recorded(build)
        finally:
            self._stack.pop()
        if shared and self._cuts == cuts:
            self._built[memo_key] = _Built(
                t, budget - self.budget, self._unknowns - unknowns, tuple(said)
            )
        return t

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
        self._unknowns += 1
        self.warn(
            f"{where}: toolcall does not know the type {_name(tp)}; it is sent as any "
            "value and passed through unchanged (register a type provider in "
            "__toolcall_types__ to describe it)"
        )
        return ir.Type(kind="any")


def _silent(message: str) -> None:
    """A warning target that drops the warning."""


def _name(tp: Any) -> str:
    if isinstance(tp, typing.ForwardRef):
        return tp.__forward_arg__
    if isinstance(tp, type):
        return tp.__qualname__
    return str(tp).replace("typing.", "")
