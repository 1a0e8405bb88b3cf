"""``toolcall``: export tool definitions to a JSON file, or keep one fresh while you edit.

``export`` imports the modules and concatenates ``toolcall.emit`` for each: it sees exactly
what a program calling the public API sees. ``watch`` (in ``toolcall.cli.watch``) re-runs
``export`` in a fresh interpreter on every save. Errors are one line on stderr prefixed
``toolcall: error:``, and the exit status is 0 (success), 1 (failure) or 2 (usage error);
never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import stat
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import toolcall
from toolcall._errors import DiscoveryError
from toolcall._names import FORMATS, TOOL_NAME_RULE, valid_tool_name
from toolcall.cli.discover import find_modules

__all__ = ["main"]

PROG = "toolcall"


class CliError(Exception):
    """A failure to report as one ``toolcall: error:`` line, exit status 1."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``toolcall`` with ``argv`` (default: the process arguments); the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "watch":
            return _run_watch(args)
        if args.command == "serve-mcp":
            return _run_serve_mcp(args)
        return export(
            args.modules,
            format=args.format,
            strict=args.strict,
            out=args.out,
            paths=args.path,
        )
    except CliError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: error: interrupted", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `toolcall export | head`: the reader left; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as exc:  # a bug of ours still gets one line, not a traceback
        print(f"{PROG}: error: unexpected {_one_line(exc)}", file=sys.stderr)
        return 1


# -- export -----------------------------------------------------------------------------


