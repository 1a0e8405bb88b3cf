"""A constraint applies wherever its value has a size or an order: a ``Decimal``'s bounds (it
travels as text but is a number) and a dict's key counts are sent and enforced, never dropped."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

import annotated_types as at
import pytest

import toolcall
from pydantic import Field


def price(
    amount: Annotated[Decimal, Field(gt=0, le=100)],
    tags: Annotated[dict[str, int], at.MaxLen(1)],
    totals: Annotated[dict[str, int], Field(min_length=1)],
) -> None:
    """Price a basket."""


def _properties() -> dict[str, Any]:
    with pytest.warns(toolcall.ToolcallWarning) as caught:
        tool = toolcall.derive(price)
    assert not [w for w in caught if "does not apply" in str(w.message)]
    schema: dict[str, Any] = toolcall.render(tool, "openai")["function"]["parameters"]
    return schema["properties"]  # type: ignore[no-any-return]


def test_decimal_bounds_and_dict_key_counts_are_sent() -> None:
    """The model is told the bounds of a Decimal and how many keys a dict may have."""
    properties = _properties()
    assert properties["amount"]["exclusiveMinimum"] == 0
    assert properties["amount"]["maximum"] == 100
    assert properties["tags"]["maxProperties"] == 1
    assert properties["totals"]["minProperties"] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"amount": "0", "tags": {}, "totals": {"a": 1}}, "amount: expected more than 0, got '0'"),
        ({"amount": "101", "tags": {}, "totals": {"a": 1}}, "amount: expected at most 100"),
        (
            {"amount": "5", "tags": {"a": 1, "b": 2}, "totals": {"a": 1}},
            "tags: expected at most 1 key",
        ),
        ({"amount": "5", "tags": {}, "totals": {}}, "totals: expected at least 1 key"),
    ],
)
def test_decimal_bounds_and_dict_key_counts_are_enforced(
    args: dict[str, Any], message: str
) -> None:
    """What the schema says, ``run`` checks: a value breaking it is refused, naming the bound."""
    match toolcall.Toolbox(price).run("price", args):
        case toolcall.Err(error):
            assert error.message.startswith(message)
        case other:
            pytest.fail(f"accepted: {other}")
    assert isinstance(
        toolcall.Toolbox(price).run("price", {"amount": "5", "tags": {"a": 1}, "totals": {"a": 1}}),
        toolcall.Ok,
    )
