"""The async provider helpers run one response's tool calls concurrently, in order.

Each tool waits until the other has started, so a helper that ran them one after another
would never finish (the timeout turns that into a failure rather than a hang).
"""

from __future__ import annotations

import asyncio
import json
import types
from collections.abc import Callable
from typing import Any

import pytest

import toolcall
from toolcall import providers

_PAIR = """
__toolcall__ = True
import asyncio

started: dict[str, asyncio.Event] = {}


async def meet(name: str, other: str) -> str:
    started[name].set()
    await started[other].wait()
    return name
"""

_ARGS = ({"name": "a", "other": "b"}, {"name": "b", "other": "a"})


def _openai(args: tuple[dict[str, str], ...]) -> Any:
    return {
        "tool_calls": [
            {
                "id": f"c{i}",
                "type": "function",
                "function": {"name": "meet", "arguments": json.dumps(a)},
            }
            for i, a in enumerate(args)
        ]
    }


def _responses(args: tuple[dict[str, str], ...]) -> Any:
    return {
        "output": [
            {
                "type": "function_call",
                "call_id": f"c{i}",
                "name": "meet",
                "arguments": json.dumps(a),
            }
            for i, a in enumerate(args)
        ]
    }


def _anthropic(args: tuple[dict[str, str], ...]) -> Any:
    return {
        "content": [
            {"type": "tool_use", "id": f"c{i}", "name": "meet", "input": a}
            for i, a in enumerate(args)
        ]
    }


def _gemini(args: tuple[dict[str, str], ...]) -> Any:
    return [
        {"function_call": {"id": f"c{i}", "name": "meet", "args": a}} for i, a in enumerate(args)
    ]


def _bedrock(args: tuple[dict[str, str], ...]) -> Any:
    return {
        "content": [
            {"toolUse": {"toolUseId": f"c{i}", "name": "meet", "input": a}}
            for i, a in enumerate(args)
        ]
    }


def _text(output: Any) -> str:
    """Gemini's output as the other providers' text: a str as itself, data as JSON."""
    return output if isinstance(output, str) else json.dumps(output)


CASES = [
    (providers.aopenai_tool_messages, _openai, lambda m: (m["tool_call_id"], m["content"])),
    (providers.aresponses_outputs, _responses, lambda m: (m["call_id"], m["output"])),
    (providers.aanthropic_tool_results, _anthropic, lambda m: (m["tool_use_id"], m["content"])),
    (
        providers.agemini_function_responses,
        _gemini,
        lambda m: (
            m["function_response"]["id"],
            _text(
                m["function_response"]["response"].get("output", m["function_response"]["response"])
            ),
        ),
    ),
    (
        providers.abedrock_tool_results,
        _bedrock,
        lambda m: (m["toolResult"]["toolUseId"], m["toolResult"]["content"][0]["text"]),
    ),
]


def _answered(
    make_module: Callable[..., types.ModuleType],
    helper: Callable[..., Any],
    response: Callable[..., Any],
    args: tuple[Any, ...],
) -> list[Any]:
    """What an async plural helper answers for ``args`` sent to the paired tools, which
    finish only when both have started (so only concurrent calls can answer)."""
    module = make_module(_PAIR)
    box = toolcall.Toolbox(module)

    async def main() -> list[Any]:
        module.started.update(a=asyncio.Event(), b=asyncio.Event())
        result: list[Any] = await asyncio.wait_for(helper(box, response(args)), 30)
        return result

    return asyncio.run(main())


@pytest.mark.parametrize(("helper", "response", "read"), CASES)
def test_async_helpers_run_calls_concurrently_in_order(
    make_module: Callable[..., types.ModuleType],
    helper: Callable[..., Any],
    response: Callable[..., Any],
    read: Callable[[Any], tuple[str, str]],
) -> None:
    """An async plural helper runs a message's calls at once and answers them in order."""
    answered = _answered(make_module, helper, response, _ARGS)
    assert [read(item) for item in answered] == [("c0", "a"), ("c1", "b")]


@pytest.mark.parametrize(("helper", "response", "read"), CASES)
def test_async_helpers_one_failure_leaves_the_rest(
    make_module: Callable[..., types.ModuleType],
    helper: Callable[..., Any],
    response: Callable[..., Any],
    read: Callable[[Any], tuple[str, str]],
) -> None:
    """One call of a message failing is that call's error; the others still answer."""
    args = (_ARGS[0], {"name": "x"}, _ARGS[1])
    answered = [read(item) for item in _answered(make_module, helper, response, args)]
    assert answered[0] == ("c0", "a")
    assert answered[2] == ("c2", "b")
    assert answered[1][0] == "c1"
    assert "other: required argument missing" in answered[1][1]
