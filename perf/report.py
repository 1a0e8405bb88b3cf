"""The figures of a run, with their targets: printed, written to RESULTS.md, and charted."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from harness import Timing

TOOLCALL = "toolcall run"


@dataclass
class Figure:
    """One number the issue asks for: a ratio (``x``), or a time (``ms``, ``s``) or a size."""

    number: int
    label: str
    value: float
    unit: str
    spread: str
    target: str = ""
    check: Callable[[float], bool] | None = None

    @property
    def passed(self) -> bool:
        return self.check is None or self.check(self.value)

    @property
    def verdict(self) -> str:
        if self.check is None:
            return "(reported)"
        return "PASS" if self.passed else "FAIL"

    def shown(self) -> str:
        if self.unit == "x":
            return _ratio_text(self.value)
        if self.unit == "ms":
            return f"{self.value * 1e3:.2f} ms"
        if self.unit == "MB":
            return f"{self.value / 1e6:.1f} MB"
        return f"{self.value:.2f} s"


def _ratio_text(value: float) -> str:
    """Three decimals where a target sits (1.016x is not 1.02x), fewer for large ratios."""
    if value < 0.1:
        return f"{value:.3g}x"
    if value < 10:
        return f"{value:.3f}x"
    if value < 100:
        return f"{value:.1f}x"
    return f"{value:,.0f}x"


def ratio(a: Timing, b: Timing) -> tuple[float, str]:
    """a / b, with the spread of the per-round ratios when the samples pair up by round."""
    if len(a.samples) == len(b.samples) and len(a.samples) >= 4:
        ratios = Timing([x / y for x, y in zip(a.samples, b.samples, strict=True)])
        low, high = ratios.quartiles()
        return ratios.median, f"IQR {low:.2f}-{high:.2f}x (n={len(ratios.samples)})"
    return a.median / b.median, f"spread {a.spread():.0%} / {b.spread():.0%}"


def _spread_ms(t: Timing) -> str:
    low, high = t.quartiles()
    return f"IQR {low * 1e3:.2f}-{high * 1e3:.2f} ms (n={len(t.samples)})"


def figures(results: dict[str, Any]) -> list[Figure]:
    """Every figure of the issue, computed from a run's timings."""
    out: list[Figure] = []

    def add_ratio(
        number: int, label: str, a: Timing, b: Timing, target: str = "", **kw: Any
    ) -> None:
        value, spread = ratio(a, b)
        out.append(Figure(number, label, value, "x", spread, target, kw.get("check")))

    f1 = results["fig1"]
    tc = f1[TOOLCALL]
    add_ratio(
        1,
        "run (scalar) / direct **kwargs call",
        tc,
        f1["direct call (floor)"],
        "<= 2x",
        check=lambda v: v <= 2.0,
    )
    add_ratio(
        1,
        "run (scalar) / pydantic-ai validator + call",
        tc,
        f1["pydantic-ai validator + call"],
        "<= 0.7x",
        check=lambda v: v <= 0.7,
    )
    for peer in (
        "pydantic-ai bare validate_python + call",
        "pydantic validate_call",
        "msgspec convert + call",
        "LangChain tool.invoke",
    ):
        add_ratio(1, f"run (scalar) / {peer}", tc, f1[peer])
    f2 = results["fig2"]
    tc = f2[TOOLCALL]
    add_ratio(
        2,
        "run (nested) / pydantic-ai validator + call",
        tc,
        f2["pydantic-ai validator + call"],
        "<= 1.2x",
        check=lambda v: v <= 1.2,
    )
    for peer in (
        "pydantic-ai bare validate_python + call",
        "direct call (floor)",
        "pydantic validate_call",
        "msgspec convert + call",
        "LangChain tool.invoke",
    ):
        add_ratio(2, f"run (nested) / {peer}", tc, f2[peer])
    f3 = results["fig3"]
    for kind in ("sync", "async"):
        ours = f3[f"{kind} tool: toolcall arun"]
        for peer in ("FastMCP client", "mcp SDK client"):
            add_ratio(
                3,
                f"{peer} call_tool / arun ({kind} tool)",
                f3[f"{kind} tool: {peer} call_tool"],
                ours,
                ">= 50x",
                check=lambda v: v >= 50,
            )
        for peer in ("FastMCP server", "mcp SDK server"):
            add_ratio(
                3,
                f"{peer}-side call_tool / arun ({kind} tool)",
                f3[f"{kind} tool: {peer} call_tool"],
                ours,
            )
    f4 = results["fig4"]
    lookup = f4["dict lookup"]
    for size in ("10", "1,000"):
        add_ratio(
            4,
            f"emit ({size} tools) / dict lookup",
            f4[f"emit, {size} tools"],
            lookup,
            "<= 5x",
            check=lambda v: v <= 5.0,
        )
    add_ratio(
        4,
        "emit (1,000 tools) / emit (10 tools)",
        f4["emit, 1,000 tools"],
        f4["emit, 10 tools"],
        "0.9-1.1x (same)",
        check=lambda v: 0.9 <= v <= 1.1,
    )
    add_ratio(
        4, "emit strict=True (keyword) / dict lookup", f4["emit strict=True, 1,000 tools"], lookup
    )
    f5 = results["fig5"]
    floor = f5["bare import (floor)"]["wall"]
    warm = f5["toolcall, warm cache"]["wall"]
    out.append(
        Figure(
            5,
            "start-up, warm cache - bare import",
            warm.median - floor.median,
            "ms",
            f"{_ms(warm)} vs {_ms(floor)}",
            "<= 60 ms",
            lambda v: v <= 0.060,
        )
    )
    inp = results["fig5_in_process"]
    cold = inp["cold: derive, render, write"]["load"]
    out.append(
        Figure(
            5,
            "cold derivation of 20 tools, in-process (derive, render, write)",
            cold.median,
            "ms",
            _spread_ms(cold),
            "<= 15 ms",
            lambda v: v <= 0.015,
        )
    )
    load = inp["warm load"]["load"]
    out.append(
        Figure(
            5,
            "warm cache load of the module, in-process",
            load.median,
            "ms",
            _spread_ms(load),
            "< 1 ms",
            lambda v: v < 0.001,
        )
    )
    first = Timing(
        [a + b for a, b in zip(load.samples, inp["warm load"]["emit"].samples, strict=True)]
    )
    out.append(
        Figure(
            5, "warm load + first emit (freezes one variant)", first.median, "ms", _spread_ms(first)
        )
    )
    default = inp["warm load, default location"]["load"]
    out.append(
        Figure(
            5,
            "warm load, cache in the default location (imports platformdirs)",
            default.median,
            "ms",
            _spread_ms(default),
        )
    )
    nocache = inp["cold, cache off: derive, render"]["load"]
    out.append(
        Figure(
            5,
            "cold derivation, TOOLCALL_CACHE=0 (derive, render)",
            nocache.median,
            "ms",
            _spread_ms(nocache),
        )
    )
    for name, numbers in f5.items():
        if name != "bare import (floor)":
            out.append(
                Figure(
                    5,
                    f"start-up: {name}",
                    numbers["wall"].median,
                    "ms",
                    _spread_ms(numbers["wall"]),
                )
            )
    hooked = inp["import, hook on, warm cache"]["imported"]
    plain = inp["import, TOOLCALL_HOOK=0"]["imported"]
    out.append(
        Figure(
            5,
            "import of the 20-tool module: hook + warm cache - TOOLCALL_HOOK=0",
            hooked.median - plain.median,
            "ms",
            f"{_ms(hooked)} vs {_ms(plain)}",
        )
    )
    f6 = results["fig6"]
    hooked, plain = f6["hook installed"]["imports"], f6["TOOLCALL_HOOK=0"]["imports"]
    value, spread = ratio(hooked, plain)
    spread += (
        f"; ratio of medians {hooked.median / plain.median:.3f}x, "
        f"of minima {min(hooked.samples) / min(plain.samples):.3f}x"
    )
    out.append(
        Figure(
            6,
            "stdlib imports, hook installed / TOOLCALL_HOOK=0",
            value,
            "x",
            spread,
            "< 1.02x",
            lambda v: v < 1.02,
        )
    )
    f7 = results["fig7"]
    for name in ("1,000 tools: cold (derive, render, write)", "1,000 tools: warm load"):
        t = f7[name]["load"]
        out.append(Figure(7, f"{name}, in-process", t.median, "ms", _spread_ms(t)))
    memory = f7["1,000 tools: memory"]
    for key, label in (
        ("rss_loaded", "after load + emit"),
        ("rss_compiled", "with every fast path built"),
    ):
        before = memory["rss_imported"].samples
        delta = Timing([a - b for a, b in zip(memory[key].samples, before, strict=True)])
        out.append(
            Figure(
                7,
                f"memory of 1,000 tools {label} (RSS growth)",
                delta.median,
                "MB",
                f"process RSS {memory[key].median / 1e6:.0f} MB",
            )
        )
    clean = results["fig7_clean"]["clean (removes 8,100)"]
    out.append(
        Figure(
            7,
            "toolcall-cache clean over 10,000 entries (CLI process)",
            clean.median,
            "s",
            f"min-max {min(clean.samples):.2f}-{max(clean.samples):.2f} s",
            "< 2 s",
            lambda v: v < 2.0,
        )
    )
    return out


