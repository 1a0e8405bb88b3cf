"""``toolcall.mcp`` and ``toolcall serve-mcp``, end to end with the MCP SDK's own client.

In memory both ways the SDK connects to an in-process server: the legacy initialize handshake
over memory streams, and the 2026 protocol through its direct dispatcher. Then the real thing:
``toolcall serve-mcp`` as a subprocess, over stdio and over streamable HTTP.
"""

from __future__ import annotations

import importlib
import re
import signal
import socket
import subprocess
import sys
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, NamedTuple, TypedDict

import anyio
import examples.weather
import jsonschema
import msgspec
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent

import subproc
import toolcall
import toolcall.mcp
from pydantic import Field
from toolcall.cli.main import main

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
NO_MCP = "toolcall.mcp needs the mcp package: pip install 'pytoolcall[mcp]'"


# -- tools with object and other return types ------------------------------------------


class Forecast(TypedDict):
    """A forecast for one city."""

    city: str
    temp: float


@dataclass
class Reading:
    station: str
    values: list[float]


class Point(msgspec.Struct):
    x: int
    y: int = 0


class Renamed(msgspec.Struct, rename="camel"):
    first_name: str


class Pair(NamedTuple):
    a: int
    b: int


class Priced(TypedDict):
    price: Decimal


class Event(TypedDict):
    at: datetime
    clock: time


def forecast(city: str) -> Forecast:
    """Forecast for a city."""
    return {"city": city, "temp": 21.5}


def reading() -> Reading:
    """The latest reading."""
    return Reading("north", [1.5, 2.0])


def point() -> Point:
    """A point."""
    return Point(1, 2)


def points() -> list[Point]:
    """Some points."""
    return [Point(1), Point(2, 3)]


def maybe_forecast() -> Forecast | None:
    """Maybe a forecast."""
    return None


def renamed() -> Renamed:
    """A struct whose JSON names differ from its field names."""
    return Renamed("Ada")


def pair() -> Pair:
    """A named tuple, which encodes as an array."""
    return Pair(1, 2)


def priced() -> Priced:
    """A decimal, which encodes as a number."""
    return {"price": Decimal("1.50")}


def event() -> Event:
    """A naive date-time and a time, which encode without an offset."""
    return {"at": datetime(2024, 5, 6, 7, 8, 9), "clock": time(12, 30)}


def unresolved() -> Missing:  # type: ignore[name-defined]  # noqa: F821
    """A return annotation that does not resolve."""
    return {"ok": True}


def not_an_object() -> dict[str, int]:
    """Breaks its own annotation."""
    return [1, 2]  # type: ignore[return-value]


def unencodable() -> dict[str, Any]:
    """Returns something JSON cannot carry."""
    return {"lock": threading.Lock()}


def boom(x: int) -> dict[str, int]:
    """Always fails."""
    raise ValueError("boom")


def where_sync() -> dict[str, int]:
    """The thread a plain tool runs on."""
    return {"thread": threading.get_ident()}


async def where_async() -> dict[str, int]:
    """The thread an async tool runs on."""
    return {"thread": threading.get_ident()}


RUNTIME_TOOLS: tuple[Callable[..., Any], ...] = (
    forecast,
    reading,
    point,
    points,
    maybe_forecast,
    renamed,
    pair,
    priced,
    event,
    unresolved,
    not_an_object,
    unencodable,
    boom,
    where_sync,
    where_async,
)


@pytest.fixture(scope="module")
def server() -> Any:
    return toolcall.mcp.build_server(examples.weather, *RUNTIME_TOOLS, name="tests")


def dumped(tools: list[Any]) -> list[dict[str, Any]]:
    return [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in tools]


