"""``toolcall serve-mcp``: the options of the MCP server, and running it.

The server is :mod:`toolcall.mcp`; this module only turns a command line into its settings.
Over HTTP the defaults are those of a public service (plain tools on a bounded thread pool,
a per-call timeout, bounded sessions, connections and read times). A secret never comes
from the command line, where ``ps`` shows it: a bearer token is read from a file or an
environment variable.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from toolcall.cli.imports import load_targets, prepare_sys_path, resolve_targets

__all__ = ["UsageError", "add_parser", "positive_int", "run"]


class UsageError(Exception):
    """A command line that cannot be served: one line, exit status 2."""


def run(args: argparse.Namespace, fail: type[Exception], warnings_reported: Any) -> int:
    """Serve until the client leaves (stdio) or SIGTERM/SIGINT (http)."""
    try:
        import anyio

        from toolcall import mcp
        from toolcall.mcp.auth import AuthSource
    except ImportError as exc:
        missing = exc.name or getattr(exc.__cause__, "name", None) or ""
        if missing.partition(".")[0] not in {"anyio", "mcp"}:
            raise fail(str(exc)) from None
        msg = (
            f"serve-mcp needs the mcp extra (no module {missing!r}): pip install 'pytoolcall[mcp]'"
        )
        raise fail(msg) from None
    import toolcall

    http = args.transport == "http"
    if args.workers != 1 and not (http and args.stateless):
        # a session lives in the worker that opened it: the next request may reach another
        raise UsageError("--workers needs --transport http --stateless")
    source = AuthSource(
        token_file=args.auth_token_file,
        token_env=args.auth_token_env,
        jwks_url=args.jwt_jwks_url,
        public_key_file=args.jwt_public_key_file,
        issuer=args.jwt_issuer,
        audience=args.jwt_audience or [],
        algorithms=args.jwt_algorithm or ["RS256"],
        required_scopes=args.required_scope or [],
        authorization_servers=args.authorization_server or [],
        resource_url=args.resource_url,
    )
    try:
        auth = source.build() if http else None
    except ValueError as exc:
        raise fail(str(exc)) from None
    options = mcp.HttpOptions(
        host=args.host,
        port=args.port,
        auth=auth,
        allow_unauthenticated=args.allow_unauthenticated,
        stateless=args.stateless,
        json_response=None if args.response is None else args.response == "json",
        allowed_hosts=args.allowed_host or [],
        allowed_origins=args.allowed_origin or [],
        max_body=args.max_body,
        max_sessions=args.max_sessions,
        session_idle_timeout=args.session_idle_timeout or None,
        max_connections=args.max_connections,
        header_timeout=args.header_timeout or None,
        body_timeout=args.body_timeout or None,
        keep_alive=args.keep_alive,
        grace=args.grace,
        access_log=args.access_log,
        workers=args.workers,
    )
    if http:
        try:
            options.check()
        except mcp.Unprotected as exc:
            raise UsageError(str(exc)) from None
    threaded = (not args.inline) if http else args.run_sync_in_thread
    timeout = args.call_timeout if args.call_timeout is not None else (60.0 if http else None)
    limits = mcp.CallLimits(
        max_calls=args.max_calls if args.max_calls is not None else (64 if http else None),
        threads=args.threads,
        timeout=timeout or None,
        brief_errors=args.brief_errors,
        log=args.access_log,
    )
    prepare_sys_path()
    targets = resolve_targets(args.modules, [Path.cwd()])
    if not targets:
        raise fail(f"no marked module under {', '.join(args.modules)}")
    from toolcall.cli.imports import user_output_to_stderr

    # The redirect ends before serving: over stdio the SDK claims fd 1 for the protocol and
    # points it at stderr for the tools itself.
    with warnings_reported(), user_output_to_stderr():
        modules = load_targets(targets, sort=False)
        try:
            server = mcp.build_server(
                *modules,
                name=args.name,
                run_sync_in_thread=threaded,
                strict=args.strict,
                limits=limits,
                tool_search=args.tool_search,
                pinned=args.pin or (),
                search_k=args.search_k,
            )
        except (toolcall.NotAToolModule, ValueError) as exc:
            raise fail(str(exc)) from None
    count = sum(len(toolcall.tool_names(module)) for module in modules)

    def announce(url: str) -> None:
        noun = "tool" if count == 1 else "tools"
        workers = f" ({args.workers} workers)" if args.workers > 1 else ""
        print(f"toolcall: serving {count} {noun} at {url}{workers}", file=sys.stderr, flush=True)

    if args.access_log and not http:
        from toolcall.mcp.http import log_to_stderr

        log_to_stderr()
    try:
        if args.workers > 1:
            from toolcall.mcp.workers import WorkerSpec, serve_workers

            spec = WorkerSpec(
                modules=[module.__name__ for module in modules],
                name=args.name,
                strict=args.strict,
                run_sync_in_thread=threaded,
                max_calls=limits.max_calls,
                threads=limits.threads,
                timeout=limits.timeout,
                brief_errors=limits.brief_errors,
            )
            uses_auth = auth is not None
            return serve_workers(spec, options, source if uses_auth else None, announce)
        serving = mcp.run_server(server, args.transport, options=options, on_listening=announce)
        return anyio.run(lambda: serving)
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        if not http:
            raise
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise fail(f"cannot serve on {args.host}:{args.port}: {reason}") from None


def add_parser(commands: Any, port: Any) -> None:
    serve = commands.add_parser(
        "serve-mcp",
        help="serve the tools of marked modules as an MCP server",
        description="Serve the tools of marked modules as a Model Context Protocol server, over\n"
        "stdio (for a client that starts the server) or streamable HTTP. Needs the\n"
        "mcp extra: pip install 'pytoolcall[mcp]'. The current directory is importable.\n"
        "tools/list follows the order of the modules given.",
        epilog="examples:\n"
        "  toolcall serve-mcp myapp.tools.weather myapp.tools.orders\n"
        "  toolcall serve-mcp myapp.tools.weather --transport http --port 8000\n"
        "  toolcall serve-mcp myapp.tools --transport http --host 0.0.0.0 \\\n"
        "      --auth-token-file /run/secrets/mcp-token --stateless --workers 4",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = serve.add_argument
    add(
        "modules",
        nargs="+",
        metavar="MODULE",
        help="dotted module names, .py files or directories of the modules to serve",
    )
    add(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio, or streamable HTTP at http://HOST:PORT/mcp (default: stdio)",
    )
    add("--host", default="127.0.0.1", help="address to listen on, http (default: 127.0.0.1)")
    add(
        "--port",
        type=port,
        default=8000,
        help="port to listen on, http; 0 picks a free one (default: 8000)",
    )
    add("--name", default="toolcall", help="server name shown to clients (default: toolcall)")
    _flag(serve, "--strict", "list the strict variant of every tool (for constrained decoding)")
    search = serve.add_argument_group("tool search (large catalogs)")
    _flag(
        search,
        "--tool-search",
        "list only the pinned tools and a search_tools tool; every tool stays callable by name",
    )
    _repeatable(search, "--pin", "NAME", "a tool listed beside search_tools (--tool-search)")
    _count(search, "--search-k", 5, "tools one search returns (default: 5)", metavar="N")
    calls = serve.add_argument_group("calls")
    _flag(calls, "--run-sync-in-thread", "stdio: run plain (non-async) tools in worker threads")
    _flag(
        calls,
        "--inline",
        "http: run plain tools on the event loop (fast; a blocking one stalls every client)",
    )
    _count(
        calls,
        "--threads",
        None,
        "worker threads for plain tools (default: 16); a call finding all busy gets a 'busy' error",
    )
    _count(
        calls,
        "--max-calls",
        None,
        "concurrent calls per process, beyond which 'busy' (http default: 64)",
    )
    calls.add_argument(
        "--call-timeout",
        type=_seconds,
        default=None,
        help="seconds a call may take before a 'timeout' error; 0 for no limit (http default: 60)",
    )
    _flag(calls, "--brief-errors", "send callers only the error kind and request id")
    _flag(calls, "--access-log", "one stderr line per request and per call (never the arguments)")
    auth = serve.add_argument_group("authentication (http)")
    auth.add_argument(
        "--auth-token-file", metavar="PATH", help="accept the bearer token in this file"
    )
    auth.add_argument(
        "--auth-token-env",
        metavar="NAME",
        help="accept the bearer token in this environment variable",
    )
    auth.add_argument("--jwt-jwks-url", metavar="URL", help="verify JWTs with this key set")
    auth.add_argument(
        "--jwt-public-key-file", metavar="PATH", help="verify JWTs with this PEM public key"
    )
    auth.add_argument("--jwt-issuer", metavar="URL", help="required JWT issuer (iss)")
    _repeatable(auth, "--jwt-audience", "AUD", "accepted JWT audience (aud)")
    _repeatable(auth, "--jwt-algorithm", "ALG", "accepted JWT algorithm", default="RS256")
    _repeatable(auth, "--required-scope", "SCOPE", "scope every token must carry (else 403)")
    _repeatable(
        auth,
        "--authorization-server",
        "URL",
        "issuer named in the protected-resource metadata (default: --jwt-issuer)",
    )
    auth.add_argument(
        "--resource-url",
        metavar="URL",
        help="this server's public URL, for the protected-resource metadata",
    )
    _flag(auth, "--allow-unauthenticated", "serve a non-loopback address without authentication")
    _repeatable(
        auth,
        "--allowed-host",
        "HOST",
        "Host header to accept (checked on loopback always, elsewhere once given)",
    )
    _repeatable(auth, "--allowed-origin", "ORIGIN", "Origin header to accept")
    scale = serve.add_argument_group("scale and limits (http)")
    _flag(scale, "--stateless", "no sessions: any replica answers any request")
    scale.add_argument(
        "--response",
        choices=("json", "sse"),
        default=None,
        help="answer with JSON or an SSE stream (default: sse where a tool takes a Context, "
        "else json)",
    )
    _count(scale, "--workers", 1, "processes serving the one socket (default: 1)")
    _count(scale, "--max-body", 4 << 20, "largest request body (default: 4 MiB)", "BYTES")
    _count(scale, "--max-sessions", 1000, "open sessions per process (default: 1000)")
    _duration(scale, "--session-idle-timeout", 300.0, "idle time before a session ends")
    _count(
        scale,
        "--max-connections",
        512,
        "concurrent connections per process, beyond which 503; lowered to what the "
        "descriptor limit allows (default: 512)",
    )
    _duration(scale, "--header-timeout", 10.0, "time to receive a request's headers")
    _duration(scale, "--body-timeout", 30.0, "time to receive a request's body")
    _count(scale, "--keep-alive", 5, "idle keep-alive time (default: 5)", "SECONDS")
    _duration(
        scale,
        "--grace",
        10.0,
        "on SIGTERM, time the accepted connections' calls are still served (the listening "
        "socket closes at once)",
    )


def _flag(group: Any, name: str, help: str) -> None:
    group.add_argument(name, action="store_true", help=help)


def _repeatable(group: Any, name: str, metavar: str, help: str, *, default: str = "") -> None:
    """An option that may be given more than once, each adding a value (None when never)."""
    shown = f" (default: {default})" if default else ""
    group.add_argument(name, action="append", metavar=metavar, help=f"{help}; repeatable{shown}")


def _count(
    group: Any, name: str, default: int | None, help: str, metavar: str | None = None
) -> None:
    group.add_argument(name, type=positive_int, default=default, metavar=metavar, help=help)


def _duration(group: Any, name: str, default: float, help: str) -> None:
    """A number of seconds with a default, shown in the help as a whole number."""
    group.add_argument(
        name,
        type=_seconds,
        default=default,
        metavar="SECONDS",
        help=f"{help} (default: {default:g})",
    )


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        msg = f"invalid number {text!r}: expected a whole number of at least 1"
        raise argparse.ArgumentTypeError(msg)
    return number


def _seconds(text: str) -> float:
    try:
        number = float(text)
    except ValueError:
        number = -1.0
    if not 0 <= number < float("inf"):
        msg = f"invalid duration {text!r}: expected a number of seconds, 0 or more"
        raise argparse.ArgumentTypeError(msg)
    return number
