"""A module's schemas are stored as a table of distinct nodes and built once each (issue 23).

The table is what a warm process reads instead of one rendered copy per format: it must give
back exactly what was rendered (types kept apart, order kept), share what repeats, and refuse
anything ``pack`` could not have written, since nothing but its checksum guards it.
"""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from toolcall._cache import store as _cache
from toolcall._cache.nodes import DEPTH_LIMIT, build, pack
from toolcall._frozen import FrozenDict, FrozenList, freeze
from toolcall._load import warm as loading
from toolcall._render.formats import render_variants
from toolcall._shared.names import FORMATS

LOOSE = [
    {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
    {"type": "object", "properties": {"n": {"default": 1}, "f": {"default": 1.0}}},
    {"type": "object", "properties": {"t": {"default": True}, "z": {"default": -0.0}}},
]
STRICT = [{**schema, "additionalProperties": False} for schema in LOOSE]


def roundtrip(loose: list[Any], strict: list[Any]) -> tuple[list[Any], list[Any]]:
    table = msgspec.msgpack.decode(msgspec.msgpack.encode(pack(loose, strict)))
    return build(table["nodes"], table["loose"], table["strict"], len(loose))


def _typed(value: Any) -> Any:
    """A value with every scalar tagged by its type and floats by their repr."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}, list(value)
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return type(value).__name__, repr(value)


def test_a_table_gives_back_exactly_what_was_rendered() -> None:
    """Equal with types and key order kept: 1, 1.0 and True, 0.0 and -0.0 stay apart."""
    loose, strict = roundtrip(LOOSE, STRICT)
    assert _typed(loose) == _typed(LOOSE)
    assert _typed(strict) == _typed(STRICT)
    assert isinstance(loose[0], FrozenDict)
    with pytest.raises(TypeError, match="read-only"):
        loose[0]["properties"]["a"]["type"] = "integer"


def test_each_distinct_node_is_stored_and_built_once() -> None:
    """Repeats are one node: one ``{"type": "string"}`` object, one properties object
    shared by the loose and strict schema of a tool."""
    table = pack(LOOSE, STRICT)
    assert table["nodes"].count("string") == 1
    string = [["type"], [table["nodes"].index("string")]]
    assert table["nodes"].count(string) == 1
    loose, strict = roundtrip(LOOSE, STRICT)
    props = loose[0]["properties"]
    assert props["a"] is props["b"]
    assert strict[0]["properties"] is props


def test_frozen_shared_subtrees_are_walked_once() -> None:
    """A schema frozen once and shared (as render_variants shares them) packs in one visit
    per distinct object: 1,000 references to one object cost one node."""
    shared = freeze({"type": "object", "properties": {"x": {"type": "integer"}}})
    table = pack([shared] * 1000, [shared] * 1000)
    # "object", "integer", {"type": ...}, {"x": ...}, the schema (keys are stored inline)
    assert len(table["nodes"]) == 5
    assert table["loose"] == [table["loose"][0]] * 1000


def _visits(run: Callable[[], Any]) -> int:
    """How many values ``pack`` visited (calls of its ``add``) while ``run`` ran."""
    walked = 0

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        nonlocal walked
        if event == "call" and frame.f_code.co_name == "add":
            walked += frame.f_code.co_filename.endswith("nodes.py")

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return walked


def test_equal_copies_are_walked_once() -> None:
    """The same TypedDict's schema rendered afresh in 1,000 tools (equal, not shared): its
    nodes are walked for the first copy only; each other copy is one lookup."""
    text = '{"type": "object", "properties": {"x": {"type": "integer"}, "y": [1, 2.5]}}'
    copies = [json.loads(text) for _ in range(1000)]
    one = _visits(lambda: pack(copies[:1], copies[:1]))
    assert one > 4
    assert _visits(lambda: pack(copies, copies)) == one + 2 * 999
    loose, strict = roundtrip(copies, copies)
    assert _typed(loose) == _typed(copies)
    assert loose[0] is loose[999] is strict[0]


def test_what_msgpack_cannot_encode_is_packed_all_the_same() -> None:
    """An int past 64 bits or a lone surrogate makes no subtree bytes: walked as usual."""
    odd = [{"default": 2**70, "enum": ["a\ud800", "b"]}, {"default": 2**70}]
    table = pack(odd, odd)
    assert table["strict"] == table["loose"]
    assert build(table["nodes"], table["loose"], table["strict"], 2) == (odd, odd)


@pytest.mark.parametrize(
    ("nodes", "roots"),
    [
        ([[[1]], "x"], [0]),  # a child after its parent (or itself): no cycles
        ([{"type": "string"}], [0]),  # a map as a leaf would be mutable
        ([[["a", "b"], [0]]], [0]),  # keys and children do not pair up
        ([["a", "b", "c"]], [0]),  # neither object nor array
        (["x", [["k"], "0"]], [1]),  # children that are not a list
        (["x"], [5]),  # a root out of range
        (["x"], ["0"]),  # a root that is not an index
        ("x", [0]),  # not a table
    ],
)
def test_a_table_pack_could_not_have_written_is_refused(nodes: Any, roots: list[Any]) -> None:
    """A node table pack could not have written is refused, whatever is wrong with it."""
    with pytest.raises(ValueError, match=r"table|node|schema"):
        build(nodes, roots, roots, 1)


def test_a_table_for_another_number_of_tools_is_refused() -> None:
    """A node table for another number of tools is refused."""
    table = pack(LOOSE, STRICT)
    with pytest.raises(ValueError, match="not a schema table"):
        build(table["nodes"], table["loose"], table["strict"], 2)


def test_a_schema_deeper_than_the_library_writes_is_refused() -> None:
    """Built without recursion, so the check is a bound, not a ``RecursionError``."""
    nodes: list[Any] = ["x", *([[i]] for i in range(DEPTH_LIMIT + 1))]
    with pytest.raises(ValueError, match="deeper"):
        build(nodes, [DEPTH_LIMIT + 1], [DEPTH_LIMIT + 1], 1)
    ok, _ = build(nodes[: DEPTH_LIMIT + 1], [DEPTH_LIMIT], [DEPTH_LIMIT], 1)
    assert isinstance(ok[0], FrozenList)


TOOLS = '''
from typing import Literal, NotRequired, TypedDict

__toolcall__ = True


class Options(TypedDict):
    """How to look."""

    mode: Literal["fast", "exact"]
    limit: NotRequired[int]


def find(query: str, count: int = 3, options: Options | None = None) -> str:
    """Find things.

    Args:
        query: what to find
        count: how many
        options: how to look
    """
    return query


def tag(names: list[str] | None = None, weight: float = 1.0) -> str:
    """Tag things."""
    return ""
'''


def test_every_variant_from_the_table_equals_a_fresh_render(
    make_module: Callable[..., types.ModuleType],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Byte for byte (JSON text, key order included), for every format, strict value and
    ``describe``; and a broken table is rendered again from the IR, equally."""
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(tmp_path / "cache"))
    module = make_module(TOOLS)
    cold = loading.process(module)
    keys = [(fmt, strict) for fmt in FORMATS for strict in (False, True)]
    keys.append(("describe", False))
    expected, _ = render_variants(cold.ir.tools, module.__name__)
    (path,) = (tmp_path / "cache").glob("*.tcc")
    for broken in (False, True):
        if broken:
            record = _cache.read_entry(path)
            assert record is not None
            variants = {**record.variants, "nodes": [[[5]]]}
            assert _cache.write_entry(path, msgspec.structs.replace(record, variants=variants))
        warm = loading.process(module)
        assert not warm.variants.loaded
        for key in keys:
            assert json.dumps(warm.variants[key]) == json.dumps(expected[key])
            assert json.dumps(cold.variants[key]) == json.dumps(expected[key])


AGAIN = '''

def find_again(query: str, options: Options | None = None) -> str:
    """Find things again."""
    return query
'''


def test_a_cold_process_holds_what_a_warm_one_does(
    make_module: Callable[..., types.ModuleType],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the table is written, a cold entry's schemas are the table's: equal subtrees
    (the TypedDict two tools take, the leaves loose and strict share) are one object, as in
    a warm process, instead of one rendered copy per tool; what is emitted is the same."""
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(tmp_path / "cache"))
    module = make_module(TOOLS + AGAIN)
    cold = loading.lookup(module)  # what the hook derived, rendered and cached
    assert cold.variants.loaded
    assert list((tmp_path / "cache").glob("*.tcc"))
    expected, _ = render_variants(cold.ir.tools, module.__name__)
    for key in expected:
        assert json.dumps(cold.variants[key]) == json.dumps(expected[key])
    loose, strict = cold.variants.schemas()
    first, _, again = (schema["properties"] for schema in loose)
    assert first["options"]["properties"] is again["options"]["properties"]
    assert first["query"] is strict[0]["properties"]["query"]
