"""An entry describes exactly the source that ran, a sourceless deployment is never silently
degraded or deleted, and the hook changes nothing about other imports, in real processes
(SPEC section 6: Freshness, Production loudness, No side effects; issue 10).
"""

from __future__ import annotations

import compileall
import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import subproc

TWO_TOOLS = '''
import builtins

__toolcall__ = True


def first() -> int:
    """The first tool."""
    return 1


{pause}


def second() -> int:
    """The second tool."""
    return 2
'''

NAMES = """
import json, toolcall, tools
print(json.dumps(list(toolcall.tool_names(tools))))
"""


python = subproc.json_run


def project(tmp_path: Path, tools: str) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "tools.py").write_text(textwrap.dedent(tools))
    return root, tmp_path / "cache"


RACE = """
import importlib, json, sys, threading, builtins
import toolcall
builtins.started, builtins.resume = threading.Event(), threading.Event()
importer = threading.Thread(target=importlib.import_module, args=("tools",))
importer.start()
builtins.started.wait(30)
during = list(toolcall.tool_names(sys.modules["tools"]))
builtins.resume.set()
importer.join(30)
import tools
print(json.dumps([during, list(toolcall.tool_names(tools))]))
"""


def test_a_module_read_by_another_thread_mid_import_is_not_cached_partial(
    tmp_path: Path,
) -> None:
    """``tool_names`` from a second thread while the import is paused between the two
    tools sees the first; the module, once executed, has both, in this process and the next."""
    pause = (
        'if hasattr(builtins, "resume"):\n    builtins.started.set()\n    builtins.resume.wait(30)'
    )
    root, cache = project(tmp_path, TWO_TOOLS.format(pause=pause))
    assert python(root, cache, RACE) == [["first"], ["first", "second"]]
    assert python(root, cache, NAMES) == ["first", "second"]


def test_tool_names_in_the_module_body_is_not_cached_partial(tmp_path: Path) -> None:
    """A module that asks for its own tools while executing gets the ones defined so far;
    every later look, here and in the next process, gets all of them."""
    pause = "import toolcall\nbuiltins.seen = list(toolcall.tool_names(__name__))"
    root, cache = project(tmp_path, TWO_TOOLS.format(pause=pause))
    code = """
import builtins, json, toolcall, tools
print(json.dumps([builtins.seen, list(toolcall.tool_names(tools))]))
"""
    assert python(root, cache, code) == [["first"], ["first", "second"]]
    assert python(root, cache, code) == [["first"], ["first", "second"]]


SAVE_DURING_IMPORT = """
import json, pathlib
import toolcall
from toolcall._load import hook
real = hook._observe

def saved_meanwhile(*args, **kwargs):
    # the editor saves version 2 after the loader ran version 1, before toolcall hashes
    pathlib.Path("tools.py").write_text(pathlib.Path("v2.py").read_text())
    return real(*args, **kwargs)

hook._observe = saved_meanwhile
import tools
print(json.dumps(list(toolcall.tool_names(tools))))
"""

V1 = '''
__toolcall__ = True


def old_tool() -> int:
    """Version 1."""
    return 1
'''

V2 = '''
__toolcall__ = True


def old_tool() -> int:
    """Version 1."""
    return 1


def new_tool() -> int:
    """Version 2, a little longer."""
    return 2
'''


def test_a_save_between_execution_and_hashing_is_keyed_by_what_ran(tmp_path: Path) -> None:
    """The process that ran version 1 caches version 1 under version 1's key, so the next
    process, importing version 2, derives version 2 instead of reading version 1's tools."""
    root, cache = project(tmp_path, V1)
    (root / "v2.py").write_text(V2)
    assert python(root, cache, SAVE_DURING_IMPORT) == ["old_tool"]
    assert python(root, cache, NAMES) == ["old_tool", "new_tool"]


DESCRIPTIONS = """
import json, toolcall, tools
print(json.dumps([tool["description"] for tool in toolcall.emit(tools, "mcp")]))
"""


def test_an_entry_describes_the_source_that_ran_not_a_later_save(tmp_path: Path) -> None:
    """The docstrings and project imports of an entry come from the bytes that ran, never
    from the file as saved meanwhile: a process that ran version 1 while version 2 was being
    saved writes version 1's descriptions under version 1's key, so going back to version 1
    reads them, not version 2's."""
    root, cache = project(tmp_path, V1)
    (root / "v2.py").write_text(V2.replace("Version 1.", "Version 2 wording."))
    assert python(root, cache, SAVE_DURING_IMPORT) == ["old_tool"]
    (root / "tools.py").write_text(textwrap.dedent(V1))
    assert python(root, cache, DESCRIPTIONS) == ["Version 1."]


