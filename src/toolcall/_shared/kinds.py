"""What kind of class a class is, and the other rules every stage applies to live objects:
one home, so that derivation, the trust check and dispatch cannot disagree (when trust
rejects a class derivation accepts, every warm load of its module re-derives).

Each rule reads ``vars(cls)``, the MRO or ``sys.modules`` and imports nothing that is not
loaded already, so the warm path may call it (pydantic is looked up, never imported); this
module imports nothing from toolcall.
"""

from __future__ import annotations

import enum
import math
import sys
import typing
from typing import Any

import msgspec

__all__ = [
    "class_ref",
    "from_pydantic",
    "is_dataclass",
    "is_enum",
    "is_field_info",
    "is_model",
    "is_namedtuple",
    "is_struct",
    "is_typeddict",
    "json_default",
    "unwrap_annotated",
]


def class_ref(cls: Any) -> str:
    """The ``module:qualname`` a dispatch plan finds the class back under."""
    return f"{getattr(cls, '__module__', '?')}:{getattr(cls, '__qualname__', repr(cls))}"


def _inherits(cls: type, name: str) -> bool:
    """``hasattr`` without running a metaclass's ``__getattr__``."""
    return any(name in vars(klass) for klass in cls.__mro__)


def is_enum(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, enum.Enum)


def is_dataclass(cls: Any) -> bool:
    """A dataclass, or a class inheriting one's fields unchanged (``dataclasses.fields``
    and the inherited ``__init__`` serve it as they serve its base)."""
    return isinstance(cls, type) and _inherits(cls, "__dataclass_fields__")


def is_namedtuple(cls: Any) -> bool:
    """A ``NamedTuple`` or a subclass of one (its ``_fields`` and ``__new__`` are inherited)."""
    return isinstance(cls, type) and issubclass(cls, tuple) and _inherits(cls, "_fields")


def is_struct(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, msgspec.Struct)


def is_typeddict(cls: Any) -> bool:
    """``typing`` and ``typing_extensions`` TypedDicts alike (3.11's ``is_typeddict`` knows
    only its own): a dict subclass carrying the key sets their metaclasses set on each class."""
    return isinstance(cls, type) and issubclass(cls, dict) and "__required_keys__" in vars(cls)


def from_pydantic(cls: Any) -> bool:
    """Whether pydantic itself defines ``cls`` (``pydantic_core`` and ``pydantic_ai`` do not
    count)."""
    return (getattr(cls, "__module__", "") or "").partition(".")[0] == "pydantic"


def is_model(cls: Any) -> bool:
    """A ``BaseModel`` subclass or a pydantic dataclass: pydantic validates it itself.

    pydantic's own classes (``BaseModel``, ``RootModel``) are bases to subclass, not models;
    a plain dataclass subclassing a pydantic one gets no pydantic fields of its own and is a
    dataclass."""
    if not isinstance(cls, type) or from_pydantic(cls):
        return False
    main = sys.modules.get("pydantic.main")  # loaded by any BaseModel subclass
    if main is not None and issubclass(cls, main.BaseModel):
        return True
    namespace = vars(cls)
    return "__pydantic_fields__" in namespace and "__dataclass_fields__" in namespace


def is_field_info(obj: object) -> bool:
    """Whether ``obj`` is what ``pydantic.Field(...)`` returns (a subclass too, such as
    SQLModel's), without importing pydantic: no ``FieldInfo`` exists before it is loaded."""
    fields = sys.modules.get("pydantic.fields")
    return fields is not None and isinstance(obj, fields.FieldInfo)


def unwrap_annotated(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    """``Annotated[T, m1, m2]`` -> ``(T, (m1, m2))``; nested Annotated flattened."""
    extras: tuple[Any, ...] = ()
    while typing.get_origin(tp) is typing.Annotated:
        extras = tp.__metadata__ + extras
        tp = tp.__origin__
    return tp, extras


def json_default(value: Any) -> tuple[bool, Any]:
    """(True, the JSON value) when a Python default can travel as JSON, else (False, None).

    The JSON value is built of plain ``bool``, ``int``, ``float``, ``str``, ``list`` and
    ``dict``: an ``int`` or ``str`` subclass becomes its plain value, as JSON would carry it
    (msgspec encodes no subclass, and the trust check compares types), and an enum member
    its value.
    """
    kind = type(value)
    if value is None or kind is bool:
        return True, value
    if isinstance(value, enum.Enum):
        return json_default(value.value)
    if isinstance(value, int):
        return True, int.__int__(value)
    if isinstance(value, float):
        return (True, float.__float__(value)) if math.isfinite(value) else (False, None)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False, None
        return True, str.__str__(value)
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
            obj[str.__str__(key)] = item_json
        return True, obj
    return False, None
