"""``serve-mcp --tool-search``: the listing is the pinned tools plus ``search_tools``, a search
answers with the definitions ``tools/list`` would have given (only tools this server serves,
behind the same authentication), and ``tools/call`` reaches every tool by name. Driven by the
MCP SDK's own client, in process and against a real ``serve-mcp`` process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import examples.orders
import examples.weather
import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent
from served import client, modern_call, modern_headers, serving

import toolcall
import toolcall.mcp

pytestmark = pytest.mark.anyio

TOKEN = "tc-search-token-31c8"


def dumped(tools: list[Any]) -> list[dict[str, Any]]:
    return [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in tools]


def text_of(result: Any) -> str:
    assert isinstance(result, CallToolResult)
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


async def _whole_listing(strict: bool = False) -> dict[str, dict[str, Any]]:
    whole = toolcall.mcp.build_server(examples.weather, examples.orders, strict=strict)
    async with Client(whole, mode="auto") as session:
        return {tool["name"]: tool for tool in dumped((await session.list_tools()).tools)}


@pytest.mark.parametrize("strict", [False, True])
async def test_listing_is_pinned_tools_then_search_tools(mode: str, strict: bool) -> None:
    """tools/list: each pinned tool exactly as the full listing has it, then search_tools as
    ToolSearch emits it for MCP (strict too)."""
    server = toolcall.mcp.build_server(
        examples.weather, examples.orders, tool_search=True, pinned=["get_weather"], strict=strict
    )
    async with Client(server, mode=mode) as session:
        listed = dumped((await session.list_tools()).tools)
    whole = await _whole_listing(strict)
    search_tool = toolcall.ToolSearch(examples.weather).emit("mcp", strict)[0]
    assert listed == [whole["get_weather"], search_tool]


async def test_a_search_returns_listed_definitions_and_every_tool_is_callable(mode: str) -> None:
    """search_tools answers with the found tools' tools/list definitions (pinned ones left
    out); a tool that is not listed is still called by name; a wrong search is an error."""
    server = toolcall.mcp.build_server(
        examples.weather, examples.orders, tool_search=True, pinned=["get_weather"], search_k=2
    )
    async with Client(server, mode=mode) as session:
        found = await session.call_tool("search_tools", {"query": "cancel my order"})
        called = await session.call_tool("cancel_order", {"order_id": "A1"})
        wrong = await session.call_tool("search_tools", {"q": "x"})
    whole = await _whole_listing()
    assert json.loads(text_of(found)) == [whole["cancel_order"], whole["place_order"]]
    assert isinstance(called, CallToolResult)
    assert not called.is_error
    assert called.structured_content == {"order_id": "A1", "cancelled": True, "reason": ""}
    assert isinstance(wrong, CallToolResult)
    assert (wrong.is_error, text_of(wrong)) == (True, "unknown argument q; this tool takes: query")


def test_mistakes_in_the_configuration_raise() -> None:
    """Pinning without tool search, or pinning a tool the server lacks, raises ValueError."""
    with pytest.raises(ValueError, match="give tool_search=True too"):
        toolcall.mcp.build_server(examples.weather, pinned=["get_weather"])
    with pytest.raises(ValueError, match="cannot pin 'nope'"):
        toolcall.mcp.build_server(examples.weather, tool_search=True, pinned=["nope"])


@pytest.fixture(scope="module")
def token_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("secrets") / "token"
    path.write_text(TOKEN + "\n")
    return path


async def test_serve_mcp_tool_search_behind_auth(token_file: Path) -> None:
    """`serve-mcp --tool-search --pin get_weather` over HTTP with a token: without it a search
    gets 401 and reveals nothing; with it the SDK client lists two tools, searches, and calls
    a tool that is not listed."""
    with serving(
        "examples.weather",
        "examples.orders",
        "--tool-search",
        "--pin",
        "get_weather",
        "--search-k",
        "1",
        "--auth-token-file",
        str(token_file),
    ) as served:
        refused = httpx2.post(
            served.url,
            headers=modern_headers(name="search_tools"),
            json=modern_call("search_tools", {"query": "cancel my order"}),
            timeout=30,
        )
        assert refused.status_code == 401
        assert "cancel_order" not in refused.text
        with anyio.fail_after(60):
            with pytest.raises(Exception) as unauthenticated:  # noqa: PT011  # a group
                async with client(served.url, None) as session:
                    await session.list_tools()
            async with client(served.url, TOKEN) as session:
                listed = [tool.name for tool in (await session.list_tools()).tools]
                found = await session.call_tool("search_tools", {"query": "cancel my order"})
                called = await session.call_tool("cancel_order", {"order_id": "B2"})
    assert MCPError in _leaf_types(unauthenticated.value)
    assert listed == ["get_weather", "search_tools"]
    assert [tool["name"] for tool in json.loads(text_of(found))] == ["cancel_order"]
    assert isinstance(called, CallToolResult)
    assert called.structured_content == {"order_id": "B2", "cancelled": True, "reason": ""}


def _leaf_types(exc: BaseException) -> list[type[BaseException]]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaf_types(inner)]
    return [type(exc)]
