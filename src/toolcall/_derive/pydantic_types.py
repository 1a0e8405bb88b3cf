"""pydantic's classes and types, read without making pydantic a dependency.

A model (``BaseModel`` subclass or pydantic dataclass) is recognised by its class hierarchy
and attributes, so a module that does not use pydantic never imports it. pydantic itself is
imported only to ask it for the schema of one of its own types (``EmailStr``, ``HttpUrl``,
``UUID4``): the user's module imported pydantic to name that type, so it is loaded already.

Models are read field by field (``__pydantic_fields__``): their fields go through the same
type resolution as every other object's, so nested TypedDicts, msgspec Structs and type
providers work inside a model, and the schema is inlined like any other (no ``$ref``).
Dispatch leaves the model's validation to pydantic, validators included.
"""

from __future__ import annotations

import sys
import typing
from typing import Any, Final

from toolcall import ir
from toolcall._shared.kinds import from_pydantic, is_field_info

__all__ = ["extra", "field_hint", "fields_of", "owned_ref", "owned_type", "wire_name"]

_SCALAR_KEYS: Final = {
    "format": "format",
    "pattern": "pattern",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "exclusive_minimum",
    "exclusiveMaximum": "exclusive_maximum",
    "multipleOf": "multiple_of",
}
# Keys of pydantic's schemas that describe rather than constrain: nothing is lost without them.
_DESCRIPTIVE: Final = frozenset({"title", "writeOnly", "readOnly", "description"})
_KINDS: Final = frozenset({"string", "integer", "number", "boolean"})
# Where pydantic keeps the named types that are ``Annotated`` aliases (UUID4, FilePath, ...).
_ALIAS_MODULES: Final = ("pydantic.types", "pydantic.networks", "pydantic")


def fields_of(tp: type) -> dict[str, Any]:
    """The model's ``FieldInfo`` by attribute name, in declaration order."""
    return dict(tp.__pydantic_fields__)  # type: ignore[attr-defined]


def extra(tp: type) -> str | None:
    """The model's ``extra`` setting: ``"allow"``, ``"forbid"``, ``"ignore"`` or None."""
    config = getattr(tp, "model_config", None) or getattr(tp, "__pydantic_config__", None) or {}
    value = config.get("extra") if isinstance(config, dict) else None
    return value if isinstance(value, str) else None


def field_hint(info: Any) -> Any:
    """The field's annotation with its metadata (constraints) put back as ``Annotated``."""
    annotation = info.annotation
    metadata = tuple(info.metadata)
    return typing.Annotated[(annotation, *metadata)] if metadata else annotation


def wire_name(name: str, info: Any) -> tuple[str, str]:
    """The key the model expects for a field (its alias, as pydantic validates), and a
    problem to report when the alias is not a plain name (``AliasChoices``, ``AliasPath``)."""
    validation = info.validation_alias
    if isinstance(validation, str):
        return validation, ""
    if validation is not None:
        return name, f"validation_alias={validation!r}"
    alias = info.alias
    return (alias, "") if isinstance(alias, str) else (name, "")


def owned_ref(tp: Any) -> str | None:
    """``module:name`` of a type pydantic defines and validates itself, else None.

    Classes (``EmailStr``, ``HttpUrl``, ``SecretStr``) are found by their own name; aliases
    (``UUID4 = Annotated[UUID, UuidVersion(4)]``) by looking the annotation up in the modules
    pydantic defines them in. Models are not "owned": toolcall reads their fields.
    """
    if isinstance(tp, type):
        if from_pydantic(tp) and not _is_base(tp):
            return f"{tp.__module__}:{tp.__qualname__}"
        return None
    if typing.get_origin(tp) is not typing.Annotated:
        return None
    if not any(
        from_pydantic(type(extra)) and not is_field_info(extra) for extra in tp.__metadata__
    ):
        return None
    for module_name in _ALIAS_MODULES:
        module = sys.modules.get(module_name)
        for name, value in vars(module).items() if module is not None else ():
            try:
                if value is tp or (typing.get_origin(value) is typing.Annotated and value == tp):
                    return f"{module_name}:{name}"
            except Exception:  # an object whose __eq__ raises is not the alias
                continue
    return None


def _is_base(tp: type) -> bool:
    """pydantic's own bases (``BaseModel``, ``RootModel``): classes to subclass, not types."""
    return tp.__name__ in ("BaseModel", "RootModel")


def owned_type(tp: Any, ref: str) -> tuple[ir.Type, list[str]]:
    """pydantic's schema for one of its own types as ``ir.Type`` (``py="pydantic"``), and
    the schema keys the IR cannot carry."""
    from pydantic import TypeAdapter

    try:
        schema = TypeAdapter(tp).json_schema()
    except Exception as exc:
        return ir.Type(kind="any", py="pydantic", ref=ref), [f"no schema ({exc})"]
    return _scalar(schema, ref)


def _scalar(schema: dict[str, Any], ref: str) -> tuple[ir.Type, list[str]]:
    kind = schema.get("type")
    if kind not in _KINDS:
        dropped = sorted(key for key in schema if key not in _DESCRIPTIVE)
        return ir.Type(kind="any", py="pydantic", ref=ref), dropped
    values: dict[str, Any] = {}
    dropped = []
    for key, value in schema.items():
        if key in _SCALAR_KEYS and kind in ("string", "integer", "number"):
            values[_SCALAR_KEYS[key]] = value
        elif key != "type" and key not in _DESCRIPTIVE:
            dropped.append(key)
    return ir.Type(kind=kind, py="pydantic", ref=ref, **values), dropped
