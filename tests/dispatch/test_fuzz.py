"""Fuzzing ``run``: arbitrary JSON and hostile Python values give Ok or Err, never raise or hang."""

from __future__ import annotations

import importlib
import json
import math
import sys
import types
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolcall
from budget import examples
from toolcall._dispatch.result import Err, Ok
from work import count_calls

SOURCE = """
import datetime
import decimal
import uuid
from typing import Annotated, Any, Literal

import annotated_types
import msgspec

import toolcall
from zoo import Color, Item, PlainLevel, Spot, Tag

__toolcall__ = True


def scalars(s: str, i: int, f: float, b: bool, maybe: int | None = None) -> None:
    return None


def anything(v: Any = None) -> None:
    return None


def nested(v: list[list[list[int]]]) -> None:
    return None


def shapes(
    p: Spot,
    lines: list[Item],
    t: tuple[int, str],
    s: set[Any],
    m: dict[str, int],
    tag: Tag | None = None,
) -> None:
    return None


def choices(c: Color, lv: PlainLevel, lit: Literal["a", 1, True], u: int | list[str]) -> None:
    return None


def special(
    d: datetime.datetime,
    u: uuid.UUID,
    dec: decimal.Decimal,
    blob: bytes,
    n: Annotated[int, toolcall.Param(wire="string_integer")],
) -> None:
    return None


def bounded(
    k: Annotated[int, annotated_types.Ge(0), annotated_types.Le(10)],
    x: Annotated[float, annotated_types.Gt(0)],
    w: Annotated[str, msgspec.Meta(pattern="^[a-z]+$", max_length=5)],
) -> None:
    return None


def kw(**rest: int) -> None:
    return None


def pos(a: int = 1, b: int = 2, /) -> None:
    return None
"""

# One valid argument set per tool: a hostile value replaces one argument at a time, so that
# every parameter (not only the first) gets to see it.
VALID: dict[str, dict[str, Any]] = {
    "scalars": {"s": "x", "i": 1, "f": 1.5, "b": True},
    "anything": {"v": 1},
    "nested": {"v": [[[1]]]},
    "shapes": {
        "p": {"x": 1.0},
        "lines": [{"sku": "a", "qty": 1}],
        "t": [1, "a"],
        "s": [1],
        "m": {"a": 1},
        "tag": {"name": "n"},
    },
    "choices": {"c": "red", "lv": 1, "lit": "a", "u": 1},
    "special": {
        "d": "2024-01-02T03:04:05Z",
        "u": "12345678-1234-5678-1234-567812345678",
        "dec": "1.5",
        "blob": "aGk=",
        "n": "5",
    },
    "bounded": {"k": 3, "x": 0.5, "w": "abc"},
    "kw": {"a": 1},
    "pos": {"a": 1, "b": 2},
}

KINDS = {
    "invalid_arguments",
    "non_string_arguments",
    "unknown_arguments",
    "missing_argument",
    "argument_gap",
    "invalid_argument",
}


@pytest.fixture(scope="module")
def mod(tmp_path_factory: pytest.TempPathFactory) -> Iterator[types.ModuleType]:
    """The fuzzed tool module, written once and imported for real."""
    root = tmp_path_factory.mktemp("fuzz")
    name = "tc_fuzz_tools"
    Path(root, f"{name}.py").write_text(SOURCE)
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", toolcall.ToolcallWarning)  # what strict cannot say
            module = importlib.import_module(name)
        yield module
    finally:
        sys.path.remove(str(root))
        sys.modules.pop(name, None)


def test_every_valid_argument_set_is_accepted(mod: types.ModuleType) -> None:
    """The baseline the hostile runs start from is accepted as it is."""
    assert toolcall.tool_names(mod) == tuple(VALID)
    for name, args in VALID.items():
        assert toolcall.run(mod, name, args) == Ok(None), name


def size(value: Any) -> int:
    """Items and characters reachable from ``value``, each container counted once (so a
    cycle or a shared DAG is as big as its distinct parts); other objects count as nothing."""
    seen: set[int] = set()
    containers: list[Any] = []  # kept alive so that no id is reused while walking
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in (str, bytes):
            total += len(item)
        elif kind in (list, tuple, set, frozenset, dict) and id(item) not in seen:
            seen.add(id(item))
            containers.append(item)
            total += len(item)
            if kind is dict:
                stack.extend(item.keys())
                stack.extend(item.values())
            else:
                stack.extend(item)
    return total


# Python calls ``run`` may make on small arguments (today's worst, a shared DAG, is ~4,500),
# and per item or character of the arguments (today ~1 for a valid million-item list).
BASE_CALLS, CALLS_PER_ITEM = 10_000, 4


