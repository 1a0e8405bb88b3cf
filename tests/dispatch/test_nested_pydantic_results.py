"""A pydantic dataclass inside a result is written by pydantic wherever it sits.

msgspec writes any dataclass field by field, so a pydantic dataclass nested in a list, a dict,
a tuple or a plain dataclass lost its aliases and field serializers (only one at the top of a
result went through pydantic). The result must read as pydantic's own
``TypeAdapter(T).dump_python(value, mode="json", by_alias=True)`` for the result's type ``T``.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, NamedTuple

import attrs
import msgspec
import pytest

import pydantic
import toolcall


@pydantic.dataclasses.dataclass
class Tick:
    at: int = pydantic.Field(serialization_alias="timestamp")
    symbol: str = "abc"

    @pydantic.field_serializer("symbol")
    def _upper(self, value: str) -> str:
        return value.upper()


@dataclasses.dataclass
class Window:
    label: str
    ticks: list[Tick]
    first: Tick | None = None


class Span(NamedTuple):
    start: Tick
    end: Tick


class Quote(pydantic.BaseModel):
    tick: Tick


TICK = Tick(at=5)
CASES: list[tuple[str, Any, Any]] = [
    ("list", [TICK, Tick(at=6, symbol="x")], list[Tick]),
    ("dict", {"best": TICK}, dict[str, Tick]),
    ("tuple", (TICK, 1), tuple[Tick, int]),
    ("namedtuple", Span(TICK, Tick(at=9)), Span),
    ("dataclass", Window("w", [TICK], first=TICK), Window),
    ("deep", {"a": [{"b": (TICK,)}]}, dict[str, list[dict[str, tuple[Tick, ...]]]]),
    ("model", Quote(tick=TICK), Quote),
    ("top", TICK, Tick),
]


@pytest.mark.parametrize(("value", "annotation"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_nested_pydantic_dataclass_reads_as_pydantic_writes_it(
    value: Any, annotation: Any
) -> None:
    """Aliases and field serializers apply at any depth, as pydantic's TypeAdapter dumps."""
    expected = pydantic.TypeAdapter(annotation).dump_python(value, mode="json", by_alias=True)
    assert json.loads(toolcall.encode_result(value)) == expected
    assert "timestamp" in toolcall.encode_result(value)


class Board(msgspec.Struct, frozen=True, rename="camel", omit_defaults=True):
    best_tick: Tick
    note: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.best_tick, Tick):
            raise TypeError("a Board's best tick is a Tick")


def _a_tick(instance: object, attribute: object, value: object) -> None:
    if not isinstance(value, Tick):
        raise TypeError("a Feed's last is a Tick")


@attrs.frozen
class Feed:
    last: Tick = attrs.field(validator=_a_tick)
    _cursor: int = 0


def test_structs_and_attrs_holding_one_keep_their_own_encoding() -> None:
    """A Struct's renames and omitted defaults and an attrs class's private fields stay as
    msgspec writes them; the pydantic dataclass in a field is pydantic's; the value returned
    is untouched (no __post_init__ or validator sees the dump)."""
    board, feed = Board(TICK), Feed(TICK, 3)
    assert json.loads(toolcall.encode_result([board, feed])) == [
        {"bestTick": {"timestamp": 5, "symbol": "ABC"}},
        {"last": {"timestamp": 5, "symbol": "ABC"}},
    ]
    assert (board.best_tick, feed.last) == (TICK, TICK)


def test_values_without_a_pydantic_dataclass_are_untouched() -> None:
    """Other values are msgspec's own output, the very containers left as they are."""
    plain = {"a": [1, 2.5, None], "b": ("x", {"c": True})}
    assert toolcall.encode_result(plain) == '{"a":[1,2.5,null],"b":["x",{"c":true}]}'


def test_a_tool_returning_them_sends_them_so(make_module: Any) -> None:
    """Through run and a provider's tool message, the nested ticks keep their alias."""
    module = make_module(
        """
        __toolcall__ = True
        import pydantic


        @pydantic.dataclasses.dataclass
        class Tick:
            at: int = pydantic.Field(serialization_alias="timestamp")


        def ticks() -> list[Tick]:
            '''The last ticks.'''
            return [Tick(at=1), Tick(at=2)]
        """
    )
    result = toolcall.run(module, "ticks", {})
    assert json.loads(toolcall.encode_result(result.value)) == [  # type: ignore[union-attr]
        {"timestamp": 1},
        {"timestamp": 2},
    ]
