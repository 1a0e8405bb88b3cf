"""Order tools: nested objects (TypedDict, dataclass), literals and constraints."""

from dataclasses import dataclass
from datetime import date
from typing import Annotated, Literal, NotRequired, TypedDict

import toolcall

__toolcall__ = True


class LineItem(TypedDict):
    """One product line of an order."""

    sku: str
    """Stock keeping unit, e.g. "SKU-123"."""
    qty: int
    """How many units."""
    gift_wrap: NotRequired[bool]


@dataclass
class Address:
    """Where to ship an order."""

    street: str
    city: str
    postcode: str
    country: str = "NO"
    """ISO 3166-1 alpha-2 country code."""


def place_order(
    items: list[LineItem],
    ship_to: Address,
    priority: Literal["standard", "express"] = "standard",
    deliver_after: date | None = None,
) -> dict:
    """Place an order for one customer.

    Args:
        items: the products and quantities
        priority: shipping speed
        deliver_after: earliest delivery day, if the customer asked for one
    """
    return {
        "order_id": "ord_42",
        "lines": len(items),
        "units": sum(item["qty"] for item in items),
        "city": ship_to.city,
        "priority": priority,
        "deliver_after": deliver_after.isoformat() if deliver_after else None,
    }


@toolcall.param("order_id", description="The id returned by place_order")
def cancel_order(
    order_id: str, reason: Annotated[str, toolcall.Param(description="Why")] = ""
) -> dict:
    """Cancel an order that has not shipped yet."""
    return {"order_id": order_id, "cancelled": True, "reason": reason}
