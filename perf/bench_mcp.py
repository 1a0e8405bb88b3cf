"""MCP over streamable HTTP under load: ``toolcall serve-mcp`` against FastMCP, in one run.

Each server is a real process on loopback serving the same two functions (``mcp_tools``: a
scalar ``add`` and a nested ``place_order``); the load is the official SDK's client, 8
concurrent sessions, each alternating the two tools for a fixed number of calls after a
warm-up. Servers: FastMCP (its defaults), ``serve-mcp`` (its HTTP defaults: plain tools on the
thread pool, per-call timeout, limits), ``serve-mcp --inline``, and ``serve-mcp --stateless
--workers 2``. The rounds rotate the order of the servers so drift on the machine falls on
all of them alike. Printed: calls/s, p50, p99 and errors, each toolcall server's
throughput as a ratio of FastMCP's (the issue 22 target: at least 1.5x, zero errors), and
the CPU each call cost the server and the client (from ``/proc``): the client is one process,
so where its CPU per call is about the server's, calls/s measure the client.

``--mode legacy`` makes the clients speak the 2025 protocol (a session per client, answers
streamed or JSON as the server chooses) instead of the SDK's default (``auto``: the 2026
protocol, where the SDK itself answers a quick call with JSON).

Run: ``.venv/bin/python perf/bench_mcp.py [--quick] [--sessions 8] [--calls 200] [--mode M]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import harness
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

PERF = Path(__file__).resolve().parent
_URL = re.compile(r"(http://127\.0\.0\.1:\d+/mcp)")

ORDER = {
    "customer": {"name": "Ada", "email": "ada@example.com", "vip": True},
    "items": [{"sku": f"sku-{i}", "quantity": i + 1, "price": 2.5} for i in range(5)],
    "note": "leave at the door",
}


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    seconds: float = 0.0
    calls: int = 0  # warm-up included, as the CPU figures are
    client_cpu: float = 0.0
    server_cpu: float = 0.0

    def add(self, other: Result) -> None:
        self.latencies += other.latencies
        self.errors += other.errors
        self.seconds += other.seconds
        self.calls += other.calls
        self.client_cpu += other.client_cpu
        self.server_cpu += other.server_cpu

    def per_call(self, seconds: float) -> float:
        return seconds / self.calls * 1000 if self.calls else float("nan")

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


SERVERS: dict[str, list[str]] = {
    "fastmcp": [sys.executable, str(PERF / "mcp_fastmcp_server.py"), "{port}"],
    "toolcall": [
        *(sys.executable, "-m", "toolcall.cli.main", "serve-mcp", "mcp_tools"),
        *("--transport", "http", "--port", "{port}"),
    ],
    "toolcall --inline": [
        *(sys.executable, "-m", "toolcall.cli.main", "serve-mcp", "mcp_tools"),
        *("--transport", "http", "--port", "{port}", "--inline"),
    ],
    "toolcall --stateless --workers 2": [
        *(sys.executable, "-m", "toolcall.cli.main", "serve-mcp", "mcp_tools"),
        *("--transport", "http", "--port", "{port}", "--stateless", "--workers", "2"),
    ],
}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start(name: str) -> tuple[subprocess.Popen[str], str]:
    port = _free_port()
    command = [part.format(port=port) for part in SERVERS[name]]
    env = harness.child_env({"PYTHONPATH": os.pathsep.join([str(PERF.parent / "src"), str(PERF)])})
    process = subprocess.Popen(
        command,
        cwd=PERF,
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            httpx2.get(url.replace("/mcp", "/healthz"), timeout=2)
            break
        except httpx2.TransportError:
            if process.poll() is not None:
                output = process.stderr.read() if process.stderr else ""
                raise SystemExit(f"{name} did not start: {output}") from None
            time.sleep(0.2)
    return process, url


def process_cpu(pid: int) -> float:
    """CPU seconds of a process and its children (a supervisor's workers), from /proc; NaN
    where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/task/{pid}/children") as listed:
            children = [int(child) for child in listed.read().split()]
    except (OSError, ValueError):
        return float("nan")
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(process_cpu(child) for child in children)


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def stop(process: subprocess.Popen[str]) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(60)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


async def load(
    url: str, pid: int, sessions: int, calls: int, warmup: int, mode: str = "auto"
) -> Result:
    async def session(k: int) -> Result:
        result = Result()
        http = httpx2.AsyncClient(timeout=httpx2.Timeout(60.0))
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            for i in range(warmup + calls):
                started = time.perf_counter()
                try:
                    if i % 2:
                        answer = await client.call_tool("place_order", ORDER)
                        ok = (
                            not answer.is_error
                            and (answer.structured_content or {}).get("lines") == 5
                        )
                    else:
                        answer = await client.call_tool("add", {"a": k, "b": i})
                        ok = not answer.is_error and answer.structured_content in (
                            None,
                            {"result": k + i},
                        )
                        ok = ok and "".join(getattr(c, "text", "") for c in answer.content) == str(
                            k + i
                        )
                except Exception:  # counted: the figure is errors, not a crash
                    ok = False
                if i >= warmup:
                    result.latencies.append(time.perf_counter() - started)
                    result.errors += not ok
        return result

    started, client, server = time.perf_counter(), client_cpu(), process_cpu(pid)
    results = await asyncio.gather(*(session(k) for k in range(sessions)))
    total = Result(
        seconds=time.perf_counter() - started,
        calls=sessions * (warmup + calls),
        client_cpu=client_cpu() - client,
        server_cpu=process_cpu(pid) - server,
    )
    for one in results:
        total.latencies += one.latencies
        total.errors += one.errors
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="one round of 60 calls per session")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--calls", type=int, default=200, help="calls per session per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--mode", default="auto", help="the client's protocol: auto or legacy")
    args = parser.parse_args()
    rounds, calls = (1, 60) if args.quick else (args.rounds, args.calls)
    names = list(SERVERS)
    totals = {name: Result() for name in names}
    for round_number in range(rounds):
        rotated = names[round_number % len(names) :] + names[: round_number % len(names)]
        for name in rotated:
            process, url = start(name)
            try:
                totals[name].add(
                    asyncio.run(
                        load(url, process.pid, args.sessions, calls, warmup=10, mode=args.mode)
                    )
                )
            finally:
                stop(process)
    base = totals["fastmcp"].rate
    print(
        f"{args.sessions} sessions, {rounds} x {calls} calls each (add and place_order), "
        f"client mode {args.mode}"
    )
    print(
        f"{'server':36} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} "
        f"{'vs fastmcp':>11} {'CPU ms/call: server':>20} {'client':>7}"
    )
    for name in names:
        result = totals[name]
        ratio = result.rate / base if base else float("nan")
        print(
            f"{name:36} {result.rate:9.0f} {result.quantile(0.5):8.1f} "
            f"{result.quantile(0.99):8.1f} {result.errors:7d} {ratio:10.2f}x "
            f"{result.per_call(result.server_cpu):20.2f} {result.per_call(result.client_cpu):7.2f}"
        )
    print(
        "CPU per call, warm-up included: the server's own (workers summed), and the client's. "
        "The client is one process, so its CPU per call caps calls/s at 1000/that for any server."
    )


if __name__ == "__main__":
    main()
