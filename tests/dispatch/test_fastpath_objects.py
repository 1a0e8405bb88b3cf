"""The generated path of a tool taking nested objects gives exactly the general path's result
or steps aside; plans and variants prepared on first use behave as if prepared at import.

Nested here means dataclasses, TypedDicts, enums and constrained values inside lists and
objects; the last tests pin the lazy plans and variants and the module index they live in.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolcall
from budget import examples
from fakes import near_stack_limit
from toolcall import ir
from toolcall._derive.module import derive_function
from toolcall._dispatch.fastpath import MISS, build_fastpath
from toolcall._dispatch.plan import build_plan
from toolcall._dispatch.result import Ok
from toolcall._load import registry
from toolcall._load import warm as loading

NESTED = '''
import dataclasses
from datetime import date
from enum import Enum
from typing import Annotated, Literal, NotRequired

from annotated_types import Ge, Le, MaxLen, MinLen
from typing_extensions import TypedDict

__toolcall__ = True


class Colour(Enum):
    RED = "red"
    BLUE = "blue"


class Line(TypedDict):
    sku: Annotated[str, MinLen(1), MaxLen(8)]
    qty: Annotated[int, Ge(1), Le(99)]
    note: NotRequired[str | None]
    wrap: NotRequired[bool]


@dataclasses.dataclass
class Address:
    street: str
    city: str
    country: str = "NO"


def order(
    items: Annotated[list[Line], MinLen(1)],
    ship_to: Address,
    weight: Annotated[float, Ge(0)] = 1.0,
    tags: set[str] | None = None,
    grid: list[list[int]] | None = None,
    pair: tuple[int, ...] = (),
    colour: Colour = Colour.RED,
    when: date | None = None,
    mode: Literal["fast", "slow"] = "fast",
    extra: dict | None = None,
) -> dict:
    """Everything nested at once."""
    return dict(items=items, ship_to=ship_to, weight=weight, tags=tags, grid=grid, pair=pair,
                colour=colour, when=when, mode=mode, extra=extra)
'''

VALID = {
    "items": [{"sku": "A-1", "qty": 2}, {"sku": "B", "qty": 1, "note": None, "wrap": True}],
    "ship_to": {"street": "Storgata 1", "city": "Oslo"},
    "weight": 2,
    "tags": ["x", "y"],
    "grid": [[1, 2], []],
    "pair": [1, 2, 3],
    "colour": "blue",
    "when": "2026-05-01",
    "mode": "slow",
    "extra": {"k": [1]},
}


def typed(value: Any) -> Any:
    """The value with the type of every leaf beside it, so that 1 == 1.0 no longer holds."""
    if isinstance(value, dict):
        return {key: typed(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return type(value), [typed(item) for item in items]
    if dataclasses_fields(value):
        return type(value), typed(vars(value))
    return type(value), value


def dataclasses_fields(value: Any) -> bool:
    return hasattr(type(value), "__dataclass_fields__")


@pytest.fixture
def nested(make_module: Callable[..., types.ModuleType]) -> tuple[ir.Tool, Any, Any]:
    module = make_module(NESTED)
    tool, derived = derive_function(module.order)
    # the classes derivation met: a resolver never imports what an IR names
    return tool, module.order, loading.LiveObjects(derived.classes, {})


def paths(nested: tuple[ir.Tool, Any, Any]) -> tuple[Any, Any]:
    tool, fn, resolver = nested
    fast = build_fastpath(tool, fn, is_async=False, resolver=resolver)
    assert fast is not None
    return fast, build_plan(tool, fn, resolver, fast=False).run


def test_valid_nested_call_is_served_by_the_generated_path(nested: Any) -> None:
    """A valid call with lists of TypedDicts, a dataclass, sets and dates never falls back."""
    fast, general = paths(nested)
    result = fast(VALID)
    assert type(result) is Ok
    assert typed(result.value) == typed(general(VALID).value)
    assert result.value["ship_to"] == nested[1].__globals__["Address"]("Storgata 1", "Oslo")
    assert result.value["tags"] == {"x", "y"}
    assert result.value["pair"] == (1, 2, 3)
    assert result.value["weight"] == 2.0


@pytest.mark.parametrize(
    "change",
    [
        {"items": []},
        {"items": [{"sku": "", "qty": 1}]},
        {"items": [{"sku": "A", "qty": 100}]},
        {"items": [{"sku": "A", "qty": 1, "other": 1}]},
        {"items": [{"qty": 1}]},
        {"items": ({"sku": "A", "qty": 1},)},
        {"items": '[{"sku": "A", "qty": 1}]'},
        {"ship_to": {"street": "s"}},
        {"ship_to": {"street": "s", "city": "c", "country": 1}},
        {"weight": -1},
        {"weight": 10**400},
        {"tags": [["unhashable"]]},
        {"grid": [[1, "2"]]},
        {"colour": "green"},
        {"when": "2026-13-01"},
        {"mode": "FAST"},
        {"tags": None, "when": 20260501},
        {"zz": 1},
    ],
    ids=repr,
)
def test_every_deviation_steps_aside_for_the_general_path(nested: Any, change: Any) -> None:
    """A call the generated path cannot serve as it is returns MISS, never a wrong answer."""
    fast, _ = paths(nested)
    assert fast({**VALID, **change}) is MISS


leaf = st.none() | st.booleans() | st.integers(-5, 200) | st.floats() | st.text(max_size=3)
json_values = st.recursive(
    leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def near_valid(draw: st.DrawFn) -> dict[str, Any]:
    """The valid call with one value somewhere inside it replaced."""
    args: Any = msgspec.json.decode(msgspec.json.encode(VALID))
    slots = []

    def walk(container: Any) -> None:
        keys = container if isinstance(container, dict) else range(len(container))
        for key in keys:
            slots.append((container, key))
            if isinstance(container[key], dict | list):
                walk(container[key])

    walk(args)
    container, key = draw(st.sampled_from(slots))
    container[key] = draw(json_values | st.sampled_from(["2026-01-02", "red", "blue", 5.0, 1]))
    return args  # type: ignore[no-any-return]


@settings(
    max_examples=examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(near_valid())
def test_generated_and_general_paths_agree(nested: Any, args: dict[str, Any]) -> None:
    """On any disturbed call the generated path falls back or gives exactly the general result."""
    fast, general = paths(nested)
    result = fast(args)
    if result is not MISS:
        expected = general(args)
        assert isinstance(expected, Ok), expected
        assert typed(result.value) == typed(expected.value)


def test_a_key_whose_comparison_raises_is_a_deviation(nested: Any) -> None:
    """A hostile key is the general path's business: the generated one returns MISS."""

    class Colliding:
        armed = False

        def __hash__(self) -> int:
            return hash("items")

        def __eq__(self, other: object) -> bool:
            if self.armed:
                raise RuntimeError("boom")
            return False

    fast, general = paths(nested)
    colliding = Colliding()
    args: dict[Any, Any] = {colliding: 1}
    args.update(VALID)
    colliding.armed = True
    assert fast(args) is MISS
    assert general(args).error.kind in ("invalid_arguments", "non_string_arguments")


