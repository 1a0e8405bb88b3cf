"""toolcall.providers against the real OpenAI and Anthropic SDK clients, on a loopback server.

The SDKs serialise requests and parse answers exactly as they would against the provider; the
server (127.0.0.1 only) records each request body and answers the canned, SDK-validated bodies
below, so the tests see what the provider would receive.

The SDKs are imported where they are used, not at the top: importing anthropic, openai and
google-genai takes seconds, which every xdist worker would otherwise pay at collection.
"""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from examples import weather

import subproc
import toolcall
from loopback import Loopback
from toolcall import Err, Ok, ToolError, providers
from toolcall.providers import (
    aanthropic_tool_results,
    anthropic_tool_result,
    anthropic_tool_results,
    aopenai_tool_messages,
    aresponses_outputs,
    openai_tool_message,
    openai_tool_messages,
    responses_output,
    responses_outputs,
    responses_tools,
)

if TYPE_CHECKING:
    import anthropic
    import openai

TIMEOUT = 5.0
OSLO = '{"city":"Oslo","days":5}'
OSLO_RESULT = '{"city":"Oslo","days":5,"temp":21.5}'
BAD_DAYS = '{"error":"days: expected an integer, got \'5\'"}'
UNKNOWN = (
    '{"error":"unknown tool \'get_time\'; available tools: '
    'get_weather, convert_temperature, air_quality"}'
)
NOT_JSON = (
    '{"error":"arguments must be a JSON object; they are not valid JSON '
    '(Expecting value: line 1 column 9 (char 8))"}'
)
USER = {"role": "user", "content": "Weather in Oslo?"}


@pytest.fixture
def server() -> Iterator[Loopback]:
    with Loopback() as srv:
        yield srv
        assert srv.pending == 0, "a canned answer was never requested"


@pytest.fixture
def box() -> toolcall.Toolbox:
    return toolcall.Toolbox(weather)


def _openai(srv: Loopback) -> openai.OpenAI:
    import openai

    return openai.OpenAI(
        api_key="sk-test", base_url=f"{srv.url}/v1", max_retries=0, timeout=TIMEOUT
    )


def _anthropic(srv: Loopback) -> anthropic.Anthropic:
    import anthropic

    return anthropic.Anthropic(api_key="sk-test", base_url=srv.url, max_retries=0, timeout=TIMEOUT)


# Canned answers, in the providers' wire formats.


def _fn_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _chat(tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    else:
        message["content"] = "Done."
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls" if tool_calls else "stop",
                "logprobs": None,
                "message": message,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _tool_use(call_id: str, name: str, input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": input}


def _message(content: list[dict[str, Any]], stop_reason: str = "tool_use") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _function_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": "completed",
    }


def _response(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1700000000,
        "status": "completed",
        "model": "gpt-test",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }


TEXT_OUTPUT = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
}


def test_canned_answers_are_valid_sdk_models():
    """Every canned body validates against the installed SDK's response model."""
    from anthropic.types import Message
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response

    ChatCompletion.model_validate(_chat([_fn_call("call_1", "get_weather", OSLO)]))
    ChatCompletion.model_validate(_chat())
    Message.model_validate(_message([{"type": "text", "text": "Hm."}, _tool_use("t", "f", {})]))
    Response.model_validate(_response([TEXT_OUTPUT, _function_call("call_1", "f", "{}")]))


# (1) the SDKs send emit(...) unmodified.


@pytest.mark.parametrize("strict", [False, True])
def test_openai_sdk_sends_emitted_tools_unmodified(server, strict):
    """chat.completions.create(tools=emit(..., "openai")) puts exactly that list on the wire."""
    tools = toolcall.emit(weather, "openai", strict=strict)
    server.answer(_chat())
    with _openai(server) as client:
        client.chat.completions.create(model="gpt-test", messages=[USER], tools=tools)
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["tools"] == json.loads(json.dumps(tools))
    assert request.body["tools"][0]["function"].get("strict", False) is strict


@pytest.mark.parametrize("strict", [False, True])
def test_anthropic_sdk_sends_emitted_tools_unmodified(server, strict):
    """messages.create(tools=emit(..., "anthropic")) puts exactly that list on the wire."""
    tools = toolcall.emit(weather, "anthropic", strict=strict)
    server.answer(_message([{"type": "text", "text": "Hm."}], "end_turn"))
    with _anthropic(server) as client:
        client.messages.create(model="claude-test", max_tokens=64, messages=[USER], tools=tools)
    (request,) = server.requests
    assert request.path == "/v1/messages"
    assert request.body["tools"] == json.loads(json.dumps(tools))


