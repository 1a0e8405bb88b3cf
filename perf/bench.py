"""toolcall against its peers, side by side: the seven figures of the performance issue.

Run through ``scripts/bench`` (``--write`` also rewrites ``perf/RESULTS.md`` and
``perf/results.png``; ``--quick`` takes fewer samples, for trying the harness out).
``bench.py --worker NAME`` is how the in-process figures run in fresh interpreters.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import gen_tools
import harness
from harness import Scenario, Timing

A1 = {"city": "Oslo", "days": 5}
A2 = {
    "items": [{"sku": "SKU-1", "qty": 2}, {"sku": "SKU-7", "qty": 1, "gift_wrap": True}],
    "ship_to": {"street": "Karl Johans gate 1", "city": "Oslo", "postcode": "0154"},
    "deliver_after": "2026-05-01",
}
A3 = {"topic": "fjords", "limit": 3}

# -- workers: in-process figures, each run in several fresh interpreters ---------------------


def worker_dispatch(rounds: int) -> dict[str, Any]:
    """Figures 1 and 2: one call of a scalar tool and of a nested one, every peer's way."""
    from datetime import date

    import bench_tools as bt
    import msgspec
    import peers

    import toolcall

    ns: dict[str, Any] = {
        "bt": bt,
        "run": toolcall.run,
        "asdict": msgspec.structs.asdict,
        "convert": msgspec.convert,
        "A1": A1,
        "A2": A2,
        "get_weather": bt.get_weather,
        "place_order": bt.place_order,
        "R2": {
            "items": A2["items"],
            "ship_to": bt.Address(**A2["ship_to"]),
            "deliver_after": date.fromisoformat(A2["deliver_after"]),
        },
    }
    for key, fn in (("1", bt.get_weather), ("2", bt.place_order)):
        ns["vc" + key] = peers.pydantic_validate_call(fn)
        ns["pai" + key] = peers.pydantic_ai_validator(fn)
        ns["S" + key] = peers.msgspec_arguments(fn)
        ns["lc" + key] = peers.langchain_tool(fn)
    scalar = {
        "direct call (floor)": "get_weather(**A1)",
        "toolcall run": 'run(bt, "get_weather", A1)',
        "pydantic validate_call": "vc1(**A1)",
        "pydantic-ai validator + call": (
            'get_weather(**pai1(A1, allow_partial="off", context=None))'
        ),
        "pydantic-ai bare validate_python + call": "get_weather(**pai1(A1))",
        "msgspec convert + call": "get_weather(**asdict(convert(A1, S1)))",
        "LangChain tool.invoke": "lc1.invoke(A1)",
    }
    nested = {
        "direct call (floor)": "place_order(**R2)",
        "toolcall run": 'run(bt, "place_order", A2)',
        "pydantic validate_call": "vc2(**A2)",
        "pydantic-ai validator + call": (
            'place_order(**pai2(A2, allow_partial="off", context=None))'
        ),
        "pydantic-ai bare validate_python + call": "place_order(**pai2(A2))",
        "msgspec convert + call": "place_order(**asdict(convert(A2, S2)))",
        "LangChain tool.invoke": "lc2.invoke(A2)",
    }
    for statements, key in ((scalar, "1"), (nested, "2")):
        expected = eval(statements["direct call (floor)"], ns)
        for name, stmt in statements.items():
            got = eval(stmt, ns)
            got = got.value if name == "toolcall run" else got
            if got != expected:
                msg = f"{name} returned {got!r}, expected {expected!r}"
                raise AssertionError(msg)
        ns["_check" + key] = expected
    return {
        "fig1": _samples(harness.compare(scalar, ns, rounds)),
        "fig2": _samples(harness.compare(nested, ns, rounds)),
    }


