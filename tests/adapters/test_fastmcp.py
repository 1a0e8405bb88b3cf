"""toolcall.adapters.fastmcp with the real FastMCP, through its in-memory client."""

from __future__ import annotations

import asyncio
import json
import sys
import types
from typing import Any

import pytest

# Importing fastmcp installs beartype's import hook (a FileFinder path hook whose .py loader
# is beartype's) ahead of toolcall's, so modules made later in this process would no longer
# be processed at import. Put the hooks back once fastmcp and the adapter are imported.
_HOOKS = list(sys.path_hooks)
pytest.importorskip("fastmcp")

from fastmcp import Client, FastMCP  # noqa: E402

import toolcall  # noqa: E402
from adapters.kit import CALLS, ERRORS, TIMEOUT, plain, tool_module  # noqa: E402
from toolcall.adapters.fastmcp import register  # noqa: E402

sys.path_hooks[:] = _HOOKS
sys.path_importer_cache.clear()


module = tool_module(
    imports="from fastmcp import Context",
    context="ctx: Context",
    who="type(ctx).__name__",
)


def _server(module: types.ModuleType, **options: Any) -> FastMCP:
    server = FastMCP("t")
    register(server, module, **options)
    return server


def test_the_client_lists_toolcalls_schema(module: types.ModuleType) -> None:
    """FastMCP's client lists exactly the schema toolcall emits for MCP, beside FastMCP's own
    title and _meta."""

    async def main() -> list[Any]:
        async with Client(_server(module)) as client:
            listed = await client.list_tools()
        return [t.model_dump(by_alias=True, exclude_none=True) for t in listed]

    listed = asyncio.run(main())
    emitted = plain(toolcall.emit(module, "mcp"))
    # FastMCP gives every tool a title (toolcall's, else one made from the name) and _meta
    for tool in listed:
        tool.pop("_meta", None)
        if tool["name"] != "get_weather":
            tool.pop("title")
    assert listed == emitted
    assert listed[0]["title"] == "Weather"
    assert listed[0]["annotations"] == {"readOnlyHint": True, "openWorldHint": False}


def test_calls_through_fastmcp(module: types.ModuleType) -> None:
    """Every failure is an error result carrying toolcall's message."""

    async def main() -> list[Any]:
        async with Client(_server(module, timeout=TIMEOUT)) as client:
            calls = [*CALLS, ("whoami", {"greeting": "hi"})]
            return [
                await client.call_tool(name, args, raise_on_error=False) for name, args in calls
            ]

    results = asyncio.run(main())
    assert [r.is_error for r in results] == [False, True, True, True, True, False]
    assert json.loads(results[0].content[0].text) == {"city": "Oslo", "days": 2, "temp": 21.5}
    assert [r.content[0].text for r in results[1:5]] == ERRORS
    assert results[5].content[0].text == "hi, Context"