@pytest.mark.parametrize("strict", [False, True])
def test_responses_sdk_sends_flattened_tools(server, strict):
    """responses_tools(emit(...)) is the flat Responses form, strict always explicit."""
    emitted = toolcall.emit(weather, "openai", strict=strict)
    function = emitted[0]["function"]
    server.answer(_response([TEXT_OUTPUT]))
    with _openai(server) as client:
        client.responses.create(model="gpt-test", input=[USER], tools=responses_tools(emitted))
    (request,) = server.requests
    assert request.path == "/v1/responses"
    assert len(request.body["tools"]) == len(emitted)
    assert request.body["tools"][0] == {
        "type": "function",
        "name": "get_weather",
        "description": "Get the forecast for a city.",
        "parameters": json.loads(json.dumps(function["parameters"])),
        "strict": strict,
    }


def test_responses_tools_passes_other_tools_through():
    """Tools already flat, and non-function tools, are returned unchanged."""
    flat = {"type": "function", "name": "f", "parameters": {}, "strict": True}
    search = {"type": "web_search"}
    assert responses_tools([flat, search]) == [flat, search]


# (2)-(4) round trips: the follow-up request carries the result.


def test_chat_round_trip_carries_tool_results(server, box):
    """Good and bad calls of one message are answered in order, ids kept, errors as JSON."""
    calls = [
        _fn_call("call_1", "get_weather", OSLO),
        _fn_call("call_2", "get_weather", '{"city":"Oslo","days":"5"}'),
        _fn_call("call_3", "get_time", "{}"),
        _fn_call("call_4", "get_weather", '{"city":'),
    ]
    server.answer(_chat(calls))
    server.answer(_chat())
    with _openai(server) as client:
        tools = toolcall.emit(weather, "openai")
        first = client.chat.completions.create(model="gpt-test", messages=[USER], tools=tools)
        message = first.choices[0].message
        results = openai_tool_messages(box, message)
        client.chat.completions.create(
            model="gpt-test", messages=[USER, message, *results], tools=tools
        )
    sent = server.requests[1].body["messages"]
    assert [call["id"] for call in sent[1]["tool_calls"]] == [
        "call_1",
        "call_2",
        "call_3",
        "call_4",
    ]
    assert sent[2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": OSLO_RESULT},
        {"role": "tool", "tool_call_id": "call_2", "content": BAD_DAYS},
        {"role": "tool", "tool_call_id": "call_3", "content": UNKNOWN},
        {"role": "tool", "tool_call_id": "call_4", "content": NOT_JSON},
    ]


def test_chat_async_round_trip_awaits_async_tools(server, box):
    """aopenai_tool_messages awaits an async tool, which the sync helper reports as async_tool."""
    calls = [
        _fn_call("call_1", "air_quality", '{"city":"Oslo"}'),
        _fn_call("call_2", "get_weather", OSLO),
    ]
    server.answer(_chat(calls))
    server.answer(_chat())

    async def main() -> list[Any]:
        import openai

        async with openai.AsyncOpenAI(
            api_key="sk-test", base_url=f"{server.url}/v1", max_retries=0, timeout=TIMEOUT
        ) as client:
            first = await client.chat.completions.create(model="gpt-test", messages=[USER])
            message = first.choices[0].message
            assert openai_tool_message(box, message.tool_calls[0])["content"] == (
                '{"error":"air_quality is an async tool; call it with arun"}'
            )
            results = await aopenai_tool_messages(box, message)
            await client.chat.completions.create(
                model="gpt-test", messages=[USER, message, *results]
            )
        return server.requests[1].body["messages"][2:]

    assert asyncio.run(main()) == [
        {"role": "tool", "tool_call_id": "call_1", "content": '{"city":"Oslo","aqi":17}'},
        {"role": "tool", "tool_call_id": "call_2", "content": OSLO_RESULT},
    ]


