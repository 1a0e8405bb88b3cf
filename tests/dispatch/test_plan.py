"""Dispatch plans: SPEC section 5's runtime table, every error kind, calling, the fast path."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import sys
import threading
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from fakes import FakeResolver, near_stack_limit
from toolcall import ir
from toolcall._dispatch.fastpath import MISS, build_fastpath
from toolcall._dispatch.plan import ToolPlan, build_plan
from toolcall._dispatch.result import Err, Ok, ToolError

T = ir.Type
P = ir.Parameter


def plan(tool: ir.Tool, fn: Any, *, fast: bool = True, resolver: Any = None) -> ToolPlan:
    return build_plan(tool, fn, resolver or FakeResolver(), fast=fast)


def error(result: Ok[Any] | Err) -> ToolError:
    assert isinstance(result, Err), result
    return result.error


def spy(*args: Any, **kwargs: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Shows exactly how the plan called the function."""
    return args, kwargs


both_paths = pytest.mark.parametrize("fast", [True, False], ids=["fast", "general"])


# -- SPEC 5's runtime table, on the weather tool of SPEC 1 ---------------------------------------


def get_weather(city: str, days: int = 3) -> dict[str, Any]:
    """Get the forecast for a city."""
    return {"city": city, "days": days, "temp": 21.5}


def get_weather_nullable(city: str, days: int | None = 3) -> dict[str, Any]:
    return {"city": city, "days": days, "temp": 21.5}


def weather_tool(days: ir.Type) -> ir.Tool:
    return ir.Tool(
        name="get_weather",
        description="Get the forecast for a city.",
        parameters=(
            P(name="city", type=T(kind="string"), description='city name, e.g. "Oslo"'),
            P(name="days", type=days, required=False, has_default=True, default=3),
        ),
        returns=T(kind="object", additional=T(kind="any")),
    )


WEATHER = weather_tool(T(kind="integer"))
WEATHER_NULLABLE = weather_tool(T(kind="integer", nullable=True))


@both_paths
def test_defaults_fill_in(fast: bool) -> None:
    """{"city": "Oslo"} -> Ok({"city": "Oslo", "days": 3, "temp": 21.5})."""
    result = plan(WEATHER, get_weather, fast=fast).run({"city": "Oslo"})
    assert result == Ok({"city": "Oslo", "days": 3, "temp": 21.5})


@both_paths
@pytest.mark.parametrize("args", [{}, {"days": 5}])
def test_missing_argument(fast: bool, args: dict[str, Any]) -> None:
    """{} or {"days": 5} -> missing_argument, argument="city"."""
    err = error(plan(WEATHER, get_weather, fast=fast).run(args))
    assert (err.kind, err.argument) == ("missing_argument", "city")
    assert str(err) == "city: required argument missing"


@both_paths
def test_invalid_argument(fast: bool) -> None:
    """{"city": "Oslo", "days": 1.5} -> invalid_argument at ("days",), expected_integer, 1.5."""
    err = error(plan(WEATHER, get_weather, fast=fast).run({"city": "Oslo", "days": 1.5}))
    assert (err.kind, err.argument, err.path, err.reason, err.value) == (
        "invalid_argument",
        "days",
        ("days",),
        "expected_integer",
        1.5,
    )
    assert str(err) == "days: expected an integer, got 1.5"


@both_paths
def test_explicit_null_for_a_nullable_parameter_is_none(fast: bool) -> None:
    """days: int | None = 3 with None -> Ok, days is None."""
    result = plan(WEATHER_NULLABLE, get_weather_nullable, fast=fast).run(
        {"city": "Oslo", "days": None}
    )
    assert result == Ok({"city": "Oslo", "days": None, "temp": 21.5})


@both_paths
def test_explicit_null_for_a_plain_optional_is_absent(fast: bool) -> None:
    """days: int = 3 with None -> Ok, days is 3 (the default applies)."""
    result = plan(WEATHER, get_weather, fast=fast).run({"city": "Oslo", "days": None})
    assert result == Ok({"city": "Oslo", "days": 3, "temp": 21.5})


@both_paths
@pytest.mark.parametrize("args", [[1, 2], "city=Oslo", None, 5, ("city", "Oslo")])
def test_invalid_arguments(fast: bool, args: Any) -> None:
    """Arguments that are not a mapping -> invalid_arguments with the value."""
    err = error(plan(WEATHER, get_weather, fast=fast).run(args))
    assert (err.kind, err.value) == ("invalid_arguments", args)


