"""Every result kind on every provider's result message: a ``str`` as itself, data as JSON,
media in the provider's native form (else its documented text line), each message checked
against the SDK's own typed request model (botocore's service model for Bedrock)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import fastmcp.utilities.types as fastmcp_types
import mcp.types as mcp_types
import pytest

import pydantic
import toolcall
from converse import converse
from results import (
    PDF,
    PDF64,
    PNG,
    PNG64,
    WAV,
    greet,
    mixed,
    quote,
    quotes,
    report,
    shot,
    speech,
)
from toolcall import providers


def sdk_image() -> mcp_types.ImageContent:
    """The MCP SDK's own image block."""
    return mcp_types.ImageContent(type="image", data=PNG64, mime_type="image/png")


def fastmcp_image() -> fastmcp_types.Image:
    """FastMCP's Image helper."""
    return fastmcp_types.Image(data=PNG, format="png")


BOX = toolcall.Toolbox(greet, quote, quotes, shot, report, speech, mixed, sdk_image, fastmcp_image)
ARGS: dict[str, dict[str, Any]] = {"greet": {"city": "Oslo"}, "quote": {"symbol": "X"}}
NAMES = ["greet", "quote", "quotes", "shot", "report", "speech", "mixed", "sdk_image"]
NAMES.append("fastmcp_image")


def plain(value: Any) -> Any:
    """A validated value with every lazily validated iterable drawn (so each item is
    checked), as plain dicts and lists."""
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, Iterable | Iterator) and not isinstance(value, str | bytes):
        return [plain(item) for item in value]
    return value


def validated(cls: Any, message: Any) -> None:
    """The SDK's typed model accepts the message, every key kept (none ignored)."""
    assert plain(pydantic.TypeAdapter(cls).validate_python(message)) == message


# -- OpenAI Chat Completions: text only -----------------------------------------------


def _chat(name: str) -> Any:
    call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}
    call["function"]["arguments"] = json.dumps(ARGS.get(name, {}))
    return providers.openai_tool_message(BOX, call)


CHAT_TEXT = {
    "greet": 'Hello, "Oslo"!\nBye.',
    "quote": '{"symbol":"X","lastPrice":1.5}',
    "quotes": '[{"symbol":"A","lastPrice":1.0}]',
    "shot": "[image: image/png, 16 bytes; Chat Completions tool results cannot carry it]",
    "report": (
        "[file 'report.pdf': application/pdf, 15 bytes; Chat Completions tool results "
        "cannot carry it]"
    ),
    "speech": "[audio: audio/wav, 16 bytes; Chat Completions tool results cannot carry it]",
    "mixed": "the chart:\n"
    "[image: image/png, 16 bytes; Chat Completions tool results cannot carry it]\n"
    "[file 't.csv': text/csv, 4 bytes; Chat Completions tool results cannot carry it]",
}


@pytest.mark.parametrize("name", NAMES)
def test_chat_completions_tool_message(name: str) -> None:
    from openai.types.chat import ChatCompletionToolMessageParam

    message = _chat(name)
    validated(ChatCompletionToolMessageParam, message)
    if name in CHAT_TEXT:
        assert message == {"role": "tool", "tool_call_id": "c1", "content": CHAT_TEXT[name]}
    else:  # the MCP SDK's and FastMCP's images read as toolcall's
        assert message["content"] == CHAT_TEXT["shot"]


# -- OpenAI Responses: input_image / input_file ---------------------------------------

IMAGE_URL = f"data:image/png;base64,{PNG64}"
RESPONSES = {
    "greet": 'Hello, "Oslo"!\nBye.',
    "quote": '{"symbol":"X","lastPrice":1.5}',
    "shot": [{"type": "input_image", "image_url": IMAGE_URL}],
    "report": [
        {
            "type": "input_file",
            "file_data": f"data:application/pdf;base64,{PDF64}",
            "filename": "report.pdf",
        }
    ],
    "speech": [
        {
            "type": "input_text",
            "text": "[audio: audio/wav, 16 bytes; Responses tool results cannot carry it]",
        }
    ],
    "mixed": [
        {"type": "input_text", "text": "the chart:"},
        {"type": "input_image", "image_url": IMAGE_URL},
        {"type": "input_file", "file_data": "data:text/csv;base64,YSxiCg==", "filename": "t.csv"},
    ],
    "sdk_image": [{"type": "input_image", "image_url": IMAGE_URL}],
    "fastmcp_image": [{"type": "input_image", "image_url": IMAGE_URL}],
}


