"""The MCP tool surface beyond calls (issue 35, item 5): the ``logging`` capability and
``logging/setLevel``, ``ctx.elicit`` and ``ctx.sample`` with FastMCP's signatures, each
through the SDK's own client (in process, and serve-mcp over HTTP as a real process)."""

from __future__ import annotations

import json
import types
from collections.abc import Callable
from typing import Any

import mcp.types as mcp_types
import pytest
import served
from mcp import Client

import toolcall.mcp

pytestmark = pytest.mark.anyio


_TOOLS = '''
import dataclasses
import enum
from typing import Literal

import fastmcp
from toolcall.mcp import Context

__toolcall__ = True


async def chatty(ctx: Context) -> dict:
    """Log once at each of four levels."""
    await ctx.debug("d")
    await ctx.info("i")
    await ctx.warning("w")
    await ctx.error("e")
    return {"done": True}


@dataclasses.dataclass
class Booking:
    city: str
    """Where to"""
    nights: int = 1


class Size(enum.Enum):
    SMALL = "s"
    LARGE = "l"


def _shown(answer):
    if answer.action != "accept":
        return {"action": answer.action}
    data = answer.data
    if dataclasses.is_dataclass(data):
        data = dataclasses.asdict(data)
    elif isinstance(data, enum.Enum):
        data = data.name
    return {"action": "accept", "data": data, "type": type(data).__name__}


async def book(ctx: Context) -> dict:
    """Ask for a booking."""
    return _shown(await ctx.elicit("Where to?", Booking))


async def ask(kind: str, ctx: fastmcp.Context) -> dict:
    """Ask with one of FastMCP's response types, written for FastMCP.

    Args:
        kind: which response type
    """
    response_type = {
        "int": int,
        "literal": Literal["red", "green"],
        "enum": Size,
        "choices": ["tea", "coffee"],
        "titled": {"tea": {"title": "Green tea"}, "coffee": {"title": "Espresso"}},
        "several": [["tea", "coffee"]],
        "several_titled": [{"tea": {"title": "Green tea"}, "coffee": {"title": "Espresso"}}],
        "none": None,
        "optional": str | None,
    }[kind]
    if kind == "int":
        answer = await ctx.elicit("How many?", int, response_title="Count")
    else:
        answer = await ctx.elicit("Pick", response_type)
    return _shown(answer)


async def summarize(text: str, ctx: Context) -> dict:
    """Ask the client's model for a summary.

    Args:
        text: what to summarize
    """
    answer = await ctx.sample(
        [text, "Shorter, please."],
        system_prompt="You summarize.",
        temperature=0.2,
        max_tokens=50,
        model_preferences="small-model",
    )
    return {"type": answer.type, "text": answer.text}


async def summarize_plain(text: str, ctx: Context) -> dict:
    """Ask the client's model with FastMCP's defaults.

    Args:
        text: what to summarize
    """
    answer = await ctx.sample(text)
    return {"text": answer.text}
'''


def _answer(result: mcp_types.CallToolResult) -> Any:
    assert not result.is_error, result.content
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    return json.loads(block.text)


def _error(result: mcp_types.CallToolResult) -> str:
    assert result.is_error
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    return block.text


@pytest.fixture
def tools(make_module: Callable[..., types.ModuleType]) -> types.ModuleType:
    return make_module(_TOOLS)


class _Asked:
    """An elicitation callback answering ``reply``, keeping every request it got."""

    def __init__(self, reply: mcp_types.ElicitResult) -> None:
        self.reply = reply
        self.requests: list[mcp_types.ElicitRequestParams] = []

    async def __call__(self, ctx: Any, params: mcp_types.ElicitRequestParams) -> Any:
        self.requests.append(params)
        return self.reply

    @property
    def schema(self) -> dict[str, Any]:
        (params,) = self.requests
        assert isinstance(params, mcp_types.ElicitRequestFormParams)
        return params.requested_schema


def _accept(content: dict[str, Any]) -> _Asked:
    return _Asked(mcp_types.ElicitResult(action="accept", content=content))


# -- logging --------------------------------------------------------------------------


async def _logged(tools: types.ModuleType, level: Any) -> tuple[Any, list[str]]:
    seen: list[str] = []

    async def record(params: mcp_types.LoggingMessageNotificationParams) -> None:
        seen.append(params.level)

    server = toolcall.mcp.build_server(tools)
    async with Client(server, mode="legacy", logging_callback=record) as client:
        if level is not None:
            assert await client.set_logging_level(level) == mcp_types.EmptyResult()
        await client.call_tool("chatty", {})
        await client.call_tool("chatty", {})
        capabilities = client.server_capabilities
    return capabilities, seen


