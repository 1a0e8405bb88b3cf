"""SPEC sections 4 and 5 through the public API, on the example modules."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import datetime
import enum
import json
import uuid
from pathlib import Path

import msgspec
import pytest
from examples import orders, weather

import subproc
import toolcall

ROOT = Path(__file__).resolve().parents[2]

WEATHER_PARAMETERS = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": 'city name, e.g. "Oslo"'},
        "days": {"type": "integer", "description": "how many days ahead (1-7)", "default": 3},
    },
    "required": ["city"],
    "additionalProperties": False,
}


def test_public_surface():
    """`toolcall.__all__` is exactly the SPEC's names, and each exists."""
    assert set(toolcall.__all__) == {
        "Audio",
        "Err",
        "File",
        "Hit",
        "Image",
        "Injected",
        "NotAToolModule",
        "Ok",
        "Param",
        "ToolError",
        "Ranker",
        "SearchDocument",
        "ToolRetry",
        "ToolSearch",
        "ToolcallWarning",
        "Toolbox",
        "arun",
        "check_strict",
        "derive",
        "describe",
        "emit",
        "encode_result",
        "exclude",
        "install",
        "installed",
        "ir",
        "param",
        "render",
        "run",
        "search",
        "tool",
        "tool_names",
        "uninstall",
    }
    for name in toolcall.__all__:
        assert hasattr(toolcall, name)


def test_emit_openai():
    """OpenAI envelope with the weather parameters."""
    assert toolcall.emit(weather, "openai")[0] == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the forecast for a city.",
            "parameters": WEATHER_PARAMETERS,
        },
    }


def test_emit_openai_strict():
    """Strict: every property required, optionals nullable, no default, strict flag."""
    assert toolcall.emit(weather, "openai", strict=True)[0] == {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": 'city name, e.g. "Oslo"'},
                    "days": {
                        "type": ["integer", "null"],
                        "description": "how many days ahead (1-7)",
                    },
                },
                "required": ["city", "days"],
                "additionalProperties": False,
            },
            "strict": True,
        },
    }


def test_emit_anthropic_mcp_describe():
    """Anthropic, MCP and describe envelopes; by module object or dotted name alike."""
    assert toolcall.emit("examples.weather", "anthropic")[0] == {
        "name": "get_weather",
        "description": "Get the forecast for a city.",
        "input_schema": WEATHER_PARAMETERS,
    }
    assert toolcall.emit(weather, "anthropic", strict=True)[0]["strict"] is True
    assert toolcall.emit(weather, "mcp")[0] == {
        "name": "get_weather",
        "description": "Get the forecast for a city.",
        "inputSchema": WEATHER_PARAMETERS,
    }
    mcp_strict = toolcall.emit(weather, "mcp", strict=True)[0]
    assert "strict" not in mcp_strict
    assert mcp_strict["inputSchema"]["required"] == ["city", "days"]
    assert toolcall.describe(weather)[0] == {
        "module": "examples.weather",
        "name": "get_weather",
        "description": "Get the forecast for a city.",
        "parameters": WEATHER_PARAMETERS,
    }
    assert toolcall.tool_names(weather) == ("get_weather", "convert_temperature", "air_quality")


def test_unknown_format():
    """An unknown format raises ValueError naming the valid ones."""
    with pytest.raises(ValueError, match="openai"):
        toolcall.emit(weather, "cohere")


def test_emit_is_precomputed_and_safe_from_mutation():
    """The same object each call; mutating it fails and changes nothing."""
    first = toolcall.emit(weather, "openai")
    assert toolcall.emit(weather, "openai") is first
    with pytest.raises(TypeError):
        first[0]["function"]["name"] = "hacked"
    with pytest.raises(TypeError):
        first.append({})
    with pytest.raises(TypeError):
        first[0]["function"]["parameters"]["required"].append("days")
    mine = copy.deepcopy(first)
    mine[0]["function"]["name"] = "mine"
    assert toolcall.emit(weather, "openai")[0]["function"]["name"] == "get_weather"
    combined = toolcall.emit(weather, "openai") + toolcall.emit(orders, "openai")
    combined.append({"type": "function"})
    assert len(toolcall.emit(weather, "openai")) == 3
    assert json.loads(json.dumps(first)) == first
    assert msgspec.json.decode(msgspec.json.encode(first)) == first


