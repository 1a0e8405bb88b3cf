"""Run the public MCP conformance suite against ``toolcall serve-mcp`` over HTTP.

``scripts/conformance`` installs the suite (``@modelcontextprotocol/conformance``) and a Node
22 into ``.conformance`` and calls this with the suite's entry point. For each mode (stateful,
then ``--stateless``) it serves ``tests/mcp/conformancetools.py`` on a free loopback port,
runs the suite's server scenarios against it, and prints one line per scenario of the tools
surface (the checks passed, failed and warned). Resources, prompts and completion are
outside toolcall (docs/mcp.md) and are not counted.

The exit status is 1 when a scenario of the tools surface fails, except the four that ask
the client something (sampling, elicitation) under ``--stateless``: a stateless server has no
channel back to the client (the MCP SDK says so: the client's answer has nowhere to land), so
there they are reported as such, and the tools answer with an error that says it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / "tests" / "mcp" / "conformancetools.py"

SURFACE = (
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "logging-set-level",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
)
"""The 19 scenarios of the tools surface (issue 35)."""

ASKS_THE_CLIENT = frozenset(
    {
        "tools-call-sampling",
        "tools-call-elicitation",
        "elicitation-sep1034-defaults",
        "elicitation-sep1330-enums",
    }
)
_ANNOUNCED = re.compile(r"toolcall: serving \d+ tools? at (http://\S+)")
_SUITE_SECONDS = 300
_RESULT_DIR = re.compile(r"server-(.+)-\d{4}-\d\d-\d\dT")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--node", required=True, help="the node binary (22 or later)")
    parser.add_argument("--suite", required=True, help="the suite's dist/index.js")
    parser.add_argument(
        "--mode", choices=("stateful", "stateless", "both"), default="both", help="which server"
    )
    args = parser.parse_args(argv)
    modes = ("stateful", "stateless") if args.mode == "both" else (args.mode,)
    failed = False
    for mode in modes:
        failed |= _run_mode(mode, [args.node, args.suite])
    return 1 if failed else 0


def _run_mode(mode: str, suite: list[str]) -> bool:
    """Serve, run every scenario, print the table; whether a scenario failed unexpectedly."""
    flags = ["--stateless"] if mode == "stateless" else []
    command = [
        sys.executable,
        *("-m", "toolcall.cli.main", "serve-mcp", str(TOOLS)),
        *("--transport", "http", "--port", "0", *flags),
    ]
    server = subprocess.Popen(
        command,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        url = _announced(server)
        with tempfile.TemporaryDirectory(prefix="conformance-") as out:
            results = _results(suite, url, Path(out))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)
    served = " ".join(["serve-mcp", str(TOOLS.relative_to(ROOT)), "--transport", "http", *flags])
    print(f"\n== {mode}: {served}")
    unexpected = False
    passing = 0
    for scenario, (passed, failures, warnings) in results.items():
        if not failures:
            status, passing = "ok", passing + 1
        elif mode == "stateless" and scenario in ASKS_THE_CLIENT:
            status = "n/a"
        else:
            status, unexpected = "FAILED", True
        note = f", {warnings} warning{'s' * (warnings != 1)}" if warnings else ""
        print(f"{status:7} {scenario:30} {passed} passed, {len(failures)} failed{note}")
        if status == "n/a":
            print(f"{'':8}stateless: no channel back to the client (the tool says so)")
        elif failures:
            for failure in failures:
                print(f"{'':8}{failure}")
    print(f"{mode}: {passing} of {len(SURFACE)} scenarios pass")
    return unexpected


def _announced(server: subprocess.Popen[str]) -> str:
    """The URL serve-mcp announces on stderr; the rest of stderr is drained meanwhile."""
    assert server.stderr is not None
    found: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert server.stderr is not None
        for line in server.stderr:
            match = _ANNOUNCED.search(line)
            if match and not found:
                found.append(match.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(60) or not found:
        msg = "serve-mcp did not announce its URL within 60 seconds"
        raise SystemExit(msg)
    return found[0]


def _results(suite: list[str], url: str, out: Path) -> dict[str, tuple[int, list[str], int]]:
    """Every scenario of the tools surface: the suite's active scenarios in one run (one
    Node start), then each of ours it does not hold (``server-sse-polling`` is pending)."""
    _suite(suite, url, out, [])
    found = _checks(out)
    for scenario in SURFACE:
        if scenario not in found:
            _suite(suite, url, out, ["--scenario", scenario])
    found = _checks(out)
    return {scenario: _summary(found.get(scenario)) for scenario in SURFACE}


def _suite(suite: list[str], url: str, out: Path, which: list[str]) -> None:
    try:
        subprocess.run(
            [*suite, "server", "--url", url, *which, "--output-dir", str(out)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=_SUITE_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        print(f"conformance: the suite did not finish within {_SUITE_SECONDS} s", file=sys.stderr)


def _checks(out: Path) -> dict[str, list[dict[str, Any]]]:
    """The checks of each scenario the suite wrote (``server-<scenario>-<time>/``)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(out.glob("server-*/checks.json")):
        match = _RESULT_DIR.match(path.parent.name)
        if match:
            found[match.group(1)] = json.loads(path.read_text())
    return found


def _summary(checks: list[dict[str, Any]] | None) -> tuple[int, list[str], int]:
    """A scenario's checks passed, its failures (name: message), its warnings."""
    if checks is None:
        return 0, ["the suite wrote no result"], 0
    failures = [
        f"{check['name']}: {check.get('errorMessage', '')}"
        for check in checks
        if check["status"] == "FAILURE"
    ]
    passed = sum(check["status"] == "SUCCESS" for check in checks)
    warnings = sum(check["status"] == "WARNING" for check in checks)
    return passed, failures, warnings


if __name__ == "__main__":
    sys.exit(main())
