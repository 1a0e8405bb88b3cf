"""The tools every result-kind test calls: text, a pydantic model (aliased), lists of them,
and media of each kind, with the bytes they carry."""

from __future__ import annotations

import base64

import pydantic
import toolcall

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "
PNG64 = base64.b64encode(PNG).decode()
PDF64 = base64.b64encode(PDF).decode()


class Quote(pydantic.BaseModel):
    """A price quote."""

    symbol: str
    price: float = pydantic.Field(alias="lastPrice", description="the last price")


def greet(city: str) -> str:
    """Greet a city."""
    return f'Hello, "{city}"!\nBye.'


def quote(symbol: str) -> Quote:
    """A quote."""
    return Quote(symbol=symbol, lastPrice=1.5)


def quotes() -> list[Quote]:
    """Quotes."""
    return [Quote(symbol="A", lastPrice=1)]


def shot() -> toolcall.Image:
    """A screenshot."""
    return toolcall.Image(data=PNG)


def speech() -> toolcall.Audio:
    """Speech."""
    return toolcall.Audio(data=WAV)


def report() -> toolcall.File:
    """A PDF report."""
    return toolcall.File(data=PDF, name="report.pdf")


def mixed() -> list[str | toolcall.Image | toolcall.File]:
    """Text, an image and a CSV file."""
    return ["the chart:", toolcall.Image(data=PNG), toolcall.File(data=b"a,b\n", name="t.csv")]