@pytest.mark.parametrize("name", NAMES)
def test_responses_function_call_output(name: str) -> None:
    from openai.types.responses.response_input_param import FunctionCallOutput

    item = {"type": "function_call", "call_id": "c1", "name": name}
    item["arguments"] = json.dumps(ARGS.get(name, {}))
    output = providers.responses_output(BOX, item)
    validated(FunctionCallOutput, output)
    assert output["type"] == "function_call_output"
    if name in RESPONSES:
        assert output["output"] == RESPONSES[name]


# -- Anthropic: image and document blocks ---------------------------------------------

IMAGE_BLOCK = {
    "type": "image",
    "source": {"type": "base64", "media_type": "image/png", "data": PNG64},
}
ANTHROPIC = {
    "greet": 'Hello, "Oslo"!\nBye.',
    "quote": '{"symbol":"X","lastPrice":1.5}',
    "shot": [IMAGE_BLOCK],
    "report": [
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF64},
            "title": "report.pdf",
        }
    ],
    "speech": [
        {
            "type": "text",
            "text": "[audio: audio/wav, 16 bytes; Anthropic tool results cannot carry it]",
        }
    ],
    "mixed": [
        {"type": "text", "text": "the chart:"},
        IMAGE_BLOCK,
        {
            "type": "document",
            "source": {"type": "text", "media_type": "text/plain", "data": "a,b\n"},
            "title": "t.csv",
        },
    ],
    "sdk_image": [IMAGE_BLOCK],
    "fastmcp_image": [IMAGE_BLOCK],
}


@pytest.mark.parametrize("name", NAMES)
def test_anthropic_tool_result(name: str) -> None:
    from anthropic.types import ToolResultBlockParam

    use = {"type": "tool_use", "id": "t1", "name": name, "input": ARGS.get(name, {})}
    block = providers.anthropic_tool_result(BOX, use)
    validated(ToolResultBlockParam, block)
    assert (block["type"], block["tool_use_id"], "is_error" in block) == (
        "tool_result",
        "t1",
        False,
    )
    if name in ANTHROPIC:
        assert block["content"] == ANTHROPIC[name]


# -- Gemini: the value under output, media as inline data -----------------------------


@pytest.mark.parametrize("name", NAMES)
def test_gemini_function_response(name: str) -> None:
    from google.genai import types as genai_types

    call = {"function_call": {"id": "g1", "name": name, "args": ARGS.get(name, {})}}
    part = providers.gemini_function_response(BOX, call)
    answered = genai_types.Part.model_validate(part).function_response
    assert answered is not None
    assert (answered.id, answered.name) == ("g1", name)
    if name == "greet":
        assert answered.response == {"output": 'Hello, "Oslo"!\nBye.'}
    elif name == "quote":
        assert answered.response == {"output": {"symbol": "X", "lastPrice": 1.5}}
    elif name == "mixed":
        assert answered.response == {"output": "the chart:"}
        assert [(p.inline_data.mime_type, p.inline_data.data) for p in answered.parts or []] == [
            ("image/png", PNG),
            ("text/csv", b"a,b\n"),
        ]
    elif name in ("shot", "sdk_image", "fastmcp_image", "speech", "report"):
        (media,) = answered.parts or []
        assert media.inline_data is not None
        assert media.inline_data.data in (PNG, WAV, PDF)


# -- Bedrock Converse: image and document blocks, through botocore's validation -------

