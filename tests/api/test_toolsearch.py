"""toolcall.ToolSearch and the provider caps: a catalog larger than a request may carry is
sent as pinned tools plus ``search_tools`` (or a provider's deferred form), every tool stays
reachable by name, and ``emit`` refuses a list longer than the provider accepts, naming the
cap and the fix."""

from __future__ import annotations

import asyncio
import json
import types
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

import subproc
import toolcall

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ("examples.weather", "examples.orders")
SEARCH_TOOL_OPENAI = {
    "type": "function",
    "function": {
        "name": "search_tools",
        "description": (
            "Find the tools for a task among the tools available but not listed. Describe the "
            "task in a few words (what to do, to what); the tools found are returned with "
            "their parameters and can be called from then on. Search again with other words "
            "when none fits."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": (
                        'the task, in a few words, e.g. "refund an order" or "weather forecast"'
                    ),
                }
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
}


def _names(tools: list[object], format: str = "openai") -> list[str]:
    if format == "openai":
        return [tool["function"]["name"] for tool in tools]  # type: ignore[index]
    if format == "gemini":
        return [tool["name"] for tool in tools]  # type: ignore[index]
    if format == "bedrock":
        return [tool["toolSpec"]["name"] for tool in tools]  # type: ignore[index]
    return [tool["name"] for tool in tools]  # type: ignore[index]


@pytest.fixture
def search() -> toolcall.ToolSearch:
    return toolcall.ToolSearch(toolcall.Toolbox(*CATALOG), pinned=["get_weather"], k=2)


def test_first_request_lists_the_pinned_tools_then_search_tools(search):
    """Before any search the list is the pinned tools, then search_tools, exactly."""
    tools = search.emit("openai")
    assert _names(tools) == ["get_weather", "search_tools"]
    assert tools[0] == toolcall.emit("examples.weather", "openai")[0]
    assert tools[1] == SEARCH_TOOL_OPENAI


@pytest.mark.parametrize("format", ["openai", "anthropic", "mcp", "gemini", "bedrock"])
@pytest.mark.parametrize("strict", [False, True])
def test_search_tools_is_rendered_in_every_format(search, format, strict):
    """search_tools is one definition rendered by each format's own envelope (strict too):
    exactly what toolcall renders for a function of its signature and descriptions."""

    def search_tools(query: str) -> str:
        return query

    openai = SEARCH_TOOL_OPENAI["function"]
    tool = toolcall.derive(search_tools)
    query = msgspec.structs.replace(
        tool.parameters[0],
        description=openai["parameters"]["properties"]["query"]["description"],  # type: ignore[index]
    )
    tool = msgspec.structs.replace(
        tool, description=openai["description"], parameters=(query,), module="", qualname=""
    )
    emitted = search.emit(format, strict)
    assert _names(emitted, format) == ["get_weather", "search_tools"]
    assert emitted[1] == toolcall.render(tool, format, strict=strict)


def test_a_search_answers_with_definitions_and_grows_the_next_list(search):
    """search_tools returns the found tools' name, description and parameters; the next
    request lists them after search_tools, in the order found, and later searches append."""
    result = search.run("search_tools", {"query": "cancel my order"})
    assert isinstance(result, toolcall.Ok)
    described = {item["name"]: item for item in toolcall.describe("examples.orders")}
    assert result.value == [
        {key: described[name][key] for key in ("name", "description", "parameters")}
        for name in ("cancel_order", "place_order")
    ]
    assert search.found == ("cancel_order", "place_order")
    first = _names(search.emit("openai"))
    assert first == ["get_weather", "search_tools", "cancel_order", "place_order"]
    search.run("search_tools", {"query": "air quality index"})
    assert _names(search.emit("openai"))[:4] == first  # the start stays: prompt caches hold
    assert search.found[:2] == ("cancel_order", "place_order")
    assert "air_quality" in search.found


def test_a_pinned_tool_is_never_a_search_result(search):
    """The query names the pinned tool: it is listed already, so the k results are others."""
    result = search.run("search_tools", {"query": "get_weather forecast for a city"})
    assert isinstance(result, toolcall.Ok)
    assert "get_weather" not in [item["name"] for item in result.value]
    assert "get_weather" not in search.found