def test_anthropic_round_trip_carries_tool_results(server, box):
    """tool_use blocks get tool_result blocks with their ids; failures set is_error."""
    content = [
        {"type": "text", "text": "Checking."},
        _tool_use("toolu_1", "get_weather", {"city": "Oslo", "days": 5}),
        _tool_use("toolu_2", "get_weather", {"city": "Oslo", "days": "5"}),
        _tool_use("toolu_3", "get_time", {}),
    ]
    server.answer(_message(content))
    server.answer(_message([{"type": "text", "text": "Sunny."}], "end_turn"))
    with _anthropic(server) as client:
        tools = toolcall.emit(weather, "anthropic")
        first = client.messages.create(
            model="claude-test", max_tokens=64, messages=[USER], tools=tools
        )
        results = anthropic_tool_results(box, first)
        client.messages.create(
            model="claude-test",
            max_tokens=64,
            messages=[
                USER,
                {"role": "assistant", "content": first.content},
                {"role": "user", "content": results},
            ],
            tools=tools,
        )
    sent = server.requests[1].body["messages"]
    assert sent[1]["content"][1]["id"] == "toolu_1"
    assert sent[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": OSLO_RESULT},
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": BAD_DAYS,
                "is_error": True,
            },
            {"type": "tool_result", "tool_use_id": "toolu_3", "content": UNKNOWN, "is_error": True},
        ],
    }


def test_anthropic_async_round_trip(server, box):
    """aanthropic_tool_results awaits async tools and answers every tool_use block."""
    content = [
        _tool_use("toolu_1", "air_quality", {"city": "Oslo"}),
        _tool_use("toolu_2", "air_quality", {"city": 5}),
    ]
    server.answer(_message(content))
    server.answer(_message([{"type": "text", "text": "Fine."}], "end_turn"))

    async def main() -> Any:
        import anthropic

        async with anthropic.AsyncAnthropic(
            api_key="sk-test", base_url=server.url, max_retries=0, timeout=TIMEOUT
        ) as client:
            first = await client.messages.create(
                model="claude-test", max_tokens=64, messages=[USER]
            )
            results = await aanthropic_tool_results(box, first.content)
            await client.messages.create(
                model="claude-test",
                max_tokens=64,
                messages=[
                    USER,
                    {"role": "assistant", "content": first.content},
                    {"role": "user", "content": results},
                ],
            )
        return server.requests[1].body["messages"][2]["content"]

    assert asyncio.run(main()) == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": '{"city":"Oslo","aqi":17}'},
        {
            "type": "tool_result",
            "tool_use_id": "toolu_2",
            "content": '{"error":"city: expected a string, got 5"}',
            "is_error": True,
        },
    ]


def test_responses_round_trip_carries_outputs(server, box):
    """function_call items get function_call_output items with their call_id, errors as JSON."""
    output = [
        TEXT_OUTPUT,
        _function_call("call_1", "get_weather", OSLO),
        _function_call("call_2", "get_weather", '{"city":"Oslo","days":"5"}'),
        _function_call("call_3", "get_time", "{}"),
    ]
    server.answer(_response(output))
    server.answer(_response([TEXT_OUTPUT]))
    with _openai(server) as client:
        tools = responses_tools(toolcall.emit(weather, "openai"))
        first = client.responses.create(model="gpt-test", input=[USER], tools=tools)
        results = responses_outputs(box, first)
        client.responses.create(
            model="gpt-test", input=[USER, *first.output, *results], tools=tools
        )
    sent = server.requests[1].body["input"]
    assert [item.get("call_id") for item in sent[2:5]] == ["call_1", "call_2", "call_3"]
    assert sent[5:] == [
        {"type": "function_call_output", "call_id": "call_1", "output": OSLO_RESULT},
        {"type": "function_call_output", "call_id": "call_2", "output": BAD_DAYS},
        {"type": "function_call_output", "call_id": "call_3", "output": UNKNOWN},
    ]


def test_responses_async_round_trip(server, box):
    """aresponses_outputs awaits async tools and skips output items that are not calls."""
    server.answer(_response([TEXT_OUTPUT, _function_call("call_1", "air_quality", "")]))
    server.answer(_response([TEXT_OUTPUT]))

    async def main() -> Any:
        import openai

        async with openai.AsyncOpenAI(
            api_key="sk-test", base_url=f"{server.url}/v1", max_retries=0, timeout=TIMEOUT
        ) as client:
            first = await client.responses.create(model="gpt-test", input=[USER])
            results = await aresponses_outputs(box, first.output)
            await client.responses.create(model="gpt-test", input=[USER, *first.output, *results])
        return server.requests[1].body["input"][3:]

    assert asyncio.run(main()) == [
        {
            "type": "function_call_output",
            "call_id": "call_1",
            "output": '{"error":"city: required argument missing"}',
        }
    ]