def checked(mod: types.ModuleType, name: str, args: Any) -> Ok[Any] | Err:
    """run, which must do work linear in the size of its arguments (never walk a DAG as a
    tree, never loop), and whose error must be a JSON-encodable input error."""
    result, _ = count_calls(
        lambda: toolcall.run(mod, name, args),
        limit=lambda: BASE_CALLS + CALLS_PER_ITEM * size(args),
        after=BASE_CALLS,
    )
    assert isinstance(result, Ok | Err), result
    if isinstance(result, Err):
        assert result.error.kind in KINDS, result.error
        encoded = json.dumps(result.error.to_dict(), allow_nan=False)
        assert len(encoded) < 100_000
        assert isinstance(str(result.error), str)
    return result


# -- arbitrary JSON ------------------------------------------------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def tool_calls(draw: st.DrawFn) -> tuple[str, Any]:
    """A tool and arguments that are JSON: mostly its own argument names with any values."""
    name = draw(st.sampled_from(sorted(VALID)))
    names = sorted(VALID[name])
    keyed = st.fixed_dictionaries({}, optional=dict.fromkeys(names, JSON))
    args = draw(keyed | st.builds(lambda a, b: {**a, **b}, keyed, st.dictionaries(JSON_KEY, JSON)))
    return name, draw(st.just(args) | JSON)


JSON_KEY = st.text(max_size=6)


@settings(max_examples=examples(200), deadline=None)
@given(call=tool_calls())
def test_arbitrary_json_gives_ok_or_an_input_error(
    mod: types.ModuleType, call: tuple[str, Any]
) -> None:
    """Any JSON value as the arguments: Ok or one of the input errors, never an exception."""
    name, args = call
    checked(mod, name, args)


@settings(max_examples=examples(100), deadline=None)
@given(value=JSON)
def test_arbitrary_json_in_every_position(mod: types.ModuleType, value: Any) -> None:
    """Any JSON value in place of any one argument of any tool: Ok or an input error."""
    for name, args in VALID.items():
        for key in args:
            checked(mod, name, {**args, key: value})


# -- hostile Python values -----------------------------------------------------------------------


class Boom(Exception):
    """Raised by hostile objects: not one of the exception types anyone expects."""


def boom(*args: Any, **kwargs: Any) -> Any:
    raise Boom


class Hostile:
    """Every protocol method a validator might touch raises."""

    __eq__ = __hash__ = __repr__ = __str__ = __len__ = __iter__ = __bool__ = boom


class HostileStr(str):
    __eq__ = __hash__ = __repr__ = __str__ = __len__ = __iter__ = boom


class HostileInt(int):
    __eq__ = __hash__ = __repr__ = __str__ = __int__ = __index__ = __float__ = boom


class HostileFloat(float):
    __eq__ = __hash__ = __repr__ = __str__ = __int__ = __float__ = boom
    is_integer = boom


class HostileList(list[Any]):
    __eq__ = __hash__ = __repr__ = __str__ = __len__ = __iter__ = __getitem__ = boom


class HostileDict(dict[Any, Any]):
    """A dict whose every way of reading it raises."""

    __repr__ = __str__ = __len__ = __iter__ = __contains__ = __getitem__ = boom
    keys = items = values = get = boom


class HostileMapping(Mapping[Any, Any]):
    """A Mapping (not a dict) whose every method raises."""

    __getitem__ = __iter__ = __len__ = __contains__ = boom
    keys = items = values = get = boom


class Colliding:
    """A key hashing like an argument name whose __eq__, once armed, raises.

    Inserted before the name, it sits first on the name's probe sequence, so even
    ``args[name]`` on an exact dict runs this ``__eq__``. (Armed only after the dict is
    built, since building it compares them too.)
    """

    def __init__(self, name: str) -> None:
        self.hash = hash(name)
        self.armed = False

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        if self.armed:
            raise Boom
        return False

    __repr__ = boom