@both_paths
def test_unknown_arguments(fast: bool) -> None:
    """{"city": "Oslo", "c": 1} -> unknown_arguments, names=("c",); several are sorted."""
    run = plan(WEATHER, get_weather, fast=fast).run
    assert (
        error(run({"city": "Oslo", "c": 1})).kind,
        error(run({"city": "Oslo", "c": 1})).names,
    ) == (
        "unknown_arguments",
        ("c",),
    )
    assert error(run({"zeta": 1, "city": "Oslo", "alpha": 2})).names == ("alpha", "zeta")


@both_paths
def test_argument_gap(fast: bool) -> None:
    """{"b": 2} on def f(a=1, b=2, /) -> argument_gap, argument="a", names=("b",)."""

    def f(a: int = 1, b: int = 2, /) -> tuple[int, int]:
        return a, b

    tool = ir.Tool(
        name="f",
        parameters=(
            P(name="a", type=T(kind="integer"), required=False, positional_only=True),
            P(name="b", type=T(kind="integer"), required=False, positional_only=True),
        ),
    )
    err = error(plan(tool, f, fast=fast).run({"b": 2}))
    assert (err.kind, err.argument, err.names) == ("argument_gap", "a", ("b",))
    assert plan(tool, f, fast=fast).run({"a": 5}) == Ok((5, 2))
    assert plan(tool, f, fast=fast).run({"a": 5, "b": 6}) == Ok((5, 6))


@both_paths
def test_raised(fast: bool, caplog: pytest.LogCaptureFixture) -> None:
    """ValueError("boom") -> raised, reason="ValueError", value="boom", logged with traceback."""

    def boom(city: str) -> None:
        raise ValueError("boom")

    tool = ir.Tool(name="boom", parameters=(P(name="city", type=T(kind="string")),))
    with caplog.at_level(logging.ERROR, logger="toolcall"):
        err = error(plan(tool, boom, fast=fast).run({"city": "Oslo"}))
    assert (err.kind, err.reason, err.value) == ("raised", "ValueError", "boom")
    [record] = caplog.records
    assert (record.name, record.levelno) == ("toolcall", logging.ERROR)
    assert record.exc_info is not None
    assert record.exc_info[0] is ValueError
    assert "boom" in record.getMessage()


# -- the other error kinds and the order of the checks -------------------------------------------


@both_paths
def test_non_string_arguments(fast: bool) -> None:
    """Keys that are not str -> non_string_arguments naming them in order."""
    err = error(plan(WEATHER, get_weather, fast=fast).run({2: "x", "city": "Oslo", None: 1}))
    assert (err.kind, err.names) == ("non_string_arguments", (2, None))


@both_paths
@pytest.mark.parametrize(
    ("args", "kind", "argument"),
    [
        ({1: 1, "zz": 1}, "non_string_arguments", None),  # before unknown keys
        ({"zz": 1}, "unknown_arguments", None),  # before the missing city
        ({"zz": 1, "days": "x"}, "unknown_arguments", None),  # before a bad value
        ({"days": "x"}, "missing_argument", "city"),  # city is declared first
        ({"city": 5, "days": "x"}, "invalid_argument", "city"),
        ({"city": "Oslo", "days": "x"}, "invalid_argument", "days"),
    ],
)
def test_check_order(fast: bool, args: dict[Any, Any], kind: str, argument: str | None) -> None:
    """Not a mapping, non-string keys, unknown keys, then parameters in declaration order."""
    err = error(plan(WEATHER, get_weather, fast=fast).run(args))
    assert (err.kind, err.argument) == (kind, argument)


def test_invalid_argument_deep_inside() -> None:
    """A nested failure reports the whole path, starting with the argument name."""
    line = T(kind="object", fields=(ir.Field(name="qty", type=T(kind="integer")),))
    tool = ir.Tool(name="order", parameters=(P(name="items", type=T(kind="array", items=line)),))
    args = {"items": [{"qty": 1}, {"qty": 2}, {"qty": "3"}]}
    err = error(plan(tool, spy).run(args))
    assert (err.kind, err.argument, err.path, err.reason, err.value) == (
        "invalid_argument",
        "items",
        ("items", 2, "qty"),
        "expected_integer",
        "3",
    )
    err = error(plan(tool, spy).run({"items": [{}]}))
    assert (err.path, err.reason, err.value) == (("items", 0, "qty"), "missing_field", None)
    err = error(plan(tool, spy).run({"items": [{"qty": 1, "sku": "a"}]}))
    assert (err.path, err.reason, err.value) == (("items", 0, "sku"), "unknown_field", "a")