SHIPPED = '''
from app.consts import DAYS

__toolcall__ = True


def forecast(city: str, days: int = DAYS) -> str:
    """Get the forecast.

    Args:
        city: the city name
    """
    return city
'''

DESCRIBE = """
import json, toolcall, app.tools as m
print(json.dumps(toolcall.describe(m)))
"""


def _sourceless_tree(tmp_path: Path) -> tuple[Path, Path, Any]:
    """``build/app`` compiled for shipping; returns (tree, cache, describe as built)."""
    built = tmp_path / "build"
    app = built / "app"
    app.mkdir(parents=True)
    (app / "__init__.py").write_text("")
    (app / "consts.py").write_text("DAYS = 3\n")
    (app / "tools.py").write_text(SHIPPED)
    cache = tmp_path / "shipped-cache"
    done = subproc.python(
        "-c",
        "from toolcall.cli.cache import main; raise SystemExit(main())",
        "build",
        "app",
        "--cache-dir",
        str(cache),
        cwd=built,
        paths=[built],
    )
    assert done.returncode == 0, done.stderr
    expected = python(built, cache, DESCRIBE)
    assert compileall.compile_dir(str(built), legacy=True, quiet=1)
    for source in built.rglob("*.py"):
        source.unlink()
    for pycache in built.rglob("__pycache__"):
        shutil.rmtree(pycache)
    return built, cache, expected


def test_a_relocated_sourceless_deployment_keeps_its_entries(tmp_path: Path) -> None:
    """Built in one directory, compiled, stripped of sources and moved: the entries (with a
    file dependency) still serve full descriptions under -OO, ``list`` does not call them
    "source gone", and ``clean`` removes none of them."""
    built, cache, expected = _sourceless_tree(tmp_path)
    moved = tmp_path / "srv" / "deployed"
    moved.parent.mkdir()
    built.rename(moved)
    done = subproc.python(
        "-OO",
        "-W",
        "error::UserWarning",
        "-c",
        DESCRIBE,
        paths=[moved],
        env={"TOOLCALL_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=moved,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected
    assert "the city name" in json.dumps(expected)
    cli = "from toolcall.cli.cache import main; raise SystemExit(main())"
    listed = subproc.python("-c", cli, "list", "--cache-dir", str(cache), paths=[moved], cwd=moved)
    assert listed.returncode == 0, listed.stderr
    assert "source gone" not in listed.stdout
    assert "valid" in listed.stdout
    cleaned = subproc.python(
        "-c", cli, "clean", "--cache-dir", str(cache), paths=[moved], cwd=moved
    )
    assert cleaned.returncode == 0, cleaned.stderr
    assert cleaned.stdout.startswith("removed 0 ")
    assert len(list(cache.glob("*.tcc"))) == 1


def test_a_sourceless_module_without_a_valid_entry_warns(tmp_path: Path) -> None:
    """When a shipped entry does not match (here: no entries at all), the derivation that
    replaces it is announced with a ToolcallWarning naming the module and the fix."""
    built, _, _ = _sourceless_tree(tmp_path)
    done = subproc.python(
        "-OO",
        "-c",
        DESCRIBE,
        paths=[built],
        env={"TOOLCALL_CACHE_DIR": str(tmp_path / "empty"), "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=built,
    )
    assert done.returncode == 0, done.stderr
    assert "ToolcallWarning: app.tools has no source" in done.stderr
    assert "toolcall-cache build" in done.stderr


def test_build_names_a_namespace_layout_the_way_the_application_imports_it(
    tmp_path: Path,
) -> None:
    """The README layout (``myapp/tools/weather.py``, no ``__init__.py``): the entry is
    built for ``myapp.tools.weather``, said on stderr, and the application's import hits it."""
    root = tmp_path / "proj"
    weather = root / "myapp" / "tools" / "weather.py"
    weather.parent.mkdir(parents=True)
    weather.write_text(
        '__toolcall__ = True\n\n\ndef get_weather(city: str) -> str:\n    """Forecast."""\n'
        "    return city\n"
    )
    cache = tmp_path / "cache"
    done = subproc.python(
        "-c",
        "from toolcall.cli.cache import main; raise SystemExit(main())",
        "build",
        "myapp",
        "--cache-dir",
        str(cache),
        cwd=root,
        paths=[root],
    )
    assert done.returncode == 0, done.stderr
    assert "built as myapp.tools.weather" in done.stderr
    (entry,) = cache.glob("*.tcc")
    assert entry.name.startswith("myapp.tools.weather-")
    app = (
        "import json, toolcall, myapp.tools.weather as m\nprint(json.dumps(toolcall.tool_names(m)))"
    )
    assert python(root, cache, app) == ["get_weather"]
    assert list(cache.glob("*.tcc")) == [entry]
