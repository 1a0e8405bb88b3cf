"""The import graph flows one way, and no module grows past what one reader can hold."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import toolcall
from toolcall._load import trust
from toolcall._shared.kinds import class_ref
from zoo import KINDS

SRC = Path(__file__).resolve().parents[1] / "src" / "toolcall"

DOWNSTREAM = ("_cache", "_load", "_api", "cli", "providers", "mcp", "adapters")
"""What derivation, rendering and dispatch must never import: they are upstream of all of it."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every toolcall module ``path`` imports, at any depth of its code (lazy imports too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name == "toolcall" or name.startswith("toolcall.")}


def _stage_files(stage: str) -> list[Path]:
    return sorted((SRC / stage).glob("*.py"))


@pytest.mark.parametrize("stage", ["_derive", "_render", "_dispatch"])
def test_upstream_stages_never_import_downstream(stage: str) -> None:
    """Derivation, rendering and dispatch never import the cache, pipeline, registry, hook,
    CLI or public API modules."""
    offenders = {
        _module_name(path): sorted(
            name
            for name in _imports(path)
            if name.removeprefix("toolcall.").split(".")[0] in DOWNSTREAM
        )
        for path in _stage_files(stage)
    }
    assert {module: names for module, names in offenders.items() if names} == {}


def test_rendering_never_imports_derivation_or_dispatch() -> None:
    """Rendering reads only the IR: it never looks at live code."""
    offenders = {
        _module_name(path): sorted(
            name
            for name in _imports(path)
            if name.startswith(("toolcall._derive", "toolcall._dispatch"))
        )
        for path in _stage_files("_render")
    }
    assert {module: names for module, names in offenders.items() if names} == {}


def test_the_registry_only_indexes() -> None:
    """The registry never derives, renders, dispatches or touches the cache."""
    imported = _imports(SRC / "_load" / "registry.py")
    stages = ("toolcall._derive", "toolcall._render", "toolcall._cache", "toolcall._load.warm")
    assert sorted(name for name in imported if name.startswith(stages)) == []


def test_the_cache_never_imports_user_code_machinery() -> None:
    """The cache stores and validates entries; it knows nothing about derivation or dispatch."""
    offenders = {
        _module_name(path): sorted(
            name
            for name in _imports(path)
            if name.startswith(("toolcall._derive", "toolcall._dispatch", "toolcall._render"))
        )
        for path in _stage_files("_cache")
    }
    assert {module: names for module, names in offenders.items() if names} == {}