# Decoding and encoding, without the network.


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (
            "{",
            "arguments must be a JSON object; they are not valid JSON "
            "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1))",
        ),
        ("NaN", "arguments must be a JSON object, got float"),
        (
            "[" * 100_000 + "]" * 100_000,
            "arguments must be a JSON object; they are not valid JSON (nested too deeply)",
        ),
        ('{"city": "\ud800"}', "city: expected valid UTF-8 text, got '\\ud800'"),
        (
            b'{"city": "\xff"}',
            "arguments must be a JSON object; they are not valid JSON ('utf-8' codec can't "
            "decode byte 0xff in position 10: invalid start byte)",
        ),
    ],
)
def test_undecodable_arguments_answer_as_run_answers_the_text(box, arguments, error):
    """The arguments' text is handed to ``run``, whose decoder phrases what is wrong with it
    (``json.loads`` reads ``NaN``; a lone surrogate is the argument's error): an error
    result, never an exception."""
    content = json.loads(
        openai_tool_message(box, _fn_call("c", "get_weather", arguments))["content"]
    )
    assert content["error"] == error
    assert content == {"error": box.run("get_weather", arguments).error.message}


def test_blank_arguments_mean_no_arguments(box):
    """Blank arguments are {}: the tool's own missing-argument error, not a JSON error."""
    message = openai_tool_message(box, _fn_call("c", "get_weather", "  "))
    assert message["content"] == '{"error":"city: required argument missing"}'


def test_decoded_arguments_are_passed_through(box):
    """Arguments a server sent already decoded reach the tool as they are."""
    item = {"type": "function_call", "call_id": "c", "name": "get_weather", "arguments": {}}
    assert responses_output(box, item)["output"] == '{"error":"city: required argument missing"}'


class _Fixed:
    """A runner that answers every call with one result."""

    def __init__(self, result: Ok[Any] | Err) -> None:
        self.result = result
        self.calls: list[tuple[str, Any]] = []

    def run(self, name: str, args: Any) -> Ok[Any] | Err:
        self.calls.append((name, args))
        return self.result


def test_unencodable_result_answers_raised_and_logs(caplog):
    """A result JSON cannot carry is the tool's bug: a raised error result, logged at ERROR."""
    runner = _Fixed(Ok(object()))
    with caplog.at_level(logging.ERROR, logger="toolcall"):
        block = anthropic_tool_result(runner, _tool_use("t", "opaque", {"x": 1}))
    assert runner.calls == [("opaque", {"x": 1})]
    assert block == {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": '{"error":"the tool failed: TypeError: cannot encode a object as JSON; '
        "return plain data, a dataclass, a pydantic model or toolcall.Image/Audio/File from the "
        'tool"}',
        "is_error": True,
    }
    assert [r.getMessage() for r in caplog.records] == [
        "the result of tool opaque cannot be encoded as JSON"
    ]


def test_error_message_with_lone_surrogate_is_encodable():
    """An error message JSON cannot carry as is is escaped, not allowed to raise."""
    runner = _Fixed(Err(ToolError("raised", "the tool failed: ValueError: \ud800")))
    message = openai_tool_message(runner, _fn_call("c", "f", "{}"))
    assert message["content"] == '{"error":"the tool failed: ValueError: \\\\ud800"}'


def test_plural_helpers_answer_only_function_calls(box):
    """Custom tool calls, text and server tool blocks are left alone; no calls, no results."""
    custom = {"id": "c0", "type": "custom", "custom": {"name": "grep", "input": "x"}}
    message = {"role": "assistant", "tool_calls": [custom, _fn_call("c1", "get_weather", OSLO)]}
    assert openai_tool_messages(box, message) == [
        {"role": "tool", "tool_call_id": "c1", "content": OSLO_RESULT}
    ]
    assert openai_tool_messages(box, {"role": "assistant", "content": "Hi."}) == []
    content = [
        {"type": "text", "text": "x"},
        {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}},
        _tool_use("t", "get_weather", {"city": "Oslo", "days": 5}),
    ]
    assert anthropic_tool_results(box, {"role": "assistant", "content": content}) == [
        {"type": "tool_result", "tool_use_id": "t", "content": OSLO_RESULT}
    ]
    assert anthropic_tool_results(box, {"role": "assistant", "content": "Hi."}) == []


