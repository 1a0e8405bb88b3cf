"""What a tool returns, encoded: every result kind as ``encode_result`` writes it (pydantic
models as their own ``model_dump(mode="json", by_alias=True)``), described by the output
schema the encoded value validates against, and toolcall's own media types."""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path
from typing import Any, NamedTuple, TypedDict

import attrs
import jsonschema
import msgspec
import pytest

import pydantic
import toolcall
from toolcall._dispatch.content import MAX_MEDIA_BYTES
from toolcall._render.output import output_schema

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "


class Quote(pydantic.BaseModel):
    """A price quote."""

    model_config = pydantic.ConfigDict(populate_by_name=True)

    symbol: str
    price: float = pydantic.Field(alias="lastPrice", description="the last price")
    when: Any = None

    @pydantic.field_serializer("symbol")
    def _upper(self, value: str) -> str:
        return value.upper()


Quotes = pydantic.RootModel[list[Quote]]


@pydantic.dataclasses.dataclass
class Tick:
    at: int = pydantic.Field(serialization_alias="timestamp")


@attrs.define
class Level:
    name: str
    depth: int = 0


class Row(msgspec.Struct, rename="camel"):
    row_id: int


@dataclasses.dataclass
class Cell:
    x: int


class Pair(NamedTuple):
    a: int
    b: str


class Doc(TypedDict):
    title: str


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Quote(symbol="abc", price=1.5), {"symbol": "ABC", "lastPrice": 1.5, "when": None}),
        (
            Quotes([Quote(symbol="x", price=2)]),
            [{"symbol": "X", "lastPrice": 2.0, "when": None}],
        ),
        ([Quote(symbol="a", price=1)], [{"symbol": "A", "lastPrice": 1.0, "when": None}]),
        (
            {"best": Quote(symbol="b", price=3)},
            {"best": {"symbol": "B", "lastPrice": 3.0, "when": None}},
        ),
        (Tick(at=5), {"timestamp": 5}),
        (Level("deep", 3), {"name": "deep", "depth": 3}),
        (Row(7), {"rowId": 7}),
        (Cell(1), {"x": 1}),
        (Pair(1, "b"), [1, "b"]),
        (Doc(title="t"), {"title": "t"}),
        (pydantic.HttpUrl("https://example.org"), "https://example.org/"),
    ],
    ids=[
        "model",
        "root-model",
        "list-of-models",
        "dict-of-models",
        "pydantic-dataclass",
        "attrs",
        "struct",
        "dataclass",
        "namedtuple",
        "typeddict",
        "pydantic-type",
    ],
)
def test_every_result_kind_encodes_as_its_framework_writes_it(value: Any, expected: Any) -> None:
    """Aliases and serializers honoured: pydantic's own ``model_dump(mode="json",
    by_alias=True)``; the other kinds as msgspec writes them."""
    assert json.loads(toolcall.encode_result(value)) == expected
    if isinstance(value, pydantic.BaseModel):
        dumped = value.model_dump(mode="json", by_alias=True)
        assert json.loads(toolcall.encode_result(value)) == dumped


def test_a_pydantic_result_no_longer_raises_through_run(make_module: Any) -> None:
    """The issue's failure: a tool returning a model failed on every call."""
    module = make_module(
        '''
        __toolcall__ = True
        import pydantic

        class Quote(pydantic.BaseModel):
            symbol: str
            price: float = pydantic.Field(alias="lastPrice")

        def quote(symbol: str) -> Quote:
            """A quote."""
            return Quote(symbol=symbol, lastPrice=1.25)
        '''
    )
    result = toolcall.run(module, "quote", {"symbol": "ACME"})
    assert isinstance(result, toolcall.Ok)
    assert toolcall.encode_result(result.value) == '{"symbol":"ACME","lastPrice":1.25}'


def test_a_model_result_is_described_by_pydantic_serialization_schema() -> None:
    """The output schema of a model is pydantic's (aliases, descriptions), refs inlined, and
    the encoded value validates against it."""
    ref = f"{__name__}:Quote"
    schema = output_schema(toolcall.ir.Type(kind="object", py="model", ref=ref))
    assert schema == {
        "type": "object",
        "description": "A price quote.",
        "properties": {
            "symbol": {"type": "string"},
            "lastPrice": {"type": "number", "description": "the last price"},
            "when": {"default": None},
        },
        "required": ["symbol", "lastPrice"],
    }
    jsonschema.validate(json.loads(toolcall.encode_result(Quote(symbol="a", price=1))), schema)
    listed = toolcall.ir.Type(
        kind="array", py="list", items=toolcall.ir.Type(kind="object", py="model", ref=ref)
    )
    assert output_schema(listed) == {"type": "array", "items": schema}