def _ms(t: Timing) -> str:
    return f"{t.median * 1e3:.1f} ms"


def table(figs: list[Figure]) -> str:
    lines = []
    for f in figs:
        lines.append(
            f"[{f.number}] {f.label:<66} {f.shown():>11}  {f.target:<16} {f.verdict:<10} {f.spread}"
        )
    return "\n".join(lines)


# -- RESULTS.md and the chart -----------------------------------------------------------------


def notes(results: dict[str, Any]) -> list[str]:
    """What a reader needs to weigh the figures, with this run's numbers."""
    f1, f4 = results["fig1"], results["fig4"]
    keywords = (
        f1["pydantic-ai validator + call"].median
        - f1["pydantic-ai bare validate_python + call"].median
    )
    bare = ratio(f1[TOOLCALL], f1["pydantic-ai bare validate_python + call"])[0]
    lookup = f4["dict lookup"].median
    floor = f4["no-op function, same signature"].median / lookup
    room = 5 * lookup - f4["no-op function, same signature"].median
    own = f4["emit, 1,000 tools"].median - f4["no-op function, same signature"].median
    inp = results["fig5_in_process"]
    platformdirs = (
        inp["warm load, default location"]["load"].median - inp["warm load"]["load"].median
    )
    return f"""## Reading the figures

- **Method.** In-process figures (1-4) run in 3 worker interpreters each, 7 rounds of
  about 50 ms samples per candidate, candidates rotated every round, after a warm-up call
  (which prepares plans and freezes variants); ratios are the median of the per-round
  ratios. Start-up figures (5-7) spawn one interpreter per sample, scenarios interleaved, a
  warm-up round discarded; wall time runs from spawning to the child's last statement, so
  interpreter tear-down is not counted. Spreads are interquartile ranges.
- **pydantic-ai** is measured on its `ToolManager` validation call,
  `validate_python(args, allow_partial="off", context=None)`, followed by a direct call of
  the function: its `FunctionSchema.call` would run a sync tool in a worker thread, after
  the agent's hooks, which is left out in its favour. The keywords of the real call cost it
  {keywords * 1e9:.0f} ns; against a bare `validate_python(args)` (the "bare" rows) the
  scalar figure is {bare:.3g}x.
- **Figure 3** uses each SDK's in-memory client (a server task on memory streams, JSON-RPC
  messages, as over a real transport); the "server-side" rows call the server object's
  own `call_tool`, which skips the transport. The async tool does not suspend, so every
  row is dispatch cost.
- **emit** is timed as `emit(module, "openai")`, the 1,000-tool module's as `emit(module,
  "mcp")` (OpenAI accepts 128 tools, and `emit` refuses more); `timeit`'s loop is in both it and the
  dict lookup. A Python function that does nothing, called the same way, already costs
  {floor:.2f}x a dict subscript, so the 5x target leaves emit's own work {room * 1e9:.0f} ns;
  it takes {own * 1e9:.0f} ns. Passing `strict=True` by keyword costs more (CPython does not
  specialise keyword calls).
- **Start-up** figures set `TOOLCALL_CACHE_DIR`. Without it the cache is found through
  platformdirs, whose import adds {platformdirs * 1e3:.1f} ms to the first load (the
  "default location" rows).
- **Warm load** is the registry's processing of the module from its cache entry: decoding
  the IR and checking the entry. Each variant is decoded and frozen the first time it is
  emitted ("first emit"), and each tool's dispatch plan is prepared on its first call.
- **Import overhead** on a 2-core virtual machine varies by several percent from process to
  process, more than the 2% target: the figure is the median of 40 interleaved pairs, and
  the ratio of medians and of minima are given beside it.
- **The 1,000-tool module** repeats ten tool shapes; the one that inlines object types is
  used 40 times only, because toolcall inlines at most 100 object types per module (the
  rest would be sent as `{{}}`).
- **msgspec** enforces only its own `Meta` constraints, so the `annotated_types` bounds of
  the benchmark module are not checked on its path: it does less work than the others.
- **Memory** is the growth of the resident set from after importing the 1,000-tool module
  to after loading it from the cache and emitting one format, then to after every tool's
  plan has been prepared.
""".splitlines()


