"""A cold derivation leaves little garbage and triggers few collector passes (issue 23).

At 10,000 tools the collector was a sixth of a cold start: full collections, each walking
every live object, triggered by objects that were garbage within a millisecond (a module's
AST) or that could never be in a cycle (the IR), and cycles that kept a module's whole
derivation alive until one ran. These tests count collections and garbage, never time.
"""

from __future__ import annotations

import gc
import os
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_warm_scale import source

import toolcall
from toolcall import ir
from toolcall._cache import fingerprint
from toolcall._derive import source as _source
from toolcall._frozen import FrozenDict, FrozenList
from toolcall._load import warm as loading
from toolcall._render import formats


@pytest.fixture
def cold(
    make_module: Callable[..., types.ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[int], tuple[types.ModuleType, Callable[[], loading.ModuleEntry]]]:
    """A module of n tools, imported, and what derives it cold into an empty cache."""
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(tmp_path / "hook"))

    def make(tools: int) -> tuple[types.ModuleType, Callable[[], loading.ModuleEntry]]:
        module = make_module(source(tools))
        origin = module.__spec__.origin
        assert origin is not None
        data = Path(origin).read_bytes()

        def derive() -> loading.ModuleEntry:
            return loading.process(
                module,
                directory=tmp_path / "cold",
                source=loading.ExecutedSource(data, None),
                executed=True,
            )

        return module, derive

    return make


@pytest.fixture
def collector_paused() -> Iterator[None]:
    """No collection but the test's own, from a clean slate."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def test_a_cold_derivation_leaves_no_cycle_behind(cold: Any, collector_paused: None) -> None:
    """Every object a derivation dropped was freed as it was dropped: the derivation and its
    type resolver held each other, and so did the node table's two walking closures."""
    _, derive = cold(20)
    # held, so that nothing older can become garbage meanwhile (an earlier test's entries)
    # nor have its id taken by a new object
    older = gc.get_objects()
    entry = derive()
    assert entry.tool_names[0] == "find_0"
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    known = set(map(id, older))
    assert [_name(junk) for junk in gc.garbage if id(junk) not in known and _ours(junk)] == []


def _ours(junk: object) -> bool:
    """An object of toolcall's, or a function of its (a closure in a cycle): what another
    thread may leave meanwhile is someone else's."""
    kind = type(junk)
    owner = getattr(junk, "__module__", None) if kind in _CODE else kind.__module__
    return isinstance(owner, str) and owner.partition(".")[0] == "toolcall"


def _name(junk: object) -> str:
    return getattr(junk, "__qualname__", None) or type(junk).__qualname__


_CODE = (types.FunctionType, types.MethodType)


def test_the_ir_is_left_out_of_the_collectors_walks(cold: Any) -> None:
    """Tools, parameters and types hold data, never a cycle; 10,000 tools' IR would be
    walked by every full collection."""
    _, derive = cold(3)
    tools = derive().ir.tools
    nodes: list[Any] = [*tools]
    for tool in tools:
        nodes += tool.parameters
        nodes += [p.type for p in tool.parameters]
    assert {type(node) for node in nodes} == {ir.Tool, ir.Parameter, ir.Type}
    assert not any(gc.is_tracked(node) for node in nodes)