def deep_list(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def deep_dict(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def cyclic_list() -> list[Any]:
    value: list[Any] = [1]
    value.append(value)
    return value


def cyclic_dict() -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    value["self"] = value
    return value


def shared_dag() -> list[Any]:
    """A few KB in memory, 50**30 nodes as a tree: anything that walks it all never ends."""
    value: list[Any] = [0]
    for _ in range(30):
        value = [value] * 50
    return value


HOSTILE: dict[str, Callable[[], Any]] = {
    "deep list": lambda: deep_list(100_000),
    "deep dict": lambda: deep_dict(100_000),
    "deep JSON text": lambda: "[" * 100_000 + "]" * 100_000,
    "huge int": lambda: 10**5000,
    "huge negative int": lambda: -(10**5000),
    "huge string": lambda: "x" * 10_000_000,
    # a million items: the call count (is the work linear?) tells what five million would
    "huge JSON text": lambda: "[" + "1," * 1_000_000 + "1]",
    "huge digit string": lambda: "9" * 10_000_000,
    "huge list": lambda: [1] * 300_000,
    "nan": lambda: math.nan,
    "inf": lambda: math.inf,
    "-inf": lambda: -math.inf,
    "lone surrogate": lambda: "a\ud800b",
    "surrogate JSON text": lambda: '["\udc80"]',
    "surrogate bytes": lambda: b"\xed\xa0\x80",
    "cyclic list": cyclic_list,
    "cyclic dict": cyclic_dict,
    "shared DAG": shared_dag,
    "hostile object": Hostile,
    "hostile str": lambda: HostileStr("red"),
    "hostile int": lambda: HostileInt(1),
    "hostile float": lambda: HostileFloat(1.0),
    "hostile list": lambda: HostileList([1]),
    "hostile dict": lambda: HostileDict(a=1),
    "hostile mapping": HostileMapping,
    "list of hostiles": lambda: [Hostile(), Hostile()],
    "dict of hostiles": lambda: {"a": Hostile(), "qty": Hostile(), "x": Hostile()},
    "non-str keys": lambda: {1: 2, (1, 2): 3, None: 4, b"a": 5},
    "bytes": lambda: b"\x00\xff",
    "set": lambda: {1, 2},
    "frozenset of hostile-free tuples": lambda: frozenset({(1, 2)}),
    "type": lambda: int,
    "function": lambda: boom,
    "module": lambda: math,
}


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_hostile_values_in_every_position(mod: types.ModuleType, hostile: str) -> None:
    """A hostile value as any one argument of any tool: Ok or an input error, in time."""
    value = HOSTILE[hostile]()
    for name, args in VALID.items():
        for key in args:
            checked(mod, name, {**args, key: value})


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_hostile_values_as_the_arguments_and_inside_them(
    mod: types.ModuleType, hostile: str
) -> None:
    """A hostile value as the arguments object, as an extra argument, and nested in a value."""
    value = HOSTILE[hostile]()
    for name, args in VALID.items():
        checked(mod, name, value)
        checked(mod, name, {**args, "extra": value})
    checked(mod, "shapes", {**VALID["shapes"], "lines": [{"sku": "a", "qty": value}]})
    checked(mod, "shapes", {**VALID["shapes"], "m": {"a": value}})
    checked(mod, "shapes", {**VALID["shapes"], "s": [value]})
    checked(mod, "nested", {"v": [[value]]})


def test_deep_values_are_walked_only_as_deep_as_the_type(mod: types.ModuleType) -> None:
    """100,000 levels: Ok as Any, and the innermost declared level's error for list[list[...]]."""
    deep = deep_list(100_000)
    assert checked(mod, "anything", {"v": deep}) == Ok(None)
    error = checked(mod, "nested", {"v": deep})
    assert isinstance(error, Err)
    assert (error.error.path, error.error.reason) == (("v", 0, 0, 0), "expected_integer")


@pytest.mark.parametrize(
    ("name", "args", "reason"),
    [
        ("scalars", {**VALID["scalars"], "i": 10**5000}, None),
        ("scalars", {**VALID["scalars"], "f": 10**5000}, "not_finite"),
        ("scalars", {**VALID["scalars"], "f": math.nan}, "not_finite"),
        ("scalars", {**VALID["scalars"], "s": "a\ud800b"}, "invalid_utf8"),
        ("scalars", {**VALID["scalars"], "s": b"\xed\xa0\x80"}, "invalid_utf8"),
        ("special", {**VALID["special"], "n": "9" * 10_000}, "expected_integer_string"),
        ("special", {**VALID["special"], "n": 10**5000}, None),
        ("special", {**VALID["special"], "dec": 10**5000}, None),
        ("choices", {**VALID["choices"], "lv": HostileInt(1)}, "not_in_enum"),
        ("choices", {**VALID["choices"], "c": HostileStr("red")}, "not_in_enum"),
        ("shapes", {**VALID["shapes"], "s": [[1]]}, "unhashable_item"),
        ("shapes", {**VALID["shapes"], "s": [Hostile()]}, "unhashable_item"),
    ],
)
def test_hostile_scalars_get_their_own_reason(
    mod: types.ModuleType, name: str, args: dict[str, Any], reason: str | None
) -> None:
    """Huge numbers, NaN, surrogates and raising __hash__ are ordinary input errors (or valid)."""
    result = checked(mod, name, args)
    if reason is None:
        assert result == Ok(None)
    else:
        assert isinstance(result, Err)
        assert result.error.reason == reason


def test_hostile_keys(mod: types.ModuleType) -> None:
    """Non-str, bytes and colliding keys: non_string_arguments, or invalid_arguments."""
    for name, args in VALID.items():
        result = checked(mod, name, {**args, 1: 2, b"s": 3})
        assert isinstance(result, Err)
        assert result.error.kind == "non_string_arguments"
        assert result.error.names == (1, b"s")
        for key in args:
            colliding = Colliding(key)
            hostile: dict[Any, Any] = {colliding: 1}
            hostile.update(args)
            colliding.armed = True
            result = checked(mod, name, hostile)
            assert isinstance(result, Err)
            assert result.error.kind in ("invalid_arguments", "non_string_arguments")