def test_wrong_objects_raise_type_error(box):
    """Handing a helper the wrong object is the program's mistake and raises TypeError."""
    from openai.types.chat import ChatCompletion

    completion = ChatCompletion.model_validate(_chat([_fn_call("c", "get_weather", OSLO)]))
    with pytest.raises(TypeError, match="an assistant message with a 'tool_calls' field"):
        openai_tool_messages(box, completion)
    with pytest.raises(TypeError, match="an OpenAI tool call with a 'function' field, got dict"):
        openai_tool_message(box, {"id": "c"})
    with pytest.raises(TypeError, match="type 'function'\\), got type 'custom'"):
        openai_tool_message(box, {"id": "c", "type": "custom", "custom": {}})
    with pytest.raises(TypeError, match="type 'tool_use'\\), got type 'text'"):
        anthropic_tool_result(box, {"type": "text", "text": "x"})


class _Recorder:
    """An async runner that records each call and answers with the sync Toolbox's result."""

    def __init__(self, box: toolcall.Toolbox) -> None:
        self.box = box
        self.calls: list[tuple[str, Any]] = []

    async def arun(self, name: str, args: Any) -> Ok[Any] | Err:
        self.calls.append((name, args))
        return self.box.run(name, args)


BEDROCK_OSLO = {"toolUse": {"toolUseId": "b", "name": "get_weather", "input": {"city": "Oslo"}}}
GEMINI_OSLO = {"function_call": {"id": "g", "name": "get_weather", "args": {"city": "Oslo"}}}


@pytest.mark.parametrize(
    ("sync", "async_", "item"),
    [
        ("openai_tool_message", "aopenai_tool_message", _fn_call("c", "get_weather", OSLO)),
        ("openai_tool_message", "aopenai_tool_message", _fn_call("c", "get_weather", "{")),
        ("openai_tool_message", "aopenai_tool_message", _fn_call("c", "get_time", "{}")),
        (
            "responses_output",
            "aresponses_output",
            {"type": "function_call", "call_id": "c", "name": "get_weather", "arguments": OSLO},
        ),
        ("anthropic_tool_result", "aanthropic_tool_result", _tool_use("t", "get_weather", {})),
        ("gemini_function_responses", "agemini_function_responses", [GEMINI_OSLO]),
        ("bedrock_tool_results", "abedrock_tool_results", [BEDROCK_OSLO]),
    ],
)
def test_async_helpers_answer_as_the_sync_ones(box, sync, async_, item):
    """An ``a``-prefixed helper gives what its sync twin gives, refusals included."""
    expected = getattr(providers, sync)(box, item)
    assert asyncio.run(getattr(providers, async_)(_Recorder(box), item)) == expected


@pytest.mark.parametrize(
    ("helper", "calls"),
    [
        ("aopenai_tool_messages", [_fn_call("c", "get_weather", OSLO), {"id": "d"}]),
        ("aanthropic_tool_results", [_tool_use("t", "get_weather", {}), {"type": "tool_use"}]),
        ("abedrock_tool_results", [BEDROCK_OSLO, {"toolUse": {"name": "get_weather"}}]),
    ],
)
def test_a_malformed_call_raises_before_any_call_runs(box, helper, calls):
    """The async helpers read every call before running one: a wrong object starts nothing."""
    runner = _Recorder(box)
    with pytest.raises(TypeError):
        asyncio.run(getattr(providers, helper)(runner, calls))
    assert runner.calls == []


def test_module_imports_without_the_sdks():
    """toolcall.providers needs neither openai, anthropic nor pydantic to import."""
    code = (
        "import sys\n"
        "for name in ('openai', 'anthropic', 'pydantic'):\n"
        "    sys.modules[name] = None\n"
        "import toolcall.providers\n"
    )
    subproc.python("-c", code, check=True, timeout=30)


def test_loopback_stops_when_the_block_ends():
    """The test server refuses connections once its block has ended."""
    with Loopback() as srv:
        url = srv.url
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=1)


# -- Gemini and Bedrock (issue 12.8) -----------------------------------------------------

from toolcall.providers import (  # noqa: E402
    bedrock_tool_results,
    gemini_function_responses,
)


