"""Every constraint error names its rule and what was sent (SPEC 5 "Errors name the rule";
issue 35.4): a model cannot fix "out of range" without the range.

Each message is pinned exactly, on the general path and the generated fast path (which hands
every deviation to the general path), and once end to end through a provider helper and an
MCP client: all of them go through ``run``.
"""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
import types
from collections.abc import Iterator
from typing import Any

import pytest

import toolcall
from toolcall import ir
from toolcall._derive.module import derive_module
from toolcall._dispatch.plan import build_plan
from toolcall._dispatch.result import MAX_MESSAGE, Err, ToolError
from toolcall._scalars import DECIMAL_PATTERN

SOURCE = """
import enum
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Annotated, Literal
from uuid import UUID

import annotated_types as at
import msgspec
from pydantic import AfterValidator, BaseModel, Field

import toolcall

__toolcall__ = True


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


class Book(BaseModel):
    year: int = Field(1965, le=2100)
    price: Decimal = Field(Decimal(1), gt=0, multiple_of=Decimal("0.01"))
    published: date = Field(date(2000, 1, 1), ge=date(1450, 1, 1))
    isbn: str = Field("0", max_length=13, pattern="^[0-9]+$")
    tags: list[str] = Field([], max_length=2)
    shelf: Literal["a", "b"] = "a"
    colours: list[Colour] = []


def numbers(
    n: Annotated[int, at.Ge(1), at.Le(10)] = 1,
    above: Annotated[int, at.Gt(0)] = 1,
    below: Annotated[int, at.Lt(100)] = 1,
    step: Annotated[int, at.MultipleOf(5)] = 5,
    ratio: Annotated[float, at.Gt(0.5), at.Le(2.5)] = 1.0,
    fine: Annotated[float, msgspec.Meta(multiple_of=0.25)] = 0.25,
) -> int:
    return n


def texts(
    code: Annotated[str, at.MaxLen(6)] = "a",
    name: Annotated[str, at.MinLen(2)] = "ab",
    one: Annotated[str, at.MinLen(1)] = "a",
    airport: Annotated[str, msgspec.Meta(pattern="^[A-Z]{3}$")] = "OSL",
) -> str:
    return code


def containers(
    few: Annotated[list[int], at.MaxLen(2)] = [],
    some: Annotated[list[int], at.MinLen(2)] = [1, 2],
    weeks: set[int] = set(),
    pair: tuple[int, int] = (1, 2),
) -> str:
    return ""


def choices(
    colour: Colour = Colour.RED,
    mode: Literal["fast", "slow"] = "fast",
    only: Literal["yes"] = "yes",
    many: Literal[tuple(range(40))] = 0,
    long: Literal[tuple("option-number-" + str(i) for i in range(12))] = "option-number-0",
) -> str:
    return ""


def formats(
    day: date = date(2000, 1, 1),
    at_: datetime = datetime(2000, 1, 1),
    clock: time = time(0),
    every: timedelta = timedelta(0),
    id: UUID = UUID(int=0),
    price: Decimal = Decimal(0),
    data: bytes = b"",
    user: Annotated[int, toolcall.Param(wire="string_integer")] = 0,
) -> str:
    return ""


EMAIL = (
    r"^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
    r"(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$"
)


class Contact(BaseModel):
    email: str = Field(pattern=EMAIL, description="the contact's e-mail address")


def mail(
    to: Annotated[str, msgspec.Meta(pattern=EMAIL, description="the recipient's e-mail address")],
    cc: Annotated[str, msgspec.Meta(pattern=EMAIL)] = "a@b.c",
    contact: Contact | None = None,
) -> str:
    return to


def shelve(book: Book) -> str:
    return ""


def checked(n: Annotated[int, Field(le=5), AfterValidator(lambda n: n)] = 0) -> int:
    return n
"""


@pytest.fixture(scope="module")
def bounds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[types.ModuleType]:
    folder = tmp_path_factory.mktemp("bounds")
    (folder / "tc_bounds.py").write_text(textwrap.dedent(SOURCE))
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("tc_bounds")
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop("tc_bounds", None)