def test_no_refs_anywhere():
    """No `$ref`/`$defs` in any variant of the examples."""
    for module in (weather, orders):
        for fmt in ("openai", "anthropic", "mcp"):
            for strict in (False, True):
                text = json.dumps(toolcall.emit(module, fmt, strict=strict))
                assert "$ref" not in text
                assert "$defs" not in text


# --- runtime table (SPEC 5) ------------------------------------------------------------


def test_runtime_table(make_module):
    """The SPEC's runtime table, row by row."""
    ok = toolcall.run(weather, "get_weather", {"city": "Oslo"})
    assert ok == toolcall.Ok({"city": "Oslo", "days": 3, "temp": 21.5})
    for args in ({}, {"days": 5}):
        err = toolcall.run(weather, "get_weather", args).error
        assert (err.kind, err.argument) == ("missing_argument", "city")
    err = toolcall.run(weather, "get_weather", {"city": "Oslo", "days": 1.5}).error
    assert (err.kind, err.path, err.reason, err.value) == (
        "invalid_argument",
        ("days",),
        "expected_integer",
        1.5,
    )
    module = make_module(
        """
        __toolcall__ = True
        def nullable(city: str, days: int | None = 3) -> object: return days
        def plain(city: str, days: int = 3) -> object: return days
        def gap(a: int = 1, b: int = 2, /) -> object: return (a, b)
        def boom() -> None: raise ValueError("boom")
        """
    )
    assert toolcall.run(module, "nullable", {"city": "Oslo", "days": None}) == toolcall.Ok(None)
    assert toolcall.run(module, "plain", {"city": "Oslo", "days": None}) == toolcall.Ok(3)
    assert toolcall.run(weather, "get_weather", [1, 2]).error.kind == "invalid_arguments"
    err = toolcall.run(weather, "get_weather", {"city": "Oslo", "c": 1}).error
    assert (err.kind, err.names) == ("unknown_arguments", ("c",))
    err = toolcall.run(module, "gap", {"b": 2}).error
    assert (err.kind, err.argument, err.names) == ("argument_gap", "a", ("b",))
    err = toolcall.run(module, "boom", {}).error
    assert (err.kind, err.reason, err.value) == ("raised", "ValueError", "boom")


def test_unknown_tool_and_async():
    """An unknown tool name gets the tools a search for it finds; `run` on an async tool says
    to use `arun`."""
    err = toolcall.run(weather, "get_wether", {}).error
    assert (err.kind, err.value, err.names, err.message) == (
        "unknown_tool",
        "get_wether",
        ("get_weather",),
        "unknown tool 'get_wether'; did you mean: get_weather?",
    )
    assert toolcall.run(weather, "air_quality", {"city": "Oslo"}).error.kind == "async_tool"
    assert asyncio.run(toolcall.arun(weather, "air_quality", {"city": "Oslo"})) == toolcall.Ok(
        {"city": "Oslo", "aqi": 17}
    )
    assert asyncio.run(toolcall.arun(weather, "get_weather", {"city": "Oslo"})).value["days"] == 3


def test_error_message_and_to_dict():
    """The message names the argument; to_dict is JSON whatever the value."""
    err = toolcall.run(weather, "get_weather", {"city": "Oslo", "days": float("nan")}).error
    assert str(err) == err.message
    assert err.message.startswith("days: ")
    json.dumps(err.to_dict(), allow_nan=False)


def test_pattern_matching():
    """Ok and Err are frozen, slotted and match positionally."""
    match toolcall.run(weather, "get_weather", {"city": "Oslo"}):
        case toolcall.Ok(value):
            assert value["city"] == "Oslo"
        case _:
            pytest.fail("expected Ok")
    ok = toolcall.Ok(1)
    with pytest.raises(AttributeError):
        ok.value = 2  # type: ignore[misc]
    assert not hasattr(ok, "__dict__")
    assert ok == toolcall.Ok(1) != toolcall.Ok(2)
    assert repr(ok) == "Ok(value=1)"
    assert toolcall.Ok[int](1) == ok


# --- Toolbox and runtime tools ----------------------------------------------------------


