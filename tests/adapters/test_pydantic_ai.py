"""toolcall.adapters.pydantic_ai with the real pydantic-ai, its FunctionModel as the model."""

from __future__ import annotations

import json
import types
from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

import toolcall
from adapters.kit import CALLS, ERRORS, TIMEOUT, plain, tool_module
from toolcall.adapters.pydantic_ai import toolset

module = tool_module(
    imports="from pydantic_ai import RunContext",
    context="ctx: RunContext[dict]",
    who="ctx.deps['user']",
)


class Script:
    """A FunctionModel that makes ``calls`` in one turn, then answers "done"."""

    def __init__(self, calls: list[tuple[str, Any]]) -> None:
        self.calls = calls
        self.seen: list[list[ModelMessage]] = []
        self.info: list[AgentInfo] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        self.info.append(info)
        if len(self.seen) == 1:
            return ModelResponse(
                parts=[
                    ToolCallPart(name, json.dumps(args), tool_call_id=f"call_{i}")
                    for i, (name, args) in enumerate(self.calls)
                ]
            )
        return ModelResponse(parts=[TextPart("done")])


def _agent(module: types.ModuleType, script: Script, **options: Any) -> Agent[dict[str, str]]:
    return Agent(FunctionModel(script), deps_type=dict, toolsets=[toolset(module, **options)])


@pytest.mark.parametrize("strict", [False, True])
def test_pydantic_ai_hands_the_model_toolcalls_schema(
    module: types.ModuleType, strict: bool
) -> None:
    """pydantic-ai offers the model exactly the name, description and parameters toolcall emits."""
    script = Script([])
    _agent(module, script, strict=strict).run_sync("go", deps={"user": "ada"})
    offered = script.info[0].function_tools
    emitted = plain(toolcall.emit(module, "openai", strict=strict))
    assert [
        {"name": t.name, "description": t.description, "parameters": t.parameters_json_schema}
        for t in offered
    ] == [
        {
            "name": e["function"]["name"],
            "description": e["function"].get("description"),
            "parameters": e["function"]["parameters"],
        }
        for e in emitted
    ]
    assert {t.strict for t in offered} == ({True} if strict else {None})
    [weather] = [t for t in offered if t.name == "get_weather"]
    assert weather.metadata == {
        "title": "Weather",
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    }


def test_calls_through_pydantic_ai(module: types.ModuleType) -> None:
    """Values come back as tool returns, every failure as a retry prompt with toolcall's text."""
    script = Script([*CALLS, ("whoami", {"greeting": "hi"})])
    agent = _agent(module, script, timeout=TIMEOUT)
    assert agent.run_sync("go", deps={"user": "ada"}).output == "done"
    parts = {
        part.tool_call_id: part
        for message in script.seen[1]
        for part in getattr(message, "parts", ())
        if isinstance(part, ToolReturnPart | RetryPromptPart)
    }
    assert json.loads(parts["call_0"].content) == {"city": "Oslo", "days": 2, "temp": 21.5}
    retries = [parts[f"call_{i}"] for i in range(1, 5)]
    # pydantic-ai answers a ModelRetry as a return part whose outcome is "retried"
    assert [getattr(p, "outcome", "retried") for p in retries] == ["retried"] * 4
    assert [p.content for p in retries] == ERRORS
    assert parts["call_5"].content == "hi, ada"


def test_retries_are_counted_by_pydantic_ai(module: types.ModuleType) -> None:
    """A tool that keeps asking for a retry runs out of pydantic-ai's max_retries."""

    def always(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("capital", {"city": "Bergen"})])

    agent = Agent(FunctionModel(always), toolsets=[toolset(module, max_retries=2)])
    with pytest.raises(UnexpectedModelBehavior, match="exceeded max retries count of 2"):
        agent.run_sync("go")
