"""The benchmark's tool module: twenty realistic tools every peer can register.

Scalars, ``TypedDict`` (from ``typing_extensions``: pydantic refuses ``typing.TypedDict`` on
Python 3.11), dataclasses, ``Enum``, ``Literal``, lists of objects, optionals, dates and
datetimes, and ``annotated_types`` constraints, which pydantic and toolcall both enforce.
It imports nothing from any tool library, so each peer registers the very same functions and
the bare import of this module is the floor of the start-up figure. The tools do trivial
work (and the async one never suspends), so that what the figures compare is dispatch.
"""

from dataclasses import dataclass
from datetime import date, datetime
from enum import Enum, IntEnum
from typing import Annotated, Literal, NotRequired

from annotated_types import Ge, Gt, Le, MaxLen, MinLen
from typing_extensions import TypedDict

__toolcall__ = True


class Units(Enum):
    """Temperature units."""

    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Severity(IntEnum):
    """How urgent a ticket is, 1 (low) to 4 (critical)."""

    LOW = 1
    NORMAL = 2
    HIGH = 3
    CRITICAL = 4


class TravelMode(Enum):
    """How a route is travelled."""

    DRIVING = "driving"
    WALKING = "walking"
    CYCLING = "cycling"
    TRANSIT = "transit"


class LineItem(TypedDict):
    """One product line of an order."""

    sku: str
    """Stock keeping unit, e.g. "SKU-123"."""
    qty: Annotated[int, Ge(1)]
    """How many units."""
    gift_wrap: NotRequired[bool]
    """Whether to gift-wrap this line."""


@dataclass
class Address:
    """Where to ship an order."""

    street: str
    city: str
    postcode: str
    country: str = "NO"
    """ISO 3166-1 alpha-2 country code."""


class Coordinate(TypedDict):
    """A point on the map, in degrees."""

    lat: Annotated[float, Ge(-90), Le(90)]
    lon: Annotated[float, Ge(-180), Le(180)]


class Guests(TypedDict):
    """Who is staying."""

    adults: Annotated[int, Ge(1)]
    children: NotRequired[int]


class Filter(TypedDict):
    """A condition on one column."""

    column: str
    equals: str | int | bool


@dataclass
class StockChange:
    """A change to one product's stock level."""

    sku: str
    delta: int
    """Units added (positive) or removed (negative)."""
    reason: Literal["sale", "return", "restock", "correction"] = "correction"


def get_weather(city: str, days: int = 3) -> dict:
    """Get the forecast for a city.

    Args:
        city: city name, e.g. "Oslo"
        days: how many days ahead (1-7)
    """
    return {"city": city, "days": days, "temp": 21.5}


def convert_temperature(value: float, to: Units = Units.CELSIUS) -> float:
    """Convert a temperature given in the other unit.

    Args:
        value: the temperature to convert
        to: the unit to convert to
    """
    if to is Units.CELSIUS:
        return round((value - 32) * 5 / 9, 2)
    return round(value * 9 / 5 + 32, 2)


def search_flights(
    origin: str,
    destination: str,
    depart: date,
    passengers: Annotated[int, Ge(1), Le(9)] = 1,
    cabin: Literal["economy", "premium", "business", "first"] = "economy",
) -> list[dict]:
    """Search direct flights between two airports.

    Args:
        origin: IATA code of the departure airport, e.g. "OSL"
        destination: IATA code of the arrival airport
        depart: day of departure
        passengers: how many seats are needed
        cabin: travel class
    """
    return [{"flight": "SK4035", "from": origin, "to": destination, "day": depart.isoformat()}]


def place_order(
    items: list[LineItem],
    ship_to: Address,
    priority: Literal["standard", "express"] = "standard",
    deliver_after: date | None = None,
) -> dict:
    """Place an order for one customer.

    Args:
        items: the products and quantities
        ship_to: the delivery address
        priority: shipping speed
        deliver_after: earliest delivery day, if the customer asked for one
    """
    return {
        "order_id": "ord_42",
        "lines": len(items),
        "units": sum(item["qty"] for item in items),
        "city": ship_to.city,
        "priority": priority,
    }


def cancel_order(order_id: str, reason: str = "") -> dict:
    """Cancel an order that has not shipped yet.

    Args:
        order_id: the id returned by place_order
        reason: why the customer cancelled
    """
    return {"order_id": order_id, "cancelled": True, "reason": reason}


def schedule_meeting(
    title: str,
    start: datetime,
    duration_minutes: Annotated[int, Ge(5), Le(480)] = 30,
    attendees: list[str] | None = None,
) -> dict:
    """Put a meeting in the shared calendar.

    Args:
        title: what the meeting is about
        start: when it starts, with a UTC offset
        duration_minutes: how long it lasts
        attendees: e-mail addresses to invite
    """
    return {"title": title, "start": start.isoformat(), "invited": len(attendees or ())}


