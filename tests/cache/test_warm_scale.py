"""A warm load does per tool only what it must, pinned as counts, never timings (issue 23).

At 10,000 tools the cost per tool is what counts: a warm load reads one file, decodes its
head and summary only, checks each tool's name and defaults and each distinct class once,
and leaves the IR, the schemas, every variant and every plan for their first use.
"""

from __future__ import annotations

import gc
import inspect
import os
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

import toolcall
from toolcall._cache import store as _cache
from toolcall._cache.summary import summarize
from toolcall._dispatch.result import Ok
from toolcall._load import trust
from toolcall._load import warm as loading

HEADER = '''
from typing import Literal, NotRequired, TypedDict

__toolcall__ = True


class Options(TypedDict):
    """How to look."""

    mode: Literal["fast", "exact"]
    limit: NotRequired[int]
'''

TOOL = '''

def find_{n}(query: str, count: int = 3, options: Options | None = None,
             tags: list[str] | None = None) -> str:
    """Find things ({n}).

    Args:
        query: what to find
        count: how many
        options: how to look
        tags: only these
    """
    return f"{{query}} {{count}} {n}"
'''


def source(tools: int) -> str:
    return HEADER + "".join(TOOL.format(n=n) for n in range(tools))


class Counter:
    """Counts calls of module attributes while installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counts: dict[str, int] = {}
        self._patch = monkeypatch

    def watch(self, owner: Any, name: str) -> None:
        real = getattr(owner, name)
        key = f"{getattr(owner, '__name__', type(owner).__name__)}.{name}"
        self.counts[key] = 0

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.counts[key] += 1
            return real(*args, **kwargs)

        self._patch.setattr(owner, name, counted)


class _CountingDecoder:
    def __init__(self, real: Any, counts: dict[str, int], key: str) -> None:
        self._real, self._counts, self._key = real, counts, key
        counts[key] = 0

    def decode(self, data: Any) -> Any:
        self._counts[self._key] += 1
        return self._real.decode(data)


@pytest.fixture
def warm(
    make_module: Callable[..., types.ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[[int], tuple[loading.ModuleEntry, dict[str, int], types.ModuleType]]:
    """A warm load of a module of n tools: its entry and what the load did, counted."""
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(tmp_path / "cache"))

    def load(tools: int) -> tuple[loading.ModuleEntry, dict[str, int], types.ModuleType]:
        module = make_module(source(tools))
        origin = module.__spec__.origin
        assert origin is not None
        data = Path(origin).read_bytes()
        loading.process(module, source=loading.ExecutedSource(data, None), executed=True)
        with monkeypatch.context() as patch:
            counter = Counter(patch)
            for name in ("stat", "lstat", "fstat", "open", "read", "listdir"):
                counter.watch(os, name)
            counter.watch(trust, "_class")
            counter.watch(trust, "_live_defaults")
            counter.watch(inspect, "unwrap")
            counter.watch(_cache, "read_bytes")
            for attr in ("_warm_decoder", "_decoder", "_raw_decoder"):
                patch.setattr(
                    _cache, attr, _CountingDecoder(getattr(_cache, attr), counter.counts, attr)
                )
            patch.setattr(
                loading,
                "_ir_decoder",
                _CountingDecoder(loading._ir_decoder, counter.counts, "ir"),
            )
            entry = loading.process(
                module, source=loading.ExecutedSource(data, None), executed=True
            )
            counts = dict(counter.counts)
        return entry, counts, module

    return load


def test_a_warm_load_costs_the_same_per_module_whatever_its_tools(warm: Any) -> None:
    """One entry read (one open, one read, one fstat), one decode of head and summary,
    one stat to see whether the entry needs touching, one check of the shared TypedDict:
    the same for 1 tool as for 20. Only the defaults check is per tool (a code object's
    defaults, no stat, no read)."""
    _, one, _ = warm(1)
    _, twenty, _ = warm(20)
    per_tool = {"toolcall._load.trust._live_defaults"}
    assert {k: v for k, v in one.items() if k not in per_tool} == {
        k: v for k, v in twenty.items() if k not in per_tool
    }
    assert one["toolcall._cache.store.read_bytes"] == 1
    assert one["_warm_decoder"] == 1
    assert one["_decoder"] == one["_raw_decoder"] == one["ir"] == 0
    assert one["os.read"] <= 2
    assert one["os.open"] == 1
    assert one["toolcall._load.trust._class"] == 1
    assert twenty["toolcall._load.trust._class"] == 1
    assert twenty["toolcall._load.trust._live_defaults"] == 20


def test_a_warm_load_builds_nothing_until_it_is_used(warm: Any) -> None:
    """IR, schemas, variants and plans wait for their first use; emit builds one format's
    list and the schemas, run decodes the IR and builds one plan."""
    entry, _, module = warm(20)
    assert callable(entry._ir)
    assert not entry.variants.loaded
    assert entry.plain == {}
    assert entry.strict == {}
    assert dict(entry.plans) == {}
    assert entry.tool_names == tuple(f"find_{n}" for n in range(20))
    tools = toolcall.emit(module, "openai")
    assert len(tools) == 20
    assert entry.variants.loaded
    assert list(entry.plain) == ["openai"]
    assert entry.strict == {}
    assert callable(entry._ir)  # emitting needs no IR
    assert toolcall.run(module, "find_3", {"query": "x"}) == Ok("x 3 3")
    assert list(entry.plans) == ["find_3"]
    assert entry.ir.tools[3].name == "find_3"


def test_an_ir_that_is_not_what_its_checked_summary_says_is_never_run(
    make_module: Callable[..., types.ModuleType], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forger who rewrites the IR and the digest its summary records passes the load
    (the summary is the honest one), but the IR is compared with the summary before any
    call: it says another function, so the module is derived again and the real tool runs."""
    monkeypatch.setenv("TOOLCALL_CACHE_DIR", str(tmp_path / "cache"))
    module = make_module(source(2) + "\n\ndef other(query: str) -> str:\n    return 'forged'\n")
    (path,) = (tmp_path / "cache").glob("*.tcc")
    record = _cache.read_entry(path)
    assert record is not None
    tools = list(record.ir.tools)
    tools[0] = msgspec.structs.replace(tools[0], qualname="other")
    forged_ir = msgspec.structs.replace(record.ir, tools=tuple(tools[:2]))
    summary = msgspec.structs.replace(
        summarize(record.ir), ir_digest=_cache.ir_digest(msgspec.msgpack.encode(forged_ir))
    )
    assert _cache.write_entry(path, msgspec.structs.replace(record, ir=forged_ir, summary=summary))
    entry = loading.process(module)
    assert callable(entry._ir)  # the load passed
    assert toolcall.run(module, "find_0", {"query": "x"}) == Ok("x 3 0")
    assert [t.qualname for t in entry.ir.tools][:2] == ["find_0", "find_1"]


def test_a_warm_load_leaves_its_summary_out_of_the_collectors_walks(warm: Any) -> None:
    """The summary and its tool heads hold strings, numbers and tuples of them, never a
    cycle: no garbage collection walks them (10,000 heads would be walked on every pass).
    Finding the tools to check needs no source order, so no ``inspect.unwrap`` either."""
    entry, counts, _ = warm(20)
    heads = entry.variants._tools
    assert len(heads) == 20
    assert not any(gc.is_tracked(head) for head in heads)
    assert counts["inspect.unwrap"] == 0