PACKAGES = (
    "toolcall",
    "msgspec",
    "pydantic",
    "pydantic-core",
    "pydantic-ai-slim",
    "mcp",
    "fastmcp",
    "langchain-core",
)


def machine() -> list[str]:
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    memory = ""
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            kb = int(next(line.split()[1] for line in f if line.startswith("MemTotal")))
        memory = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, StopIteration, ValueError):
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "src"], capture_output=True, text=True, check=True
        ).stdout.strip()
        commit += " (with uncommitted changes in src/)" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    versions = ", ".join(f"{name} {_version(name)}" for name in PACKAGES)
    return [
        f"- Machine: {cpu}, {os.cpu_count()} cores{memory}; {platform.platform()}",
        f"- Python: {sys.version.split()[0]} ({platform.python_implementation()})",
        f"- Packages: {versions}",
        f"- toolcall commit: {commit}",
        f"- Date: {datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
    ]


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _timing_rows(timings: dict[str, Timing], unit: Callable[[str], tuple[float, str]]) -> list[str]:
    """A Markdown table of timings; ``unit(name)`` gives the scale and suffix of a row."""
    rows = ["| candidate | median | IQR | min-max | n |", "|---|---:|---:|---:|---:|"]
    for name, t in timings.items():
        scale, suffix = unit(name)
        low, high = t.quartiles()
        rows.append(
            f"| {name} | {t.median * scale:.4g} {suffix} | {low * scale:.4g}-{high * scale:.4g} "
            f"| {min(t.samples) * scale:.4g}-{max(t.samples) * scale:.4g} | {len(t.samples)} |"
        )
    return rows


