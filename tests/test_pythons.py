"""What the newer Pythons changed, each tested on the versions it concerns (SPEC section 0).

- 3.14 defers annotations (PEP 649/749): a function may name a class defined later in its
  module, or a name that never exists, and the module still imports.
- 3.15 has explicit lazy imports (PEP 810): ``lazy import x`` in a marked module, and
  ``-X lazy_imports=all`` making the import of the marked module itself lazy.
- Every version has its own bytecode magic and cache key: entries built by one minor version
  are a miss on another, loudly in a sourceless deployment.

``-OO`` on every version (3.14 made ``ast.parse`` strip docstrings) is tested where the cache
and the docs are (``tests/cache/test_production.py``, ``tests/derive/test_source.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import subproc
from projects import EMIT_ALL, write_project

needs_314 = pytest.mark.skipif(sys.version_info < (3, 14), reason="PEP 649 needs Python 3.14")
needs_315 = pytest.mark.skipif(sys.version_info < (3, 15), reason="PEP 810 needs Python 3.15")

LATER = '''
from dataclasses import dataclass
from typing import TypedDict

__toolcall__ = True


def book(where: Address, nights: int = 1, guest: Guest | None = None) -> str:
    """Book a stay.

    Args:
        nights: how many nights
    """
    return f"{where['city']}:{nights}:{guest.name if guest else '-'}"


def broken(x: Undefined, y: int = 2) -> int:
    """Has one annotation that never evaluates.

    Args:
        y: a number
    """
    return y


def after(n: int) -> int:
    """Defined after the broken one."""
    return n + 1


class Address(TypedDict):
    """A postal address."""

    city: str


@dataclass
class Guest:
    """Who stays."""

    name: str
    friend: Friend | None = None


@dataclass
class Friend:
    name: str
'''

PROBE = """
import json, sys, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import toolcall, later
    tools = toolcall.emit(later, "openai")
runs = [
    toolcall.run(later, "book", {"where": {"city": "Oslo"}, "guest": {"name": "Ada"}}),
    toolcall.run(later, "broken", {"x": [1, "two"]}),
    toolcall.run(later, "after", {"n": 1}),
]
print(json.dumps({
    "tools": tools,
    "runs": [repr(r) for r in runs],
    "warnings": sorted(str(w.message) for w in caught),
}))
"""


def _emit(tmp_path: Path, source: str, probe: str, *flags: str) -> dict:
    (tmp_path / "later.py").write_text(source, encoding="utf-8")
    env = {"TOOLCALL_CACHE_DIR": str(tmp_path / "cache")}
    done = subproc.python(*flags, "-c", probe, paths=[tmp_path], env=env, check=True)
    return json.loads(done.stdout)


@needs_314
def test_forward_references_to_later_classes_resolve_without_future_import(
    tmp_path: Path,
) -> None:
    """A class defined after the function is the class, at every depth, as a Python 3.13
    module with ``from __future__ import annotations`` would give it; one annotation that
    never evaluates costs that parameter alone (``{}`` and a warning naming it), never the
    module: before, reading the signature raised ``NameError`` for the whole module."""
    out = _emit(tmp_path, LATER, PROBE)
    book, broken, after = (tool["function"] for tool in out["tools"])
    friend = {
        "type": ["object", "null"],
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": False,
        "default": None,
    }
    assert book["parameters"]["properties"]["where"] == {
        "type": "object",
        "description": "A postal address.",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    assert book["parameters"]["properties"]["guest"] == {
        "type": ["object", "null"],
        "properties": {"name": {"type": "string"}, "friend": friend},
        "required": ["name"],
        "additionalProperties": False,
        "description": "Who stays.",
        "default": None,
    }
    assert broken["parameters"]["properties"] == {
        "x": {},
        "y": {"type": "integer", "description": "a number", "default": 2},
    }
    assert after["name"] == "after"
    assert out["runs"] == ["Ok(value='Oslo:1:Ada')", "Ok(value=2)", "Ok(value=2)"]
    assert (
        "broken(x): cannot resolve the annotation 'Undefined'; sent as any value"
        in (out["warnings"])
    )


@needs_314
def test_the_same_module_with_future_annotations_gives_the_same_tools(tmp_path: Path) -> None:
    """Deferred evaluation and stringified annotations are two spellings of one module."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    deferred = _emit(tmp_path / "a", LATER, PROBE)
    future = _emit(tmp_path / "b", "from __future__ import annotations\n" + LATER, PROBE)
    assert future["tools"] == deferred["tools"]
    assert future["runs"] == deferred["runs"]


