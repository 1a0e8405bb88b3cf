"""Tool search in each provider's own shapes, validated by the installed SDKs' typed request
models (pydantic over their TypedDicts, extra keys refused, so a misspelt field fails):
Anthropic's deferred tools with its BM25 or regex tool search tool or toolcall's
``search_tools`` answered with ``tool_reference`` blocks; OpenAI Responses' deferred functions,
namespaces and ``tool_search`` (hosted, or client-executed and answered with
``tool_search_output``); and everywhere else pinned tools plus ``search_tools``, whose
answers carry the found tools' definitions.

The SDKs are imported where they are used (each takes seconds to import).
"""

from __future__ import annotations

import asyncio
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import subproc
import toolcall
from converse import converse
from toolcall.providers import (
    aanthropic_tool_results,
    anthropic_tool_result,
    anthropic_tool_results,
    gemini_function_responses,
    openai_tool_messages,
    responses_outputs,
    responses_tool_search_output,
    responses_tool_search_outputs,
)

CATALOG = ("examples.weather", "examples.orders")
USER = {"role": "user", "content": "Cancel order A1, then the weather in Oslo."}


def _search(**options: Any) -> toolcall.ToolSearch:
    return toolcall.ToolSearch(toolcall.Toolbox(*CATALOG), pinned=["get_weather"], k=2, **options)


@cache
def _adapter(kind: str) -> Any:
    """A pydantic validator of an SDK's request TypedDict that refuses unknown keys."""
    import pydantic

    if kind == "anthropic":
        from anthropic.types.message_create_params import MessageCreateParamsNonStreaming as T
    elif kind == "responses":
        from openai.types.responses.response_create_params import (
            ResponseCreateParamsNonStreaming as T,
        )
    else:
        from openai.types.chat.completion_create_params import (
            CompletionCreateParamsNonStreaming as T,
        )
    # in a list: pydantic takes a config for a TypedDict only inside another type
    return pydantic.TypeAdapter(list[T], config=pydantic.ConfigDict(extra="forbid"))


def _valid(kind: str, request: dict[str, Any]) -> None:
    _consume(_adapter(kind).validate_python([json.loads(json.dumps(request))]))


def _consume(value: Any) -> None:
    """pydantic checks a field typed ``Iterable[...]`` (the SDKs' tool lists, content
    blocks, a namespace's tools) only as it is iterated: iterate every one."""
    if isinstance(value, dict):
        value = value.values()
    elif type(value).__name__ != "ValidatorIterator" and not isinstance(value, list | tuple):
        return
    for item in value:
        _consume(item)


def test_the_validators_refuse_a_misspelt_field():
    """The check is real: a misspelt defer_loading fails each SDK's request model."""
    import pydantic

    anthropic_tool = {"name": "f", "input_schema": {"type": "object"}, "defer_load": True}
    with pytest.raises(pydantic.ValidationError):
        _valid(
            "anthropic",
            {"model": "m", "max_tokens": 1, "messages": [USER], "tools": [anthropic_tool]},
        )
    reference = {"type": "tool_reference", "tool_nam": "f"}
    result = {"type": "tool_result", "tool_use_id": "t", "content": [reference]}
    with pytest.raises(pydantic.ValidationError):
        _valid(
            "anthropic",
            {"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [result]}]},
        )
    responses_tool = {"type": "function", "name": "f", "parameters": {}, "strict": False}
    with pytest.raises(pydantic.ValidationError):
        _valid(
            "responses",
            {"model": "m", "input": [USER], "tools": [{**responses_tool, "defer_load": True}]},
        )


# -- Anthropic --------------------------------------------------------------------------------


@pytest.mark.parametrize("defer", ["server", "regex", "client"])
@pytest.mark.parametrize("strict", [False, True])
def test_anthropic_deferred_forms_pass_the_sdk_request_model(defer, strict):
    """The whole catalog is sent: pinned tools as they are, the search tool, then every other
    tool with defer_loading; the Messages request model accepts it."""
    search = _search(defer=defer)
    tools = search.emit("anthropic", strict)
    _valid("anthropic", {"model": "m", "max_tokens": 64, "messages": [USER], "tools": tools})
    catalog = toolcall.Toolbox(*CATALOG).emit("anthropic", strict)
    assert tools[0] == catalog[0]  # get_weather, pinned, not deferred
    expected_search = {
        "server": {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
        "regex": {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
        "client": toolcall.ToolSearch(search.box).emit("anthropic", strict)[0],
    }[defer]
    assert tools[1] == expected_search
    assert tools[2:] == [{**tool, "defer_loading": True} for tool in catalog[1:]]


def _tool_use(block_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": block_id, "name": name, "input": args}


def test_anthropic_client_search_answers_with_tool_references():
    """With defer="client", search_tools is answered with one tool_reference per tool found
    (which loads the deferred tool), other calls as always; the follow-up request passes
    the SDK's model, with the SDK's own Message parsed from the wire shape."""
    from anthropic.types import Message

    search = _search(defer="client")
    message = Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [
                _tool_use("t1", "search_tools", {"query": "cancel my order"}),
                _tool_use("t2", "get_weather", {"city": "Oslo"}),
            ],
        }
    )
    results = anthropic_tool_results(search, message)
    assert results[0] == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [
            {"type": "tool_reference", "tool_name": "cancel_order"},
            {"type": "tool_reference", "tool_name": "place_order"},
        ],
    }
    assert results[1] == anthropic_tool_result(search.box, message.content[1])
    assert search.found == ("cancel_order", "place_order")
    assistant = {"role": "assistant", "content": [b.model_dump() for b in message.content]}
    _valid(
        "anthropic",
        {
            "model": "m",
            "max_tokens": 64,
            "messages": [USER, assistant, {"role": "user", "content": results}],
            "tools": search.emit("anthropic"),
        },
    )


def test_anthropic_async_helpers_answer_alike():
    """The async helpers answer a client search with the same tool_reference blocks, in the
    calls' order, and run the other calls."""
    blocks = [
        _tool_use("t1", "get_weather", {"city": "Oslo"}),
        _tool_use("t2", "search_tools", {"query": "cancel my order"}),
    ]
    sync = anthropic_tool_results(_search(defer="client"), blocks)
    assert asyncio.run(aanthropic_tool_results(_search(defer="client"), blocks)) == sync
    assert sync[1]["content"][0] == {"type": "tool_reference", "tool_name": "cancel_order"}


def test_anthropic_search_with_wrong_arguments_is_an_error_result():
    """Wrong search arguments are the model's to correct: an is_error result, no reference."""
    (result,) = anthropic_tool_results(
        _search(defer="client"), [_tool_use("t1", "search_tools", {"q": "x"})]
    )
    assert result == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": '{"error":"unknown argument q; this tool takes: query"}',
        "is_error": True,
    }


