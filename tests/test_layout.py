"""The import graph flows one way, and no module grows past what one reader can hold."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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


def test_no_module_is_over_500_lines() -> None:
    """Small modules: each one a reader can hold in mind (about 500 lines at most)."""
    sizes = {
        str(path.relative_to(SRC)): len(path.read_text(encoding="utf-8").splitlines())
        for path in SRC.rglob("*.py")
    }
    assert {name: lines for name, lines in sizes.items() if lines > 520} == {}
