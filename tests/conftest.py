"""Shared fixtures: a tool module built from a string, imported for real."""

from __future__ import annotations

import importlib
import itertools
import os
import sys
import textwrap
import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

_counter = itertools.count()


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep the suite (and its subprocesses) away from the user's real cache directory."""
    saved = os.environ.get("TOOLCALL_CACHE_DIR")
    os.environ["TOOLCALL_CACHE_DIR"] = str(tmp_path_factory.mktemp("toolcall-cache"))
    yield
    if saved is None:
        del os.environ["TOOLCALL_CACHE_DIR"]
    else:
        os.environ["TOOLCALL_CACHE_DIR"] = saved


@pytest.fixture
def make_module(tmp_path: Path) -> Iterator[Callable[..., types.ModuleType]]:
    """Write ``source`` to a fresh module file under tmp_path and import it."""
    created: list[str] = []
    sys.path.insert(0, str(tmp_path))

    def make(source: str, name: str | None = None) -> types.ModuleType:
        name = name or f"tc_mod_{next(_counter)}"
        path = tmp_path.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(tmp_path).parents:
            if str(parent) != ".":
                init = tmp_path / parent / "__init__.py"
                if not init.exists():
                    init.write_text("")
        path.write_text(textwrap.dedent(source))
        importlib.invalidate_caches()
        created.append(name)
        return importlib.import_module(name)

    yield make
    sys.path.remove(str(tmp_path))
    for name in created:
        sys.modules.pop(name, None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "once: the verdict does not depend on the Python running it (mypy's static check, the "
        "docs site build); scripts/test runs it on one interpreter of its run",
    )
    config.addinivalue_line(
        "markers",
        "long: a test of several seconds on its own (real processes, a server's lifetime); "
        "it runs first, so that short tests fill the end of the run on every xdist worker",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``long`` and ``once`` tests first (a long test started last keeps one worker busy
    while the others idle); with ``TOOLCALL_TESTS_ONCE_DONE`` naming the interpreter that
    runs them (scripts/test sets it for every other one), ``once`` tests skip, saying where
    they run. Only tests without module-scoped fixtures are marked: moving one of those
    would start its module's fixture twice."""
    items.sort(key=lambda item: not (_marked(item, "long") or _marked(item, "once")))
    where = os.environ.get("TOOLCALL_TESTS_ONCE_DONE")
    if not where:
        return
    skip = pytest.mark.skip(reason=f"interpreter-independent: this run checks it on {where}")
    for item in items:
        if _marked(item, "once"):
            item.add_marker(skip)


def _marked(item: pytest.Item, name: str) -> bool:
    return item.get_closest_marker(name) is not None