async def test_logging_capability_is_declared_and_set_level_filters(
    tools: types.ModuleType,
) -> None:
    """A client that sets a level (pydantic-ai 1.x's ``log_level=`` does at connect) is
    answered, and hears only messages at that level or above, on every later call."""
    capabilities, seen = await _logged(tools, "warning")
    assert capabilities.logging is not None
    assert seen == ["warning", "error"] * 2


async def test_without_set_level_every_message_is_sent(tools: types.ModuleType) -> None:
    _, seen = await _logged(tools, None)
    assert seen == ["debug", "info", "warning", "error"] * 2


async def test_set_level_answers_an_empty_result_over_http() -> None:
    """serve-mcp as a real process: ``logging/setLevel`` is answered (it was "Method not
    found"), and the initialize result declares ``logging``."""
    with served.serving("conformancetools") as server:
        async with served.client(server.url, mode="legacy") as client:
            assert client.server_capabilities.logging is not None
            assert await client.set_logging_level("error") == mcp_types.EmptyResult()


# -- elicitation ------------------------------------------------------------------------


async def test_elicit_a_dataclass_sends_its_fields_and_returns_an_instance(
    tools: types.ModuleType,
) -> None:
    asked = _accept({"city": "Oslo", "nights": 2})
    server = toolcall.mcp.build_server(tools)
    async with Client(server, mode="legacy", elicitation_callback=asked) as client:
        result = await client.call_tool("book", {})
    assert asked.requests[0].message == "Where to?"
    assert asked.schema == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "Where to"},
            "nights": {"type": "integer", "default": 1},
        },
        "required": ["city"],
    }
    assert _answer(result) == {
        "action": "accept",
        "data": {"city": "Oslo", "nights": 2},
        "type": "dict",
    }


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_elicit_declined_or_cancelled(tools: types.ModuleType, action: str) -> None:
    asked = _Asked(mcp_types.ElicitResult(action=action))  # type: ignore[arg-type]
    server = toolcall.mcp.build_server(tools)
    async with Client(server, mode="legacy", elicitation_callback=asked) as client:
        result = await client.call_tool("book", {})
    assert _answer(result) == {"action": action}


async def test_elicit_an_answer_that_does_not_fit_is_the_calls_error(
    tools: types.ModuleType,
) -> None:
    """The client's content is read like a tool's arguments: what is wrong is named."""
    asked = _accept({"city": "Oslo", "nights": "two"})
    server = toolcall.mcp.build_server(tools)
    async with Client(server, mode="legacy", elicitation_callback=asked) as client:
        result = await client.call_tool("book", {})
    assert _error(result) == (
        "the tool failed: ValueError: the user's answer does not fit Booking: "
        "value.nights: expected an integer, got 'two'"
    )


_TITLED = [{"const": "tea", "title": "Green tea"}, {"const": "coffee", "title": "Espresso"}]


@pytest.mark.parametrize(
    ("kind", "value_schema", "answer", "data"),
    [
        ("int", {"type": "integer", "title": "Count"}, 3, (3, "int")),
        ("literal", {"type": "string", "enum": ["red", "green"]}, "red", ("red", "str")),
        ("enum", {"type": "string", "enum": ["s", "l"]}, "l", ("LARGE", "str")),
        ("choices", {"type": "string", "enum": ["tea", "coffee"]}, "tea", ("tea", "str")),
        ("titled", {"type": "string", "oneOf": _TITLED}, "coffee", ("coffee", "str")),
        (
            "several",
            {"type": "array", "items": {"type": "string", "enum": ["tea", "coffee"]}},
            ["tea"],
            (["tea"], "list"),
        ),
        (
            "several_titled",
            {"type": "array", "items": {"anyOf": _TITLED}},
            ["coffee", "tea"],
            (["coffee", "tea"], "list"),
        ),
        ("optional", {"type": "string"}, "x", ("x", "str")),
    ],
)
async def test_elicit_fastmcp_response_types_ask_for_one_value(
    tools: types.ModuleType,
    kind: str,
    value_schema: dict[str, Any],
    answer: Any,
    data: tuple[Any, str],
) -> None:
    """A scalar, Literal, Enum or FastMCP's choice shorthands are asked as one ``value``
    (elicitation takes objects only) and handed back unwrapped, converted."""
    asked = _accept({"value": answer})
    server = toolcall.mcp.build_server(tools)
    async with Client(server, mode="legacy", elicitation_callback=asked) as client:
        result = await client.call_tool("ask", {"kind": kind})
    assert asked.schema == {
        "type": "object",
        "properties": {"value": value_schema},
        "required": ["value"],
    }
    assert _answer(result) == {"action": "accept", "data": data[0], "type": data[1]}


