"""An unknown tool name gets the tools a search for it finds, in a bounded message.

``run``, ``arun`` and a Toolbox's answer a name the catalog lacks with ``unknown_tool``: the
message offers the top three hits of a search for the name (a misspelling, another casing, a
word of a description), and ``names`` holds them; without hits a small catalog is listed
whole and a large one is only counted. The index is built on the first unknown name, kept on
the module's entry, and never by a known name or an import.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Callable

import pytest
from examples import orders, weather

import toolcall
from toolcall._load import registry
from toolcall._search import stored


def error(result: toolcall.Ok[object] | toolcall.Err) -> toolcall.ToolError:
    assert isinstance(result, toolcall.Err)
    return result.error


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("get_wether", ("get_weather",)),  # one letter wrong
        ("GetWeather", ("get_weather",)),  # another casing of the name
        ("temperature", ("convert_temperature",)),  # a word of the name
        ("forecast", ("get_weather",)),  # a word of the description only
    ],
)
def test_module_run_suggests_what_a_search_for_the_name_finds(
    name: str, expected: tuple[str, ...]
) -> None:
    """The message offers the hits, best first; ``names`` holds exactly them."""
    err = error(toolcall.run(weather, name, {}))
    assert (err.kind, err.value, err.names[: len(expected)]) == ("unknown_tool", name, expected)
    assert err.message.startswith(f"unknown tool {name!r}; did you mean: {expected[0]}")
    assert err.message.endswith("?")
    assert len(err.names) <= 3


def test_no_hit_in_a_small_catalog_lists_it_whole() -> None:
    """Up to ten tools, a name that matches nothing gets the whole list (as ``names`` too)."""
    err = error(toolcall.run(weather, "nope", {}))
    assert err.message == (
        "unknown tool 'nope'; available tools: get_weather, convert_temperature, air_quality"
    )
    assert err.names == ("get_weather", "convert_temperature", "air_quality")


def test_a_large_catalog_is_counted_never_listed(
    make_module: Callable[..., types.ModuleType],
) -> None:
    """Past ten tools, no hit means a count: the message stays short however big the box."""
    source = "__toolcall__ = True\n" + "".join(
        f"def tool_{i}(x: int) -> int:\n    '''Frobnicate widget {i}.'''\n    return x\n"
        for i in range(40)
    )
    module = make_module(source)
    err = error(toolcall.run(module, "nope", {}))
    assert (
        err.message == "unknown tool 'nope'; none of the 40 tools has a similar name or description"
    )
    assert err.names == ()
    err = error(toolcall.run(module, "widgets", {}))
    assert err.message.startswith("unknown tool 'widgets'; did you mean: tool_")
    assert len(err.names) == 3


def test_a_toolbox_suggests_across_its_members() -> None:
    """A box's run and arun search the box's own index: tools of every member."""
    box = toolcall.Toolbox(weather, orders)
    assert error(box.run("cancel_ordr", {})).names[0] == "cancel_order"
    found = asyncio.run(box.arun("get_wether", {}, timeout=5))
    assert error(found).message == "unknown tool 'get_wether'; did you mean: get_weather?"


def test_a_name_that_is_no_string_or_huge_stays_bounded() -> None:
    """Only a string is searched, and only its start: the message is one short line."""
    err = error(toolcall.run(weather, "get_wether " * 10_000, {}))
    assert err.message.startswith("unknown tool 'get_wether get_wether")
    assert len(err.message) <= 300
    box = toolcall.Toolbox(weather)
    assert error(box.run(["get_weather"], {})).message.startswith(  # type: ignore[arg-type]
        "unknown tool ['get_weather']; available tools: get_weather"
    )


def test_the_index_is_built_on_the_first_unknown_name_and_kept(
    make_module: Callable[..., types.ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Known names never build it; the first unknown name does, once, on the module's entry."""
    module = make_module(
        "__toolcall__ = True\ndef get_weather(city: str) -> str:\n    '''Weather.'''\n"
        "    return city\n"
    )
    built: list[str] = []
    original = stored.module_search

    def counting(entry: registry.ModuleEntry) -> stored.ModuleSearch:
        if entry.search is None:
            built.append(entry.name)
        return original(entry)

    monkeypatch.setattr(stored, "module_search", counting)
    entry = registry.find(module.__name__)
    assert entry is not None
    assert toolcall.run(module, "get_weather", {"city": "Oslo"}) == toolcall.Ok("Oslo")
    assert (entry.search, built) == (None, [])
    assert error(toolcall.run(module, "get_wether", {})).names == ("get_weather",)
    assert error(toolcall.run(module, "weathr", {})).kind == "unknown_tool"
    assert built == [module.__name__]
    assert entry.search is not None
