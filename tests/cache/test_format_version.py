"""What derivation makes of a reference set of tools is pinned beside ``ir.FORMAT_VERSION``:
the version is part of every cache key, so a change to derivation that does not bump it would
let old entries serve a stale IR (a lost description, a dropped constraint) to every warm
process. When this test fails, bump ``FORMAT_VERSION`` and pin the new digests. (No pydantic
model here: its schema is pydantic's, which a pydantic release may change.)"""

from __future__ import annotations

import hashlib
import importlib
import types
from collections.abc import Callable

import msgspec
import pytest

from toolcall import ir
from toolcall._load import warm as loading

REFERENCE = '''
__toolcall__ = True

import dataclasses
import enum
from decimal import Decimal
from typing import Annotated, Literal, NamedTuple, Optional, TypedDict

import annotated_types as at
from pydantic import Field


class Size(enum.Enum):
    """How big."""

    SMALL = "s"
    LARGE = "l"


class Line(TypedDict):
    """One line of an order."""

    sku: Annotated[str, Field(pattern="^[A-Z]{3}[0-9]+$", description="stock unit")]
    qty: Annotated[int, at.Ge(1), at.Le(99)]


@dataclasses.dataclass
class Address:
    """Where to."""

    street: str
    city: Annotated[str, "the city"] | None = None


class Point(NamedTuple):
    x: float
    y: float


@dataclasses.dataclass
class Quote:
    """A price quote."""

    symbol: Annotated[str, Field(description="the ticker")]
    price: Annotated[Decimal, at.Gt(0)]


def order(
    lines: list[Line],
    ship_to: Address,
    size: Size = Size.SMALL,
    mode: Literal["air", "sea"] = "sea",
    note: Annotated[str, "a note for the courier"] | None = None,
    budget: Optional[Annotated[Decimal, Field(le=1000, description="at most")]] = None,
    tags: Annotated[dict[str, int], at.MaxLen(3)] | None = None,
    at_point: Point | None = None,
) -> Quote:
    """Place an order.

    Args:
        lines: what to send
        ship_to: the address
    """
    raise NotImplementedError
'''

PINNED: dict[int, dict[str, str]] = {
    5: {
        "examples.weather": "64a04e66eceff500",
        "examples.orders": "9e903edc8ba0baf9",
        "reference": "442e59469a29a74d",
    },
}


def _digest(module: types.ModuleType) -> str:
    module_ir = loading.lookup(module).ir
    return hashlib.blake2b(msgspec.msgpack.encode(module_ir), digest_size=8).hexdigest()


@pytest.mark.parametrize("name", sorted(PINNED[ir.FORMAT_VERSION]))
def test_the_ir_of_reference_tools_is_pinned_with_the_format_version(
    name: str, make_module: Callable[..., types.ModuleType]
) -> None:
    """Derivation's output for these tools changes only together with ``FORMAT_VERSION``."""
    if name == "reference":
        module = make_module(REFERENCE, "toolcall_reference_tools")
    else:
        module = importlib.import_module(name)
    assert _digest(module) == PINNED[ir.FORMAT_VERSION][name]