def export(
    modules: Sequence[str],
    *,
    format: str = "openai",
    strict: bool = False,
    out: Path | None = None,
    paths: Sequence[Path] | None = None,
) -> int:
    """Write the tools of ``modules`` (or of every marked module under ``paths``) as JSON.

    Nothing is written unless every module imports and every tool name is one the
    providers accept, so a failed export leaves the previous file as it was.
    """
    roots = _directories(paths or [Path.cwd()])
    expected: dict[str, Path] = {}
    if modules:
        names = sorted(set(modules))
        import_roots = roots
    else:
        try:
            found = find_modules(roots)
        except DiscoveryError as exc:
            raise CliError(str(exc)) from None
        if not found:
            where = ", ".join(str(r) for r in roots)
            print(f"{PROG}: warning: no marked modules under {where}", file=sys.stderr)
        names = [f.name for f in found]
        expected = {f.name: f.path for f in found}
        import_roots = [*roots, *sorted({f.root for f in found} - set(roots))]
    _prepend_sys_path(import_roots)
    with _reported_warnings():
        tools = _collect(names, expected, format, strict)
    try:
        text = json.dumps(tools, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        msg = f"cannot encode the tool definitions as JSON: {exc}"
        raise CliError(msg) from None
    data = (text + "\n").encode()
    if out is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        try:
            write_atomic(out, data)
        except OSError as exc:
            msg = f"cannot write {out}: {exc.strerror or exc}"
            raise CliError(msg) from None
    return 0


def _directories(paths: Sequence[Path]) -> list[Path]:
    roots: list[Path] = []
    for path in paths:
        if not path.is_dir():
            msg = f"not a directory: {path}"
            raise CliError(msg)
        root = path.resolve()
        if root not in roots:
            roots.append(root)
    return roots


def _prepend_sys_path(directories: Sequence[Path]) -> None:
    """Put the import roots first, like ``python -m`` does for the current directory."""
    front = [str(d) for d in directories]
    sys.path[:] = [*front, *(p for p in sys.path if p not in front)]


def _collect(
    names: Sequence[str], expected: dict[str, Path], format: str, strict: bool
) -> list[Any]:
    tools: list[Any] = []
    owner: dict[str, str] = {}
    bad: list[str] = []
    problems: list[str] = []
    for name in names:
        module = _import(name, expected.get(name))
        try:
            tool_names = toolcall.tool_names(module)
            emitted = toolcall.emit(module, format, strict=strict)
        except toolcall.NotAToolModule as exc:
            raise CliError(str(exc)) from None
        except Exception as exc:
            msg = f"cannot export {name}: {_one_line(exc)}"
            raise CliError(msg) from None
        tools.extend(emitted)
        if strict:
            problems.extend(
                problem for definition in emitted for problem in toolcall.check_strict(definition)
            )
        for tool in tool_names:
            if not valid_tool_name(tool):
                bad.append(f"{tool!r} in {name}")
            elif tool in owner:
                msg = f"two tools are named {tool!r}: in {owner[tool]} and in {name}"
                raise CliError(msg)
            owner[tool] = name
    if bad:
        noun = "name" if len(bad) == 1 else "names"
        msg = (
            f"invalid tool {noun} {', '.join(bad)}: providers require names matching "
            f"{TOOL_NAME_RULE}; rename the function or mark it @toolcall.exclude"
        )
        raise CliError(msg)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        msg = f"not accepted by strict mode: {problems[0]}{more}"
        raise CliError(msg)
    return tools


def _import(name: str, expected: Path | None) -> ModuleType:
    try:
        module = importlib.import_module(name)
    except (Exception, SystemExit) as exc:  # user code: anything can happen at import
        msg = f"cannot import {name}: {_one_line(exc)}"
        raise CliError(msg) from None
    file = getattr(module, "__file__", None)
    if expected is not None and (file is None or not _same_file(file, expected)):
        msg = f"cannot import {name} from {expected}: that name is taken by {file or module!r}"
        raise CliError(msg)
    return module


def _same_file(a: str, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@contextlib.contextmanager
def _reported_warnings() -> Iterator[None]:
    """Print derivation warnings as ``warning: file:line: message``; they never fail.

    Other warnings are replayed through ``warnings.showwarning``, so the interpreter's
    filters still decide about them. A failure still shows the warnings issued before it.
    """
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", toolcall.ToolcallWarning)
            yield
    finally:
        for w in caught:
            if issubclass(w.category, toolcall.ToolcallWarning):
                text = " ".join(str(w.message).split())
                print(f"warning: {_display_path(w.filename)}:{w.lineno}: {text}", file=sys.stderr)
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file, w.line)


def _display_path(filename: str) -> str:
    """Relative to the current directory when inside it: short, and clickable in editors."""
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive, on Windows
        return filename
    return filename if relative.startswith(os.pardir) else relative


def write_atomic(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` in one step: a reader sees the old file or the new one."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.chmod(temp, _mode_for(path))
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _mode_for(path: Path) -> int:
    """Keep an existing file's mode; a new file gets the usual ``0o666`` less the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


# -- watch ------------------------------------------------------------------------------


def _run_watch(args: argparse.Namespace) -> int:
    try:
        from toolcall.cli import watch as _watch
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "watchdog":
            raise
        msg = "watch mode needs watchdog: pip install 'toolcall[watch]'"
        raise CliError(msg) from None
    return _watch.watch(
        args.paths,
        out=args.out,
        format=args.format,
        strict=args.strict,
        polling=args.polling,
    )


# -- serve-mcp --------------------------------------------------------------------------


def _run_serve_mcp(args: argparse.Namespace) -> int:
    """Serve until the client leaves (stdio) or Ctrl-C (http); both are a clean exit."""
    try:
        import anyio

        from toolcall import mcp
    except ImportError as exc:
        raise CliError(str(exc)) from None
    _prepend_sys_path([Path.cwd().resolve()])
    with _reported_warnings():
        modules = [_import(name, None) for name in dict.fromkeys(args.modules)]
        try:
            server = mcp.build_server(
                *modules, name=args.name, run_sync_in_thread=args.run_sync_in_thread
            )
        except (toolcall.NotAToolModule, ValueError) as exc:
            raise CliError(str(exc)) from None
    count = sum(len(toolcall.tool_names(module)) for module in modules)

    def announce(url: str) -> None:
        noun = "tool" if count == 1 else "tools"
        print(f"{PROG}: serving {count} {noun} at {url}", file=sys.stderr, flush=True)

    serving = partial(
        mcp.run_server,
        server,
        args.transport,
        host=args.host,
        port=args.port,
        on_listening=announce,
    )
    try:
        anyio.run(serving)
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        if args.transport != "http":
            raise
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        msg = f"cannot serve on {args.host}:{args.port}: {reason}"
        raise CliError(msg) from None
    return 0


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        msg = f"invalid port {text!r}: expected a number from 0 to 65535"
        raise argparse.ArgumentTypeError(msg)
    return port


# -- parsing ----------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Turn the annotated functions of modules marked `__toolcall__ = True` "
        "into LLM tool definitions.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    export = commands.add_parser(
        "export",
        help="write the tool definitions as one JSON array",
        description="Write the tool definitions of marked modules as one JSON array, exactly\n"
        "what the provider's `tools` field takes: modules in name order, tools in\n"
        "definition order, sorted keys, two-space indent. Derivation warnings go to\n"
        "stderr; an invalid tool name, an unmarked module or an import error fails\n"
        "the export and writes nothing.",
        epilog="examples:\n"
        "  toolcall export                           every marked module under .\n"
        "  toolcall export --path src --out tools.json\n"
        "  toolcall export myapp.tools --format anthropic --strict\n\n"
        "Without MODULE, every .py file under --path whose module body says\n"
        "`__toolcall__ = True` is exported (hidden directories, __pycache__,\n"
        "virtualenvs, node_modules, build and dist are skipped). Its name follows\n"
        "__init__.py files upwards: src/myapp/tools.py is `myapp.tools`, imported\n"
        "from src/, when myapp/ holds an __init__.py and src/ does not.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    export.add_argument(
        "modules",
        nargs="*",
        metavar="MODULE",
        help="dotted module names to export (default: discover them under --path)",
    )
    _add_format_options(export)
    export.add_argument(
        "--path",
        action="append",
        type=Path,
        metavar="DIR",
        help="directory to search for marked modules and to import from; repeatable "
        "(default: the current directory)",
    )

    watch = commands.add_parser(
        "watch",
        help="re-export on every save (development mode)",
        description="Export once, then again after every save of a .py file under PATH, in a\n"
        "fresh interpreter (which also refreshes the cache entries). A broken save is\n"
        "reported and the last good output kept. Stop with Ctrl-C.",
        epilog="example:\n  toolcall watch src --out tools.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    watch.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="directories to watch and export from (default: the current directory)",
    )
    _add_format_options(watch)
    watch.add_argument(
        "--polling",
        action="store_true",
        help="poll the file system instead of using OS notifications (Docker volumes, "
        "network mounts)",
    )

    serve = commands.add_parser(
        "serve-mcp",
        help="serve the tools of marked modules as an MCP server",
        description="Serve the tools of marked modules as a Model Context Protocol server, over\n"
        "stdio (for a client that starts the server) or streamable HTTP. Needs the\n"
        "mcp extra: pip install 'toolcall[mcp]'. The current directory is importable.",
        epilog="examples:\n"
        "  toolcall serve-mcp myapp.tools.weather myapp.tools.orders\n"
        "  toolcall serve-mcp myapp.tools.weather --transport http --port 8000",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument(
        "modules", nargs="+", metavar="MODULE", help="dotted names of the modules to serve"
    )
    serve.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio, or streamable HTTP at http://HOST:PORT/mcp (default: stdio)",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on, http (default: 127.0.0.1)"
    )
    serve.add_argument(
        "--port",
        type=_port,
        default=8000,
        help="port to listen on, http; 0 picks a free one (default: 8000)",
    )
    serve.add_argument(
        "--name", default="toolcall", help="server name shown to clients (default: toolcall)"
    )
    serve.add_argument(
        "--run-sync-in-thread",
        action="store_true",
        help="run plain (non-async) tools in worker threads, for tools that block",
    )
    return parser


def _add_format_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="openai",
        help="tool definition format (default: openai)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="strict schemas: every property required, optionals nullable, no defaults",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="write to FILE, replaced atomically (default: standard output)",
    )


if __name__ == "__main__":
    raise SystemExit(main())