def worker_mcp(rounds: int) -> dict[str, Any]:
    """Figure 3: ``arun`` against the MCP servers' ``call_tool``, in one event loop."""
    import bench_tools as bt
    import peers

    import toolcall

    async def measure() -> dict[str, Timing]:
        functions = peers.tool_functions(bt)
        fast_server = peers.fastmcp_server(functions)
        sdk_server = peers.mcp_server(functions)
        ns = {
            "arun": toolcall.arun,
            "bt": bt,
            "A1": A1,
            "A3": A3,
            "get_weather": bt.get_weather,
            "fetch_news": bt.fetch_news,
            "fast_server": fast_server,
            "sdk_server": sdk_server,
        }
        async with peers.fastmcp_client(fast_server) as fast, peers.mcp_client(sdk_server) as sdk:
            ns["fast"], ns["sdk"] = fast, sdk
            statements = {
                "sync tool: direct call": "get_weather(**A1)",
                "sync tool: toolcall arun": 'await arun(bt, "get_weather", A1)',
                "sync tool: FastMCP client call_tool": 'await fast.call_tool("get_weather", A1)',
                "sync tool: mcp SDK client call_tool": 'await sdk.call_tool("get_weather", A1)',
                "sync tool: FastMCP server call_tool": (
                    'await fast_server.call_tool("get_weather", A1)'
                ),
                "sync tool: mcp SDK server call_tool": (
                    'await sdk_server.call_tool("get_weather", A1)'
                ),
                "async tool: direct await": "await fetch_news(**A3)",
                "async tool: toolcall arun": 'await arun(bt, "fetch_news", A3)',
                "async tool: FastMCP client call_tool": 'await fast.call_tool("fetch_news", A3)',
                "async tool: mcp SDK client call_tool": 'await sdk.call_tool("fetch_news", A3)',
                "async tool: FastMCP server call_tool": (
                    'await fast_server.call_tool("fetch_news", A3)'
                ),
                "async tool: mcp SDK server call_tool": (
                    'await sdk_server.call_tool("fetch_news", A3)'
                ),
            }
            for name, stmt in statements.items():
                result = await harness.async_loop(stmt, ns)(1)
                if result <= 0:
                    msg = f"{name}: no time measured"
                    raise AssertionError(msg)
            loops = {name: harness.async_loop(stmt, ns) for name, stmt in statements.items()}
            return await harness.compare_async(loops, rounds)

    return {"fig3": _samples(asyncio.run(measure()))}


def worker_emit(rounds: int) -> dict[str, Any]:
    """Figure 4: ``emit`` on modules of 10 and 1,000 tools against a dict lookup."""
    import tools10
    import tools1000

    import toolcall

    ns: dict[str, Any] = {"emit": toolcall.emit, "m10": tools10, "m1000": tools1000}
    ns["d"] = {"openai": toolcall.emit(tools10, "openai"), "anthropic": [], "mcp": []}
    # the 1,000-tool module in the mcp format: OpenAI refuses more than 128 tools, as emit does
    if len(toolcall.emit(tools1000, "mcp")) != 1000:
        msg = "the 1,000-tool module does not have 1,000 tools"
        raise AssertionError(msg)

    def noop(module: Any, format: str = "openai", strict: bool = False) -> Any:
        return format

    ns["noop"] = noop
    statements = {
        "dict lookup": 'd["openai"]',
        "no-op function, same signature": 'noop(m10, "openai")',
        "emit, 10 tools": 'emit(m10, "openai")',
        "emit, 1,000 tools": 'emit(m1000, "mcp")',
        "emit strict=True, 1,000 tools": 'emit(m1000, "mcp", strict=True)',
    }
    return {"fig4": _samples(harness.compare(statements, ns, rounds))}


def _samples(timings: dict[str, Timing]) -> dict[str, list[float]]:
    return {name: timing.samples for name, timing in timings.items()}


WORKERS = {"dispatch": worker_dispatch, "mcp": worker_mcp, "emit": worker_emit}


# -- the figures ------------------------------------------------------------------------------


