"""toolcall.adapters.langchain with the real langchain-core: bind_tools' schema, ToolMessages."""

from __future__ import annotations

import asyncio
import json
import types
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

import toolcall
from adapters.kit import CALLS, ERRORS, TIMEOUT, TOOLS, plain, tool_module
from toolcall.adapters.langchain import tools

module = tool_module(
    imports="from langchain_core.tools import InjectedToolCallId",
    context="call_id: Annotated[str, InjectedToolCallId]",
    who="call_id",
)


def _call(i: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_call", "id": f"call_{i}", "name": name, "args": args}


@pytest.mark.parametrize("strict", [False, True])
def test_bind_tools_sends_toolcalls_schema(module: types.ModuleType, strict: bool) -> None:
    """convert_to_openai_tool is what bind_tools sends an OpenAI-compatible model."""
    sent = [convert_to_openai_tool(t, strict=strict or None) for t in tools(module, strict=strict)]
    emitted = plain(toolcall.emit(module, "openai", strict=strict))
    assert sent == emitted


def test_calls_through_langchain(module: types.ModuleType) -> None:
    """ainvoke with a model's tool call: a ToolMessage, status error for every failure."""
    by_name = {t.name: t for t in tools(module, timeout=TIMEOUT)}

    async def main() -> list[ToolMessage]:
        calls = [*CALLS, ("whoami", {"greeting": "hi"})]
        return [
            await by_name[name].ainvoke(_call(i, name, args))
            for i, (name, args) in enumerate(calls)
        ]

    messages = asyncio.run(main())
    assert all(isinstance(m, ToolMessage) for m in messages)
    assert [m.tool_call_id for m in messages] == [f"call_{i}" for i in range(6)]
    assert json.loads(messages[0].content) == {"city": "Oslo", "days": 2, "temp": 21.5}
    assert [m.content for m in messages[1:5]] == ERRORS
    assert [m.status for m in messages] == ["success", *["error"] * 4, "success"]
    assert messages[5].content == "hi, call_5"


def test_sync_invoke_and_injected_state(make_module: Callable[..., types.ModuleType]) -> None:
    """invoke runs the tool inline; an InjectedState value arrives among the arguments."""
    module = make_module(
        TOOLS.format(
            imports="from langgraph.prebuilt import InjectedState",
            context="state: Annotated[dict, InjectedState]",
            who="state['user']",
        )
        if _has("langgraph")
        else TOOLS.format(
            imports="from langchain_core.tools import InjectedToolArg",
            context="state: Annotated[dict, InjectedToolArg]",
            who="state['user']",
        )
    )
    by_name = {t.name: t for t in tools(module)}
    assert "state" not in by_name["whoami"].args
    message = by_name["whoami"].invoke(
        _call(0, "whoami", {"greeting": "hi", "state": {"user": "ada"}})
    )
    assert message.content == "hi, ada"
    message = by_name["get_weather"].invoke(_call(1, "get_weather", {"city": 3}))
    assert (message.status, message.content) == ("error", "city: expected a string, got 3")


def _has(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