def _fixed(scale: float, suffix: str) -> Callable[[str], tuple[float, str]]:
    return lambda name: (scale, suffix)


def _by_name(name: str) -> tuple[float, str]:
    return (1e-6, "MB") if name.rpartition(": ")[2].startswith("rss") else (1e3, "ms")


SCALE_MARKER = "<!-- bench_scale.py -->"
"""Where the section of ``perf/bench_scale.py --write`` starts in RESULTS.md."""
PROBE_MARKER = "<!-- probe_cpath.py -->"
"""Where the section of ``perf/probe_cpath.py --write`` starts (after the scale section)."""
BENCH_JSON_MARKER = "<!-- bench_json.py -->"
"""Where the section of ``perf/bench_json.py --write`` starts (after the probe's)."""
MEASUREMENTS_MARKER = "<!-- measurements -->"
"""Starts the hand-written figures behind docs/decisions.md, which no script writes."""
SEARCH_EVAL_MARKER = "<!-- search_eval.py -->"
BENCH_SEARCH_MARKER = "<!-- bench_search.py -->"
SECTIONS = (
    SCALE_MARKER,
    PROBE_MARKER,
    BENCH_JSON_MARKER,
    SEARCH_EVAL_MARKER,
    BENCH_SEARCH_MARKER,
    MEASUREMENTS_MARKER,
)
"""The sections after the main report, each written by its own script, in this order."""


def replace_section(path: Path, marker: str | None, text: str) -> None:
    """Write ``text`` as the part of ``path`` that ``marker`` starts (None: the main report,
    before every section), keeping the other parts as they are, in ``SECTIONS`` order."""
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    starts = sorted((old.index(m), m) for m in SECTIONS if m in old)
    bounds = [position for position, _ in starts] + [len(old)]
    parts = {m: old[bounds[i] : bounds[i + 1]] for i, (_, m) in enumerate(starts)}
    parts[""] = old[: bounds[0]]
    parts[marker or ""] = text
    kept = [parts[m].strip("\n") for m in ("", *SECTIONS) if parts.get(m, "").strip("\n")]
    path.write_text("\n\n".join(kept) + "\n", encoding="utf-8")