@both_paths
def test_argument_gap_names_every_later_argument(fast: bool) -> None:
    """The gap names the first omitted positional-only optional and all later given ones."""
    tool = ir.Tool(
        name="f",
        parameters=tuple(
            P(name=name, type=T(kind="integer"), required=False, positional_only=True)
            for name in "abc"
        ),
    )
    run = plan(tool, spy, fast=fast).run
    err = error(run({"b": 1, "c": 2}))
    assert (err.kind, err.argument, err.names) == ("argument_gap", "a", ("b", "c"))
    assert (error(run({"a": 1, "c": 2})).argument, error(run({"a": 1, "c": 2})).names) == (
        "b",
        ("c",),
    )
    # an explicit null on a non-nullable optional is an omission, so it opens a gap too
    assert error(run({"a": None, "b": 2})).kind == "argument_gap"
    assert run({"a": 1, "b": 2, "c": None}) == Ok(((1, 2), {}))


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "general"])
@pytest.mark.parametrize("constraint", [{}, {"minimum": 0}], ids=["plain", "constrained"])
def test_how_arguments_are_passed(fast: bool, constraint: dict[str, Any]) -> None:
    """Positional-only positionally, the rest by keyword, omitted optionals not passed at all."""
    integer = T(kind="integer", **constraint)
    tool = ir.Tool(
        name="f",
        parameters=(
            P(name="a", type=integer, positional_only=True),
            P(name="b", type=integer, required=False, positional_only=True, has_default=True),
            P(name="c", type=integer, required=False, has_default=True, default=99),
            P(name="d", type=integer, keyword_only=True),
            P(name="e", type=integer, required=False, keyword_only=True),
        ),
    )
    run = plan(tool, spy, fast=fast).run
    assert run({"a": 1, "d": 4}) == Ok(((1,), {"d": 4}))
    assert run({"d": 4, "a": 1, "b": 2, "c": 3, "e": 5}) == Ok(((1, 2), {"c": 3, "d": 4, "e": 5}))
    assert run({"a": 1, "c": 3, "d": 4}) == Ok(((1,), {"c": 3, "d": 4}))
    assert run({"a": 1.0, "d": 4, "e": None}) == Ok(((1,), {"d": 4}))


def test_a_keyword_parameter_after_an_omitted_positional_only_one_is_no_gap() -> None:
    """def f(a=1, /, b=2) with {"b": 5}: b goes by keyword, so a may be omitted."""

    def f(a: int = 1, /, b: int = 2) -> tuple[int, int]:
        return a, b

    tool = ir.Tool(
        name="f",
        parameters=(
            P(name="a", type=T(kind="integer"), required=False, positional_only=True),
            P(name="b", type=T(kind="integer"), required=False),
        ),
    )
    assert plan(tool, f).run({"b": 5}) == Ok((1, 5))


@both_paths
def test_many_optionals(fast: bool) -> None:
    """Every combination of many optional scalars reaches the function exactly as given."""
    names = [f"o{i}" for i in range(7)]
    tool = ir.Tool(
        name="f",
        parameters=(
            P(name="r", type=T(kind="number")),
            *(P(name=n, type=T(kind="integer"), required=False) for n in names),
        ),
    )
    run = plan(tool, spy, fast=fast).run
    for mask in range(2 ** len(names)):
        given = {n: i for i, n in enumerate(names) if mask >> i & 1}
        assert run({"r": 1, **given}) == Ok(((), {"r": 1.0, **given}))


def test_kwargs_opens_the_arguments() -> None:
    """With **kwargs: T, undeclared keys are coerced with T and passed as keywords."""
    tool = ir.Tool(
        name="f",
        parameters=(P(name="a", type=T(kind="integer")),),
        kwargs=T(kind="integer"),
    )
    run = plan(tool, spy).run
    assert run({"x": 2.0, "a": 1}) == Ok(((), {"a": 1, "x": 2}))
    err = error(run({"a": 1, "x": "2"}))
    assert (err.kind, err.argument, err.path, err.reason) == (
        "invalid_argument",
        "x",
        ("x",),
        "expected_integer",
    )
    # an extra key's None is a value like any other (there is no default to fall back on)
    assert error(run({"a": 1, "x": None})).reason == "expected_integer"
    assert error(run({"a": 1, 5: 1})).kind == "non_string_arguments"
    assert error(run({"x": 1})).kind == "missing_argument"


