"""A user's program that hands toolcall's results to the SDKs type-checks (issue 15.6).

``mypy --strict`` (the venv's) runs over a small program written the way the docs show: the
OpenAI helpers' messages extend a ``list[ChatCompletionMessageParam]``, the Anthropic results
go where the SDK wants ``ToolResultBlockParam``, the Gemini parts where google-genai wants
``PartDict``, with the real SDKs' types. A second program, which puts Anthropic results in an
OpenAI message list, must fail: the results are the SDKs' types, not ``Any``.

mypy's cache is kept between runs (pytest's cache directory): analysing the SDKs' types from
nothing takes most of a minute, and a warm cache gives the same verdict (mypy re-reads any
module whose source changed, the two programs every time).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

import subproc


def _found(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ImportError:  # a missing parent package
        return False


# found, not imported: importing the SDKs would cost every xdist worker seconds at collection
_MISSING = [name for name in ("openai", "anthropic", "google.genai", "mypy") if not _found(name)]
pytestmark = pytest.mark.skipif(bool(_MISSING), reason=f"not installed: {', '.join(_MISSING)}")

USER = """
from typing import Any

import anthropic
from anthropic.types import MessageParam, ToolResultBlockParam
from google.genai import types as genai_types
from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageParam

import toolcall
import toolcall.providers

box = toolcall.Toolbox("examples.weather")


def openai_turn(message: ChatCompletionMessage) -> list[ChatCompletionMessageParam]:
    messages: list[ChatCompletionMessageParam] = []
    messages.extend(toolcall.providers.openai_tool_messages(box, message))
    for call in message.tool_calls or []:
        messages.append(toolcall.providers.openai_tool_message(box, call))
    return messages


def anthropic_turn(message: anthropic.types.Message) -> MessageParam:
    results: list[ToolResultBlockParam] = toolcall.providers.anthropic_tool_results(box, message)
    one: ToolResultBlockParam = toolcall.providers.anthropic_tool_result(box, message.content[0])
    return {"role": "user", "content": [*results, one]}


def gemini_turn(response: genai_types.GenerateContentResponse) -> genai_types.ContentDict:
    parts: list[genai_types.PartDict] = toolcall.providers.gemini_function_responses(box, response)
    return {"role": "user", "parts": parts}


def bedrock_turn(response: dict[str, Any]) -> dict[str, Any]:
    blocks = toolcall.providers.bedrock_tool_results(box, response)
    status: str = blocks[0]["toolResult"]["status"]
    return {"role": "user", "content": blocks, "status": status}
"""

WRONG = """
import anthropic
from openai.types.chat import ChatCompletionMessageParam

import toolcall
import toolcall.providers

box = toolcall.Toolbox("examples.weather")


def mixed_up(message: anthropic.types.Message) -> list[ChatCompletionMessageParam]:
    messages: list[ChatCompletionMessageParam] = []
    messages.extend(toolcall.providers.anthropic_tool_results(box, message))
    return messages
"""


@pytest.mark.once
def test_mypy_strict_accepts_the_sdk_types_and_catches_a_mix_up(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """mypy --strict accepts results handed to the SDKs as the docs show, and refuses one SDK's
    results in another's list."""
    kept = getattr(request.config, "cache", None)  # None under -p no:cacheprovider
    cache = tmp_path / "mypy-cache" if kept is None else kept.mkdir("mypy-typing-user")
    (tmp_path / "user_program.py").write_text(USER)
    (tmp_path / "mixed_up.py").write_text(WRONG)
    out = subproc.python(
        "-m",
        "mypy",
        "--strict",
        "--no-color-output",
        "--cache-dir",
        cache,
        "user_program.py",
        "mixed_up.py",
        cwd=tmp_path,
        timeout=300,
    )
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert not [line for line in errors if line.startswith("user_program.py")], out.stdout
    (mix_up,) = [line for line in errors if line.startswith("mixed_up.py")]
    assert re.search(r'"extend" of "list" has incompatible type', mix_up), mix_up
    assert "ToolResultBlockParam" in mix_up
