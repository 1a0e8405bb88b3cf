"""SPEC section 6, "Import cost": which modules a warm process loads, pinned as a set.

A regression here is a failing test, not a slower benchmark (``perf/bench_import.py`` has
the timings): a warm ``import toolcall`` plus ``emit`` loads only the hook, the cache reader,
the trust check, the registry, the frozen containers and what wraps the cached schemas in
envelopes (``_render.envelope`` and ``_render.variants``, which import nothing of the
walker); dispatch arrives with the first ``run``; derivation, the schema walker, the strict
rules and their standard-library dependencies only with the first derivation.
"""

from __future__ import annotations

import json
import py_compile
from pathlib import Path

import subproc

WARM = {
    "toolcall",
    "toolcall._api",
    "toolcall._api.emit",
    "toolcall._cache",
    "toolcall._cache.fingerprint",
    "toolcall._cache.nodes",
    "toolcall._cache.store",
    "toolcall._cache.summary",
    "toolcall._derive",
    "toolcall._derive.discovery",
    "toolcall._errors",
    "toolcall._frozen",
    "toolcall._load",
    "toolcall._load.hook",
    "toolcall._load.registry",
    "toolcall._load.trust",
    "toolcall._load.warm",
    "toolcall._render",
    "toolcall._render.envelope",
    "toolcall._render.variants",
    "toolcall._shared",
    "toolcall._shared.digest",
    "toolcall._shared.kinds",
    "toolcall._shared.log",
    "toolcall._shared.names",
    "toolcall.ir",
}
"""Every toolcall module a warm ``import toolcall; emit(...)`` loads, and nothing more."""

DERIVATION_ONLY = {
    "ast",
    "hashlib",
    "importlib.metadata",
    "importlib.util",
    "inspect",
    "logging",
    "platformdirs",
    "textwrap",
    "threading",
    "tokenize",
}
"""Standard-library (and platformdirs) modules a warm load has no business importing."""

TOOLS = '''
__toolcall__ = True


def get_weather(city: str, days: int = 3) -> dict:
    """Get the forecast for a city.

    Args:
        city: city name
        days: how many days ahead
    """
    return {"city": city, "days": days}
'''

CHILD = """
import json, sys
import msgspec
base = set(sys.modules)
import toolcall, weather_tools
from toolcall._shared.names import FORMATS
for fmt in FORMATS:
    for strict in (False, True):
        toolcall.emit(weather_tools, fmt, strict)
emitted = set(sys.modules) - base
toolcall.run(weather_tools, "get_weather", {"city": "Oslo"})
ran = set(sys.modules) - base
print(json.dumps({"emitted": sorted(emitted), "ran": sorted(ran)}))
"""


def _load(tmp_path: Path, *, cold: bool = False, hook: bool = True) -> dict[str, set[str]]:
    """The modules each step loaded, in the process that fills the cache or the next one."""
    source = tmp_path / "weather_tools.py"
    source.write_text(TOOLS, encoding="utf-8")
    # the .pyc an application's import leaves behind (the children write none)
    py_compile.compile(str(source), invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    env = {"TOOLCALL_CACHE_DIR": str(tmp_path / "cache"), "TOOLCALL_HOOK": "1" if hook else "0"}
    done = subproc.python("-c", CHILD, paths=[tmp_path], env=env, check=True)
    if not cold:
        done = subproc.python("-c", CHILD, paths=[tmp_path], env=env, check=True)
    loaded = json.loads(done.stdout.splitlines()[-1])
    return {key: set(names) for key, names in loaded.items()}


def test_a_warm_emit_loads_exactly_the_warm_path(tmp_path: Path) -> None:
    """Cache reader, trust check, registry, frozen containers: no derivation, no dispatch."""
    emitted = _load(tmp_path)["emitted"]
    assert {name for name in emitted if name.startswith("toolcall")} == WARM
    assert emitted & DERIVATION_ONLY == set()


def test_a_module_the_hook_did_not_load_loads_warm_as_cheaply(tmp_path: Path) -> None:
    """Without the hook the pipeline reads the source itself and checks it against the
    module's ``.pyc``: a timestamp ``.pyc`` needs no source hash, so no ``importlib.util``."""
    emitted = _load(tmp_path, hook=False)["emitted"]
    assert {name for name in emitted if name.startswith("toolcall")} == WARM
    assert emitted & DERIVATION_ONLY == set()


def test_dispatch_arrives_with_the_first_run_and_derivation_never(tmp_path: Path) -> None:
    """The first ``run`` builds its tool's plan; a warm process still derives nothing."""
    ran = _load(tmp_path)["ran"]
    assert "toolcall._dispatch.plan" in ran
    assert {name for name in ran if name.startswith(("toolcall._derive.", "toolcall._render"))} == {
        "toolcall._derive.discovery",
        "toolcall._render",
        "toolcall._render.envelope",
        "toolcall._render.variants",
    }
    assert ran & {"ast", "tokenize", "hashlib", "importlib.util", "platformdirs"} == set()


def test_a_cold_derivation_pays_for_no_logging_openssl_or_sysconfig(tmp_path: Path) -> None:
    """A cache miss is logged at DEBUG, which no handler can receive before ``logging`` is
    imported; the content hash is blake2b without OpenSSL; the standard library is found
    without ``sysconfig``. Each of these was milliseconds of every cold start."""
    emitted = _load(tmp_path, cold=True)["emitted"]
    assert "toolcall._derive.module" in emitted  # it did derive
    assert emitted & {"logging", "hashlib", "_hashlib", "sysconfig"} == set()


RAISES = """
import sys
import toolcall, failing_tools
toolcall.run(failing_tools, "explode", {})
before = "logging" in sys.modules
result = toolcall.run(failing_tools, "explode", {"now": True})
print(before, "logging" in sys.modules, result.error.kind, file=sys.stdout)
"""


def test_a_tool_that_raises_is_logged_though_runs_never_import_logging(tmp_path: Path) -> None:
    """``logging`` arrives only with the first ERROR record (on 3.15 it brings ``traceback``
    and ``tokenize``), and that record still reaches stderr with the tool's traceback."""
    (tmp_path / "failing_tools.py").write_text(
        "__toolcall__ = True\n\n\ndef explode(now: bool = False) -> int:\n"
        "    if now:\n        raise ValueError('boom')\n    return 1\n",
        encoding="utf-8",
    )
    env = {"TOOLCALL_CACHE_DIR": str(tmp_path / "cache")}
    done = subproc.python("-c", RAISES, paths=[tmp_path], env=env, check=True)
    assert done.stdout.split() == ["False", "True", "raised"]
    assert "tool explode raised ValueError" in done.stderr
    assert "ValueError: boom" in done.stderr  # the traceback, through the last-resort handler