def send_email(
    to: Annotated[list[str], MinLen(1)],
    subject: Annotated[str, MaxLen(200)],
    body: str,
    cc: list[str] | None = None,
    urgent: bool = False,
) -> dict:
    """Send an e-mail from the assistant's mailbox.

    Args:
        to: recipients
        subject: the subject line
        body: the message, plain text
        cc: recipients in copy
        urgent: mark the message as high priority
    """
    return {"sent": True, "recipients": len(to) + len(cc or ())}


def create_ticket(
    title: Annotated[str, MinLen(5), MaxLen(120)],
    description: str,
    severity: Severity = Severity.NORMAL,
    labels: list[str] | None = None,
) -> dict:
    """Open a support ticket.

    Args:
        title: a one-line summary
        description: what happened, steps to reproduce
        severity: how urgent it is
        labels: labels to file it under
    """
    return {"ticket": 1234, "severity": int(severity)}


def lookup_customer(
    email: str | None = None, phone: str | None = None, include_orders: bool = False
) -> dict:
    """Find a customer by e-mail address or phone number.

    Args:
        email: the customer's e-mail address
        phone: the customer's phone number, with country code
        include_orders: also list the customer's recent orders
    """
    return {"found": email is not None or phone is not None}


def set_thermostat(
    room: str,
    temperature: Annotated[float, Ge(5), Le(30)],
    mode: Literal["heat", "cool", "auto"] = "auto",
) -> dict:
    """Set the target temperature of a room.

    Args:
        room: the room's name, e.g. "kitchen"
        temperature: target temperature in degrees Celsius
        mode: heating, cooling or whichever is needed
    """
    return {"room": room, "target": temperature, "mode": mode}


def translate_text(
    text: str,
    target_language: Literal["en", "nb", "de", "fr", "es", "ja"],
    formal: bool = False,
) -> str:
    """Translate a text into another language.

    Args:
        text: the text to translate
        target_language: ISO 639-1 code of the language to translate into
        formal: use the formal register where the language has one
    """
    return text


def get_stock_quote(symbol: str, exchange: str | None = None) -> dict:
    """Latest price of a listed stock.

    Args:
        symbol: ticker symbol, e.g. "EQNR"
        exchange: the exchange's MIC code, when the symbol is ambiguous
    """
    return {"symbol": symbol, "price": 301.2}


def book_hotel(
    city: str,
    check_in: date,
    check_out: date,
    guests: Guests,
    max_price: Annotated[float, Gt(0)] | None = None,
) -> dict:
    """Book the best-rated hotel room available in a city.

    Args:
        city: where to stay
        check_in: arrival day
        check_out: departure day
        guests: who is staying
        max_price: the most to pay per night, in EUR
    """
    return {"city": city, "nights": (check_out - check_in).days, "adults": guests["adults"]}


def update_inventory(changes: list[StockChange], dry_run: bool = False) -> dict:
    """Apply stock changes to the inventory.

    Args:
        changes: one entry per product
        dry_run: only check that the changes can be applied
    """
    return {"applied": 0 if dry_run else len(changes)}


def plan_route(
    waypoints: Annotated[list[Coordinate], MinLen(2)], mode: TravelMode = TravelMode.DRIVING
) -> dict:
    """Plan a route through the given points, in order.

    Args:
        waypoints: start, stops and destination
        mode: how the route is travelled
    """
    return {"legs": len(waypoints) - 1, "mode": mode.value}


def log_expense(
    amount: Annotated[float, Gt(0)],
    currency: Annotated[str, MinLen(3), MaxLen(3)],
    category: Literal["travel", "meals", "lodging", "equipment", "other"],
    spent_on: date,
    note: str | None = None,
) -> dict:
    """Record an expense for reimbursement.

    Args:
        amount: how much was spent
        currency: ISO 4217 code, e.g. "NOK"
        category: what kind of expense it is
        spent_on: the day of the purchase
        note: anything the approver should know
    """
    return {"logged": True, "amount": amount, "currency": currency}


def query_records(
    table: Literal["customers", "orders", "products"],
    filters: list[Filter] | None = None,
    limit: Annotated[int, Ge(1), Le(1000)] = 100,
) -> list[dict]:
    """Read records from the company database.

    Args:
        table: which table to read
        filters: conditions every record must meet
        limit: the most records to return
    """
    return [{"table": table, "limit": limit}]


def set_reminder(
    message: str, at: datetime, repeat: Literal["never", "daily", "weekly"] = "never"
) -> dict:
    """Remind the user of something at a given time.

    Args:
        message: what to remind the user of
        at: when, with a UTC offset
        repeat: whether the reminder repeats
    """
    return {"message": message, "at": at.isoformat(), "repeat": repeat}


def rate_product(
    product_id: str, stars: Annotated[int, Ge(1), Le(5)], review: str | None = None
) -> dict:
    """Rate a product on the customer's behalf.

    Args:
        product_id: the product's id
        stars: the rating, 1 to 5
        review: the review text, if the customer wrote one
    """
    return {"product_id": product_id, "stars": stars}


async def fetch_news(topic: str, limit: int = 5) -> list[dict]:
    """Latest headlines about a topic.

    Args:
        topic: what the news should be about
        limit: how many headlines to return
    """
    return [{"topic": topic, "headline": f"News {i}"} for i in range(limit)]
