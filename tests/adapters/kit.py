"""The tool module every adapter test runs, and canned Chat Completions answers.

``TOOLS`` is written as a module per test (``make_module``) with one extra tool taking the
framework's context: ``whoami``. Each adapter test sends the same calls through the
framework's own execution path: good arguments, bad ones, a raising tool, a
``toolcall.ToolRetry``, a timeout.
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable
from typing import Any

import pytest

TOOLS = """
__toolcall__ = True
import asyncio
from typing import Annotated
import toolcall
{imports}

gate = asyncio.Event


@toolcall.tool(title="Weather", annotations={{"readOnlyHint": True, "openWorldHint": False}})
def get_weather(city: str, days: Annotated[int, toolcall.Param(description="1-7")] = 3) -> dict:
    \"\"\"Get the forecast for a city.

    Args:
        city: city name, e.g. "Oslo"
    \"\"\"
    return {{"city": city, "days": days, "temp": 21.5}}


def fail(reason: str) -> str:
    \"\"\"Always raises.\"\"\"
    raise ValueError(reason)


def capital(city: str) -> str:
    \"\"\"Only capitals.\"\"\"
    raise toolcall.ToolRetry(f"{{city}} is not a capital; call again with a capital")


async def hang() -> str:
    \"\"\"Never answers.\"\"\"
    await asyncio.Event().wait()
    return "never"


def whoami({context}, greeting: str) -> str:
    \"\"\"Says who is asking.\"\"\"
    return f"{{greeting}}, {{{who}}}"
"""

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_weather", {"city": "Oslo", "days": 2}),
    ("get_weather", {"city": "Oslo", "days": 1.5}),
    ("fail", {"reason": "boom"}),
    ("capital", {"city": "Bergen"}),
    ("hang", {}),
]
"""The calls each adapter runs, and below what the model reads back (``ERRORS``)."""

TIMEOUT = 1.0
"""Every call's limit: only ``hang`` waits it out, and a plain tool's first call in a worker
thread on a loaded 2-core machine must fit well within it."""
ERRORS = [
    "days: expected an integer, got 1.5",
    "the tool failed: ValueError: boom",
    "Bergen is not a capital; call again with a capital",
    f"the tool did not finish within {TIMEOUT:g} seconds",
]


def tool_module(*, imports: str, context: str, who: str) -> Any:
    """The ``module`` fixture of one adapter's tests: ``TOOLS`` with ``whoami`` taking the
    framework's own context parameter (``context``, imported by ``imports``), so that each
    framework is shown to inject it while toolcall leaves it out of the schema."""

    @pytest.fixture
    def module(make_module: Callable[..., types.ModuleType]) -> types.ModuleType:
        return make_module(TOOLS.format(imports=imports, context=context, who=who))

    return module


def chat_completion(calls: list[tuple[str, dict[str, Any]]] | None, text: str = "") -> Any:
    """A Chat Completions answer: these tool calls (ids ``call_0`` ...), or ``text``."""
    message: dict[str, Any] = {"role": "assistant", "content": None if calls else text}
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for i, (name, args) in enumerate(calls)
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-4.1",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls" if calls else "stop",
                "message": message,
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def plain(definition: Any) -> Any:
    """A frozen emitted definition as plain dicts and lists, to compare with JSON."""
    return json.loads(json.dumps(definition))
