"""The generated path finds an enum or Literal member by one lookup by type and value (issue 23).

The lookup is the coercer's own first step, on the coercer's own table; every value it does not
find (an integral float for an integer value, a subclass, something unhashable) leaves the
generated path, and the general path answers as before.
"""

from __future__ import annotations

from typing import Any

import pytest

from fakes import FakeResolver
from toolcall import ir
from toolcall._dispatch.fastpath import MISS, build_fastpath
from toolcall._dispatch.plan import build_plan
from toolcall._dispatch.result import Ok
from zoo import Color, Level


class Text(str):
    pass


TOOL = ir.Tool(
    name="paint",
    parameters=(
        ir.Parameter(
            name="colour",
            type=ir.Type(kind="enum", py="enum", ref="m:Color", values=("red", "green")),
        ),
        ir.Parameter(
            name="pick",
            type=ir.Type(kind="enum", py="literal", values=(1, "a", True, None, 2.5)),
        ),
        ir.Parameter(
            name="levels",
            type=ir.Type(
                kind="array",
                py="list",
                items=ir.Type(kind="enum", py="enum", ref="m:Level", values=(1, 2)),
            ),
            required=False,
        ),
        ir.Parameter(
            name="maybe",
            type=ir.Type(kind="enum", py="literal", values=("x",), nullable=True),
            required=False,
        ),
    ),
)
RESOLVER = FakeResolver({"m:Color": Color, "m:Level": Level})


def paint(colour: Any, pick: Any, levels: Any = None, maybe: Any = "x") -> tuple[Any, ...]:
    return colour, pick, levels, maybe


def paths() -> tuple[Any, Any]:
    fast = build_fastpath(TOOL, paint, is_async=False, resolver=RESOLVER)
    assert fast is not None
    return fast, build_plan(TOOL, paint, RESOLVER, fast=False).run


def typed(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return type(value), [typed(item) for item in value]
    return type(value), value


@pytest.mark.parametrize(
    "args",
    [
        {"colour": "red", "pick": 1},
        {"colour": "green", "pick": "a", "levels": [2, 1], "maybe": None},
        {"colour": "green", "pick": True, "maybe": "x"},
        {"colour": "red", "pick": None, "levels": []},
        {"colour": "red", "pick": 2.5},
    ],
    ids=repr,
)
def test_exact_values_are_served_by_the_generated_path(args: dict[str, Any]) -> None:
    """Members, literal values and nulls come out as the general path restores them."""
    fast, general = paths()
    result = fast(args)
    assert type(result) is Ok
    assert typed(result.value) == typed(general(args).value)


def test_members_are_the_enum_members() -> None:
    """The generated path hands the function the enum members themselves."""
    fast, _ = paths()
    assert fast({"colour": "green", "pick": 1, "levels": [2]}) == Ok(
        (Color.GREEN, 1, [Level.HIGH], "x")
    )


@pytest.mark.parametrize(
    "change",
    [
        {"pick": 1.0},  # the coercer reads an integral float as the integer value
        {"pick": False},  # True is a value; 1 == True, but a boolean is no integer here
        {"pick": 0},
        {"colour": Text("red")},
        {"colour": Color.RED},
        {"colour": ["red"]},
        {"levels": [1.0]},
        {"levels": [True]},
        {"maybe": "y"},
    ],
    ids=repr,
)
def test_every_other_value_leaves_it_to_the_general_path(change: dict[str, Any]) -> None:
    """Whatever one exact lookup does not find is a deviation, never a guess."""
    fast, _ = paths()
    assert fast({"colour": "red", "pick": "a", **change}) is MISS


def test_values_the_general_path_accepts_beyond_the_lookup_still_run() -> None:
    """Through the plan, an integral float for an integer value is still accepted."""
    run = build_plan(TOOL, paint, RESOLVER).run
    assert run({"colour": "red", "pick": 1.0, "levels": [2.0]}) == Ok(
        (Color.RED, 1, [Level.HIGH], "x")
    )
    error = run({"colour": "red", "pick": False})
    assert not isinstance(error, Ok)
    assert error.error.reason == "not_in_enum"


def test_the_generated_code_looks_the_value_up_rather_than_calling_a_coercer() -> None:
    """No closure per enum value on the happy path: a subscript of the coercer's table."""
    fast, _ = paths()
    free = dict(
        zip(
            fast.__code__.co_freevars,
            (cell.cell_contents for cell in fast.__closure__ or ()),
            strict=True,
        )
    )
    constants = [value for name, value in free.items() if name.startswith("_k")]
    assert {(str, "red"): Color.RED, (str, "green"): Color.GREEN} in constants
    assert {(int, 1): Level.LOW, (int, 2): Level.HIGH} in constants
    assert not any(callable(value) for value in constants)


def test_an_enum_pydantic_validates_keeps_its_coercer() -> None:
    """A pydantic type with enum values is pydantic's to validate: no table lookup for it."""
    tool = ir.Tool(
        name="f",
        parameters=(
            ir.Parameter(
                name="x", type=ir.Type(kind="enum", py="pydantic", ref="m:Strict", values=("a",))
            ),
        ),
    )
    fast = build_fastpath(tool, paint, is_async=False, resolver=RESOLVER)
    assert fast is not None
    constants = [
        cell.cell_contents
        for name, cell in zip(fast.__code__.co_freevars, fast.__closure__ or (), strict=True)
        if name.startswith("_k")
    ]
    assert len(constants) == 1
    assert callable(constants[0])