def test_image_audio_file_detect_their_mime_type(tmp_path: Path) -> None:
    """Given, then ``format``, then the name's suffix, then the leading bytes, then the
    kind's default."""
    assert toolcall.Image(data=PNG).mime_type == "image/png"
    assert toolcall.Image(data=b"\xff\xd8\xff\xe0").mime_type == "image/jpeg"
    assert toolcall.Image(data=b"????").mime_type == "image/png"
    assert toolcall.Image(data=b"????", format="jpg").mime_type == "image/jpeg"
    assert toolcall.Image(data=b"????", mime_type="image/avif").mime_type == "image/avif"
    assert toolcall.Audio(data=WAV).mime_type == "audio/wav"
    assert toolcall.Audio(data=b"ID3\x04").mime_type == "audio/mpeg"
    assert toolcall.File(data=PDF).mime_type == "application/pdf"
    assert toolcall.File(data=b"a,b\n", name="t.csv").mime_type == "text/csv"
    assert toolcall.File(data=b"\x00\x01").mime_type == "application/octet-stream"
    shot = tmp_path / "shot.webp"
    shot.write_bytes(b"RIFF\x00\x00\x00\x00WEBPVP8 ")
    image = toolcall.Image(path=shot)
    assert (image.mime_type, image.name, image.data[:4]) == ("image/webp", "shot.webp", b"RIFF")
    unnamed = tmp_path / "blob"
    unnamed.write_bytes(PDF)
    assert toolcall.File(path=str(unnamed)).mime_type == "application/pdf"


def test_media_take_a_path_or_data_and_refuse_what_is_too_large(tmp_path: Path) -> None:
    """A clear error, raised inside the tool (so the model reads it as the tool's error)."""
    with pytest.raises(ValueError, match="takes a path or data, exactly one of them"):
        toolcall.Image()
    with pytest.raises(ValueError, match="exactly one"):
        toolcall.Image(path="x.png", data=PNG)
    with pytest.raises(FileNotFoundError):
        toolcall.File(path=tmp_path / "missing.pdf")
    huge = tmp_path / "huge.png"
    with huge.open("wb") as f:  # sparse: nothing is written
        f.truncate(MAX_MEDIA_BYTES + 1)
    with pytest.raises(ValueError, match="bytes; a tool result carries at most") as raised:
        toolcall.Image(path=huge)
    assert str(raised.value) == (
        f"Image {str(huge)!r} is 20,971,521 bytes; a tool result carries at most 20,971,520 "
        "(make it smaller, or return a link to it)"
    )


def test_a_tool_making_an_oversized_image_is_its_raised_error(make_module: Any) -> None:
    module = make_module(
        '''
        __toolcall__ = True
        import toolcall
        from toolcall._dispatch.content import MAX_MEDIA_BYTES

        def shot() -> toolcall.Image:
            """A screenshot."""
            return toolcall.Image(data=bytes(MAX_MEDIA_BYTES + 1))
        '''
    )
    result = toolcall.run(module, "shot", {})
    assert isinstance(result, toolcall.Err)
    assert result.error.kind == "raised"
    assert "a tool result carries at most 20,971,520" in result.error.message


def test_media_encode_as_the_mcp_blocks_they_are() -> None:
    """Where JSON is all there is (``encode_result``), media are MCP content block JSON:
    lossless and self-describing."""
    mixed = ["chart:", toolcall.Image(data=PNG), toolcall.File(data=b"a,b\n", name="t.csv")]
    assert json.loads(toolcall.encode_result(mixed)) == [
        "chart:",
        {"type": "image", "data": base64.b64encode(PNG).decode(), "mimeType": "image/png"},
        {
            "type": "resource",
            "resource": {"uri": "file:///t.csv", "mimeType": "text/csv", "text": "a,b\n"},
        },
    ]


def test_an_object_the_encoder_cannot_write_says_what_to_return() -> None:
    with pytest.raises(TypeError) as raised:
        toolcall.encode_result(object())
    assert str(raised.value) == (
        "cannot encode a object as JSON; return plain data, a dataclass, a pydantic model or "
        "toolcall.Image/Audio/File from the tool"
    )