def test_a_search_that_finds_nothing_says_so(search):
    """No tool matches: the model is told to try other words, and nothing is recorded."""
    result = search.run("search_tools", {"query": "zzzz qqqq"})
    assert result == toolcall.Ok("No tool matches; describe the task in other words.")
    assert search.found == ()


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        ({"q": "x"}, "unknown_arguments"),
        ({}, "missing_argument"),
        ({"query": 3}, "invalid_argument"),
    ],
)
def test_bad_search_arguments_are_the_models_error(search, args, kind):
    """run never raises for the model's mistakes: wrong search arguments are an Err."""
    result = search.run("search_tools", args)
    assert isinstance(result, toolcall.Err)
    assert result.error.kind == kind
    assert search.found == ()


def test_every_tool_of_the_catalog_is_reachable_by_name(search):
    """A call of a tool never found (nor listed) still runs: run reaches the whole catalog."""
    result = search.run("convert_temperature", {"value": 100, "to": "fahrenheit"})
    assert isinstance(result, toolcall.Ok)
    unknown = search.run("nope", {})
    assert isinstance(unknown, toolcall.Err)
    assert unknown.error.kind == "unknown_tool"


def test_arun_answers_as_run(search):
    """arun answers search_tools and routes other names as run does."""

    async def both() -> tuple[object, object]:
        found = await search.arun("search_tools", {"query": "cancel my order"})
        ran = await search.arun("get_weather", {"city": "Oslo"})
        return found, ran

    found, ran = asyncio.run(both())
    assert isinstance(found, toolcall.Ok)
    assert [item["name"] for item in found.value] == ["cancel_order", "place_order"]
    assert ran == search.box.run("get_weather", {"city": "Oslo"})


def test_construction_refuses_what_cannot_work():
    """Mistakes of the program raise ValueError at construction, naming the fix."""
    box = toolcall.Toolbox(*CATALOG)
    with pytest.raises(ValueError, match=r"cannot pin 'nope': no such tool in this Toolbox"):
        toolcall.ToolSearch(box, pinned=["nope"])
    with pytest.raises(ValueError, match="k must be a positive integer, not 0"):
        toolcall.ToolSearch(box, k=0)
    with pytest.raises(ValueError, match="defer must be None or one of 'client', 'server'"):
        toolcall.ToolSearch(box, defer="bm25")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="namespaces group deferred tools"):
        toolcall.ToolSearch(box, namespaces=True)


def test_a_catalog_tool_named_search_tools_is_refused():
    """Two tools of one name cannot be told apart: the catalog's own search_tools is refused."""

    def search_tools(query: str) -> str:
        """Mine."""
        return query

    with pytest.raises(ValueError, match=r"a tool named 'search_tools'.*rename it"):
        toolcall.ToolSearch(search_tools)


def test_a_deferred_form_is_refused_where_the_format_has_none():
    """defer picks a provider's native form: a format without one says which formats have it."""
    box = toolcall.Toolbox(*CATALOG)
    with pytest.raises(ValueError, match="defer='server'") as info:
        toolcall.ToolSearch(box, defer="server").emit("gemini")
    assert str(info.value) == (
        "defer='server' is a form of anthropic and responses only, not of gemini; "
        "for gemini, use a ToolSearch without defer"
    )
    with pytest.raises(ValueError, match="defer='regex' is a form of anthropic only"):
        toolcall.ToolSearch(box, defer="regex").emit("responses")
    with pytest.raises(ValueError, match="unknown format 'claude'"):
        toolcall.ToolSearch(box).emit("claude")
    with pytest.raises(ValueError, match="strict must be True or False, not 1"):
        toolcall.ToolSearch(box).emit("openai", 1)  # type: ignore[arg-type]


