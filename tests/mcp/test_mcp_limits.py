"""Two edges of the HTTP service that ran out of something (issue 35.6): the parser's stack
on deeply nested JSON, and the process's descriptors under a flood of silent connections.

Real server processes on loopback; outcomes and counts, never timings.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx2
import pytest
from served import Served, modern_call, modern_headers, serving


@pytest.fixture(scope="module")
def plain() -> Iterator[Served]:
    with serving("prodtools", "--stateless") as served:
        yield served


def _nested(depth: int) -> bytes:
    """A ``tools/call`` whose argument is ``depth`` arrays deep."""
    message = json.dumps(modern_call("add", {"a": "HERE"}))
    return message.replace('"HERE"', "[" * depth + "]" * depth).encode()


def test_arguments_nested_within_the_limit_reach_the_tool(plain: Served) -> None:
    answer = httpx2.post(
        plain.url, content=_nested(100), headers=modern_headers("tools/call", "add"), timeout=30
    )
    assert answer.status_code == 200
    assert answer.json()["result"]["isError"] is True
    assert answer.json()["result"]["content"][0]["text"].startswith("a: expected an integer")


@pytest.mark.parametrize("depth", [513, 1_000, 100_000])
def test_arguments_nested_too_deeply_get_a_json_rpc_error(plain: Served, depth: int) -> None:
    """The same error on every interpreter (the parsers' own limits differ): never an HTTP
    500 with an empty body and a traceback in the log."""
    answer = httpx2.post(
        plain.url, content=_nested(depth), headers=modern_headers("tools/call", "add"), timeout=30
    )
    assert (answer.status_code, answer.json()) == (
        400,
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": "Invalid Request: JSON nested deeper than 512 levels",
            },
        },
    )
    assert not [line for line in plain.lines if "Traceback" in line]


_LIMITED = (
    "import resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256)); "
    "from toolcall.cli.main import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.mark.parametrize("workers", [(), ("--workers", "2")], ids=["one process", "two workers"])
def test_silent_connections_past_the_descriptor_limit_lock_nobody_out(
    workers: tuple[str, ...],
) -> None:
    """With 256 descriptors, --max-connections is lowered (and says so, once), 300 silent
    connections never exhaust the descriptors, and a normal client is served among them."""
    args = ("serve-mcp", "prodtools", "--transport", "http", "--port", "0", "--stateless")
    with serving(*args, *workers, program=_LIMITED) as served:
        parts = urlsplit(served.url)
        assert parts.hostname is not None
        assert parts.port is not None
        silent = [socket.create_connection((parts.hostname, parts.port)) for _ in range(300)]
        try:
            answer = httpx2.post(
                served.url,
                json=modern_call("add", {"a": 1}),
                headers=modern_headers("tools/call", "add"),
                timeout=30,
            )
        finally:
            for sock in silent:
                sock.close()
        status = served.stop()
    assert answer.json()["result"]["content"] == [{"type": "text", "text": "2"}]
    lowered = [line for line in served.lines if "connections, not" in line]
    assert lowered == [
        "toolcall: at most 192 connections, not 512: the descriptor limit (ulimit -n) is 256 "
        "and the server keeps 64 for itself; raise the limit to allow more"
    ]
    assert not [line for line in served.lines if "Too many open files" in line]
    assert status == 0
