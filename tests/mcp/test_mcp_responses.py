"""``serve-mcp`` answers with one JSON body where no tool needs a stream (issue 22).

``serve-mcp`` answers a request with one JSON body unless one of its tools takes a
``Context``: only such a tool sends messages while it runs (progress, logs), and only an SSE
stream carries them. A stream carrying one answer costs the client more than the same answer
as JSON (on the 2025 protocol the SDK's client spends about 40 % less CPU on JSON), and JSON
loses nothing where no message could be dropped. ``--response`` chooses either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from served import HERE, JSON_HEADERS, ROOT, client, rpc, serving

_LEGACY = "2025-06-18"

STREAMING = '''
__toolcall__ = True
from toolcall.mcp import Context


async def index(path: str, ctx: Context) -> str:
    """Index the files under a path."""
    await ctx.report_progress(1, 2, "halfway")
    return f"indexed {path}"


def add(a: int, b: int = 1) -> int:
    """Add two numbers."""
    return a + b
'''


def _content_types(url: str, arguments: dict[str, Any]) -> tuple[str, str]:
    """A 2025-protocol session opened by hand: the content types of the answers to
    ``initialize`` and to one call of ``add``, whose result is 3."""
    hello = {"protocolVersion": _LEGACY, "capabilities": {}}
    hello["clientInfo"] = {"name": "tests", "version": "0"}
    opened = httpx2.post(url, headers=JSON_HEADERS, json=rpc("initialize", hello), timeout=30)
    headers = {**JSON_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
    headers["mcp-protocol-version"] = _LEGACY
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert httpx2.post(url, headers=headers, json=note, timeout=30).status_code == 202
    call = rpc("tools/call", {"name": "add", "arguments": arguments}, 2)
    answer = httpx2.post(url, headers=headers, json=call, timeout=30)
    assert answer.status_code == 200
    assert '"text":"3"' in answer.text.replace(" ", "")
    return (
        opened.headers["content-type"].split(";")[0],
        answer.headers["content-type"].split(";")[0],
    )


@pytest.mark.parametrize(
    ("flags", "expected"),
    [((), "application/json"), (("--response", "sse"), "text/event-stream")],
)
def test_a_server_whose_tools_cannot_stream_answers_with_json(
    flags: tuple[str, ...], expected: str
) -> None:
    """A server whose tools take no Context answers with JSON, unless ``--response sse`` asks for
    a stream."""
    with serving("prodtools", *flags) as served:
        assert _content_types(served.url, {"a": 2}) == (expected, expected)


def _streaming_module(tmp_path: Path) -> Path:
    (tmp_path / "streaming_tools.py").write_text(STREAMING)
    return tmp_path


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("flags", [(), ("--stateless",)], ids=["stateful", "stateless"])
async def test_a_tool_that_takes_a_context_keeps_its_stream(
    tmp_path: Path, mode: str, flags: tuple[str, ...], anyio_backend: str
) -> None:
    """Progress reaches the client on either protocol, with or without sessions, and every
    answer of a stateful server is a stream (the choice is the server's, made before any
    call). A stateless server answered with JSON, which dropped the progress unsaid."""
    root = _streaming_module(tmp_path)
    with serving("streaming_tools", *flags, paths=[root, HERE, ROOT]) as served:
        if mode == "legacy" and not flags:
            kinds = await anyio.to_thread.run_sync(_content_types, served.url, {"a": 2, "b": 1})
            assert kinds == ("text/event-stream", "text/event-stream")
        progress: list[tuple[float, float | None, str | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            progress.append((done, total, message))

        with anyio.fail_after(60):
            async with client(served.url, mode=mode) as session:
                result = await session.call_tool(
                    "index", {"path": "/srv"}, progress_callback=on_progress
                )
    assert not result.is_error
    assert progress == [(1, 2, "halfway")]


@pytest.mark.parametrize(
    "flags",
    [("--response", "json"), ("--response", "json", "--stateless", "--workers", "2")],
    ids=["one process", "workers"],
)
def test_json_answers_that_drop_a_context_s_messages_say_so_once(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    """The serving process says it, once: its workers, which answer alike, do not repeat it
    (the call there waits for a worker to be serving)."""
    root = _streaming_module(tmp_path)
    with serving("streaming_tools", *flags, paths=[root, HERE, ROOT]) as served:
        if "--workers" in flags:
            call = rpc("tools/call", {"name": "add", "arguments": {"a": 2}})
            answer = httpx2.post(served.url, headers=JSON_HEADERS, json=call, timeout=30)
            assert answer.headers["content-type"].startswith("application/json")
    said = [line for line in served.lines if "answers are JSON" in line]
    assert said == [
        "toolcall: answers are JSON (--response json), so the progress and log messages of "
        "index are dropped; leave --response out to stream them"
    ]


SERVE_WORKERS = """
import sys
from toolcall.mcp import HttpOptions
from toolcall.mcp.workers import WorkerSpec, serve_workers

def announce(url):
    print(f"toolcall: serving 2 tools at {url}", file=sys.stderr, flush=True)

options = HttpOptions(port=0, stateless=True, json_response=True, workers=2)
sys.exit(serve_workers(WorkerSpec(modules=["streaming_tools"]), options, None, announce))
"""


def test_a_program_serving_workers_itself_is_told_once(tmp_path: Path) -> None:
    """``serve_workers`` called by a program (not the CLI) says it too, once."""
    root = _streaming_module(tmp_path)
    with serving(program=SERVE_WORKERS, paths=[root, HERE, ROOT]) as served:
        call = rpc("tools/call", {"name": "add", "arguments": {"a": 2}})
        answer = httpx2.post(served.url, headers=JSON_HEADERS, json=call, timeout=30)
        assert answer.headers["content-type"].startswith("application/json")
        assert served.stop() == 0
    said = [line for line in served.lines if "answers are JSON" in line]
    assert said == [
        "toolcall: answers are JSON (--response json), so the progress and log messages of "
        "index are dropped; leave --response out to stream them"
    ]


def test_a_context_tool_s_default_answers_say_nothing(tmp_path: Path) -> None:
    """A server streaming by default for a Context tool says nothing about dropped messages."""
    root = _streaming_module(tmp_path)
    with serving("streaming_tools", "--stateless", paths=[root, HERE, ROOT]) as served:
        pass
    assert not [line for line in served.lines if "answers are JSON" in line]