def text_of(result: CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


async def call(server: Any, mode: str, name: str, args: dict[str, Any] | None) -> CallToolResult:
    async with Client(server, mode=mode) as client:
        result = await client.call_tool(name, args)
    assert isinstance(result, CallToolResult)
    return result


# -- listing ----------------------------------------------------------------------------


async def test_list_tools_is_the_precomputed_mcp_variant(mode: str) -> None:
    """tools/list carries exactly emit(module, "mcp"), plus outputSchema for object returns."""
    weather_only = toolcall.mcp.build_server(examples.weather)
    async with Client(weather_only, mode=mode) as client:
        listed = dumped((await client.list_tools()).tools)
    outputs = {tool["name"]: tool.pop("outputSchema", None) for tool in listed}
    assert listed == toolcall.emit(examples.weather, "mcp")
    open_object = {"type": "object", "additionalProperties": {}}
    assert outputs == {
        "get_weather": open_object,
        "convert_temperature": None,
        "air_quality": open_object,
    }


async def test_listing_and_calls_do_not_render(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Serving reads what was prepared at construction: nothing is rendered per request."""
    built = toolcall.mcp.build_server(examples.weather, forecast)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("rendered per request")

    monkeypatch.setattr(toolcall, "render", refuse)
    monkeypatch.setattr(toolcall, "derive", refuse)
    async with Client(built, mode=mode) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        result = await client.call_tool("forecast", {"city": "Oslo"})
    assert names == ["get_weather", "convert_temperature", "air_quality", "forecast"]
    assert result.structured_content == {"city": "Oslo", "temp": 21.5}


async def test_object_returns_declare_their_schema(server: Any, mode: str) -> None:
    """TypedDict, dataclass and Struct returns get outputSchema; the rest are text only."""
    async with Client(server, mode=mode) as client:
        listed = {tool["name"]: tool for tool in dumped((await client.list_tools()).tools)}
    assert listed["forecast"]["outputSchema"] == {
        "type": "object",
        "properties": {"city": {"type": "string"}, "temp": {"type": ["number", "null"]}},
        "required": ["city", "temp"],
        "additionalProperties": False,
    }
    assert listed["reading"]["outputSchema"] == {
        "type": "object",
        "properties": {
            "station": {"type": "string"},
            "values": {"type": "array", "items": {"type": ["number", "null"]}},
        },
        "required": ["station", "values"],
        "additionalProperties": False,
    }
    assert listed["point"]["outputSchema"] == {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
        "required": ["x", "y"],
        "additionalProperties": False,
    }
    assert listed["renamed"]["outputSchema"]["properties"] == {"firstName": {"type": "string"}}
    assert listed["priced"]["outputSchema"]["properties"] == {"price": {"type": "number"}}
    text_only = {name for name, tool in listed.items() if "outputSchema" not in tool}
    assert text_only == {
        "convert_temperature",
        "points",
        "maybe_forecast",
        "pair",
        "unresolved",
    }


# -- calling ----------------------------------------------------------------------------


async def test_good_call_is_structured(server: Any, mode: str) -> None:
    """An object result is structuredContent, and the same JSON as text."""
    result = await call(server, mode, "get_weather", {"city": "Oslo"})
    assert not result.is_error
    assert result.structured_content == {"city": "Oslo", "days": 3, "temp": 21.5}
    assert text_of(result) == '{"city":"Oslo","days":3,"temp":21.5}'


async def test_dataclass_result_is_structured(server: Any, mode: str) -> None:
    """A dataclass comes back as the object its outputSchema describes."""
    result = await call(server, mode, "reading", None)
    assert result.structured_content == {"station": "north", "values": [1.5, 2.0]}
    assert text_of(result) == toolcall.encode_result(Reading("north", [1.5, 2.0]))


async def test_structured_content_validates_against_the_output_schema(
    server: Any, mode: str
) -> None:
    """What a tool returns validates against its outputSchema, formats checked, the way the
    TypeScript SDK checks it: naive date-times and times, decimals, renamed fields."""
    async with Client(server, mode=mode) as client:
        listed = {tool["name"]: tool for tool in dumped((await client.list_tools()).tools)}
    for name in ("event", "priced", "renamed", "forecast", "point"):
        result = await call(server, mode, name, {"city": "Oslo"} if name == "forecast" else None)
        assert not result.is_error, name
        jsonschema.validate(
            result.structured_content,
            listed[name]["outputSchema"],
            format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
        )
    event_result = await call(server, mode, "event", None)
    assert event_result.structured_content == {"at": "2024-05-06T07:08:09", "clock": "12:30:00"}


async def test_other_results_are_text_only(server: Any, mode: str) -> None:
    """Scalars, lists and types encoded differently from their schema: text, no structure."""
    expected = {
        ("convert_temperature", '{"value": 50}'): "10.0",
        ("points", "{}"): '[{"x":1,"y":0},{"x":2,"y":3}]',
        ("maybe_forecast", "{}"): "null",
        ("pair", "{}"): "[1,2]",
        ("unresolved", "{}"): '{"ok":true}',
    }
    for (name, args), text in expected.items():
        result = await call(server, mode, name, msgspec.json.decode(args))
        assert (name, result.is_error, result.structured_content) == (name, False, None)
        assert text_of(result) == text


async def test_bad_arguments_are_an_error_result(server: Any, mode: str) -> None:
    """Arguments run refuses come back as isError with the model-facing message."""
    args = {"city": "Oslo", "days": "5"}
    result = await call(server, mode, "get_weather", args)
    assert result.is_error
    assert text_of(result) == "days: expected an integer, got '5'"
    error = toolcall.run(examples.weather, "get_weather", args)
    assert isinstance(error, toolcall.Err)
    assert text_of(result) == error.error.message


async def test_unknown_tool_is_an_error_result(server: Any, mode: str) -> None:
    """An unknown tool is an error result, not a protocol error: it offers the tools a search
    for the name finds, or (none found, more than ten tools) says how many there are."""
    result = await call(server, mode, "get_wether", {})
    assert result.is_error
    assert text_of(result) == "unknown tool 'get_wether'; did you mean: get_weather?"
    result = await call(server, mode, "nope", {})
    assert result.is_error
    assert text_of(result).startswith("unknown tool 'nope'; none of the ")


async def test_missing_arguments_are_an_empty_object(server: Any, mode: str) -> None:
    """A call without arguments is dispatched as {}: missing_argument for a required one."""
    result = await call(server, mode, "get_weather", None)
    assert (result.is_error, text_of(result)) == (True, "city: required argument missing")


async def test_raising_tool_is_an_error_result(server: Any, mode: str) -> None:
    """A tool that raises is an error result with the raised message."""
    result = await call(server, mode, "boom", {"x": 1})
    assert (result.is_error, text_of(result)) == (True, "the tool failed: ValueError: boom")


async def test_result_breaking_its_annotation_is_an_error(server: Any, mode: str) -> None:
    """An object-annotated tool returning a non-object is an error result, not bad structure."""
    result = await call(server, mode, "not_an_object", {})
    assert result.is_error
    assert text_of(result) == "the tool returned list, but its return annotation declares an object"


async def test_unencodable_result_is_an_error(server: Any, mode: str) -> None:
    """A value encode_result cannot encode is an error result saying so."""
    result = await call(server, mode, "unencodable", {})
    assert result.is_error
    assert text_of(result) == (
        "the tool's result cannot be encoded as JSON: cannot encode a lock as JSON; "
        "return plain data, a dataclass, a pydantic model or toolcall.Image/Audio/File from the "
        "tool"
    )


async def test_async_tool(server: Any, mode: str) -> None:
    """An async tool is awaited."""
    result = await call(server, mode, "air_quality", {"city": "Oslo"})
    assert (result.is_error, result.structured_content) == (False, {"city": "Oslo", "aqi": 17})


async def test_sync_tools_run_inline(server: Any, mode: str) -> None:
    """By default a plain tool runs on the event loop's thread: no thread hop."""
    result = await call(server, mode, "where_sync", {})
    assert result.structured_content == {"thread": threading.get_ident()}


async def test_sync_tools_in_threads_on_request(mode: str) -> None:
    """run_sync_in_thread=True moves plain tools to a worker thread, async ones stay."""
    threaded = toolcall.mcp.build_server(where_sync, where_async, run_sync_in_thread=True)
    here = threading.get_ident()
    plain = await call(threaded, mode, "where_sync", {})
    awaited = await call(threaded, mode, "where_async", {})
    assert isinstance(plain.structured_content, dict)
    assert plain.structured_content["thread"] != here
    assert awaited.structured_content == {"thread": here}


# -- construction -----------------------------------------------------------------------


def test_duplicate_tool_names_are_refused() -> None:
    """Two members defining one tool name: ValueError naming both, as Toolbox does."""
    with pytest.raises(ValueError, match="duplicate tool name 'forecast'"):
        toolcall.mcp.build_server(forecast, forecast)


def test_unknown_transport_is_refused() -> None:
    """serve refuses a transport it does not know with ValueError naming the known ones."""
    with pytest.raises(ValueError, match=r"unknown transport 'sse'; expected one of: stdio, http"):
        toolcall.mcp.serve("examples.weather", transport="sse")  # type: ignore[arg-type]


def _hide_mcp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.delitem(sys.modules, "toolcall.mcp")
    monkeypatch.delattr(toolcall, "mcp")


def test_import_without_mcp_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the mcp package, importing toolcall.mcp names the extra to install."""
    _hide_mcp(monkeypatch)
    with pytest.raises(ImportError) as info:
        importlib.import_module("toolcall.mcp")
    assert str(info.value) == NO_MCP


# -- the console command ----------------------------------------------------------------


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """``main(argv)`` in this process, returning (status, stderr); sys.path restored after."""
    monkeypatch.setattr(sys, "path", list(sys.path))

    def run(*argv: str) -> tuple[int, str]:
        status = main(["serve-mcp", *argv])
        return status, capsys.readouterr().err

    return run


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        ((), "the following arguments are required: MODULE"),
        (("examples.weather", "--port", "70000"), "invalid port '70000'"),
        (("examples.weather", "--transport", "sse"), "invalid choice: 'sse'"),
    ],
)
def test_cli_usage_errors_exit_2(
    cli: Any, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], error: str
) -> None:
    """Bad command lines are usage errors: exit status 2, argparse's message."""
    with pytest.raises(SystemExit) as exit_info:
        cli(*argv)
    assert exit_info.value.code == 2
    assert error in capsys.readouterr().err


def test_cli_failures_are_one_line(cli: Any, make_module: Callable[..., types.ModuleType]) -> None:
    """An unimportable, unmarked or clashing module: one error line, exit status 1."""
    clash = make_module(
        '''
        __toolcall__ = True

        def get_weather(city: str) -> str:
            """Another forecast."""
            return city
        '''
    )
    assert cli("no_such_module_xyz") == (
        1,
        "toolcall: error: cannot import no_such_module_xyz: ModuleNotFoundError: "
        "No module named 'no_such_module_xyz'\n",
    )
    status, err = cli("examples.demo")
    assert (status, err.count("\n")) == (1, 1)
    assert err.startswith("toolcall: error: examples.demo is not a tool module")
    assert cli("examples.weather", clash.__name__) == (
        1,
        "toolcall: error: duplicate tool name 'get_weather': defined by both module "
        f"examples.weather and module {clash.__name__}; rename one of them\n",
    )


def test_cli_port_taken_is_one_line(cli: Any) -> None:
    """A port another socket listens on: one error line, exit status 1."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        status, err = cli("examples.weather", "--transport", "http", "--port", str(port))
    assert (status, err) == (
        1,
        f"toolcall: error: cannot serve on 127.0.0.1:{port}: Address already in use\n",
    )


def test_cli_without_mcp_says_how_to_install(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """serve-mcp without the mcp package: the install hint as one error line, exit 1."""
    _hide_mcp(monkeypatch)
    assert cli("examples.weather") == (
        1,
        "toolcall: error: serve-mcp needs the mcp extra (no module 'mcp'): "
        "pip install 'pytoolcall[mcp]'\n",
    )


async def test_stdio_subprocess() -> None:
    """`toolcall serve-mcp examples.weather` over stdio, driven by the SDK's stdio client."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolcall.cli.main", "serve-mcp", "examples.weather"],
        env=subproc.environment([ROOT]),
        cwd=str(ROOT),
    )
    with anyio.fail_after(90):
        async with Client(params) as client:
            listed = dumped((await client.list_tools()).tools)
            good = await client.call_tool("get_weather", {"city": "Oslo"})
            bad = await client.call_tool("get_weather", {"city": "Oslo", "days": "5"})
            awaited = await client.call_tool("air_quality", {"city": "Oslo"})
    for tool in listed:
        tool.pop("outputSchema", None)
    assert listed == toolcall.emit(examples.weather, "mcp")
    assert isinstance(good, CallToolResult)
    assert isinstance(bad, CallToolResult)
    assert good.structured_content == {"city": "Oslo", "days": 3, "temp": 21.5}
    assert (bad.is_error, text_of(bad)) == (True, "days: expected an integer, got '5'")
    assert isinstance(awaited, CallToolResult)
    assert awaited.structured_content == {"city": "Oslo", "aqi": 17}


async def test_streamable_http_subprocess() -> None:
    """`serve-mcp --transport http --port 0` on 127.0.0.1, driven by the SDK's HTTP client."""
    command = [
        sys.executable,
        *("-m", "toolcall.cli.main", "serve-mcp", "examples.weather"),
        *("--transport", "http", "--host", "127.0.0.1", "--port", "0"),
    ]
    process = await anyio.open_process(
        command, env=subproc.environment([ROOT]), cwd=str(ROOT), stderr=subprocess.PIPE
    )
    try:
        with anyio.fail_after(90):  # a loaded machine takes a while to import the SDK
            assert process.stderr is not None
            announced = b""
            while not announced.endswith(b"\n"):
                announced += await process.stderr.receive(1)
            found = re.fullmatch(
                r"toolcall: serving 3 tools at (http://127\.0\.0\.1:\d+/mcp)\n", announced.decode()
            )
            assert found is not None, announced
            async with Client(found.group(1)) as client:
                names = [tool.name for tool in (await client.list_tools()).tools]
                result = await client.call_tool("get_weather", {"city": "Oslo", "days": 1})
            process.send_signal(signal.SIGINT)
            status = await process.wait()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert names == ["get_weather", "convert_temperature", "air_quality"]
    assert isinstance(result, CallToolResult)
    assert result.structured_content == {"city": "Oslo", "days": 1, "temp": 21.5}
    assert status == 0


# -- title, annotations, version, Context ----------------------------------------------

_CONTEXT_TOOLS = '''
__toolcall__ = True
import fastmcp
import toolcall
from toolcall.mcp import Context


@toolcall.tool(title="Index a path", annotations={"readOnlyHint": True, "idempotentHint": True})
async def index(path: str, ctx: Context) -> str:
    """Index the files under a path."""
    await ctx.report_progress(1, 2, "halfway")
    await ctx.info(f"indexing {path}")
    await ctx.report_progress(2, 2)
    return f"indexed {path} for request {ctx.request_id is not None}"


async def fastmcp_style(n: int, ctx: fastmcp.Context) -> int:
    """Written for FastMCP: its Context annotation gets toolcall's."""
    await ctx.warning("careful")
    return n


async def fastmcp_resource(text: str, ctx: fastmcp.Context) -> str:
    """Written for FastMCP, using what toolcall's Context does not offer."""
    answer = await ctx.read_resource(text)
    return str(answer)
'''


async def test_title_annotations_and_version(
    mode: str, make_module: Callable[..., types.ModuleType]
) -> None:
    """The server lists exactly what emit gives for MCP (title, annotations, no context
    parameter) and states toolcall's version."""
    module = make_module(_CONTEXT_TOOLS)
    async with Client(toolcall.mcp.build_server(module), mode=mode) as client:
        listed = dumped((await client.list_tools()).tools)
        info = client.server_info
    assert listed == toolcall.emit(module, "mcp")
    assert listed[0]["title"] == "Index a path"
    assert listed[0]["annotations"] == {"readOnlyHint": True, "idempotentHint": True}
    assert "ctx" not in listed[0]["inputSchema"]["properties"]
    if info is not None:  # the 2026 protocol's stamp is optional
        assert info.version == toolcall.__version__


# client logging is deprecated by the 2026-07-28 protocol, but clients still ask for it
@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
async def test_context_reports_progress_and_logs(
    mode: str, make_module: Callable[..., types.ModuleType]
) -> None:
    """A tool's Context reports progress and log messages to the client, FastMCP's spelling
    included."""
    module = make_module(_CONTEXT_TOOLS)
    progress: list[tuple[float, float | None, str | None]] = []
    logged: list[tuple[str, Any]] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def on_log(params: Any) -> None:
        logged.append((params.level, params.data))

    server = toolcall.mcp.build_server(module)
    async with Client(server, mode=mode, logging_callback=on_log, log_level="debug") as client:
        result = await client.call_tool("index", {"path": "/srv"}, progress_callback=on_progress)
        other = await client.call_tool("fastmcp_style", {"n": 3})
    assert not result.is_error
    assert text_of(result) == "indexed /srv for request True"
    assert progress == [(1, 2, "halfway"), (2, 2, None)]
    assert logged == [("info", "indexing /srv"), ("warning", "careful")]
    assert text_of(other) == "3"


async def test_context_says_what_it_does_not_offer(
    mode: str, make_module: Callable[..., types.ModuleType]
) -> None:
    """FastMCP's resources are not served: the call's error names it and the way out."""
    module = make_module(_CONTEXT_TOOLS)
    async with Client(toolcall.mcp.build_server(module), mode=mode) as client:
        result = await client.call_tool("fastmcp_resource", {"text": "hi"})
    assert result.is_error
    assert "toolcall's Context has no 'read_resource'" in text_of(result)
    assert "FastMCP's Context.read_resource must be served by FastMCP" in text_of(result)


# -- issue 25: the strict variant, command-line order ----------------------------------


async def test_strict_serves_the_strict_variant(mode: str) -> None:
    """strict=True lists emit(..., strict=True); a null optional argument means absent."""
    strict = toolcall.mcp.build_server(examples.weather, strict=True)
    async with Client(strict, mode=mode) as client:
        listed = dumped((await client.list_tools()).tools)
        result = await client.call_tool("get_weather", {"city": "Oslo", "days": None})
    for tool in listed:
        tool.pop("outputSchema", None)
    assert listed == toolcall.emit(examples.weather, "mcp", strict=True)
    assert listed != toolcall.emit(examples.weather, "mcp")
    assert result.structured_content == {"city": "Oslo", "days": 3, "temp": 21.5}


_FIRST = '''
__toolcall__ = True


def zebra() -> int:
    """Listed first: its module is given first."""
    return 1
'''

_SECOND = '''
__toolcall__ = True


def aardvark() -> int:
    """Listed second."""
    return 2
'''


async def test_cli_lists_modules_in_command_line_order(tmp_path: Path) -> None:
    """serve-mcp zz_mod aa_mod lists zz_mod's tools first (not name order); --strict too."""
    (tmp_path / "zz_mod.py").write_text(_FIRST)
    (tmp_path / "aa_mod.py").write_text(_SECOND)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolcall.cli.main", "serve-mcp", "zz_mod", "aa_mod", "--strict"],
        env=subproc.environment([ROOT]),
        cwd=str(tmp_path),
    )
    with anyio.fail_after(90):
        async with Client(params) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == ["zebra", "aardvark"]