def message(module: types.ModuleType, tool: str, args: dict[str, Any]) -> str:
    """The message ``run`` gives, checked to be what the general path alone gives too."""
    result = toolcall.run(module, tool, args)
    assert isinstance(result, Err), result
    error = result.error
    assert len(error.message) <= MAX_MESSAGE
    general = _general_plan(module, tool).run(args)
    assert general == result
    return error.message


def _general_plan(module: types.ModuleType, tool: str) -> Any:
    """The tool's plan without its generated fast path."""
    derived = derive_module(module)
    (found,) = [t for t in derived.ir.tools if t.name == tool]
    return build_plan(found, derived.functions[tool], _Classes(derived.classes), fast=False)


class _Classes:
    def __init__(self, classes: dict[str, Any]) -> None:
        self.classes = classes

    def cls(self, ref: str) -> type:
        try:
            found: type = self.classes[ref]
        except KeyError:
            raise LookupError(ref) from None
        return found

    def provider(self, ref: str) -> Any:
        raise LookupError(ref)


@pytest.mark.parametrize(
    ("args", "expected", "reason"),
    [
        ({"n": 11}, "n: expected at most 10, got 11", "out_of_range"),
        ({"n": 0}, "n: expected at least 1, got 0", "out_of_range"),
        ({"above": 0}, "above: expected more than 0, got 0", "out_of_range"),
        ({"below": 100}, "below: expected less than 100, got 100", "out_of_range"),
        ({"step": 12}, "step: expected a multiple of 5, got 12", "out_of_range"),
        ({"ratio": 0.5}, "ratio: expected more than 0.5, got 0.5", "out_of_range"),
        ({"ratio": 3}, "ratio: expected at most 2.5, got 3", "out_of_range"),
        ({"fine": 0.3}, "fine: expected a multiple of 0.25, got 0.3", "out_of_range"),
    ],
)
def test_numeric_bounds_are_named(
    bounds: types.ModuleType, args: dict[str, Any], expected: str, reason: str
) -> None:
    """The violated bound, in words a model reads (pydantic: "less than or equal to 10")."""
    assert message(bounds, "numbers", args) == expected
    error = toolcall.run(bounds, "numbers", args).error  # type: ignore[union-attr]
    assert error.reason == reason  # the code stays; only the message gains the bound


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"code": "abcdefgh"},
            "code: expected at most 6 characters, got 'abcdefgh' (8 characters)",
        ),
        ({"name": "a"}, "name: expected at least 2 characters, got 'a' (1 character)"),
        ({"one": ""}, "one: expected at least 1 character, got '' (0 characters)"),
        ({"airport": "oslo"}, "airport: expected text matching ^[A-Z]{3}$, got 'oslo'"),
    ],
)
def test_string_lengths_and_patterns_are_named(
    bounds: types.ModuleType, args: dict[str, Any], expected: str
) -> None:
    """A length says the limit and the length sent (models count characters badly)."""
    assert message(bounds, "texts", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"few": [1, 2, 3]}, "few: expected at most 2 items, got [1, 2, 3] (3 items)"),
        ({"some": [1]}, "some: expected at least 2 items, got [1] (1 item)"),
        ({"weeks": [1, 2, 1]}, "weeks: expected unique items, got [1, 2, 1] (1 is repeated)"),
        ({"weeks": [3, 3.0]}, "weeks: expected unique items, got [3, 3.0] (3.0 is repeated)"),
        ({"pair": [1]}, "pair: expected exactly 2 items, got [1] (1 item)"),
    ],
)
def test_item_counts_and_uniqueness_are_named(
    bounds: types.ModuleType, args: dict[str, Any], expected: str
) -> None:
    assert message(bounds, "containers", args) == expected


