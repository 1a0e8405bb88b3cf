"""``toolcall``: export tool definitions, lint them, keep an export fresh, serve them over MCP.

``export`` imports the modules and concatenates ``toolcall.emit`` for each: it sees exactly
what a program calling the public API sees. ``check`` (in ``toolcall.cli.check``) derives
afresh and prints every warning. ``watch`` (in ``toolcall.cli.watch``) re-runs ``export`` in a
fresh interpreter on every save. Every command that imports user code follows one rule
(``toolcall.cli.imports``). Errors are one line on stderr prefixed ``toolcall: error:``, and
the exit status is 0 (success), 1 (failure) or 2 (usage error); never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import toolcall
from toolcall._cache.store import atomic_write
from toolcall._shared.names import FORMATS, TOOL_NAME_RULE, valid_tool_name
from toolcall._version import __version__
from toolcall.cli import serve
from toolcall.cli.imports import (
    UserCodeError,
    describe_exception,
    display_path,
    load_targets,
    prepare_sys_path,
    reporting_warnings,
    resolve_targets,
    user_output_to_stderr,
)

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
            return serve.run(args, CliError, _reported_warnings)
        if args.command == "search":
            return search(args.query, args.modules, k=args.k, explain=args.explain, paths=args.path)
        if args.command == "check":
            from toolcall.cli.check import check

            return check(args.targets, _directories(args.path or [Path.cwd()]), strict=args.strict)
        return export(
            args.modules,
            format=args.format,
            strict=args.strict,
            out=args.out,
            paths=args.path,
        )
    except serve.UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except (CliError, UserCodeError) as exc:
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
        print(f"{PROG}: error: unexpected {describe_exception(exc)}", file=sys.stderr)
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

    ``modules`` may be dotted names, ``.py`` files or directories. Nothing is written unless
    every module imports and every tool name is one the providers accept, so a failed export
    leaves the previous file as it was.
    """
    if out is None and sys.stdout is None:  # started with stdout closed (`>&-`)
        msg = "standard output is closed: nowhere to write the JSON; use --out FILE"
        raise CliError(msg)
    roots = _directories(paths or [Path.cwd()])
    prepare_sys_path(roots)
    targets = resolve_targets(modules, roots)
    if not targets:
        where = ", ".join(modules) if modules else ", ".join(str(r) for r in roots)
        print(f"{PROG}: warning: no marked modules under {where}", file=sys.stderr)
    with _reported_warnings(), user_output_to_stderr():
        tools = _collect(load_targets(targets), format, strict)
    try:
        text = json.dumps(tools, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        msg = f"cannot encode the tool definitions as JSON: {exc}"
        raise CliError(msg) from None
    data = (text + "\n").encode()
    if out is None:
        _write_stdout(data)
    else:
        try:
            atomic_write(out, data, mode=_mode_for(out))
        except OSError as exc:
            msg = f"cannot write {out}: {exc.strerror or exc}"
            raise CliError(msg) from None
    return 0


def _write_stdout(data: bytes) -> None:
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:  # EBADF (closed after start), ENOSPC (/dev/full), ...
        msg = f"cannot write to standard output: {exc.strerror or exc}"
        raise CliError(msg) from None


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


def _collect(modules: Sequence[ModuleType], format: str, strict: bool) -> list[Any]:
    tools: list[Any] = []
    owner: dict[str, str] = {}
    bad: list[str] = []
    problems: list[str] = []
    for module in modules:
        name = module.__name__
        try:
            tool_names = toolcall.tool_names(module)
            emitted = toolcall.emit(module, format, strict=strict)
        except toolcall.NotAToolModule as exc:
            raise CliError(str(exc)) from None
        except Exception as exc:
            msg = f"cannot export {name}: {describe_exception(exc)}"
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


def _reported_warnings() -> contextlib.AbstractContextManager[None]:
    """Print derivation warnings as ``warning: file:line: message``; they never fail."""
    return reporting_warnings(_print_warning)


def _print_warning(filename: str, lineno: int, text: str) -> None:
    print(f"warning: {display_path(filename)}:{lineno}: {text}", file=sys.stderr)


def _mode_for(path: Path) -> int:
    """Keep an existing file's mode; a new file gets the usual ``0o666`` less the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


# -- search -----------------------------------------------------------------------------


def search(
    query: str,
    modules: Sequence[str],
    *,
    k: int = 5,
    explain: bool = False,
    paths: Sequence[Path] | None = None,
) -> int:
    """Print the tools ``Toolbox.search`` finds for ``query``, one line each, best first.

    A line is the tool's name and score, tab-separated (with ``explain``, then each field that
    matched and the query's words found there), so a script can cut it; no hit prints nothing
    and still succeeds: an empty answer is an answer.
    """
    roots = _directories(paths or [Path.cwd()])
    prepare_sys_path(roots)
    targets = resolve_targets(modules, roots)
    if not targets:
        where = ", ".join(modules) if modules else ", ".join(str(r) for r in roots)
        msg = f"no marked modules under {where}"
        raise CliError(msg)
    with _reported_warnings(), user_output_to_stderr():
        loaded = load_targets(targets)
        try:
            box = toolcall.Toolbox(*loaded)
        except toolcall.NotAToolModule as exc:
            raise CliError(str(exc)) from None
        except ValueError as exc:  # a tool name defined twice
            raise CliError(str(exc)) from None
    lines = []
    for hit in box.search(query, k):
        line = f"{hit.name}\t{hit.score:.4f}"
        if explain:
            line += "\t" + "; ".join(f"{field}: {' '.join(words)}" for field, words in hit.why)
        lines.append(line + "\n")
    _write_stdout("".join(lines).encode())
    return 0


# -- watch ------------------------------------------------------------------------------


def _run_watch(args: argparse.Namespace) -> int:
    try:
        from toolcall.cli import watch as _watch
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "watchdog":
            raise
        msg = "watch mode needs the watch extra: pip install 'pytoolcall[watch]'"
        raise CliError(msg) from None
    return _watch.watch(
        args.paths,
        out=args.out,
        format=args.format,
        strict=args.strict,
        polling=args.polling,
    )


# -- serve-mcp --------------------------------------------------------------------------


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
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
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
        "  toolcall export myapp.tools --format anthropic --strict\n"
        "  toolcall export src/myapp/tools/weather.py\n\n"
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
        help="dotted module names, .py files or directories to export (default: every marked "
        "module under --path)",
    )
    _add_format_options(export)
    _add_path_option(export)

    check = commands.add_parser(
        "check",
        help="print every derivation warning (the lint for CI and pre-commit)",
        description="Derive every marked module afresh, without reading or writing the cache,\n"
        "and print every derivation warning as FILE:LINE: message (with --strict, every\n"
        "strict-mode problem too). Exit status 1 if anything was printed or no marked\n"
        "module was found, 0 when clean.",
        epilog="examples:\n"
        "  toolcall check                            every marked module under .\n"
        "  toolcall check src/myapp/tools --strict\n"
        "  toolcall check myapp.tools.weather --path src",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "targets",
        nargs="*",
        metavar="MODULE|PATH",
        help="dotted module names, .py files or directories (default: every marked module "
        "under --path)",
    )
    _add_path_option(check)
    check.add_argument(
        "--strict",
        action="store_true",
        help="also report every problem OpenAI's strict mode would reject (check_strict)",
    )

    search = commands.add_parser(
        "search",
        help="rank the tools for a request, as Toolbox.search does",
        description="Rank the tools of marked modules for QUERY, as Toolbox.search does, and\n"
        "print one line per hit, best first: the tool's name and score, tab-separated.\n"
        "With --explain, each line also says which fields matched which words of the\n"
        "query (`mention` when the query names the tool).",
        epilog="examples:\n"
        '  toolcall search "weather in Oslo"           every marked module under .\n'
        '  toolcall search "cancel my order" myapp.tools -k 3 --explain',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    search.add_argument("query", metavar="QUERY", help="the request, in the user's words")
    search.add_argument(
        "modules",
        nargs="*",
        metavar="MODULE",
        help="dotted module names, .py files or directories (default: every marked module "
        "under --path)",
    )
    search.add_argument(
        "-k",
        "--k",
        type=serve.positive_int,
        default=5,
        metavar="N",
        help="how many tools to print at most (default: 5)",
    )
    search.add_argument(
        "--explain",
        action="store_true",
        help="say which fields and words each hit matched",
    )
    _add_path_option(search)

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

    serve.add_parser(commands, _port)
    return parser


def _add_path_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--path",
        action="append",
        type=Path,
        metavar="DIR",
        help="directory to search for marked modules and to import from; repeatable "
        "(default: the current directory)",
    )


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