def test_a_cold_entry_freezes_no_schema_its_table_replaces(
    cold: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rendered schemas are replaced by the node table's (one object per distinct subtree),
    so freezing them first was work thrown away; what `emit` hands out is read-only still."""
    calls: list[object] = []
    real = formats.freeze
    monkeypatch.setattr(formats, "freeze", lambda value: calls.append(value) or real(value))
    module, derive = cold(4)
    derive()
    assert calls == []
    tools = toolcall.emit(module, "openai")
    schema = tools[0]["function"]["parameters"]
    assert type(schema) is FrozenDict
    assert type(schema["properties"]["tags"]["type"]) is FrozenList
    assert type(schema["properties"]["options"]["properties"]["mode"]) is FrozenDict


def test_an_entry_it_cannot_store_keeps_frozen_schemas(
    make_module: Callable[..., types.ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Schemas of a module derived without a cache are frozen like those read from one."""
    monkeypatch.setenv("TOOLCALL_CACHE", "0")
    module = make_module(source(2))
    entry = loading.process(module, directory=None)
    loose, strict = entry.variants.schemas()
    assert type(loose[0]["properties"]["options"]["properties"]["mode"]) is FrozenDict
    assert type(strict[1]["required"]) is FrozenList


@pytest.mark.parametrize("enabled", [True, False])
def test_no_collection_runs_while_a_sources_ast_exists(
    enabled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module's AST is garbage as soon as it has been read: collections during the parse
    would only promote it to the generations whose collections walk every live object.
    The collector's state is the program's: it is left as it was found."""
    text = source(200)
    reading: list[bool] = []
    during: list[dict[str, Any]] = []
    real = _source._collect

    def collect(given: str | bytes) -> Any:
        reading.append(True)
        try:
            return real(given)
        finally:
            reading.pop()

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and reading:
            during.append(info)

    monkeypatch.setattr(_source, "_collect", collect)
    gc.callbacks.append(seen)
    if not enabled:
        gc.disable()
    try:
        docs = _source.parse_source(text)
        assert gc.isenabled() is enabled
    finally:
        gc.callbacks.remove(seen)
        gc.enable()
    assert during == []
    assert docs.functions["find_199"].startswith("Find things (199).")


def test_what_stands_in_for_a_loaded_module_is_found_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every tool module imports ``typing``: telling it is the standard library's resolved
    its path, a ``stat`` per directory, for every module. A module imported anew (after an
    upgrade, say) is looked at again."""
    import typing

    resolved: list[str] = []
    real = os.path.realpath
    monkeypatch.setattr(
        os.path, "realpath", lambda path, **kw: resolved.append(path) or real(path, **kw)
    )
    first = fingerprint.dep_for_module(typing)
    assert (first.kind, first.name) == ("python", "typing")
    resolved.clear()
    assert fingerprint.dep_for_module(typing) == first
    assert resolved == []
    again = types.ModuleType("typing")
    again.__file__ = typing.__file__
    assert fingerprint.dep_for_module(again) == first
    assert resolved == [typing.__file__]


class _NoWeakref:
    """What a library may put in ``sys.modules``: not a module, no weak reference."""

    __slots__ = ("__file__", "__name__")


def test_a_loaded_non_module_without_weak_references_still_stands_in() -> None:
    """An object in sys.modules that takes no weak reference is still fingerprinted as the module
    it stands for."""
    import typing

    stub = _NoWeakref()
    stub.__name__ = "typing"
    stub.__file__ = typing.__file__
    dep = fingerprint.dep_for_module(stub)  # type: ignore[arg-type]
    assert (dep.kind, dep.name) == ("python", "typing")


@pytest.mark.parametrize("failure", ["pack", "build"])
def test_schemas_no_table_replaces_are_frozen_all_the_same(
    cold: Any, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    """A schema the table cannot hold (too deep to walk, or to build back) keeps the rendered
    copy, which is then frozen like any other: what ``emit`` hands out is never writable."""
    from toolcall._cache import nodes

    def refuse(*args: Any) -> Any:
        raise RecursionError if failure == "pack" else ValueError("too deep")

    monkeypatch.setattr(nodes, failure, refuse)
    module, derive = cold(2)
    derive()
    schema = toolcall.emit(module, "openai")[1]["function"]["parameters"]
    assert type(schema) is FrozenDict
    assert type(schema["properties"]["options"]["properties"]["mode"]["enum"]) is FrozenList
    with pytest.raises(TypeError, match="read-only"):
        schema["properties"]["query"]["type"] = "integer"
