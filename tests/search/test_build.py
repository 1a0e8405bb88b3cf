"""Building an index: what it leaves the collector and the program, never how long it takes.

An index's counts and postings are allocated all at once and none of them is garbage while
they are made, so the cyclic collector is paused meanwhile (a collection would only walk and
promote them); the collector's state is the program's and is left as it was found.
"""

from __future__ import annotations

import gc
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from toolcall import ir
from toolcall._search import index, stored

STRING = ir.Type(kind="string")


def catalog(count: int) -> list[ir.Tool]:
    """Enough tools for many young-generation collections, had the collector run."""
    return [
        ir.Tool(
            name=f"tool_{i}_frob",
            description=f"Frobnicate the widget {i} and the gadget {i % 7}.",
            parameters=(
                ir.Parameter(name="widget", type=STRING, description=f"Widget number {i}."),
            ),
        )
        for i in range(count)
    ]


@pytest.fixture
def collections() -> Iterator[Callable[[Callable[..., Any]], Callable[..., Any]]]:
    """Wraps a function so that every collection starting while it runs is recorded; yields
    the wrapper, then checks (after the test) that none started."""
    inside: list[bool] = []
    during: list[dict[str, Any]] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and inside:
            during.append(info)

    def watched(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            inside.append(True)
            try:
                return real(*args)
            finally:
                inside.pop()

        return call

    gc.callbacks.append(seen)
    try:
        yield watched
    finally:
        gc.callbacks.remove(seen)
    assert during == []


@pytest.mark.parametrize("enabled", [True, False])
def test_no_collection_runs_while_an_index_counts_and_scores(
    enabled: bool,
    collections: Callable[[Callable[..., Any]], Callable[..., Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counting every tool's terms and making the postings start no collection; the
    collector is enabled or disabled afterwards as it was before."""
    monkeypatch.setattr(index, "document_terms", collections(index.document_terms))
    monkeypatch.setattr(index, "_postings", collections(index._postings))
    if not enabled:
        gc.disable()
    try:
        built = index.build_index(catalog(3000))
        assert gc.isenabled() is enabled
    finally:
        gc.enable()
    assert [hit.name for hit in built.search("tool_12_frob", 1)] == ["tool_12_frob"]


def test_no_collection_runs_while_a_modules_terms_are_counted(
    collections: Callable[[Callable[..., Any]], Callable[..., Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A module's first search counts its tools' terms (kept on its entry) without a
    collection either, and leaves the collector running."""
    tools = catalog(3000)
    monkeypatch.setattr(stored, "document_terms", collections(stored.document_terms))
    entry: Any = types.SimpleNamespace(
        module=None, name="runtime", ir=ir.ModuleIR(module="runtime", tools=tuple(tools))
    )
    entry.search = None
    found = stored.module_search(entry)
    assert gc.isenabled()
    assert len(found.terms) == 3000
    assert found.terms["tool_5_frob"][0] == {"tool": 1, "5": 1, "frob": 1}