def test_type_providers_get_no_generated_path() -> None:
    """A provider's coerce is user code: such a tool always takes the general path."""
    tool = ir.Tool(
        name="f",
        parameters=(ir.Parameter(name="m", type=ir.Type(kind="string", provider="x:P")),),
    )
    assert build_fastpath(tool, print, is_async=False, resolver=loading.LiveObjects({}, {})) is None


def test_deeply_nested_containers_still_compile() -> None:
    """Past the inlining depth the coercer takes over (Python compiles 20 nested blocks at most)."""
    t = ir.Type(kind="integer")
    value: Any = 7
    for _ in range(40):
        t = ir.Type(kind="array", py="list", items=t)
        value = [value]
    tool = ir.Tool(name="deep", parameters=(ir.Parameter(name="x", type=t),))

    def deep(x: Any) -> Any:
        return x

    fast = build_fastpath(tool, deep, is_async=False, resolver=loading.LiveObjects({}, {}))
    assert fast is not None
    assert fast({"x": value}) == Ok(value)
    assert fast({"x": [[["7"]]]}) is MISS


def test_arguments_go_by_position_only_where_the_code_binds_the_same_names() -> None:
    """A signature that does not match the code (or a *args wrapper) is called by keyword."""

    def f(a: int, b: int) -> tuple[int, int]:
        return a, b

    swapped = inspect.Signature(
        [
            inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=int)
            for n in ("b", "a")
        ]
    )
    f.__signature__ = swapped  # type: ignore[attr-defined]
    tool = ir.Tool(
        name="f",
        parameters=(
            ir.Parameter(name="b", type=ir.Type(kind="integer")),
            ir.Parameter(name="a", type=ir.Type(kind="integer")),
        ),
    )
    fast = build_fastpath(tool, f, is_async=False)
    assert fast is not None
    assert fast({"a": 1, "b": 2}) == Ok((1, 2))

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return args, kwargs

    fast = build_fastpath(tool, wrapper, is_async=False)
    assert fast is not None
    assert fast({"a": 1, "b": 2}) == Ok(((), {"b": 2, "a": 1}))