def write(figs: list[Figure], results: dict[str, Any], elapsed: float, where: Path) -> None:
    """perf/RESULTS.md and perf/results.png from one run."""
    chart(figs, results, where / "results.png")
    lines = [
        "# Performance results",
        "",
        "One full run of `scripts/bench --write` (generated; do not edit by hand). The method is",
        "described in `perf/harness.py`; every ratio compares candidates measured side by side in",
        "the same run. Ratios are toolcall's time over the baseline's (lower is better), except in",
        "figure 3, which gives how many times slower the peer is.",
        "",
        *machine(),
        f"- Duration of the run: {elapsed:.0f} s",
        "",
        "![ratios](results.png)",
        "",
        "## Figures and targets",
        "",
        "| # | figure | value | target | result | spread |",
        "|---|---|---:|---|---|---|",
    ]
    lines += [
        f"| {f.number} | {f.label} | {f.shown()} | {f.target} | {f.verdict} | {f.spread} |"
        for f in figs
    ]
    passed = [f for f in figs if f.check is not None]
    lines += [
        "",
        f"{sum(f.passed for f in passed)} of {len(passed)} targets met.",
        "",
        *notes(results),
    ]
    sections: list[tuple[str, dict[str, Timing], Callable[[str], tuple[float, str]]]] = [
        (
            '1. `run`, scalar tool `{"city": "Oslo", "days": 5}` (per call)',
            results["fig1"],
            _fixed(1e9, "ns"),
        ),
        ("2. `run`, nested tool `place_order` (per call)", results["fig2"], _fixed(1e9, "ns")),
        (
            "3. `arun` and the MCP servers' `call_tool` (per call)",
            results["fig3"],
            _fixed(1e6, "µs"),
        ),
        ("4. `emit` (per call)", results["fig4"], _fixed(1e9, "ns")),
    ]
    for key, title in (
        ("fig5", "5. Interpreter start to all schemas in hand (fresh interpreters)"),
        ("fig5_in_process", "5. In-process times (fresh interpreters)"),
        ("fig6", "6. Importing the standard-library set (in-process, fresh interpreters)"),
        ("fig7", "7. A 1,000-tool module (fresh interpreters)"),
    ):
        rows = {
            f"{scenario}: {name}": timing
            for scenario, numbers in results[key].items()
            for name, timing in numbers.items()
        }
        sections.append((title, rows, _by_name))
    sections.append(
        ("7. `toolcall-cache clean` over 10,000 entries", results["fig7_clean"], _fixed(1, "s"))
    )
    for title, timings, unit in sections:
        lines += ["", f"### {title}", "", *_timing_rows(timings, unit)]
    replace_section(where / "RESULTS.md", None, "\n".join(lines))


def chart(figs: list[Figure], results: dict[str, Any], path: Path) -> None:
    """Left: every ratio that has a target, against it; right: the start-up times."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    targeted = [f for f in figs if f.unit == "x" and f.check is not None]
    fig, (left, right) = plt.subplots(1, 2, figsize=(16, 7.5), gridspec_kw={"width_ratios": [3, 2]})
    y = list(range(len(targeted)))[::-1]
    colours = ["#2e7d32" if f.passed else "#c62828" for f in targeted]
    left.barh(y, [f.value for f in targeted], color=colours, height=0.6)
    for row, f in zip(y, targeted, strict=True):
        limit = _target_value(f.target)
        if limit is not None:
            left.plot([limit, limit], [row - 0.42, row + 0.42], color="black", linewidth=2.5)
        left.text(f.value * 1.15, row, f"{f.shown()}  (target {f.target})", va="center", fontsize=8)
    left.set_xscale("log")
    left.set_xlim(min(f.value for f in targeted) / 2, max(f.value for f in targeted) * 40)
    left.set_yticks(y, [f"[{f.number}] {f.label}" for f in targeted], fontsize=8)
    left.set_title(
        "toolcall's time / the baseline's (figure 3: the peer's / toolcall's)\n"
        "black tick: the target; green: met",
        fontsize=10,
    )
    startup = {name: numbers["wall"].median * 1e3 for name, numbers in results["fig5"].items()}
    names = list(startup)[::-1]
    right.barh(names, [startup[n] for n in names], color="#1565c0", height=0.6)
    for row, name in enumerate(names):
        right.text(startup[name] + 5, row, f"{startup[name]:.0f} ms", va="center", fontsize=8)
    right.set_xlim(0, max(startup.values()) * 1.2)
    right.set_title("Interpreter start to the 20 tools' schemas in hand (ms)", fontsize=10)
    right.tick_params(axis="y", labelsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _target_value(target: str) -> float | None:
    digits = "".join(c for c in target.split("x")[0] if c.isdigit() or c == ".")
    if target.startswith("0.9-1.1"):
        return 1.0
    return float(digits) if digits else None
