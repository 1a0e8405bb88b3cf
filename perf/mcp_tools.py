"""The functions ``bench_mcp.py`` serves, under toolcall and under FastMCP alike."""

from __future__ import annotations

from typing_extensions import TypedDict

__toolcall__ = True


class Item(TypedDict):
    sku: str
    quantity: int
    price: float


class Customer(TypedDict):
    name: str
    email: str
    vip: bool


class Summary(TypedDict):
    customer: str
    lines: int
    total: float


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


def place_order(customer: Customer, items: list[Item], note: str = "") -> Summary:
    """Place an order.

    Args:
        customer: who orders
        items: what they order
        note: free text for the warehouse
    """
    total = sum(item["quantity"] * item["price"] for item in items)
    return {"customer": customer["name"], "lines": len(items), "total": round(total, 2)}
