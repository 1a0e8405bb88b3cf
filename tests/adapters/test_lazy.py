"""``import toolcall`` imports no framework; an adapter module imports its framework."""

from __future__ import annotations

import json

import pytest

import subproc

FRAMEWORKS = {
    "openai_agents": "agents",
    "pydantic_ai": "pydantic_ai",
    "langchain": "langchain_core",
    "fastmcp": "fastmcp",
}

_PROBE = """
import json, sys
import toolcall, toolcall.adapters
{extra}
print(json.dumps(sorted(m for m in {names!r} if m in sys.modules)))
"""


def _loaded(extra: str = "") -> list[str]:
    code = _PROBE.format(extra=extra, names=sorted(FRAMEWORKS.values()))
    done = subproc.python("-c", code)
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def test_toolcall_imports_no_framework() -> None:
    """Importing toolcall and emitting a toolbox imports no agent framework."""
    assert _loaded("toolcall.Toolbox('examples.weather').emit()") == []


@pytest.mark.parametrize(("adapter", "framework"), FRAMEWORKS.items())
def test_an_adapter_imports_its_framework(adapter: str, framework: str) -> None:
    """An adapter module imports the framework it adapts to."""
    assert framework in _loaded(f"import toolcall.adapters.{adapter}")