@both_paths
def test_exited(fast: bool) -> None:
    """SystemExit -> exited with the exit code as value."""

    def leave(code: Any) -> None:
        sys.exit(code)

    tool = ir.Tool(name="leave", parameters=(P(name="code", type=T(kind="any")),))
    run = plan(tool, leave, fast=fast).run
    err = error(run({"code": 3}))
    assert (err.kind, err.value) == ("exited", 3)
    assert error(run({"code": "bye"})).value == "bye"


@both_paths
def test_keyboard_interrupt_propagates(fast: bool) -> None:
    """KeyboardInterrupt is not a tool failure: it propagates out of run."""

    def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        plan(ir.Tool(name="i"), interrupted, fast=fast).run({})


def test_run_never_raises_when_the_stack_is_nearly_full() -> None:
    """Coercion that runs out of stack is too_deep, not a RecursionError out of run."""
    t = T(kind="integer")
    value: Any = 1
    for _ in range(60):
        t = T(kind="array", items=t)
        value = [value]
    tool = ir.Tool(name="deep", parameters=(P(name="x", type=t),))
    run = plan(tool, spy).run

    err = error(near_stack_limit(lambda: run({"x": value})))
    assert (err.kind, err.path, err.reason) == ("invalid_argument", ("x",), "too_deep")


# -- async ---------------------------------------------------------------------------------------


async def fetch(city: str, days: int = 3) -> dict[str, Any]:
    await asyncio.sleep(0)
    return {"city": city, "days": days}


FETCH_TOOL = ir.Tool(
    name="fetch",
    is_async=True,
    parameters=(
        P(name="city", type=T(kind="string")),
        P(name="days", type=T(kind="integer"), required=False),
    ),
)


@both_paths
def test_arun_awaits_async_tools(fast: bool) -> None:
    """arun awaits an async def tool; bad arguments fail before it is called."""
    p = plan(FETCH_TOOL, fetch, fast=fast)
    assert p.is_async
    assert asyncio.run(p.arun({"city": "Oslo"})) == Ok({"city": "Oslo", "days": 3})
    err = error(asyncio.run(p.arun({"city": "Oslo", "days": "x"})))
    assert (err.kind, err.path) == ("invalid_argument", ("days",))


@both_paths
def test_run_refuses_async_tools_without_calling_them(fast: bool) -> None:
    """run on an async tool -> async_tool; the function is not even called."""
    calls: list[Any] = []

    def make_coroutine(**kwargs: Any) -> Any:
        calls.append(kwargs)
        return fetch(**kwargs)

    err = error(plan(FETCH_TOOL, make_coroutine, fast=fast).run({"city": "Oslo"}))
    assert (err.kind, err.value) == ("async_tool", "fetch")
    assert calls == []


@both_paths
def test_arun_failures_of_async_tools(fast: bool, caplog: pytest.LogCaptureFixture) -> None:
    """An async tool raising is raised (and logged); SystemExit is exited."""

    async def broken(city: str) -> None:
        if city == "exit":
            raise SystemExit(2)
        raise LookupError(city)

    tool = ir.Tool(
        name="broken", is_async=True, parameters=(P(name="city", type=T(kind="string")),)
    )
    p = plan(tool, broken, fast=fast)
    with caplog.at_level(logging.ERROR, logger="toolcall"):
        err = error(asyncio.run(p.arun({"city": "Oslo"})))
    assert (err.kind, err.reason, err.value) == ("raised", "LookupError", "Oslo")
    assert caplog.records[0].exc_info is not None
    assert error(asyncio.run(p.arun({"city": "exit"}))).value == 2


@both_paths
def test_cancellation_propagates(fast: bool) -> None:
    """asyncio.CancelledError out of an async tool propagates out of arun."""

    async def cancelled(city: str) -> None:
        raise asyncio.CancelledError

    tool = ir.Tool(name="c", is_async=True, parameters=(P(name="city", type=T(kind="string")),))
    with pytest.raises(asyncio.CancelledError):
        asyncio.run(plan(tool, cancelled, fast=fast).arun({"city": "Oslo"}))


