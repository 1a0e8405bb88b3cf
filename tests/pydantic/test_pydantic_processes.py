"""pydantic across real processes: never imported for modules that do not use it, a cache
dependency (its version) for those that do, and model and field descriptions that survive
the cache and a sourceless ``-OO`` deployment."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

import subproc

TOOLS = '''
"""Catalogue tools."""

__toolcall__ = True
__toolcall_description__ = "full"

from typing import Annotated

from pydantic import UUID4, BaseModel, EmailStr, Field

import toolcall


class Book(BaseModel):
    """A book in the catalogue."""

    title: str = Field(max_length=120)
    """Title as printed on the cover."""
    year: int = Field(ge=1450, description="Year of first publication")


@toolcall.tool(name="catalogue-add", title="Add a book", annotations={"readOnlyHint": False})
def add_book(
    book: Book,
    notify: Annotated[EmailStr | None, Field(description="Who to tell")] = None,
    order: UUID4 | None = Field(None, description="The purchase order"),
) -> str:
    """Add a book.

    Check the catalogue first: duplicates are refused.

    Args:
        book: the book to add
    """
    return book.title
'''

PLAIN = '''
__toolcall__ = True
from typing import TypedDict


class Spot(TypedDict):
    lat: float


def locate(spot: Spot, label: str = "x") -> str:
    """Locate."""
    return label
'''

EMIT = textwrap.dedent(
    """
    import json, sys, toolcall, app.tools as m
    out = {f"{f}:{s}": toolcall.emit(m, f, strict=s)
           for f in ("openai", "anthropic", "mcp") for s in (False, True)}
    out["describe"] = toolcall.describe(m)
    out["run"] = repr(toolcall.run(m, "catalogue-add", {"book": {"title": "Dune", "year": 1965}}))
    print(json.dumps(out, sort_keys=True))
    """
)


def write(root: Path, source: str) -> Path:
    app = root / "app"
    app.mkdir(parents=True)
    (app / "__init__.py").write_text("")
    (app / "tools.py").write_text(source)
    return root


def env(cache: Path) -> dict[str, str | None]:
    return {
        "TOOLCALL_CACHE": None,
        "TOOLCALL_CACHE_DIR": str(cache),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def test_pydantic_is_not_imported_when_the_tools_do_not_use_it(tmp_path):
    """Deriving, emitting and running a module without pydantic never imports pydantic."""
    project = write(tmp_path / "p", PLAIN)
    script = (
        "import sys, toolcall, app.tools as m\n"
        "toolcall.emit(m, 'openai'); toolcall.describe(m)\n"
        "print(toolcall.run(m, 'locate', {'spot': {'lat': 1.0}}))\n"
        "print('pydantic' in sys.modules, 'pydantic_core' in sys.modules)\n"
    )
    for _ in range(2):  # cold (derives) and warm (from the cache)
        done = subproc.python("-c", script, paths=[project], env=env(tmp_path / "c"))
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1] == "False False"


def test_pydantic_version_is_a_cache_dependency(tmp_path):
    """The entry of a module using pydantic records pydantic's installed version."""
    project = write(tmp_path / "p", TOOLS)
    cache = tmp_path / "c"
    done = subproc.python("-c", EMIT, paths=[project], env=env(cache))
    assert done.returncode == 0, done.stderr
    script = (
        "import sys, pydantic\n"
        "from toolcall._cache import store\n"
        f"(path,) = __import__('pathlib').Path({str(cache)!r}).glob('*.tcc')\n"
        "entry = store.read_entry(path)\n"
        "print(sorted({(d.kind, d.name, d.digest) for d in entry.deps if d.name == 'pydantic'}))\n"
        "print(pydantic.VERSION)\n"
    )
    read = subproc.python("-c", script, paths=[project])
    assert read.returncode == 0, read.stderr
    deps, version = read.stdout.splitlines()
    assert deps == str([("dist", "pydantic", version)])


@pytest.mark.long
def test_models_round_trip_through_the_cache_and_a_sourceless_deployment(tmp_path):
    """Cold, warm, and compiled with -OO with the .py files deleted: the same schemas,
    model and field descriptions included, and the same run result."""
    project = write(tmp_path / "p", TOOLS)
    cache = tmp_path / "c"
    cold = subproc.python("-c", EMIT, paths=[project], env=env(cache))
    warm = subproc.python("-c", EMIT, paths=[project], env=env(cache))
    assert cold.returncode == warm.returncode == 0, cold.stderr + warm.stderr
    assert cold.stdout == warm.stdout
    shipped_cache = tmp_path / "shipped"
    built = subproc.python(
        "-m",
        "toolcall.cli.cache",
        "build",
        "app",
        "--cache-dir",
        shipped_cache,
        paths=[project],
        env=env(shipped_cache),
        cwd=project,
    )
    assert built.returncode == 0, built.stderr
    deployed = tmp_path / "deployed"
    shutil.copytree(project, deployed)
    compiled = subproc.python(
        "-OO", "-m", "compileall", "-q", "-b", "--invalidation-mode", "unchecked-hash", deployed
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    for source in deployed.rglob("*.py"):
        source.unlink()
    shipped = subproc.python("-OO", "-c", EMIT, paths=[deployed], env=env(shipped_cache))
    assert shipped.returncode == 0, shipped.stderr
    assert json.loads(shipped.stdout) == json.loads(cold.stdout)
    text = shipped.stdout
    for description in (
        "Title as printed on the cover.",
        "Year of first publication",
        "the book to add",
        "Check the catalogue first: duplicates are refused.",
        "Who to tell",
        "The purchase order",
    ):
        assert description in text
    mcp = json.loads(shipped.stdout)["mcp:False"][0]
    assert (mcp["name"], mcp["title"], mcp["annotations"]) == (
        "catalogue-add",
        "Add a book",
        {"readOnlyHint": False},
    )
    assert json.loads(shipped.stdout)["run"] == "Ok(value='Dune')"
