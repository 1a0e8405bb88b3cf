"""A module from an installed distribution is a dependency by its version, found cheaply."""

from __future__ import annotations

import importlib.metadata
from typing import Any

import annotated_types
import msgspec
import pytest

from toolcall._cache import fingerprint


@pytest.fixture(autouse=True)
def _fresh_records() -> None:
    fingerprint._dist_infos.cache_clear()
    fingerprint._record.cache_clear()


def test_an_installed_module_is_its_distribution_and_version() -> None:
    """annotated_types and msgspec stand in with their distributions' versions."""
    for module, dist in ((annotated_types, "annotated_types"), (msgspec, "msgspec")):
        dep = fingerprint.dep_for_module(module)
        assert (dep.kind, dep.digest) == ("dist", importlib.metadata.version(dist))
        assert fingerprint.dep_current(dep)


def test_finding_the_distribution_never_scans_every_installed_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``packages_distributions`` parses every file of every distribution (a second of a
    cold derivation where torch is installed): it is never called, nor ``files``."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("scanned every installed distribution")

    monkeypatch.setattr(importlib.metadata, "packages_distributions", refuse)
    monkeypatch.setattr(importlib.metadata.Distribution, "files", property(refuse))
    dep = fingerprint.dep_for_module(annotated_types)
    assert (dep.kind, dep.name) == ("dist", "annotated_types")


def test_a_file_no_record_lists_is_hashed(tmp_path: Any) -> None:
    """A module beside no ``.dist-info`` that lists it (an editable install, a project file)
    is a file dependency: its bytes are hashed."""
    source = tmp_path / "homegrown.py"
    source.write_text("X = 1\n")
    module = type(msgspec)("homegrown")
    module.__file__ = str(source)
    assert fingerprint.dep_for_module(module).kind == "file"
