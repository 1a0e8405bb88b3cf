"""What an MCP client receives for each result kind, through the SDK's own client against
``toolcall.mcp.build_server`` (the legacy handshake and the 2026 protocol): a ``str`` as
plain text, a pydantic model as ``structuredContent`` with its ``outputSchema``, media as
content blocks (toolcall's, the SDK's own, FastMCP's), a list mixing them as one block each."""

from __future__ import annotations

import base64
from typing import Any

import fastmcp.utilities.types as fastmcp_types
import jsonschema
import mcp.types as mcp_types
import pytest
from mcp import Client

import toolcall
import toolcall.mcp
from results import (
    PDF,
    PNG,
    PNG64,
    WAV,
    Quote,
    greet,
    mixed,
    quote,
    quotes,
    report,
    shot,
    speech,
)

pytestmark = pytest.mark.anyio


def sdk_blocks() -> list[Any]:
    """The MCP SDK's own content blocks, as a tool written for the SDK returns them."""
    return [
        mcp_types.TextContent(type="text", text="see"),
        mcp_types.ImageContent(type="image", data=PNG64, mime_type="image/png"),
        mcp_types.EmbeddedResource(
            type="resource",
            resource=mcp_types.TextResourceContents(
                uri="file:///notes.md", mime_type="text/markdown", text="# notes"
            ),
        ),
        mcp_types.ResourceLink(type="resource_link", uri="https://example.org/r", name="r"),
    ]


def fastmcp_media() -> list[Any]:
    """FastMCP's helpers, as a tool written for FastMCP returns them."""
    return [
        fastmcp_types.Image(data=PNG, format="png"),
        fastmcp_types.Audio(data=WAV, format="wav"),
        fastmcp_types.File(data=PDF, format="pdf", name="doc"),
    ]


def sdk_image() -> mcp_types.ImageContent:
    """Annotated with the SDK's block, as the conformance suite's reference server is."""
    return mcp_types.ImageContent(type="image", data=PNG64, mime_type="image/png")


def fastmcp_image() -> fastmcp_types.Image:
    """Annotated with FastMCP's helper."""
    return fastmcp_types.Image(data=PNG, format="png")


def wrong() -> Quote:
    """Declares an object, returns text."""
    return "not a quote"  # type: ignore[return-value]


TOOLS = (
    greet,
    quote,
    quotes,
    shot,
    speech,
    report,
    mixed,
    sdk_blocks,
    fastmcp_media,
    sdk_image,
    fastmcp_image,
    wrong,
)


@pytest.fixture(scope="module")
def server() -> Any:
    return toolcall.mcp.build_server(*TOOLS, name="results")


async def call(server: Any, mode: str, name: str, args: dict[str, Any] | None = None) -> Any:
    async with Client(server, mode=mode) as client:
        result = await client.call_tool(name, args or {})
    assert isinstance(result, mcp_types.CallToolResult)
    return result


def dumped(result: Any) -> list[dict[str, Any]]:
    return [block.model_dump(by_alias=True, exclude_none=True) for block in result.content]


def image(data: str = PNG64) -> dict[str, Any]:
    return {"type": "image", "data": data, "mimeType": "image/png"}


async def test_a_str_is_plain_text(server: Any, mode: str) -> None:
    """Not JSON-quoted, quotes and newlines as they are (the issue's "Hello, Oslo!")."""
    result = await call(server, mode, "greet", {"city": "Oslo"})
    assert dumped(result) == [{"type": "text", "text": 'Hello, "Oslo"!\nBye.'}]
    assert result.structured_content is None
    assert not result.is_error


async def test_a_pydantic_model_is_structured_content_with_its_output_schema(
    server: Any, mode: str
) -> None:
    async with Client(server, mode=mode) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("quote", {"symbol": "X"})
    schema = listed["quote"].output_schema
    assert schema == {
        "type": "object",
        "description": "A price quote.",
        "properties": {
            "symbol": {"type": "string"},
            "lastPrice": {"type": "number", "description": "the last price"},
        },
        "required": ["symbol", "lastPrice"],
    }
    assert result.structured_content == {"symbol": "X", "lastPrice": 1.5}
    assert dumped(result) == [{"type": "text", "text": '{"symbol":"X","lastPrice":1.5}'}]
    jsonschema.validate(result.structured_content, schema)
    # a list is not an object: MCP declares no outputSchema for it, the JSON is text
    assert listed["quotes"].output_schema is None


async def test_a_list_of_models_is_json_text(server: Any, mode: str) -> None:
    result = await call(server, mode, "quotes")
    assert dumped(result) == [{"type": "text", "text": '[{"symbol":"A","lastPrice":1.0}]'}]
    assert result.structured_content is None


async def test_toolcall_media_are_content_blocks(server: Any, mode: str) -> None:
    assert dumped(await call(server, mode, "shot")) == [image()]
    wav = base64.b64encode(WAV).decode()
    assert dumped(await call(server, mode, "speech")) == [
        {"type": "audio", "data": wav, "mimeType": "audio/wav"}
    ]
    pdf = base64.b64encode(PDF).decode()
    assert dumped(await call(server, mode, "report")) == [
        {
            "type": "resource",
            "resource": {"uri": "file:///report.pdf", "mimeType": "application/pdf", "blob": pdf},
        }
    ]


async def test_a_list_mixing_text_and_media_is_one_block_each(server: Any, mode: str) -> None:
    result = await call(server, mode, "mixed")
    assert dumped(result) == [
        {"type": "text", "text": "the chart:"},
        image(),
        {
            "type": "resource",
            "resource": {"uri": "file:///t.csv", "mimeType": "text/csv", "text": "a,b\n"},
        },
    ]
    assert not result.is_error


async def test_the_sdks_own_blocks_pass_through(server: Any, mode: str) -> None:
    assert dumped(await call(server, mode, "sdk_blocks")) == [
        {"type": "text", "text": "see"},
        image(),
        {
            "type": "resource",
            "resource": {"uri": "file:///notes.md", "mimeType": "text/markdown", "text": "# notes"},
        },
        {"type": "resource_link", "uri": "https://example.org/r", "name": "r"},
    ]


async def test_fastmcp_helpers_are_content_blocks(server: Any, mode: str) -> None:
    blocks = dumped(await call(server, mode, "fastmcp_media"))
    assert [block["type"] for block in blocks] == ["image", "audio", "resource"]
    assert blocks[0] == image()
    assert blocks[1]["mimeType"] == "audio/wav"
    assert blocks[2]["resource"]["mimeType"] == "application/pdf"
    assert base64.b64decode(blocks[2]["resource"]["blob"]) == PDF


async def test_an_object_annotated_tool_returning_text_is_an_error(server: Any, mode: str) -> None:
    result = await call(server, mode, "wrong")
    assert result.is_error
    assert dumped(result) == [
        {
            "type": "text",
            "text": "the tool returned str, but its return annotation declares an object",
        }
    ]


async def test_a_tool_annotated_with_a_media_class_sends_content_not_structure(
    server: Any, mode: str
) -> None:
    """A return annotation naming the SDK's or FastMCP's media class is content: the tool
    declares no outputSchema (a client would then demand structuredContent) and its value
    arrives as an image block, not as an error."""
    async with Client(server, mode=mode) as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name in ("sdk_image", "fastmcp_image"):
            assert listed[name].output_schema is None
            result = await client.call_tool(name, {})
            assert not result.is_error
            assert dumped(result) == [image()]
