"""The classes tests annotate tools with, declared once so that no two tests mean different
things by one name.

Generated tool modules import them (``from zoo import Color``): the class then lives in a
dependency of the tool module, as it does in most projects. ``KINDS`` holds one class of
each kind toolcall reads fields or members from.
"""

import dataclasses
import enum
from typing import NamedTuple, NotRequired, TypedDict

import msgspec
import pydantic.dataclasses


class Color(enum.Enum):
    """A colour."""

    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class PlainLevel(enum.Enum):
    """Integer values without IntEnum: the members are no integers, the wire values are."""

    LOW = 1
    HIGH = 2


class Point(NamedTuple):
    """A point."""

    x: float
    y: float = 0.0


@dataclasses.dataclass
class Spot:
    x: float
    y: float = 0.0


@dataclasses.dataclass
class Box:
    corner: Point
    size: tuple[int, int]
    label: str | None = None
    tags: list[str] = dataclasses.field(default_factory=list)


class Tag(msgspec.Struct):
    name: str
    weight: int = 1


class Item(TypedDict):
    sku: str
    qty: int
    note: NotRequired[str]


class Profile(pydantic.BaseModel):
    name: str
    age: int = 0


@pydantic.dataclasses.dataclass
class Extent:
    width: int
    height: int = 1


KINDS = (Color, Level, Spot, Point, Item, Tag, Profile, Extent)
"""Enum, IntEnum, dataclass, NamedTuple, TypedDict, msgspec Struct, pydantic model and
pydantic dataclass, in that order."""