def test_a_long_array_says_its_length(bounds: types.ModuleType) -> None:
    """The value is shortened in the message; its length is not."""
    text = message(bounds, "containers", {"few": list(range(1000))})
    assert text == "few: expected at most 2 items, got [0, 1, 2, 3, 4, 5, 6, 7, ...] (1000 items)"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"colour": "blue"}, 'colour: expected one of "red", "green", got \'blue\''),
        ({"mode": "FAST"}, 'mode: expected one of "fast", "slow", got \'FAST\''),
        ({"only": "no"}, "only: expected \"yes\", got 'no'"),
        ({"many": 99}, "many: expected one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 30 more, got 99"),
        (
            {"long": "x"},
            'long: expected one of "option-number-0", "option-number-1", "option-number-2", '
            '"option-number-3", "option-number-4", "option-number-5" and 6 more, got \'x\'',
        ),
    ],
)
def test_allowed_values_are_listed_bounded(
    bounds: types.ModuleType, args: dict[str, Any], expected: str
) -> None:
    """The first ten values at most, as many as fit in 120 characters, then "and N more": the
    value sent is never pushed out of the message."""
    assert message(bounds, "choices", args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"day": "June 1st"}, "day: expected a date as YYYY-MM-DD, got 'June 1st'"),
        (
            {"at_": "noon"},
            "at_: expected a date-time as YYYY-MM-DDTHH:MM[:SS], with +HH:MM or Z if not local, "
            "got 'noon'",
        ),
        (
            {"clock": "7 am"},
            "clock: expected a time as HH:MM[:SS], with +HH:MM or Z if not local, got '7 am'",
        ),
        (
            {"every": "90 minutes"},
            "every: expected an ISO 8601 duration such as PT1H30M or P2D, or a number of "
            "seconds, got '90 minutes'",
        ),
        ({"id": "42"}, "id: expected a UUID as 8-4-4-4-12 hex digits, got '42'"),
        (
            {"price": "12,50"},
            "price: expected a decimal number written as a string, such as \"12.50\", got '12,50'",
        ),
        (
            {"data": "not base64!"},
            "data: expected base64-encoded data (A-Z, a-z, 0-9, + and /, padded with =), "
            "got 'not base64!'",
        ),
        (
            {"user": "12a"},
            "user: expected an integer written as a string of digits, such as \"42\", got '12a'",
        ),
    ],
)
def test_formats_are_named(bounds: types.ModuleType, args: dict[str, Any], expected: str) -> None:
    assert message(bounds, "formats", args) == expected


@pytest.mark.parametrize(
    ("book", "expected"),
    [
        ({"year": 2200}, "book.year: expected at most 2100, got 2200"),
        ({"price": "0"}, "book.price: expected more than 0, got '0'"),
        ({"price": "0.001"}, "book.price: expected a multiple of 0.01, got '0.001'"),
        (
            {"published": "1200-01-01"},
            "book.published: expected at least 1450-01-01, got '1200-01-01'",
        ),
        (
            {"isbn": "12345678901234"},
            "book.isbn: expected at most 13 characters, got '12345678901234' (14 characters)",
        ),
        ({"isbn": "12-3"}, "book.isbn: expected text matching ^[0-9]+$, got '12-3'"),
        (
            {"tags": ["a", "b", "c"]},
            "book.tags: expected at most 2 items, got ['a', 'b', 'c'] (3 items)",
        ),
        ({"shelf": "c"}, 'book.shelf: expected one of "a", "b", got \'c\''),
        (
            {"colours": ["red", "blue"]},
            'book.colours[1]: expected one of "red", "green", got \'blue\'',
        ),
    ],
)
def test_a_pydantic_models_constraints_read_the_same(
    bounds: types.ModuleType, book: dict[str, Any], expected: str
) -> None:
    """pydantic validates the model; the bound comes from its error's context (dates and
    Decimals included), phrased as toolcall phrases its own."""
    assert message(bounds, "shelve", {"book": book}) == expected


def test_a_parameter_pydantic_validates_reads_the_same(bounds: types.ModuleType) -> None:
    """A validator in the annotation hands the parameter to pydantic's TypeAdapter."""
    assert message(bounds, "checked", {"n": 6}) == "n: expected at most 5, got 6"


def test_a_pattern_too_long_to_read_is_named_by_its_description(
    bounds: types.ModuleType,
) -> None:
    """An e-mail regex says nothing to a model in 100 characters: the description of the
    parameter or field carrying it says what is expected; without one, the pattern is
    shortened."""
    assert message(bounds, "mail", {"to": "bob"}) == (
        "to: expected text matching the pattern for \"the recipient's e-mail address\", got 'bob'"
    )
    nested = message(bounds, "mail", {"to": "a@b.c", "contact": {"email": "bob"}})
    assert nested == (
        "contact.email: expected text matching the pattern for "
        "\"the contact's e-mail address\", got 'bob'"
    )
    bare = message(bounds, "mail", {"to": "a@b.c", "cc": "bob"})
    assert bare.startswith("cc: expected text matching ^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@")
    assert bare.endswith("..., got 'bob'")
    assert len(bare) < MAX_MESSAGE


