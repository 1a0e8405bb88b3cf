"""What tool search costs at 10,000 tools: building the index, one query, and the first search
of a warm process with and without the module's term counts stored in the cache.

A generated catalog (a fixed seed: names, descriptions, parameters with descriptions, enums,
drawn from a vocabulary of a few thousand words, as a large real catalog has) is indexed by
toolcall and, in the same run, by the textbook BM25 of ``perf/search_eval.py`` over name and
description; queries are drawn from the same vocabulary. Figures are medians (build) and the
50th and 95th percentiles (query) over the same queries, with toolcall's over the baseline's;
each build starts from a collected heap.
The warm first search is what a process pays on its first search of a module whose IR it
already holds: counting every tool's terms, or reading the counts an earlier process wrote
(``_search.stored``), then building the index and answering; medians, read over counted.

    python perf/bench_search.py [--tools 10000] [--queries 300] [--write]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
import types
from collections.abc import Callable, Sequence
from typing import Any

from search_eval import Catalog, commit, plain_bm25, replace_section

from toolcall import ir
from toolcall._search import stored
from toolcall._search.index import build_index

MARKER = "<!-- bench_search.py -->"
TARGETS = {"build": 1.0, "query p95": 0.010}
"""Issue 37's limits at 10,000 tools, in seconds."""


def vocabulary(rng: random.Random, size: int = 4000) -> list[str]:
    letters = "abcdefghiklmnoprstuvwy"
    return sorted(
        {"".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(size)}
    )


def catalog(count: int, seed: int = 37) -> Catalog:
    rng = random.Random(seed)
    words = vocabulary(rng)
    weights = [1 / (rank + 1) for rank in range(len(words))]  # Zipf, as text is

    def text(n: int) -> str:
        return " ".join(rng.choices(words, weights, k=n))

    tools = []
    for i in range(count):
        name = f"{rng.choice(words)}_{rng.choice(words)}_{i}"
        parameters = tuple(
            ir.Parameter(
                name=f"{rng.choice(words)}_{j}",
                type=(
                    ir.Type(kind="enum", values=tuple(rng.sample(words, 4)))
                    if j == 2
                    else ir.Type(kind="string")
                ),
                description=text(rng.randint(4, 12)),
            )
            for j in range(rng.randint(1, 4))
        )
        tools.append(
            ir.Tool(name=name, description=text(rng.randint(8, 40)), parameters=parameters)
        )
    schemas = [{"name": t.name, "description": t.description, "parameters": {}} for t in tools]
    queries = [(f"q{i}", text(rng.randint(3, 12)), frozenset()) for i in range(300)]
    return Catalog(f"generated, {count:,} tools", tools, schemas, queries)


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def timed_from_clean(action: Callable[[], object]) -> float:
    """``timed``, from a collected heap: what one candidate allocated (and the collector has
    still to promote) must not set off a full collection in the other's time. Measured
    alternately without it, the plain BM25 after toolcall's build took up to 1.5x what it took
    after a collection."""
    gc.collect()
    return timed(action)


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3, help="index builds per candidate")
    parser.add_argument("--write", action="store_true", help="update perf/RESULTS.md")
    options = parser.parse_args(argv)
    data = catalog(options.tools)
    queries = [text for _, text, _ in data.queries[: options.queries]]
    builds: dict[str, list[float]] = {"toolcall": [], "BM25 (plain)": []}
    for _ in range(options.rounds):  # alternated, so drift falls on both
        builds["toolcall"].append(timed_from_clean(lambda: build_index(data.tools)))
        builds["BM25 (plain)"].append(timed_from_clean(lambda: plain_bm25(data)))
    index = build_index(data.tools)
    baseline = plain_bm25(data)
    answers: dict[str, list[float]] = {"toolcall": [], "BM25 (plain)": []}
    for query in queries:
        answers["toolcall"].append(timed(lambda q=query: index.search(q, 10)))  # type: ignore[misc]
        answers["BM25 (plain)"].append(timed(lambda q=query: baseline(q, 10)))  # type: ignore[misc]
    first = first_searches(data.tools, queries[0], options.rounds)
    build = {name: statistics.median(times) for name, times in builds.items()}
    p50 = {name: percentile(times, 0.5) for name, times in answers.items()}
    p95 = {name: percentile(times, 0.95) for name, times in answers.items()}
    lines = [
        f"{data.name}, {len(queries)} queries, {options.rounds} builds per candidate",
        "",
        "| figure | toolcall | BM25 (plain) | toolcall / BM25 | issue 37 limit (10,000 tools) |",
        "|---|---:|---:|---:|---:|",
        _row("index build (median)", build, TARGETS["build"]),
        _row("query p50", p50, None),
        _row("query p95", p95, TARGETS["query p95"]),
        "",
        "| first search of a warm process (median) | terms counted | terms read from the cache "
        "| read / counted |",
        "|---|---:|---:|---:|",
        f"| {len(data.tools):,} tools in one module | {first['counted'] * 1e3:.2f} ms | "
        f"{first['read'] * 1e3:.2f} ms | {first['read'] / first['counted']:.2f}x |",
    ]
    print("\n".join(lines))
    if options.write:
        replace_section(
            MARKER,
            [
                MARKER,
                "## Tool search: what it costs (`perf/bench_search.py`)",
                "",
                f"One run of `perf/bench_search.py --write` (generated; do not edit by hand), "
                f"toolcall commit {commit()}, Python {sys.version.split()[0]}. toolcall's index "
                "(BM25F over every field of the IR, name forms for mentions) against a plain BM25 "
                "over name and description, built and queried in the same run; then the first "
                "search of a warm process, its term counts made or read from the cache. The "
                "absolute figures are this machine's, the limits are the issue's.",
                "",
                *lines,
            ],
        )
    return 0


def first_searches(tools: Sequence[ir.Tool], query: str, rounds: int) -> dict[str, float]:
    """The first search of a module's tools in a fresh entry, its counts made in memory or
    read from a cache directory a first search filled; alternated, so drift falls on both."""
    module_ir = ir.ModuleIR(module="bench_catalog", tools=tuple(tools))
    module = types.ModuleType("bench_catalog")

    def first() -> None:
        entry: Any = types.SimpleNamespace(module=module, name="bench_catalog", ir=module_ir)
        entry.search = None
        stored.box_index([entry] * len(tools), tools).search(query, 10)

    times: dict[str, list[float]] = {"counted": [], "read": []}
    saved = {name: os.environ.get(name) for name in ("TOOLCALL_CACHE", "TOOLCALL_CACHE_DIR")}
    with tempfile.TemporaryDirectory() as directory:
        os.environ["TOOLCALL_CACHE_DIR"] = directory
        first()  # writes the counts
        try:
            for _ in range(rounds):
                os.environ["TOOLCALL_CACHE"] = "0"
                times["counted"].append(timed_from_clean(first))
                del os.environ["TOOLCALL_CACHE"]
                times["read"].append(timed_from_clean(first))
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    return {name: statistics.median(found) for name, found in times.items()}


def _row(label: str, figures: dict[str, float], limit: float | None) -> str:
    ours, theirs = figures["toolcall"], figures["BM25 (plain)"]
    verdict = "" if limit is None else f"{limit * 1e3:g} ms: {'PASS' if ours <= limit else 'FAIL'}"
    return (
        f"| {label} | {ours * 1e3:.2f} ms | {theirs * 1e3:.2f} ms | {ours / theirs:.2f}x | "
        f"{verdict} |"
    )


if __name__ == "__main__":
    raise SystemExit(main())