def test_first_call_on_a_nearly_full_stack_still_prepares_the_plan() -> None:
    """Preparing recurses with the type; on a nearly full stack it runs on a fresh one."""
    t = ir.Type(kind="integer")
    for _ in range(60):
        t = ir.Type(kind="array", py="list", items=t)
    tool = ir.Tool(name="deep", parameters=(ir.Parameter(name="x", type=t),))
    run = build_plan(tool, lambda x: "ran", loading.LiveObjects({}, {})).run

    assert near_stack_limit(lambda: run({"x": []})) == Ok("ran")
    assert run({"x": []}) == Ok("ran")


def test_emit_takes_strict_by_position_and_refuses_what_it_refused(
    make_module: Callable[..., types.ModuleType],
) -> None:
    """strict may be positional; a non-bool strict still means what it meant before."""
    module = make_module("__toolcall__ = True\ndef f(x: int) -> int:\n    return x\n")
    strict = toolcall.emit(module, "openai", strict=True)
    assert toolcall.emit(module, "openai", True) is strict
    assert toolcall.emit(module, "openai", 1) is strict
    assert toolcall.emit(module.__name__, "openai", True) is strict
    assert toolcall.emit(module, "openai") is toolcall.emit(module, "openai", False)
    assert toolcall.emit(module, "openai") is not strict
    with pytest.raises(ValueError, match="strict must be True or False"):
        toolcall.emit(module, "openai", strict="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown format"):
        toolcall.emit(module, "describe")
    with pytest.raises(TypeError, match="expected a module"):
        toolcall.emit([module], "openai")  # type: ignore[arg-type]


def test_a_replaced_module_object_leaves_the_index(
    make_module: Callable[..., types.ModuleType],
) -> None:
    """The index holds the current module object only; an old one is looked up the long way."""
    module = make_module("__toolcall__ = True\ndef f(x: int) -> int:\n    return x\n")
    toolcall.tool_names(module)
    spec = importlib.util.spec_from_file_location(module.__name__, module.__file__)
    assert spec is not None
    assert spec.loader is not None
    again = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(again)
    assert toolcall.run(again, "f", {"x": 1}) == Ok(1)
    assert module not in registry.index
    assert registry.index[module.__name__] is registry.index[again]
    assert toolcall.run(module, "f", {"x": 2}) == Ok(2)
    assert toolcall.run(module, "nope", {}).error.kind == "unknown_tool"  # type: ignore[union-attr]


def test_a_warm_load_decodes_and_freezes_each_variant_when_first_asked(
    make_module: Callable[..., types.ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the cache the schemas stay msgpack until a variant is used, then every variant
    equals a fresh render."""
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(tmp_path / "cache"))
    module = make_module(NESTED)
    cold = loading.process(module)
    warm = loading.process(module)
    assert not warm.variants.loaded
    assert warm.plain == {}
    for fmt in ("openai", "anthropic", "mcp"):
        for strict in (False, True):
            assert toolcall.emit(module, fmt, strict) == cold.variants[fmt, strict]
    assert toolcall.describe(module) == cold.describe
    with pytest.raises(TypeError, match="read-only"):
        toolcall.emit(module, "mcp")[0]["name"] = "x"
    assert asyncio.run(toolcall.arun(module, "order", VALID)).value["mode"] == "slow"  # type: ignore[union-attr]