@both_paths
def test_arun_calls_plain_tools_inline(fast: bool) -> None:
    """arun runs a plain function on the event loop's own thread (no thread hop)."""
    threads: list[int] = []

    def where(city: str, days: int = 3) -> int:
        threads.append(threading.get_ident())
        return days

    p = plan(WEATHER, where, fast=fast)

    async def main() -> tuple[Ok[Any] | Err, int]:
        return await p.arun({"city": "Oslo", "days": 2}), threading.get_ident()

    result, loop_thread = asyncio.run(main())
    assert result == Ok(2)
    assert threads == [loop_thread]


# -- the fast path ---------------------------------------------------------------------------


def test_fast_path_is_built_only_for_plain_scalars() -> None:
    """Scalar tools get a generated function; constraints, py, kwargs or containers do not."""
    assert build_fastpath(WEATHER, get_weather, is_async=False) is not None
    assert build_fastpath(ir.Tool(name="none"), spy, is_async=False) is not None
    for t in (
        T(kind="integer", minimum=1),
        T(kind="string", py="date"),
        T(kind="string", wire="string_integer"),
        T(kind="string", provider="m:P"),
        T(kind="array", items=T(kind="integer")),
        T(kind="enum", values=("a",)),
    ):
        assert build_fastpath(weather_tool(t), get_weather, is_async=False) is None
    open_tool = msgspec.structs.replace(WEATHER, kwargs=T(kind="any"))
    assert build_fastpath(open_tool, get_weather, is_async=False) is None


def test_fast_path_serves_the_happy_path_itself() -> None:
    """A valid call never falls back; its Ok is an ordinary Ok."""
    fast = build_fastpath(WEATHER, get_weather, is_async=False)
    assert fast is not None
    for args, days in (({"city": "Oslo", "days": 5}, 5), ({"city": "Zürich"}, 3)):
        result = fast(args)
        assert type(result) is Ok
        assert result == Ok({"city": args["city"], "days": days, "temp": 21.5})
    assert fast({"city": "Oslo", "days": None}) == Ok({"city": "Oslo", "days": 3, "temp": 21.5})
    assert fast({"city": "\ud800"}) is MISS
    assert fast({"city": "Oslo", "days": 5.0}) is MISS


def test_async_fast_path_validates_and_awaits() -> None:
    """For an async tool the generated function is a coroutine function awaiting the tool."""
    fast = build_fastpath(FETCH_TOOL, fetch, is_async=True)
    assert fast is not None
    assert asyncio.run(fast({"city": "Oslo", "days": 1})) == Ok({"city": "Oslo", "days": 1})
    assert asyncio.run(fast({"city": 5})) is MISS


SCALARS = ir.Tool(
    name="scalars",
    parameters=(
        P(name="a", type=T(kind="number"), required=False, positional_only=True),
        P(name="b", type=T(kind="boolean", nullable=True), required=False, positional_only=True),
        P(name="s", type=T(kind="string")),
        P(name="n", type=T(kind="integer", nullable=True)),
        P(name="f", type=T(kind="number", nullable=True), required=False),
        P(name="x", type=T(kind="any"), required=False, keyword_only=True),
        P(name="i", type=T(kind="integer"), required=False, keyword_only=True),
        P(name="r", type=T(kind="any"), keyword_only=True),
    ),
)
NAMES = ["a", "b", "s", "n", "f", "x", "i", "r"]

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.just(10**400)
    | st.floats()
    | st.text(st.characters(codec=None, exclude_categories=()), max_size=4)
    | st.binary(max_size=4)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
finite = st.floats(allow_nan=False, allow_infinity=False)
# what each parameter accepts
fitting = {
    "a": finite | st.integers(),
    "b": st.booleans() | st.none(),
    "s": st.text(max_size=3),
    "n": st.integers() | st.none(),
    "f": finite | st.integers() | st.none(),
    "x": json_values,
    "i": st.integers() | st.none(),
    "r": json_values,
}


# the values where the fast and general paths could most easily part ways
EDGES = [math.nan, math.inf, -math.inf, 5.0, -0.0, 2**1100, True, False, "\ud800", "é", b"ab", None]


@st.composite
def near_fitting(draw: st.DrawFn) -> dict[Any, Any]:
    """Arguments the tool accepts, half of the time with one value or key disturbed."""
    args: dict[Any, Any] = draw(
        st.fixed_dictionaries(
            {name: fitting[name] for name in ("s", "n", "r")},
            optional={name: fitting[name] for name in ("a", "b", "f", "x", "i")},
        )
    )
    if draw(st.booleans()):
        args[draw(st.sampled_from([*NAMES, "zz", 0]))] = draw(st.sampled_from(EDGES) | scalars)
    return args