LAZY = '''
__toolcall__ = True
lazy import colorsys
lazy from wsgiref.util import guess_scheme


def shade(red: float, green: float = 0.0) -> str:
    """The hue of a colour.

    Args:
        red: the red channel, 0-1
        green: the green channel, 0-1
    """
    return str(colorsys.rgb_to_hsv(red, green, 0.0)[0]) + guess_scheme({})
'''

LAZY_PROBE = """
import json, sys
import toolcall
import later
imported = {name: name in sys.modules for name in ("colorsys", "wsgiref.util")}
tools = {fmt: toolcall.emit(later, fmt) for fmt in ("openai", "mcp")}
after_emit = {name: name in sys.modules for name in ("colorsys", "wsgiref.util")}
result = repr(toolcall.run(later, "shade", {"red": 1.0}))
print(json.dumps({"imported": imported, "after_emit": after_emit, "tools": tools,
                  "result": result, "cached": len(__import__("os").listdir(sys.argv[1]))}))
"""


@needs_315
@pytest.mark.parametrize(
    "flags", [(), ("-OO",), ("-X", "lazy_imports=all"), ("-X", "lazy_imports=all", "-OO")]
)
def test_lazy_imports_leave_tools_cache_and_oo_unchanged(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    """``lazy import`` in a marked module: deriving and emitting its tools does not reify
    the lazy names (the hook reads the module's ``__dict__``, never its values' modules);
    the first call does. Under ``-X lazy_imports=all`` the marked module is itself imported
    lazily and its tools are the same. Cold and warm, with and without ``-OO``."""
    (tmp_path / "later.py").write_text(LAZY, encoding="utf-8")
    cache = tmp_path / "cache"
    env = {"TOOLCALL_CACHE_DIR": str(cache)}
    outs = []
    for _ in ("cold", "warm"):
        done = subproc.python(
            *flags, "-c", LAZY_PROBE, str(cache), paths=[tmp_path], env=env, check=True
        )
        outs.append(json.loads(done.stdout))
    cold, warm = outs
    assert cold == warm
    lazily = {"colorsys": False, "wsgiref.util": False}
    assert cold["imported"] == cold["after_emit"] == lazily
    assert cold["result"] == "Ok(value='0.0http')"
    assert cold["cached"] == 1
    assert cold["tools"]["openai"] == [
        {
            "type": "function",
            "function": {
                "name": "shade",
                "description": "The hue of a colour.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "red": {"type": "number", "description": "the red channel, 0-1"},
                        "green": {
                            "type": "number",
                            "description": "the green channel, 0-1",
                            "default": 0.0,
                        },
                    },
                    "required": ["red"],
                    "additionalProperties": False,
                },
            },
        }
    ]