@pytest.mark.parametrize("strict", [False, True])
def test_gemini_declarations_keep_the_schema(strict: bool) -> None:
    """google-genai's FunctionDeclaration validates every emitted tool and keeps the schema."""
    from google.genai import types as genai_types

    for module in ("examples.weather", "examples.orders"):
        for tool in toolcall.emit(module, "gemini", strict=strict):
            declared = genai_types.FunctionDeclaration.model_validate(dict(tool))
            assert declared.name == tool["name"]
            assert declared.parameters_json_schema == json.loads(
                json.dumps(tool["parametersJsonSchema"])
            )
            assert declared.parameters is None  # the OpenAPI subset is not used


def _bedrock_client() -> Any:
    import boto3

    return boto3.client(
        "bedrock-runtime",
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )


CONVERSE_ANSWER = {
    "output": {"message": {"role": "assistant", "content": [{"text": "done"}]}},
    "stopReason": "end_turn",
    "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
    "metrics": {"latencyMs": 1},
}


@pytest.mark.parametrize("strict", [False, True])
def test_bedrock_tool_config_passes_converse_validation(strict: bool) -> None:
    """botocore validates the Converse request (toolConfig and a toolResult turn) against its
    service model before sending: a stubbed client, no network."""
    from botocore.stub import Stubber

    tools = [dict(tool) for tool in toolcall.Toolbox("examples.weather").emit("bedrock", strict)]
    assert tools[0]["toolSpec"]["inputSchema"]["json"]["type"] == "object"
    call = {
        "role": "assistant",
        "content": [
            {"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {"city": "Oslo"}}},
            {"toolUse": {"toolUseId": "t2", "name": "get_weather", "input": {"days": 2}}},
        ],
    }
    results = bedrock_tool_results(
        toolcall.Toolbox("examples.weather"), {"output": {"message": call}}
    )
    assert [r["toolResult"]["status"] for r in results] == ["success", "error"]
    assert json.loads(results[0]["toolResult"]["content"][0]["text"])["city"] == "Oslo"
    client = _bedrock_client()
    with Stubber(client) as stub:
        stub.add_response("converse", CONVERSE_ANSWER)
        answer = client.converse(
            modelId="anthropic.claude",
            messages=[
                {"role": "user", "content": [{"text": "weather?"}]},
                call,
                {"role": "user", "content": results},
            ],
            toolConfig={"tools": tools},
        )
        stub.assert_no_pending_responses()
    assert answer["stopReason"] == "end_turn"


def test_gemini_function_responses_answer_each_call() -> None:
    """Function calls of a GenerateContentResponse become function_response parts google-genai
    accepts: the value as JSON under "output", a failure under "error"."""
    from google.genai import types as genai_types

    response = genai_types.GenerateContentResponse.model_validate(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {
                                "function_call": {
                                    "id": "c1",
                                    "name": "get_weather",
                                    "args": {"city": "Oslo"},
                                }
                            },
                            {
                                "function_call": {
                                    "id": "c2",
                                    "name": "get_weather",
                                    "args": {"days": 1.5},
                                }
                            },
                        ],
                    }
                }
            ]
        }
    )
    parts = gemini_function_responses(toolcall.Toolbox("examples.weather"), response)
    content = genai_types.Content(
        role="user", parts=[genai_types.Part.model_validate(p) for p in parts]
    )
    first, second = (part.function_response for part in content.parts or [])
    assert first is not None
    assert second is not None
    assert (first.id, first.name, first.response) == (
        "c1",
        "get_weather",
        {"output": {"city": "Oslo", "days": 3, "temp": 21.5}},
    )
    assert second.response == {"error": "city: required argument missing"}


def test_every_format_is_in_the_one_list() -> None:
    """FORMATS drives emit, render, Toolbox and the CLI's choices."""
    from toolcall._shared.names import FORMATS

    assert FORMATS == ("openai", "anthropic", "mcp", "gemini", "bedrock")
    (tool,) = [t for t in toolcall.emit("examples.weather", "gemini") if t["name"] == "get_weather"]
    derived = toolcall.derive(weather.get_weather)
    assert toolcall.render(derived, "gemini") == json.loads(json.dumps(tool))
    assert toolcall.render(derived, "bedrock") == {
        "toolSpec": {
            "name": "get_weather",
            "description": tool["description"],
            "inputSchema": {"json": tool["parametersJsonSchema"]},
        }
    }
    root = str(Path(__file__).resolve().parents[2])
    out = subproc.python(
        "-m", "toolcall.cli.main", "export", "examples.weather", "--format", "bedrock", paths=[root]
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)[0]["toolSpec"]["name"] == "get_weather"