BEDROCK = {
    "greet": [{"text": 'Hello, "Oslo"!\nBye.'}],
    "quote": [{"text": '{"symbol":"X","lastPrice":1.5}'}],
    "quotes": [{"text": '[{"symbol":"A","lastPrice":1.0}]'}],
    "shot": [{"image": {"format": "png", "source": {"bytes": PNG}}}],
    "report": [{"document": {"format": "pdf", "name": "report", "source": {"bytes": PDF}}}],
    "speech": [{"text": "[audio: audio/wav, 16 bytes; Bedrock tool results cannot carry it]"}],
    "mixed": [
        {"text": "the chart:"},
        {"image": {"format": "png", "source": {"bytes": PNG}}},
        {"document": {"format": "csv", "name": "t", "source": {"bytes": b"a,b\n"}}},
    ],
}


def test_bedrock_tool_results_pass_converse_validation() -> None:
    uses = [
        {"toolUse": {"toolUseId": f"b{i}", "name": name, "input": ARGS.get(name, {})}}
        for i, name in enumerate(NAMES)
    ]
    results = providers.bedrock_tool_results(BOX, {"content": uses})
    for name, result in zip(NAMES, results, strict=True):
        assert result["toolResult"]["status"] == "success"
        expected = BEDROCK.get(name, BEDROCK["shot"])
        assert result["toolResult"]["content"] == expected, name
    converse(
        messages=[
            {"role": "user", "content": [{"text": "go"}]},
            {"role": "assistant", "content": uses},
            {"role": "user", "content": results},
        ],
    )


# -- the adapters: each framework's own media value -----------------------------------


def test_pydantic_ai_gets_binary_content() -> None:
    from pydantic_ai import BinaryContent

    from toolcall.adapters.pydantic_ai import toolset

    tools = toolset(BOX)

    def run(name: str) -> Any:
        call = tools.call_tool(name, ARGS.get(name, {}), None, None)  # type: ignore[arg-type]
        return asyncio.run(call)

    assert run("greet") == 'Hello, "Oslo"!\nBye.'
    assert run("quote") == '{"symbol":"X","lastPrice":1.5}'
    assert run("shot") == BinaryContent(data=PNG, media_type="image/png")
    assert run("mixed") == [
        "the chart:",
        BinaryContent(data=PNG, media_type="image/png"),
        BinaryContent(data=b"a,b\n", media_type="text/csv"),
    ]


def test_openai_agents_get_tool_outputs() -> None:
    from agents import ToolOutputFileContent, ToolOutputImage, ToolOutputText

    from toolcall.adapters.openai_agents import tools

    by_name = {tool.name: tool for tool in tools(BOX)}

    def run(name: str) -> Any:
        invoke = by_name[name].on_invoke_tool
        return asyncio.run(invoke(None, json.dumps(ARGS.get(name, {}))))  # type: ignore[arg-type]

    assert run("greet") == 'Hello, "Oslo"!\nBye.'
    assert run("mixed") == [
        ToolOutputText(text="the chart:"),
        ToolOutputImage(image_url=IMAGE_URL),
        ToolOutputFileContent(file_data="data:text/csv;base64,YSxiCg==", filename="t.csv"),
    ]


def test_langchain_gets_standard_content_blocks() -> None:
    from toolcall.adapters.langchain import tools

    by_name = {tool.name: tool for tool in tools(BOX)}

    def run(name: str) -> Any:
        call = {"type": "tool_call", "id": "l1", "name": name, "args": ARGS.get(name, {})}
        return by_name[name].invoke(call).content

    assert run("greet") == 'Hello, "Oslo"!\nBye.'
    assert run("mixed") == [
        {"type": "text", "text": "the chart:"},
        {"type": "image", "base64": PNG64, "mime_type": "image/png"},
        {"type": "file", "base64": "YSxiCg==", "mime_type": "text/csv", "filename": "t.csv"},
    ]


def test_fastmcp_gets_content_blocks() -> None:
    from fastmcp import Client, FastMCP

    from toolcall.adapters.fastmcp import register

    server = FastMCP("rich")
    register(server, BOX)

    async def main() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool(name, ARGS.get(name, {})) for name in ("greet", "mixed")]

    greeted, mixed_result = asyncio.run(main())
    assert [block.text for block in greeted.content] == ['Hello, "Oslo"!\nBye.']
    assert [block.type for block in mixed_result.content] == ["text", "image", "resource"]
    assert mixed_result.content[1].data == PNG64