def test_anthropic_without_defer_answers_with_definitions():
    """Without defer (tools not in the request), a search is answered with the found tools'
    definitions as JSON: a tool_reference to a tool not sent would not resolve."""
    search = _search()
    (result,) = anthropic_tool_results(
        search, [_tool_use("t1", "search_tools", {"query": "cancel my order"})]
    )
    found = json.loads(result["content"])  # type: ignore[arg-type]
    assert [tool["name"] for tool in found] == ["cancel_order", "place_order"]
    assert [tool["name"] for tool in search.emit("anthropic")] == [
        "get_weather",
        "search_tools",
        "cancel_order",
        "place_order",
    ]


# -- OpenAI Responses -------------------------------------------------------------------------


@pytest.mark.parametrize("namespaces", [False, True])
@pytest.mark.parametrize("strict", [False, True])
def test_responses_hosted_search_passes_the_sdk_request_model(namespaces, strict):
    """Hosted tool_search: pinned functions, tool_search, every other function with
    defer_loading (grouped by module into namespaces when asked)."""
    search = _search(defer="server", namespaces=namespaces)
    tools = search.emit("responses", strict)
    _valid("responses", {"model": "m", "input": [USER], "tools": tools})
    assert tools[0]["name"] == "get_weather"
    assert "defer_loading" not in tools[0]
    assert tools[1] == {"type": "tool_search"}
    if namespaces:
        assert [(t["type"], t["name"]) for t in tools[2:]] == [
            ("namespace", "examples_weather"),
            ("namespace", "examples_orders"),
        ]
        assert tools[2]["description"] == (
            "Tools of examples.weather: convert_temperature, air_quality"
        )
        deferred = [tool for namespace in tools[2:] for tool in namespace["tools"]]
    else:
        deferred = tools[2:]
    assert [tool["name"] for tool in deferred] == [
        "convert_temperature",
        "air_quality",
        "place_order",
        "cancel_order",
    ]
    assert all(tool["defer_loading"] is True and tool["strict"] is strict for tool in deferred)


def _response(output: list[dict[str, Any]]) -> Any:
    from openai.types.responses import Response

    return Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "m",
            "status": "completed",
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
        }
    )