def test_toolbox_routes_and_concatenates():
    """A Toolbox emits every member's tools in order and routes calls by name."""

    def shout(word: str) -> str:
        """Shout a word.

        Args:
            word: what to shout
        """
        return word.upper()

    box = toolcall.Toolbox(weather, "examples.orders", shout)
    assert box.tool_names() == (
        "get_weather",
        "convert_temperature",
        "air_quality",
        "place_order",
        "cancel_order",
        "shout",
    )
    assert [t["name"] for t in box.emit("anthropic")] == list(box.tool_names())
    assert box.emit("openai", strict=True)[5]["function"]["strict"] is True
    assert box.describe()[5]["parameters"]["properties"]["word"]["description"] == "what to shout"
    assert box.run("shout", {"word": "hi"}) == toolcall.Ok("HI")
    assert box.run("get_weather", {"city": "Oslo"}).value["days"] == 3
    assert box.run("nope", {}).error.kind == "unknown_tool"
    assert asyncio.run(box.arun("air_quality", {"city": "X"})).value["aqi"] == 17


def test_toolbox_duplicate_names(make_module):
    """A duplicate tool name raises ValueError naming both modules."""
    other = make_module("__toolcall__ = True\ndef get_weather(city: str) -> None: pass\n")
    with pytest.raises(ValueError, match=rf"examples\.weather.*{other.__name__}"):
        toolcall.Toolbox(weather, other)


def test_derive_and_render_runtime_tool():
    """`derive` any annotated function; `render` a derived or hand-built tool on demand."""

    def add(a: int, b: int = 2) -> int:
        """Add two numbers."""
        return a + b

    tool = toolcall.derive(add)
    assert isinstance(tool, toolcall.ir.Tool)
    assert toolcall.render(tool, "mcp") == {
        "name": "add",
        "description": "Add two numbers.",
        "inputSchema": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer", "default": 2}},
            "required": ["a"],
            "additionalProperties": False,
        },
    }
    hand = toolcall.ir.Tool(
        name="echo",
        parameters=(toolcall.ir.Parameter(name="word", type=toolcall.ir.Type(kind="string")),),
    )
    rendered = toolcall.render(hand, "openai", strict=True)
    rendered["function"]["name"] = "changed"
    assert toolcall.render(hand, "openai", strict=True)["function"]["name"] == "echo"


def test_encode_result():
    """Dataclasses, datetimes, UUIDs, enums and sets encode as JSON."""

    class Color(enum.Enum):
        RED = "red"

    @dataclasses.dataclass
    class P:
        x: int

    value = {
        "p": P(1),
        "when": datetime.date(2024, 1, 2),
        "id": uuid.UUID(int=0),
        "color": Color.RED,
        "tags": {"a"},
    }
    assert json.loads(toolcall.encode_result(value)) == {
        "p": {"x": 1},
        "when": "2024-01-02",
        "id": "00000000-0000-0000-0000-000000000000",
        "color": "red",
        "tags": ["a"],
    }


# --- -OO ----------------------------------------------------------------------------------


def test_descriptions_survive_optimize_2():
    """Under `python -OO` (docstrings stripped) descriptions come from the source."""
    code = (
        "import json, sys, toolcall\n"
        "from examples import weather, orders\n"
        "assert (weather.get_weather.__doc__ is None) == (sys.flags.optimize == 2)\n"
        "print(json.dumps([toolcall.emit(m, f, strict=s) for m in (weather, orders)"
        " for f in ('openai', 'anthropic', 'mcp') for s in (False, True)], sort_keys=True))\n"
    )
    out = [
        subproc.python(*flags, "-c", code, paths=[ROOT], check=True).stdout
        for flags in ([], ["-OO"])
    ]
    assert out[0] == out[1]
    assert "Get the forecast for a city." in out[1]
    assert "ISO 3166-1 alpha-2 country code." in out[1]


def test_derive_refuses_what_cannot_be_a_tool():
    """`derive` on a function that cannot be a tool raises TypeError saying why."""

    def loose(a, b):
        return a

    with pytest.warns(toolcall.ToolcallWarning), pytest.raises(TypeError, match="no annotations"):
        toolcall.derive(loose)