def test_decimal_and_string_integer_bounds_are_named() -> None:
    """Bounds on the number a decimal or a string of digits spells (IR built by hand)."""
    decimal = ir.Type(kind="string", py="decimal", pattern=DECIMAL_PATTERN, minimum=0, maximum=100)
    digits = ir.Type(
        kind="string", wire="string_integer", pattern="^-?[0-9]+$", exclusive_maximum=10
    )
    tool = ir.Tool(
        name="t",
        parameters=(ir.Parameter(name="d", type=decimal), ir.Parameter(name="i", type=digits)),
    )
    plan = build_plan(tool, lambda d, i: None, _Classes({}))
    result = plan.run({"d": "100.5", "i": "1"})
    assert isinstance(result, Err)
    assert result.error.message == "d: expected at most 100, got '100.5'"
    result = plan.run({"d": "1", "i": "10"})
    assert isinstance(result, Err)
    assert result.error.message == "i: expected less than 10, got '10'"


def test_an_objects_key_count_is_named() -> None:
    """An object's size bounds (IR ``min_length`` / ``max_length``) count keys."""
    labels = ir.Type(kind="object", additional=ir.Type(kind="integer"), max_length=1)
    tool = ir.Tool(name="t", parameters=(ir.Parameter(name="labels", type=labels),))
    plan = build_plan(tool, lambda labels: None, _Classes({}))
    result = plan.run({"labels": {"a": 1, "b": 2}})
    assert isinstance(result, Err)
    assert result.error.message == "labels: expected at most 1 key, got {'a': 1, 'b': 2} (2 keys)"


def test_hand_built_errors_without_a_rule_still_say_what_was_expected() -> None:
    """A reason with no rule to name (a hand-built error) gets the reason's own text."""
    error = ToolError.invalid_argument(("n",), "out_of_range", 11)
    assert error.message == "n: expected a value in the allowed range, got 11"
    odd = ToolError.invalid_argument(("n",), "out_of_range", 11, rule="not a pair")
    assert odd.message == "n: expected a value in the allowed range, got 11"


def test_long_rules_stay_within_the_message_bound() -> None:
    """A huge pattern or bound is shortened; the value sent still ends the message."""
    pattern = ToolError.invalid_argument(("a" * 200,), "pattern_mismatch", "x", rule="[a-z]" * 500)
    assert len(pattern.message) <= MAX_MESSAGE
    assert pattern.message.endswith(", got 'x'")
    huge = ToolError.invalid_argument(("n",), "out_of_range", 11, rule=("maximum", 10**500))
    assert len(huge.message) <= MAX_MESSAGE
    assert huge.message.endswith(", got 11")


def test_the_openai_tool_message_carries_the_bound(bounds: types.ModuleType) -> None:
    """End to end through toolcall.providers: the model reads the same text."""
    from toolcall.providers import openai_tool_message

    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "numbers", "arguments": '{"n": 11}'},
    }
    answer = openai_tool_message(toolcall.Toolbox(bounds), call)
    assert json.loads(answer["content"]) == {"error": "n: expected at most 10, got 11"}


@pytest.mark.anyio
async def test_an_mcp_client_reads_the_bound(bounds: types.ModuleType) -> None:
    """End to end through an MCP client of the SDK, in process."""
    pytest.importorskip("mcp")
    from mcp import Client
    from mcp.types import TextContent

    import toolcall.mcp

    server = toolcall.mcp.build_server(bounds, name="bounds")
    async with Client(server) as client:
        result = await client.call_tool("texts", {"code": "abcdefgh"})
    assert result.is_error
    (block,) = result.content
    assert isinstance(block, TextContent)
    assert "code: expected at most 6 characters, got 'abcdefgh' (8 characters)" in block.text


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_paths_are_unchanged() -> None:
    """The location part is what it was: nested paths as a model reads them."""
    error = ToolError.invalid_argument(("items", 2, "qty"), "out_of_range", 0, ("minimum", 1))
    assert error.message == "items[2].qty: expected at least 1, got 0"
