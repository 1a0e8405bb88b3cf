"""One call through each framework adapter against the framework's own tool for the same
function, in the same run, as a ratio (below 1: the adapter is faster).

For each framework the call enters where the framework itself calls a tool:

- Agents SDK: ``FunctionTool.on_invoke_tool(context, json_text)`` (``@function_tool`` vs
  ``toolcall.adapters.openai_agents.tools``);
- pydantic-ai: a whole ``agent.run`` whose ``FunctionModel`` makes one call, then answers (the
  toolset's validation and call are only reachable through a run); ``@agent.tool_plain`` vs
  ``toolcall.adapters.pydantic_ai.toolset``;
- LangChain: ``ainvoke`` of a model's tool call (``@tool`` vs ``adapters.langchain.tools``);
- FastMCP: ``Tool.run(arguments)`` (``FastMCP.add_tool`` vs ``adapters.fastmcp.register``).

Run: ``.venv/bin/python perf/bench_adapters.py [--rounds N] [--calls N]``. Each figure is the
best of ``--rounds`` runs of ``--calls`` calls, native and adapter alternating.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import textwrap
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

SOURCE = '''
__toolcall__ = True


def get_weather(city: str, days: int = 3) -> dict:
    """Get the forecast for a city.

    Args:
        city: city name, e.g. "Oslo"
        days: how many days ahead (1-7)
    """
    return {"city": city, "days": days, "temp": 21.5}
'''
ARGS = {"city": "Oslo", "days": 2}

Call = Callable[[], Awaitable[Any]]


def _module() -> Any:
    directory = Path(tempfile.mkdtemp(prefix="bench_adapters_"))
    (directory / "bench_weather.py").write_text(textwrap.dedent(SOURCE))
    sys.path.insert(0, str(directory))
    import bench_weather

    return bench_weather


def openai_agents(module: Any) -> tuple[Call, Call]:
    import json

    from agents import function_tool
    from agents.tool_context import ToolContext

    from toolcall.adapters.openai_agents import tools

    native = function_tool(module.get_weather)
    [adapted] = tools(module)
    text = json.dumps(ARGS)
    context = ToolContext(
        context=None, tool_name="get_weather", tool_call_id="c1", tool_arguments=text
    )
    return (
        lambda: native.on_invoke_tool(context, text),
        lambda: adapted.on_invoke_tool(context, text),
    )


def pydantic_ai(module: Any) -> tuple[Call, Call]:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    from toolcall.adapters.pydantic_ai import toolset

    def model(messages: list[Any], info: Any) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("get_weather", dict(ARGS))])
        return ModelResponse(parts=[TextPart("done")])

    native: Agent[None, str] = Agent(FunctionModel(model))
    native.tool_plain(module.get_weather)
    adapted: Agent[None, str] = Agent(FunctionModel(model), toolsets=[toolset(module)])
    return (lambda: native.run("go"), lambda: adapted.run("go"))


def langchain(module: Any) -> tuple[Call, Call]:
    from langchain_core.tools import tool

    from toolcall.adapters.langchain import tools

    native = tool(module.get_weather)
    [adapted] = tools(module)
    call = {"type": "tool_call", "id": "c1", "name": "get_weather", "args": ARGS}
    return (lambda: native.ainvoke(dict(call)), lambda: adapted.ainvoke(dict(call)))


def fastmcp(module: Any) -> tuple[Call, Call]:
    from fastmcp import FastMCP

    from toolcall.adapters.fastmcp import register

    native = FastMCP("native").add_tool(module.get_weather)
    [adapted] = register(FastMCP("adapted"), module)
    return (lambda: native.run(dict(ARGS)), lambda: adapted.run(dict(ARGS)))


FRAMEWORKS = {
    "openai-agents": openai_agents,
    "pydantic-ai": pydantic_ai,
    "langchain": langchain,
    "fastmcp": fastmcp,
}


async def _time(call: Call, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        await call()
    return (time.perf_counter() - start) / calls


async def _best(native: Call, adapted: Call, rounds: int, calls: int) -> tuple[float, float]:
    await native()  # first calls prepare (pydantic schemas, toolcall's fast path)
    await adapted()
    best_native = best_adapted = float("inf")
    for _ in range(rounds):
        best_native = min(best_native, await _time(native, calls))
        best_adapted = min(best_adapted, await _time(adapted, calls))
    return best_native, best_adapted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    options = parser.parse_args()
    module = _module()
    print(f"{'framework':<15}{'native':>12}{'adapter':>12}{'ratio':>8}")
    for name, build in FRAMEWORKS.items():
        try:
            native, adapted = build(module)
        except ImportError as exc:
            print(f"{name:<15}  skipped: {exc}")
            continue
        t_native, t_adapted = asyncio.run(_best(native, adapted, options.rounds, options.calls))
        print(
            f"{name:<15}{t_native * 1e6:>10.1f}us{t_adapted * 1e6:>10.1f}us"
            f"{t_adapted / t_native:>8.2f}"
        )


if __name__ == "__main__":
    main()