class Run:
    """One full run: where its temporary files go and how many samples it takes."""

    def __init__(self, quick: bool) -> None:
        self.quick = quick
        self.tmp = Path(tempfile.mkdtemp(prefix="toolcall-bench-"))
        self.generated = self.tmp / "modules"
        self.generated.mkdir()
        gen_tools.write_module(self.generated, "tools10", 10)
        gen_tools.write_module(self.generated, "tools1000", 1000)
        self.warm_cache = self.tmp / "warm-cache"
        self.results: dict[str, Any] = {}

    def n(self, full: int, quick: int) -> int:
        return quick if self.quick else full

    def fresh_cache(self) -> dict[str, str]:
        return {"TOOLCALL_CACHE_DIR": tempfile.mkdtemp(dir=self.tmp, prefix="cold-")}

    def warm(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        return {"TOOLCALL_CACHE_DIR": str(self.warm_cache), **(extra or {})}

    def default_location(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        """No ``TOOLCALL_CACHE_DIR``: the cache is found through platformdirs, as by default
        (under a private ``XDG_CACHE_HOME``, so the user's own cache is left alone)."""
        return {"XDG_CACHE_HOME": str(self.tmp / "xdg"), **(extra or {})}

    def modules_path(self, env: dict[str, str]) -> dict[str, str]:
        return {**env, "PYTHONPATH": f"{harness.PERF}:{self.generated}"}

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def figures_in_process(run: Run) -> None:
    """Figures 1 to 4, each in several worker interpreters whose samples are pooled."""
    processes, rounds = run.n(3, 1), run.n(7, 3)
    dispatch = harness.run_worker("dispatch", processes, rounds, run.warm())
    for key in ("fig1", "fig2"):
        run.results[key] = _pooled(dispatch, key)
    mcp = harness.run_worker("mcp", processes, rounds, run.warm())
    run.results["fig3"] = _pooled(mcp, "fig3")
    env = run.modules_path(run.warm())
    harness.run_worker("emit", 1, 1, env)  # derives and caches the generated modules
    run.results["fig4"] = _pooled(harness.run_worker("emit", processes, rounds, env), "fig4")


def _pooled(outputs: list[Any], key: str) -> dict[str, Timing]:
    return harness.pool(
        [{name: Timing(samples) for name, samples in out[key].items()} for out in outputs]
    )


STARTUP_TOOLCALL = """
import toolcall, bench_tools
toolcall.emit(bench_tools, "openai")
_end = time.perf_counter_ns()
done()
"""

STARTUP_PEER = """
import peers, bench_tools
peers.SCHEMAS[{name!r}](peers.tool_functions(bench_tools))
_end = time.perf_counter_ns()
done()
"""

IN_PROCESS_LOAD = """
import toolcall, {module}
from toolcall._load import warm
t0 = time.perf_counter()
warm.process({module})
t1 = time.perf_counter()
toolcall.emit({module}, {format!r})
t2 = time.perf_counter()
_end = time.perf_counter_ns()
done(load=t1 - t0, emit=t2 - t1)
"""

IMPORT_WITH_HOOK = """
import toolcall
t0 = time.perf_counter()
import bench_tools
t1 = time.perf_counter()
_end = time.perf_counter_ns()
done(imported=t1 - t0)
"""


def figure_startup(run: Run) -> None:
    """Figure 5 (and the warm-import figure): fresh interpreters, interleaved."""
    primes = [
        Scenario("prime", STARTUP_TOOLCALL, run.warm),
        Scenario("prime default", STARTUP_TOOLCALL, run.default_location),
    ]
    harness.fresh_processes(primes, 0)
    scenarios = [
        Scenario(
            "bare import (floor)", "import bench_tools\n_end = time.perf_counter_ns()\ndone()"
        ),
        Scenario("toolcall, warm cache", STARTUP_TOOLCALL, run.warm),
        Scenario("toolcall, cold cache", STARTUP_TOOLCALL, run.fresh_cache),
        Scenario(
            "toolcall, warm cache in the default location", STARTUP_TOOLCALL, run.default_location
        ),
    ]
    import peers

    scenarios += [Scenario(name, STARTUP_PEER.format(name=name)) for name in peers.SCHEMAS]
    run.results["fig5"] = harness.fresh_processes(scenarios, run.n(15, 2))
    hook_off = {"TOOLCALL_HOOK": "0"}
    in_process = [
        Scenario(
            "warm load",
            IN_PROCESS_LOAD.format(module="bench_tools", format="openai"),
            lambda: run.warm(hook_off),
        ),
        Scenario(
            "warm load, default location",
            IN_PROCESS_LOAD.format(module="bench_tools", format="openai"),
            lambda: run.default_location(hook_off),
        ),
        Scenario(
            "cold: derive, render, write",
            IN_PROCESS_LOAD.format(module="bench_tools", format="openai"),
            lambda: {**run.fresh_cache(), **hook_off},
        ),
        Scenario(
            "cold, cache off: derive, render",
            IN_PROCESS_LOAD.format(module="bench_tools", format="openai"),
            lambda: {"TOOLCALL_CACHE": "0", **hook_off},
        ),
        Scenario("import, hook on, warm cache", IMPORT_WITH_HOOK, run.warm),
        Scenario("import, TOOLCALL_HOOK=0", IMPORT_WITH_HOOK, lambda: run.warm(hook_off)),
    ]
    run.results["fig5_in_process"] = harness.fresh_processes(in_process, run.n(15, 2))


# A large set of standard-library modules (pure Python, extensions and packages), none of
# them with side effects on import nor deprecated in 3.11.
STDLIB = str.split("""
argparse ast asyncio base64 bdb binascii bisect bz2 calendar cmath cmd code codecs codeop
colorsys compileall concurrent.futures configparser contextlib contextvars copy copyreg
cProfile csv ctypes dataclasses datetime dbm decimal difflib dis doctest email
email.mime.multipart email.mime.text email.policy enum filecmp fileinput fnmatch fractions
ftplib functools getopt getpass gettext glob graphlib gzip hashlib heapq hmac html
html.parser http.client http.cookiejar http.cookies http.server imaplib importlib.metadata
importlib.resources inspect io ipaddress json json.decoder locale logging logging.handlers
lzma mailbox mimetypes mmap modulefinder multiprocessing netrc numbers operator optparse
pathlib pdb pickle pickletools pkgutil platform plistlib poplib pprint profile pstats
py_compile queue quopri random re runpy sched secrets selectors shelve shlex shutil signal
smtplib socket socketserver sqlite3 ssl statistics string stringprep struct subprocess
symtable sysconfig tabnanny tarfile tempfile textwrap threading timeit tokenize tomllib
trace traceback tracemalloc types typing unicodedata unittest unittest.mock urllib.parse
urllib.request urllib.robotparser uuid venv wave weakref webbrowser wsgiref.simple_server
xml.dom.minidom xml.etree.ElementTree xml.sax xmlrpc.client xmlrpc.server zipapp zipfile
zipimport zoneinfo
""")

STDLIB_IMPORT = """
import toolcall
modules = {modules!r}
t0, c0 = time.perf_counter(), time.process_time()
for name in modules:
    __import__(name)
t1, c1 = time.perf_counter(), time.process_time()
_end = time.perf_counter_ns()
done(imports=t1 - t0, cpu=c1 - c0)
"""


def figure_hook_overhead(run: Run) -> None:
    """Figure 6: the standard library imported with and without the hook installed."""
    code = STDLIB_IMPORT.format(modules=STDLIB)
    scenarios = [
        Scenario("hook installed", code),
        Scenario("TOOLCALL_HOOK=0", code, lambda: {"TOOLCALL_HOOK": "0"}),
    ]
    run.results["fig6"] = harness.fresh_processes(scenarios, run.n(40, 3))


MEMORY = """
import toolcall
from toolcall._load import warm
rss = _rss()
import tools1000
imported = _rss()
entry = warm.process(tools1000)
toolcall.emit(tools1000, "mcp")
loaded = _rss()
for name in entry.tool_names:
    entry.plans[name].run({})
compiled = _rss()
_end = time.perf_counter_ns()
done(rss_toolcall=rss, rss_imported=imported, rss_loaded=loaded, rss_compiled=compiled)
"""

RSS = """
def _rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))
"""


def figure_scale(run: Run) -> None:
    """Figure 7: a 1,000-tool module (derivation, load, memory) and cleaning 10,000 entries."""
    hook_off = {"TOOLCALL_HOOK": "0"}
    load = IN_PROCESS_LOAD.format(module="tools1000", format="mcp")  # over OpenAI's cap
    scenarios = [
        Scenario(
            "1,000 tools: cold (derive, render, write)",
            load,
            lambda: run.modules_path({**run.fresh_cache(), **hook_off}),
        ),
        Scenario("1,000 tools: warm load", load, lambda: run.modules_path(run.warm(hook_off))),
        Scenario("1,000 tools: memory", RSS + MEMORY, lambda: run.modules_path(run.warm(hook_off))),
    ]
    run.results["fig7"] = harness.fresh_processes(scenarios, run.n(5, 1))
    run.results["fig7_clean"] = clean_timings(run, run.n(3, 1))


def clean_timings(run: Run, builds: int) -> dict[str, Timing]:
    """``toolcall-cache clean`` over 10,000 entries, in a fresh CLI process each time.

    2,000 modules with five entries each: the current source's (valid) and four of earlier
    versions ("source changed"); 100 modules have been deleted since ("source gone"). A real
    clean removes 8,100 entries; each directory is built anew for it, and dry runs over a
    built one give the spread of the scan itself.
    """
    cli = Path(sys.executable).with_name("toolcall-cache")
    timings = {"clean (removes 8,100)": Timing(), "clean --dry-run": Timing()}
    for build in range(builds):
        cache = build_entries(run.tmp / f"clean-{build}")
        for _ in range(2):
            timings["clean --dry-run"].samples.append(_timed_cli(cli, cache, "--dry-run"))
        timings["clean (removes 8,100)"].samples.append(_timed_cli(cli, cache))
        left = sum(1 for _ in cache.iterdir())
        if left != 1900:
            msg = f"clean left {left} entries, expected 1,900"
            raise AssertionError(msg)
    return timings


def _timed_cli(cli: Path, cache: Path, *flags: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [str(cli), "clean", "--cache-dir", str(cache), *flags],
        check=True,
        capture_output=True,
        env=harness.child_env(),
    )
    return time.perf_counter() - started


def build_entries(root: Path) -> Path:
    """A cache directory of 10,000 entries of small real modules (see ``clean_timings``)."""
    import importlib.util

    import msgspec

    from toolcall import ir
    from toolcall._cache import store as _cache
    from toolcall._cache.nodes import pack
    from toolcall._derive.module import derive_module
    from toolcall._load.cold import entry_from_derived

    sources, cache = root / "src", root / "cache"
    sources.mkdir(parents=True)
    template = gen_tools.write_module(sources, "template", 3)
    spec = importlib.util.spec_from_file_location("template", template)
    if spec is None or spec.loader is None:
        msg = f"cannot import {template}"
        raise RuntimeError(msg)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    derived = derive_module(module)
    variants = pack(*entry_from_derived(module, derived).variants.schemas())
    text = template.read_bytes()
    for i in range(2000):
        name = f"bench_m{i:04d}"
        path = sources / f"{name}.py"
        module_ir = ir.ModuleIR(module=name, tools=derived.ir.tools)
        for version in range(5):
            source = text + f"\n# version {version}\n".encode()
            entry = _cache.make_entry(module_ir, template, source, variants=variants)
            entry = msgspec.structs.replace(entry, source_path=str(path))
            _cache.write_entry(
                _cache.entry_path(cache, name, _cache.source_key(name, source)), entry
            )
        if i >= 100:
            path.write_bytes(source)
    return cache


# -- main ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="rewrite RESULTS.md and the chart")
    parser.add_argument("--quick", action="store_true", help="few samples: try the harness out")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=7, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.worker:
        print(json.dumps(WORKERS[options.worker](options.rounds)))
        return 0
    import report

    started = time.perf_counter()
    run = Run(options.quick)
    try:
        steps = [
            ("figures 1-4 (in-process, worker interpreters)", figures_in_process),
            ("figure 5 (start-up, fresh interpreters)", figure_startup),
            ("figure 6 (import hook overhead)", figure_hook_overhead),
            ("figure 7 (scale)", figure_scale),
        ]
        for label, step in steps:
            print(f"-- {label} ...", flush=True)
            step(run)
    finally:
        run.close()
    figures = report.figures(run.results)
    print(report.table(figures))
    elapsed = time.perf_counter() - started
    targeted = [f for f in figures if f.check is not None]
    print(f"\n{sum(f.passed for f in targeted)} of {len(targeted)} targets met; {elapsed:.0f} s")
    if options.write:
        report.write(figures, run.results, elapsed, harness.PERF)
        print(f"wrote {harness.PERF / 'RESULTS.md'} and {harness.PERF / 'results.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