def test_search_tools_keeps_its_description_under_OO():
    """The search tool's descriptions are not docstrings: python -OO still sends them."""
    code = (
        "import json, toolcall\n"
        "s = toolcall.ToolSearch('examples.weather')\n"
        "print(json.dumps(s.emit('openai')[0]))\n"
    )
    done = subproc.python("-OO", "-c", code, paths=[ROOT], cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == SEARCH_TOOL_OPENAI


# -- caps ---------------------------------------------------------------------------------


def _many(count: int) -> str:
    lines = ["__toolcall__ = True\n"]
    for n in range(count):
        lines.append(f"def tool_{count}_{n}(x: int) -> int:\n    'Tool {n}.'\n    return x\n")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], types.ModuleType]:
    import importlib
    import sys

    root = tmp_path_factory.mktemp("caps")
    sys.path.insert(0, str(root))
    made: dict[int, types.ModuleType] = {}

    def make(count: int) -> types.ModuleType:
        if count not in made:
            (root / f"caps_{count}.py").write_text(_many(count))
            importlib.invalidate_caches()
            made[count] = importlib.import_module(f"caps_{count}")
        return made[count]

    return make


OPENAI_CAP = (
    "129 tools is more than OpenAI accepts in one request (128); send the few a request "
    "needs: Toolbox.select(query, k) or toolcall.ToolSearch (see docs/large-catalogs.md)"
)


@pytest.mark.parametrize("strict", [False, True])
def test_emit_refuses_more_tools_than_openai_accepts(big, strict):
    """129 tools in the openai format: ValueError naming the cap and the fix, every time
    (the list never enters the fast lookup); 128 are emitted."""
    module = big(129)
    for _ in range(2):
        with pytest.raises(ValueError, match="OpenAI") as info:
            toolcall.emit(module, "openai", strict)
        assert str(info.value) == OPENAI_CAP
    assert len(toolcall.emit(big(128), "openai", strict)) == 128


def test_box_emit_refuses_the_same(big):
    """Toolbox.emit applies the same caps, to the box's whole list."""
    box = toolcall.Toolbox(big(100), big(29))
    with pytest.raises(ValueError, match="OpenAI") as info:
        box.emit("openai")
    assert str(info.value) == OPENAI_CAP
    assert len(box.emit("anthropic")) == 129
    assert len(box.select("tool", k=5).emit("openai")) == 5


def test_gemini_cap_is_512(big):
    """Gemini refuses more than 512 function declarations; anthropic, mcp and bedrock
    document no cap and emit any number."""
    module = big(513)
    with pytest.raises(ValueError, match=r"^513 tools is more than Gemini accepts .*\(512\)"):
        toolcall.emit(module, "gemini")
    for format in ("anthropic", "mcp", "bedrock"):
        assert len(toolcall.emit(module, format)) == 513
    assert len(toolcall.emit(big(512), "gemini")) == 512


def test_a_tool_search_over_the_cap_is_refused_too(big):
    """Pinning 128 tools leaves no room for search_tools in an OpenAI request, nor do tools
    found in a long conversation: refused, saying what the list holds."""
    module = big(129)
    search = toolcall.ToolSearch(module, pinned=toolcall.tool_names(module)[:128])
    with pytest.raises(ValueError, match="OpenAI") as info:
        search.emit("openai")
    assert str(info.value) == (
        "129 tools is more than OpenAI accepts in one request (128); 128 pinned, search_tools "
        "and 0 found: pin fewer tools, or start a new ToolSearch (the tools found are kept for "
        "its conversation)"
    )
    assert len(search.emit("anthropic")) == 129
    names = toolcall.tool_names(module)
    long = toolcall.ToolSearch(module, pinned=names[:120], k=1)
    for name in names[120:]:
        long.run("search_tools", {"query": name})
    assert long.found == names[120:]
    with pytest.raises(ValueError, match=r"^130 tools .* 120 pinned, search_tools and 9 found"):
        long.emit("openai")


def test_a_large_catalog_fits_a_request_through_tool_search(big):
    """The fix the message names works: a 513-tool catalog sends 1 + k tools."""
    search = toolcall.ToolSearch(big(513), k=3)
    search.run("search_tools", {"query": "tool 7"})
    assert len(search.emit("openai")) == 4
    assert len(search.emit("gemini")) == 4