async def test_elicit_a_choice_not_offered_is_the_calls_error(tools: types.ModuleType) -> None:
    asked = _accept({"value": "milk"})
    server = toolcall.mcp.build_server(tools)
    async with Client(server, mode="legacy", elicitation_callback=asked) as client:
        result = await client.call_tool("ask", {"kind": "choices"})
    assert _error(result) == (
        "the tool failed: ValueError: the answer 'milk' is not one of the choices: tea, coffee"
    )


async def test_elicit_none_asks_for_a_confirmation(tools: types.ModuleType) -> None:
    asked = _accept({})
    server = toolcall.mcp.build_server(tools)
    async with Client(server, mode="legacy", elicitation_callback=asked) as client:
        result = await client.call_tool("ask", {"kind": "none"})
    assert asked.schema == {"type": "object", "properties": {}}
    assert _answer(result) == {"action": "accept", "data": {}, "type": "dict"}


# -- sampling ---------------------------------------------------------------------------


class _Sampled:
    def __init__(self) -> None:
        self.requests: list[mcp_types.CreateMessageRequestParams] = []

    async def __call__(self, ctx: Any, params: mcp_types.CreateMessageRequestParams) -> Any:
        self.requests.append(params)
        return mcp_types.CreateMessageResult(
            role="assistant", content=mcp_types.TextContent(text="Short."), model="m"
        )


async def test_sample_sends_fastmcps_arguments_and_returns_the_content(
    tools: types.ModuleType,
) -> None:
    sampled = _Sampled()
    server = toolcall.mcp.build_server(tools)
    async with Client(server, mode="legacy", sampling_callback=sampled) as client:
        result = await client.call_tool("summarize", {"text": "A long text."})
        plain = await client.call_tool("summarize_plain", {"text": "Another."})
    assert _answer(result) == {"type": "text", "text": "Short."}
    assert _answer(plain) == {"text": "Short."}
    full, default = sampled.requests
    assert [(m.role, m.content.text) for m in full.messages] == [  # type: ignore[union-attr]
        ("user", "A long text."),
        ("user", "Shorter, please."),
    ]
    assert (full.system_prompt, full.temperature, full.max_tokens) == ("You summarize.", 0.2, 50)
    assert full.model_preferences == mcp_types.ModelPreferences(
        hints=[mcp_types.ModelHint(name="small-model")]
    )
    assert (default.max_tokens, default.system_prompt, default.temperature) == (512, None, None)


# -- a client that cannot answer ----------------------------------------------------------


async def test_a_client_without_the_capability_gets_a_clear_tool_error(
    tools: types.ModuleType,
) -> None:
    """No callback, no capability: the call is an error result saying which, the server
    keeps serving."""
    server = toolcall.mcp.build_server(tools)
    async with Client(server, mode="legacy") as client:
        asked = await client.call_tool("book", {})
        sampled = await client.call_tool("summarize_plain", {"text": "x"})
        after = await client.call_tool("chatty", {})
    assert _error(asked) == (
        "the tool failed: ClientLacks: the MCP client does not support elicitation "
        "(it declared no such capability)"
    )
    assert _error(sampled) == (
        "the tool failed: ClientLacks: the MCP client does not support sampling "
        "(it declared no such capability)"
    )
    assert _answer(after) == {"done": True}


async def test_the_2026_protocol_has_no_channel_back(tools: types.ModuleType) -> None:
    """A 2026-07-28 connection (the SDK client's default in process) cannot carry a
    server-to-client request: said so, not blamed on the client's capabilities."""
    server = toolcall.mcp.build_server(tools)
    async with Client(server, elicitation_callback=_accept({})) as client:
        result = await client.call_tool("book", {})
    assert _error(result) == (
        "the tool failed: ClientLacks: elicitation needs a channel back to the MCP client, "
        "which this connection lacks (stateless HTTP, or the 2026-07-28 protocol)"
    )


async def test_over_http_stateful_elicits_and_stateless_says_why_not() -> None:
    """serve-mcp as a real process, the SDK's client over streamable HTTP: a stateful server
    asks the client on the call's stream; a ``--stateless`` one answers with the error."""
    asked = _accept({"username": "ada", "email": "ada@example.com"})
    with served.serving("conformancetools") as server:
        async with served.client(server.url, mode="legacy", elicitation_callback=asked) as client:
            result = await client.call_tool("test_elicitation", {"message": "Who?"})
    assert result.is_error is False
    assert "action=accept" in str(result.content[0])
    assert asked.requests[0].message == "Who?"
    with served.serving("conformancetools", "--stateless") as server:
        async with served.client(server.url, mode="legacy", elicitation_callback=asked) as client:
            refused = await client.call_tool("test_elicitation", {"message": "Who?"})
    assert _error(refused) == (
        "the tool failed: ClientLacks: elicitation needs a channel back to the MCP client, "
        "which this connection lacks (stateless HTTP, or the 2026-07-28 protocol)"
    )
