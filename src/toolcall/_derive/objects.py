"""Object types, field by field: TypedDict, dataclass, NamedTuple, msgspec Struct and pydantic
models (``BaseModel`` and pydantic dataclasses).

Every field goes through the resolver like a parameter, so nested objects, constraints and
type providers work at any depth; a field's description follows the one precedence of
:mod:`toolcall._derive.descriptions`, its attribute docstring (read from source) standing where
a parameter's docstring entry stands. A pydantic model keeps its own validation at dispatch
(``py="model"``), so the IR of a model only has to describe it.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from typing import TYPE_CHECKING, Any

import msgspec

from toolcall import ir
from toolcall._derive import pydantic_types
from toolcall._derive.annotations import (
    arm_metadata,
    examples_metadata,
    unhonoured_field_settings,
)
from toolcall._derive.defaults import schema_default
from toolcall._derive.descriptions import field_description
from toolcall._derive.pydantic_meta import given_description, is_skipped, validators
from toolcall._shared.kinds import (
    class_ref,
    is_dataclass,
    is_enum,
    is_model,
    is_namedtuple,
    is_struct,
    is_typeddict,
    unwrap_annotated,
)
from toolcall._shared.signatures import annotations_of

if TYPE_CHECKING:
    from toolcall._derive.types import AnnotationReader

__all__ = [
    "is_documenting_type",
    "is_object_class",
    "is_special",
    "model_type",
    "object_type",
]

_REQUIRED_WRAPPERS = ("Required", "NotRequired", "ReadOnly")
MISSING: Any = object()


def is_object_class(tp: type) -> bool:
    """The classes :func:`object_type` reads (pydantic models are read by :func:`model_type`)."""
    return is_typeddict(tp) or is_dataclass(tp) or is_namedtuple(tp) or is_struct(tp)


def is_special(tp: Any, name: str) -> bool:
    """``typing.<name>`` or ``typing_extensions.<name>``, whichever the user wrote."""
    if tp is None:
        return False
    if tp is getattr(typing, name, None):
        return True
    te = sys.modules.get("typing_extensions")  # only if the user's code imported it
    return te is not None and tp is getattr(te, name, None)


def is_documenting_type(tp: Any) -> bool:
    """The kinds of class whose own docstring may describe a parameter (SPEC 2)."""
    return is_model(tp) or is_object_class(tp) or is_enum(tp)


def _strip_required(tp: Any) -> tuple[Any, bool | None]:
    """Unwrap ``Required[...]`` / ``NotRequired[...]``; returns (type, required or None)."""
    required: bool | None = None
    while True:
        origin = typing.get_origin(tp)
        name = next((n for n in _REQUIRED_WRAPPERS if is_special(origin, n)), None)
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


def object_type(resolver: AnnotationReader, tp: type, where: str) -> ir.Type:
    """A TypedDict, msgspec Struct, dataclass or NamedTuple as a closed object."""
    ref = class_ref(tp)
    resolver.classes[ref] = tp
    resolver.dep_modules.add(tp.__module__)
    docs = resolver.field_docs(tp)
    try:
        hints = typing.get_type_hints(tp, include_extras=True)
    except Exception:
        hints = annotations_of(tp)
    fields: list[ir.Field] = []
    if is_typeddict(tp):
        required_keys = getattr(tp, "__required_keys__", frozenset(hints))
        py = "dict"
        for name, hint in hints.items():
            # an explicit Required/NotRequired wins: under ``from __future__ import annotations``
            # the class saw only strings, so its __required_keys__ ignored them
            hint, explicit = _strip_required(hint)
            required = name in required_keys if explicit is None else explicit
            fields.append(_field(resolver, tp, name, hint, required, MISSING, docs))
    elif is_struct(tp):
        py = "struct"
        for info in msgspec.structs.fields(tp):
            default = MISSING if info.default is msgspec.NODEFAULT else info.default
            required = info.required
            fields.append(
                _field(
                    resolver,
                    tp,
                    info.name,
                    hints.get(info.name, info.type),
                    required,
                    default,
                    docs,
                )
            )
    elif is_dataclass(tp):
        py = "dataclass"
        for f in dataclasses.fields(tp):
            if not f.init:
                continue
            has_default = f.default is not dataclasses.MISSING
            has_factory = f.default_factory is not dataclasses.MISSING
            fields.append(
                _field(
                    resolver,
                    tp,
                    f.name,
                    hints.get(f.name, f.type),
                    not (has_default or has_factory),
                    f.default if has_default else MISSING,
                    docs,
                )
            )
    else:
        py = "namedtuple"
        defaults = getattr(tp, "_field_defaults", {})
        for name in tp._fields:  # type: ignore[attr-defined]
            fields.append(
                _field(
                    resolver,
                    tp,
                    name,
                    hints.get(name, Any),
                    name not in defaults,
                    defaults.get(name, MISSING),
                    docs,
                )
            )
    return ir.Type(kind="object", py=py, ref=ref, fields=tuple(fields))


def _field(
    resolver: AnnotationReader,
    owner: type,
    name: str,
    hint: Any,
    required: bool,
    default: Any,
    docs: dict[str, str],
    *,
    prop: str | None = None,
    info: Any = None,
) -> ir.Field:
    """One property; ``prop`` is its wire name (a pydantic alias), ``info`` its FieldInfo."""
    where = f"{owner.__qualname__}.{name}"
    t = resolver.resolve(hint, where)
    if info is None and not resolver.in_model:
        found = validators(hint)
        if found:  # a model runs its fields' validators; nothing runs these
            resolver.warn(
                f"{where}: {', '.join(dict.fromkeys(found))} on a field of a class that "
                "is not a pydantic model is not run by toolcall; make it a model (or a "
                "pydantic dataclass), or check the value in the function"
            )
    _, extras = unwrap_annotated(hint)
    arms = arm_metadata(hint)
    if info is not None:
        extras = (*extras, info)
    given = given_description(t)
    if given is not None:
        extras = (*extras, given)
    has_default, value = (False, None)
    if default is not MISSING:
        has_default, value, _ = schema_default(default, t)
    return ir.Field(
        name=prop or name,
        type=t,
        required=required,
        has_default=has_default,
        default=value,
        description=field_description(
            extras, arms, docs.get(name, ""), lambda line: resolver.warn(f"{where}: {line}")
        ),
        examples=examples_metadata(extras, arms),
    )


def model_type(resolver: AnnotationReader, tp: type, where: str) -> ir.Type:
    """A pydantic model or pydantic dataclass: its fields, pydantic validates it."""
    resolver.in_model += 1
    try:
        return _model_type(resolver, tp)
    finally:
        resolver.in_model -= 1


def _model_type(resolver: AnnotationReader, tp: type) -> ir.Type:
    ref = class_ref(tp)
    resolver.classes[ref] = tp
    resolver.dep_modules.update((tp.__module__, "pydantic"))
    docs = resolver.field_docs(tp)
    fields: list[ir.Field] = []
    for name, info in pydantic_types.fields_of(tp).items():
        field_where = f"{tp.__qualname__}.{name}"
        prop, alias_problem = pydantic_types.wire_name(name, info)
        unhonoured = unhonoured_field_settings(info, alias_honoured=True)
        if alias_problem:
            unhonoured.append(alias_problem)
        if unhonoured:
            resolver.warn(
                f"{field_where}: {', '.join(unhonoured)} is not honoured by toolcall in "
                "the schema; pydantic still applies it when validating"
            )
        required = info.is_required()
        if is_skipped(tuple(info.metadata)):
            if not required:  # SkipJsonSchema: hidden, pydantic uses the default
                continue
            resolver.warn(
                f"{field_where}: SkipJsonSchema hides a field only when it has a default; "
                "it has none, so it stays in the schema"
            )
        default = MISSING
        if not required and info.default_factory is None:
            default = info.default
        fields.append(
            _field(
                resolver,
                tp,
                name,
                pydantic_types.field_hint(info),
                required,
                default,
                docs,
                prop=prop,
                info=info,
            )
        )
    additional = ir.Type(kind="any") if pydantic_types.extra(tp) == "allow" else None
    return ir.Type(kind="object", py="model", ref=ref, fields=tuple(fields), additional=additional)