arguments = (
    near_fitting()
    | st.dictionaries(
        st.sampled_from([*NAMES, "zz"]) | st.integers(0, 2) | st.text(max_size=2),
        json_values,
        max_size=8,
    )
    | json_values
)


FITTING = {"a": 1, "b": True, "s": "x", "n": 2, "f": 0.5, "x": [1], "i": 3, "r": {"k": None}}


def typed(value: Any) -> Any:
    """The value with the type of every leaf beside it, so that 1 == 1.0 no longer holds."""
    if isinstance(value, dict):
        return {key: typed(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value), [typed(item) for item in value]
    return type(value), value


def assert_paths_agree(args: Any) -> None:
    """The fast path falls back, or its result is exactly the general one."""
    fast = build_fastpath(SCALARS, spy, is_async=False)
    assert fast is not None
    general = plan(SCALARS, spy, fast=False).run(args)
    result = fast(args)
    if result is not MISS:
        assert isinstance(result, Ok)
        assert isinstance(general, Ok)
        assert typed(result.value) == typed(general.value)


@settings(max_examples=examples(400), deadline=None)
@given(arguments)
def test_fast_and_general_paths_agree(args: Any) -> None:
    """On any arguments the fast path either falls back or gives exactly the general result."""
    assert_paths_agree(args)


@pytest.mark.parametrize("name", [*NAMES, "zz"])
@pytest.mark.parametrize("value", EDGES, ids=repr)
def test_fast_and_general_paths_agree_on_edges(name: str, value: Any) -> None:
    """Each edge value in each parameter of a valid call: the same result on both paths."""
    assert_paths_agree({**FITTING, name: value})


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("extra", [{}, {"zz": 1}, {1: 1}])
def test_fast_and_general_paths_agree_on_omissions(name: str, extra: dict[Any, Any]) -> None:
    """A valid call without one of its arguments, with or without a stray key instead."""
    args = {key: value for key, value in FITTING.items() if key != name}
    assert_paths_agree({**args, **extra})


ADDRESS = T(
    kind="object",
    py="dataclass",
    ref="m:Address",
    fields=(
        ir.Field(name="street", type=T(kind="string", min_length=1)),
        ir.Field(name="zip", type=T(kind="string", wire="string_integer"), required=False),
    ),
)


@dataclasses.dataclass(frozen=True)
class Address:
    street: str
    zip: int = 0


COMPLEX = ir.Tool(
    name="complex",
    parameters=(
        P(name="where", type=T(kind="union", variants=(ADDRESS, T(kind="string")))),
        P(name="tags", type=T(kind="array", py="set", items=ADDRESS), required=False),
        P(name="when", type=T(kind="string", py="datetime", nullable=True), required=False),
        P(name="mode", type=T(kind="enum", values=("a", 1)), required=False),
        P(name="extra", type=T(kind="object", additional=T(kind="any")), required=False),
        P(name="pair", type=T(kind="array", py="tuple", prefix_items=(T(kind="number"),) * 2)),
    ),
)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["where", "tags", "when", "mode", "extra", "pair", "zz"]),
        json_values,
    )
    | json_values
)
def test_arbitrary_json_never_raises(args: Any) -> None:
    """run returns Ok or Err for any JSON-shaped arguments, whatever the tool's types."""
    result = plan(COMPLEX, spy, resolver=FakeResolver({"m:Address": Address})).run(args)
    assert isinstance(result, Ok | Err)
    if isinstance(result, Err):
        assert result.error.to_dict()["kind"] == result.error.kind


def test_complex_tool_restores_every_level() -> None:
    """Records inside sets, unions and tuples arrive restored as declared."""
    run = plan(COMPLEX, spy, resolver=FakeResolver({"m:Address": Address})).run
    result = run(
        {
            "where": {"street": "Main", "zip": "0150"},
            "tags": [{"street": "A"}, {"street": "A", "zip": None}],
            "pair": [1, 2.5],
            "mode": 1.0,
        }
    )
    assert result == Ok(
        ((), {"where": Address("Main", 150), "tags": {Address("A")}, "mode": 1, "pair": (1.0, 2.5)})
    )
    err = error(run({"where": {"street": ""}, "pair": [1, 2]}))
    assert (err.path, err.reason) == (("where", "street"), "too_short")
