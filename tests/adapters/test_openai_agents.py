"""toolcall.adapters.openai_agents with the real Agents SDK, against a loopback model."""

from __future__ import annotations

import asyncio
import copy
import json
import types
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, RunConfig, Runner, set_tracing_disabled
from agents.models.openai_chatcompletions import OpenAIChatCompletionsModel
from openai import AsyncOpenAI

import toolcall
from adapters.kit import CALLS, ERRORS, TIMEOUT, chat_completion, plain, tool_module
from loopback import Loopback
from toolcall.adapters.openai_agents import tools

set_tracing_disabled(True)


module = tool_module(
    imports="from agents import RunContextWrapper",
    context="ctx: RunContextWrapper[dict]",
    who="ctx.context['user']",
)


def _run(module: types.ModuleType, calls: list[tuple[str, Any]], **options: Any) -> Any:
    """One agent run: the model makes ``calls`` in one turn, then answers "done"."""
    with Loopback() as server:
        server.answer(chat_completion(calls))
        server.answer(chat_completion(None, "done"))
        client = AsyncOpenAI(base_url=f"{server.url}/v1", api_key="sk-test", max_retries=0)
        agent = Agent(
            name="a",
            model=OpenAIChatCompletionsModel(model="gpt-4.1", openai_client=client),
            tools=tools(module, **options),
        )
        result = asyncio.run(
            Runner.run(agent, "go", context={"user": "ada"}, run_config=RunConfig())
        )
        assert result.final_output == "done"
        return server.requests


@pytest.mark.parametrize("strict", [None, False, True], ids=["default", "plain", "strict"])
def test_the_sdk_sends_toolcalls_schema(module: types.ModuleType, strict: bool | None) -> None:
    """Issue 21.4: strict unless told otherwise, as the SDK's own ``function_tool`` is."""
    options = {} if strict is None else {"strict": strict}
    requests = _run(module, [("get_weather", {"city": "Oslo"})], **options)
    sent = requests[0].body["tools"]
    strict = strict is not False
    emitted = plain(toolcall.emit(module, "openai", strict=strict))
    # the SDK always says whether the schema is strict; toolcall's plain variant leaves it out
    for tool in emitted:
        tool["function"]["strict"] = strict
    assert sent == emitted


def test_the_default_is_the_sdks_default(module: types.ModuleType) -> None:
    """``tools(module)`` is as strict as ``agents.function_tool(f)`` for the same function, and
    the strict schema passes the SDK's own ``ensure_strict_json_schema`` unchanged."""
    from agents import function_tool
    from agents.strict_schema import ensure_strict_json_schema

    def get_weather(city: str, days: int = 3) -> dict[str, Any]:
        return {}

    sdk = function_tool(get_weather)
    ours = {t.name: t for t in tools(module)}
    assert ours["get_weather"].strict_json_schema is sdk.strict_json_schema is True
    for tool in ours.values():
        schema = json.loads(json.dumps(tool.params_json_schema))
        assert ensure_strict_json_schema(copy.deepcopy(schema)) == schema
    assert not any(t.strict_json_schema for t in tools(module, strict=False))


def test_calls_through_the_sdk(module: types.ModuleType) -> None:
    """Good and bad arguments, a raising tool, a retry, a timeout: each answered in order."""
    requests = _run(module, [*CALLS, ("whoami", {"greeting": "hi"})], timeout=TIMEOUT)
    answered = [m for m in requests[1].body["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in answered] == [f"call_{i}" for i in range(6)]
    contents = [m["content"] for m in answered]
    assert json.loads(contents[0]) == {"city": "Oslo", "days": 2, "temp": 21.5}
    assert [json.loads(c) for c in contents[1:5]] == [{"error": e} for e in ERRORS]
    assert contents[5] == "hi, ada"


def test_invalid_json_is_an_error_for_the_model(module: types.ModuleType) -> None:
    """Arguments that are not JSON come back to the model as an error, never an exception."""
    [tool] = [t for t in tools(module) if t.name == "get_weather"]
    answer = asyncio.run(tool.on_invoke_tool(None, '{"city": '))  # type: ignore[arg-type]
    assert json.loads(answer)["error"].startswith("arguments must be a JSON object")