def _private_imports(path: Path) -> list[str]:
    """``from toolcall.x import _y`` in ``path``, for ``_y`` anything but a module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0):
            continue
        if not node.module.startswith("toolcall"):
            continue
        for alias in node.names:
            if not alias.name.startswith("_") or alias.name.startswith("__"):
                continue
            if (SRC.parent / node.module.replace(".", "/") / alias.name).is_dir():
                continue  # a private package, imported as a module
            if (SRC.parent / node.module.replace(".", "/") / f"{alias.name}.py").is_file():
                continue  # a private module
            found.append(f"{node.module}.{alias.name}")
    return found


def test_no_private_name_crosses_a_module() -> None:
    """What one module uses of another is public in it: a private name stays home."""
    offenders = {
        _module_name(path): names for path in SRC.rglob("*.py") if (names := _private_imports(path))
    }
    assert offenders == {}


def test_no_module_is_over_800_lines() -> None:
    """Modules are cut where their concept ends; 800 lines says a concept has grown two."""
    sizes = {
        str(path.relative_to(SRC)): len(path.read_text(encoding="utf-8").splitlines())
        for path in SRC.rglob("*.py")
    }
    assert {name: lines for name, lines in sizes.items() if lines > 800} == {}


def test_shared_leaves_import_only_each_other_and_the_ir() -> None:
    """``_shared`` is what every stage and the warm path may import: it imports no stage."""
    offenders = {
        _module_name(path): sorted(
            name
            for name in _imports(path)
            if name != "toolcall.ir" and not name.startswith("toolcall._shared")
        )
        for path in _stage_files("_shared")
    }
    assert {module: names for module, names in offenders.items() if names} == {}


def test_tool_errors_are_built_only_by_their_constructors() -> None:
    """Every ``ToolError`` message is phrased in ``_dispatch/result.py``, one constructor per
    kind: nowhere else builds one by hand."""
    home = SRC / "_dispatch" / "result.py"
    offenders = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if path != home and "ToolError(" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []


def test_the_warm_path_imports_derivation_only_through_the_cold_path() -> None:
    """``_load/warm.py`` names no derivation or rendering module but discovery and the
    envelopes: everything a miss needs is imported by ``_load/cold.py``, at its top."""
    allowed = {"toolcall._derive.discovery", "toolcall._render.variants"}
    imported = _imports(SRC / "_load" / "warm.py")
    stages = ("toolcall._derive", "toolcall._render")
    assert (
        sorted(
            name
            for name in imported
            if name.startswith(stages) and not any(name.startswith(a) for a in allowed)
        )
        == []
    )
    cold = ast.parse((SRC / "_load" / "cold.py").read_text(encoding="utf-8"))
    nested = [
        node.lineno
        for function in ast.walk(cold)
        if isinstance(function, ast.FunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    assert nested == []


EDGES = {
    "toolcall.mcp.server": {"toolcall._render.output", "toolcall.adapters._common"},
    "toolcall.mcp.calls": {"toolcall._dispatch.result"},
    "toolcall.mcp.results": {"toolcall._dispatch.encode"},
    "toolcall.providers._wire": {"toolcall._dispatch.encode"},
    "toolcall.adapters._common": {"toolcall._dispatch.encode"},
    "toolcall.cli.check": {"toolcall._load.cold"},
    "toolcall._derive.pydantic_meta": {"toolcall._render"},
}
"""The documented exceptions to "downstream uses the public API only" (docs/internals.md):
the MCP server declares output schemas and reads the adapters' tool specs; its call guard
reports a tool's ``BaseException`` by the rule ``run`` uses; MCP, the providers and the
adapters split a result into text and media parts by the encoder's one rule; ``toolcall
check`` derives as a
cold process would; derivation renders the schema a ``json_schema_extra`` callable is given."""


@pytest.mark.parametrize("module", sorted(EDGES))
def test_each_documented_edge_exists(module: str) -> None:
    """An exception listed in ``EDGES`` is real (a stale one is removed from the list)."""
    path = SRC.parent / (module.replace(".", "/") + ".py")
    imported = _imports(path)
    for target in EDGES[module]:
        assert any(name == target or name.startswith(target + ".") for name in imported), target


def test_downstream_reaches_private_modules_only_through_documented_edges() -> None:
    """adapters/, providers/ and mcp/ use the public API (and the IR); any other private
    module they import is one of ``EDGES``."""
    public = {"toolcall", "toolcall.ir", "toolcall.providers", "toolcall.mcp", "toolcall.adapters"}
    offenders: dict[str, list[str]] = {}
    for folder in ("adapters", "providers", "mcp"):
        for path in _stage_files(folder):
            module = _module_name(path)
            allowed = EDGES.get(module, set())
            found = sorted(
                name
                for name in _imports(path)
                if name not in public
                and not name.startswith((f"toolcall.{folder}", "toolcall._shared"))
                and "._" in name
                and not any(name == a or name.startswith(a + ".") for a in allowed)
            )
            if found:
                offenders[module] = found
    assert offenders == {}


@pytest.mark.parametrize("cls", KINDS, ids=lambda cls: cls.__name__)
def test_the_trust_check_accepts_what_derivation_says_a_class_is(cls: type) -> None:
    """Derivation and the trust check share one rule per class kind: the ``py`` derivation
    records for a class is one the trust check then accepts that class as, or every warm
    load of a tool using it would be a miss."""

    def tool(value: Any) -> None:
        """Take one value."""

    tool.__annotations__ = {"value": cls, "return": None}
    derived = toolcall.derive(tool).parameters[0].type
    assert derived.ref == class_ref(cls)
    assert trust.KINDS[derived.py](cls)
