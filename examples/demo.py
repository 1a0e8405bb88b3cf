"""The toolcall demo: schemas for a provider, then a good call and two bad ones.

Run it with ``scripts/demo``. It prints what you would send a provider and what a model
would read back as the tool result.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import toolcall  # noqa: E402 - the path above makes `examples` importable from a checkout
from examples import weather  # noqa: E402


def show(title: str, value: Any) -> None:
    print(f"\n## {title}\n")
    print(json.dumps(value, indent=2))


def tool_result_message(call_id: str, result: toolcall.Ok[Any] | toolcall.Err) -> dict[str, str]:
    """The OpenAI tool-result message a model receives for one call."""
    match result:
        case toolcall.Ok(value):
            content = toolcall.encode_result({"ok": True, "result": value})
        case toolcall.Err(error):
            content = toolcall.encode_result({"ok": False, "error": error.message})
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def main() -> None:
    print("# toolcall demo: module examples.weather")
    show("OpenAI tools", toolcall.emit(weather, "openai"))
    show("OpenAI tools, strict", toolcall.emit(weather, "openai", strict=True))
    show("Anthropic tools", toolcall.emit(weather, "anthropic"))

    calls = [
        ("call_1", {"city": "Oslo", "days": 5}, "a good call"),
        ("call_2", {"city": "Oslo", "days": "5"}, "a string where the schema says integer"),
        ("call_3", {"city": "Oslo", "c": 1}, "an invented argument"),
    ]
    for call_id, args, what in calls:
        result = toolcall.run(weather, "get_weather", args)
        print(f"\n## get_weather({json.dumps(args)}): {what}\n")
        print(json.dumps(tool_result_message(call_id, result), indent=2))


PRODUCTION_PROBE = """
import sys, toolcall
from examples import weather  # noqa: E402
print("__doc__ under -OO:", repr(weather.get_weather.__doc__))
print("source on disk:", weather.__spec__.origin)
tool = toolcall.describe(weather)[0]
print("description:", tool["description"])
print("days:", tool["parameters"]["properties"]["days"]["description"])
"""


def production() -> None:
    """Ship the cache with a sourceless -OO deployment, as docs/production.md describes."""
    print("\n# Production: a sourceless deployment under python -OO\n")
    with tempfile.TemporaryDirectory() as tmp:
        app, cache = Path(tmp, "app"), Path(tmp, "cache")
        shutil.copytree(ROOT / "examples", app / "examples", ignore=_no_bytecode)
        env = {**os.environ, "PYTHONPATH": str(app), "TOOLCALL_CACHE_DIR": str(cache)}
        steps = [
            [sys.executable, "-m", "toolcall.cli.cache", "build", "examples.weather"],
            [sys.executable, "-OO", "-m", "compileall", "-q", "-b", str(app)],
        ]
        for step in steps:
            print("$ python", " ".join(step[1:]))
            done = subprocess.run(step, env=env, cwd=tmp, capture_output=True, text=True)
            print(done.stdout.strip() or "(ok)")
            done.check_returncode()
        sources = list(app.rglob("*.py"))
        for source in sources:
            source.unlink()
        print(f"$ rm app/**/*.py   ({len(sources)} source files deleted)")
        print("$ python -OO <app importing examples.weather>")
        done = subprocess.run(
            [sys.executable, "-OO", "-c", PRODUCTION_PROBE],
            env=env,
            cwd=tmp,
            capture_output=True,
            text=True,
            check=True,
        )
        print(done.stdout.strip())


def _no_bytecode(directory: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "__pycache__" or name.endswith(".pyc")]


if __name__ == "__main__":
    main()
    production()
