"""The toolcall demo: schemas for a provider, then a good call and two bad ones.

Run it with ``scripts/demo``. It prints what you would send a provider and what a model
would read back as the tool result.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import toolcall
from examples import weather


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


if __name__ == "__main__":
    main()