def _other_python() -> str:
    """A project virtualenv of another minor version (``scripts/test`` makes one for each)."""
    mine = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for venv in sorted(subproc.ROOT.glob(".venv*")):
        python = venv / "bin" / "python"
        if not python.is_file():
            continue
        version = subprocess.run(
            [python, "-c", "import sys, msgspec; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if version and version != mine:
            return str(python)
    if os.environ.get("CI") == "true":
        pytest.fail("CI has every supported Python, yet no other one was found")
    pytest.skip("no virtualenv of another Python version in this checkout (run scripts/test)")


def test_entries_built_by_another_python_are_a_loud_miss_in_a_sourceless_deployment(
    tmp_path: Path,
) -> None:
    """Entries are keyed by the Python minor version (its bytecode and typing differ): a
    sourceless deployment whose entries another Python built does not trust them, and says
    so naming the module, instead of serving empty descriptions; rebuilt with the Python
    that runs it, the same deployment serves them all."""
    other = _other_python()
    project = write_project(tmp_path / "proj")
    shipped = tmp_path / "shipped"
    env = subproc.environment([project], {"TOOLCALL_CACHE_DIR": str(shipped)})
    build = [other, "-m", "toolcall.cli.cache", "build", "app", "--cache-dir", str(shipped)]
    built = subprocess.run(build, env=env, cwd=project, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    deployed = tmp_path / "deployed"
    shutil.copytree(project, deployed)
    subproc.python("-OO", "-m", "compileall", "-q", "-b", deployed, check=True)
    for source in deployed.rglob("*.py"):
        source.unlink()

    def run_deployed() -> subprocess.CompletedProcess[str]:
        return subproc.python(
            "-OO",
            "-W",
            "always",
            "-c",
            textwrap.dedent(EMIT_ALL),
            paths=[deployed],
            env={"TOOLCALL_CACHE_DIR": str(shipped), "PYTHONDONTWRITEBYTECODE": "1"},
            cwd=deployed,
        )

    missed = run_deployed()
    assert missed.returncode == 0, missed.stderr
    assert "app.tools has no source" in missed.stderr
    assert f"no valid entry for it in {shipped}" in missed.stderr
    assert "pay for next-day delivery" not in missed.stdout

    rebuilt = subproc.python(
        "-m",
        "toolcall.cli.cache",
        "build",
        "app",
        "--cache-dir",
        shipped,
        paths=[project],
        cwd=project,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    served = run_deployed()
    assert "has no source" not in served.stderr
    assert "pay for next-day delivery" in served.stdout


def _oo(project: Path, cache: Path, *args: str, hook: bool = True) -> str:
    """Run ``python -OO ARGS`` on the project; its stdout (stderr must carry no warning of
    lost descriptions)."""
    env = {
        "TOOLCALL_CACHE_DIR": str(cache),
        "TOOLCALL_HOOK": "1" if hook else "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    done = subproc.python("-OO", *args, paths=[project], env=env, cwd=project)
    assert done.returncode == 0, done.stderr
    assert "no descriptions" not in done.stderr
    return done.stdout


@pytest.mark.long
@pytest.mark.parametrize("hook", [True, False], ids=["hook", "lazy"])
def test_every_oo_path_emits_what_a_source_run_emits(tmp_path: Path, hook: bool) -> None:
    """On this Python, under ``-OO``: a cold and a warm process, through the hook or lazily
    on first use, ``toolcall export``, and ``toolcall-cache build`` followed by a sourceless
    run all give what a plain run from source gives, byte for byte, descriptions included."""
    project = write_project(tmp_path / "proj")
    reference = subproc.python(
        "-c", EMIT_ALL, paths=[project], env={"TOOLCALL_CACHE": "0"}, cwd=project, check=True
    ).stdout
    assert "pay for next-day delivery" in reference
    cache = tmp_path / "cache"
    assert _oo(project, cache, "-c", EMIT_ALL, hook=hook) == reference  # cold
    assert _oo(project, cache, "-c", EMIT_ALL, hook=hook) == reference  # warm

    export = ["-m", "toolcall.cli.main", "export", "app.tools", "--format", "mcp"]
    exported = _oo(project, tmp_path / "export-cache", *export, hook=hook)
    plain = subproc.python(*export, paths=[project], cwd=project, check=True).stdout
    assert exported == plain
    assert "pay for next-day delivery" in exported

    shipped = tmp_path / "shipped"
    _oo(project, shipped, "-m", "toolcall.cli.cache", "build", "app", "--cache-dir", str(shipped))
    deployed = tmp_path / "deployed"
    shutil.copytree(project, deployed)
    subproc.python("-OO", "-m", "compileall", "-q", "-b", deployed, check=True)
    for source in deployed.rglob("*.py"):
        source.unlink()
    assert _oo(deployed, shipped, "-c", EMIT_ALL, hook=hook) == reference
