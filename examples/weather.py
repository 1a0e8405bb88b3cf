"""Weather tools: the SPEC's running example."""

import asyncio
from enum import Enum

__toolcall__ = True


class Units(Enum):
    """Temperature units."""

    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


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


async def air_quality(city: str) -> dict:
    """Current air quality index of a city.

    Args:
        city: city name
    """
    await asyncio.sleep(0)
    return {"city": city, "aqi": 17}