def test_responses_client_search_round_trip():
    """Client-executed tool_search: the request carries pinned functions and a client
    tool_search with search_tools' parameters; a tool_search_call is answered with a
    tool_search_output loading the found functions, and a call of one (namespaced or not)
    is answered by responses_outputs; the follow-up request passes the SDK's model."""
    search = _search(defer="client")
    tools = search.emit("responses")
    _valid("responses", {"model": "m", "input": [USER], "tools": tools})
    assert [tool.get("name", tool["type"]) for tool in tools] == ["get_weather", "tool_search"]
    assert tools[1]["execution"] == "client"
    assert tools[1]["parameters"]["required"] == ["query"]
    call = {
        "type": "tool_search_call",
        "id": "ts_1",
        "call_id": "call_s",
        "execution": "client",
        "status": "completed",
        "arguments": {"query": "cancel my order"},
    }
    response = _response([call])
    (output,) = responses_tool_search_outputs(search, response)
    assert output == {
        "type": "tool_search_output",
        "call_id": "call_s",
        "execution": "client",
        "status": "completed",
        "tools": search.definitions(["cancel_order", "place_order"], "responses"),
    }
    assert output["tools"][0]["name"] == "cancel_order"
    function_call = {
        "type": "function_call",
        "call_id": "call_f",
        "name": "cancel_order",
        "namespace": "examples_orders",
        "arguments": '{"order_id": "A1"}',
    }
    answers = responses_outputs(search, _response([function_call]))
    cancelled = '{"order_id":"A1","cancelled":true,"reason":""}'
    assert answers == [{"type": "function_call_output", "call_id": "call_f", "output": cancelled}]
    _valid(
        "responses",
        {
            "model": "m",
            "input": [USER, call, output, function_call, *answers],
            "tools": search.emit("responses"),
        },
    )


def test_responses_client_search_with_string_arguments_or_wrong_ones():
    """Arguments sent as JSON text are read; arguments that are not a search load nothing."""
    search = _search(defer="client")
    item = {"type": "tool_search_call", "call_id": "c", "arguments": '{"query": "air quality"}'}
    loaded = responses_tool_search_output(search, item)["tools"]
    assert loaded[0]["name"] == "air_quality"
    wrong = {"type": "tool_search_call", "call_id": "c", "arguments": {"q": "x"}}
    assert responses_tool_search_output(search, wrong)["tools"] == []
    with pytest.raises(TypeError, match="expected a Responses tool_search_call item"):
        responses_tool_search_output(search, {"type": "function_call", "call_id": "c"})


# -- every other provider: pinned tools plus search_tools -------------------------------------


@pytest.mark.parametrize("strict", [False, True])
def test_chat_completions_fallback_passes_the_sdk_request_model(strict):
    """Chat Completions has no deferred form: pinned tools, search_tools, then the found
    tools; a search is answered with their definitions as the tool message's JSON text."""
    search = _search()
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "search_tools", "arguments": '{"query": "cancel my order"}'},
            }
        ],
    }
    (answer,) = openai_tool_messages(search, message)
    assert [tool["name"] for tool in json.loads(answer["content"])] == [
        "cancel_order",
        "place_order",
    ]
    request = {
        "model": "m",
        "messages": [USER, message, answer],
        "tools": search.emit("openai", strict),
    }
    _valid("chat", request)
    assert [tool["function"]["name"] for tool in request["tools"]] == [
        "get_weather",
        "search_tools",
        "cancel_order",
        "place_order",
    ]


@pytest.mark.parametrize("strict", [False, True])
def test_gemini_fallback_passes_the_sdk_models(strict):
    """google-genai's Tool model takes the pinned tools, search_tools and the found tools as
    function declarations, and the function_response answering a search."""
    from google.genai import types as genai_types

    search = _search()
    call = genai_types.Part(
        function_call=genai_types.FunctionCall(
            id="g1", name="search_tools", args={"query": "cancel my order"}
        )
    )
    (answer,) = gemini_function_responses(search, [call])
    genai_types.Part.model_validate(answer)
    output = answer["function_response"]["response"]["output"]
    assert [tool["name"] for tool in output] == ["cancel_order", "place_order"]
    declarations = search.emit("gemini", strict)
    tool = genai_types.Tool(function_declarations=[dict(d) for d in declarations])
    assert [d.name for d in tool.function_declarations or ()] == [
        "get_weather",
        "search_tools",
        "cancel_order",
        "place_order",
    ]


@pytest.mark.parametrize("strict", [False, True])
def test_bedrock_fallback_passes_converse_validation(strict):
    """botocore validates a Converse request whose toolConfig is the fallback list (a stubbed
    client, no network)."""
    search = _search()
    search.run("search_tools", {"query": "cancel my order"})
    converse(
        messages=[{"role": "user", "content": [{"text": "cancel A1"}]}],
        toolConfig={"tools": [dict(tool) for tool in search.emit("bedrock", strict)]},
    )


def test_answering_a_toolbox_does_not_import_tool_search():
    """The helpers tell a ToolSearch by an attribute first: a program that answers a plain
    Toolbox's calls never imports the ToolSearch module (a fresh interpreter shows it)."""
    code = (
        "import sys, toolcall\n"
        "from toolcall.providers import anthropic_tool_results\n"
        "box = toolcall.Toolbox('examples.weather')\n"
        "block = {'type': 'tool_use', 'id': 't', 'name': 'get_weather', 'input': {'city': 'O'}}\n"
        "anthropic_tool_results(box, [block])\n"
        "print('toolcall._api.toolsearch' in sys.modules)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subproc.python("-c", code, paths=[root], cwd=root, timeout=60)
    assert (done.returncode, done.stdout) == (0, "False\n"), done.stderr