def test_the_sdk_finds_input_schemas_without_listing(server: Any) -> None:
    """The 2026 protocol checks Mcp-Param headers against the called tool's schema; the
    server hands over the schemas that declare one (x-mcp-header) directly (the SDK would
    otherwise run tools/list on every call), and none for a tool with nothing to check."""
    declaring = toolcall.mcp.build_server(regional)
    schema = declaring.get_tool_input_schema("regional")
    assert schema == toolcall.Toolbox(regional).emit("mcp")[0]["inputSchema"]
    assert schema["properties"]["region"]["x-mcp-header"] == "Region"
    assert server.get_tool_input_schema("get_weather") is None
    assert server.get_tool_input_schema("no_such_tool") is None


def regional(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    """The forecast for a region."""
    return region


def test_a_tool_2026_clients_would_drop_is_a_warning() -> None:
    """The SDK's 2026-protocol client drops a tool whose x-mcp-header is invalid (here on a
    number), so serving it would list a tool no client shows: building the server says so."""

    def priced(cost: Annotated[float, Field(json_schema_extra={"x-mcp-header": "Cost"})]) -> str:
        """Price a thing."""
        return str(cost)

    with pytest.warns(toolcall.ToolcallWarning) as caught:
        toolcall.mcp.build_server(priced)
    assert [str(w.message) for w in caught] == [
        "priced: property 'cost': x-mcp-header is only permitted on integer/string/boolean "
        "properties (got 'number'); clients of the 2026 MCP protocol drop this tool from the "
        "listing (fix or remove the x-mcp-header)"
    ]


async def test_run_server_refuses_what_needs_the_cli(server: Any) -> None:
    """A public bind without auth, and workers (rebuilt per process), are refused here."""
    public = toolcall.mcp.HttpOptions(host="0.0.0.0", port=0)
    with pytest.raises(toolcall.mcp.Unprotected, match=r"refusing to serve 0\.0\.0\.0"):
        await toolcall.mcp.run_server(server, "http", options=public)
    workers = toolcall.mcp.HttpOptions(port=0, workers=2)
    with pytest.raises(ValueError, match="serve_workers"):
        await toolcall.mcp.run_server(server, "http", options=workers)
