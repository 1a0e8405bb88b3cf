"""``toolcall-cache``: inspect and tidy the entries toolcall keeps on disk.

The commands only read and delete cache files; none of them imports user code. Errors
are one line on stderr and an exit status (0 success, 1 failure, 2 usage error), never a
traceback.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from toolcall._cache import maintenance as _maintenance
from toolcall._cache import store as _cache
from toolcall._version import __version__

__all__ = ["main"]

PROG = "toolcall-cache"

Command = Callable[[Path, argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``toolcall-cache`` with ``argv`` (default: the process arguments); the exit status."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse's --help (0) and usage errors (2)
        return exc.code if isinstance(exc.code, int) else 1
    directory: Path | None = args.cache_dir or _cache.cache_dir()
    if directory is None:
        _error("the cache is disabled (TOOLCALL_CACHE=0); name one with --cache-dir DIR")
        return 1
    command: Command = args.command
    try:
        return command(directory, args)
    except OSError as exc:
        _error(_describe(exc))
        return 1


# -- list, clean, clear -----------------------------------------------------------------


def _list(directory: Path, args: argparse.Namespace) -> int:
    infos = _maintenance.scan(directory)
    where = "" if directory.is_dir() else " (not created yet)"
    print(f"cache: {directory}{where}")
    rows = [(i.module or "?", _size(i.size), i.status, _source(i)) for i in infos]
    widths = [max((len(row[col]) for row in rows), default=0) for col in range(3)]
    for module, size, status, source in rows:
        print(f"  {module:<{widths[0]}}  {size:>{widths[1]}}  {status:<{widths[2]}}  {source}")
    print(_count(len(infos), sum(i.size for i in infos)))
    return 0


def _source(info: _maintenance.EntryInfo) -> str:
    """Where the entry's module is; a module's search terms (``.tcs``) say what they are."""
    where = info.source_path or "-"
    return f"{where} (search terms)" if info.path.suffix == _cache.TERMS_SUFFIX else where


def _clean(directory: Path, args: argparse.Namespace) -> int:
    count, size = _maintenance.clean(
        directory, dry_run=args.dry_run, older_than_days=args.older_than
    )
    verb = "would remove" if args.dry_run else "removed"
    print(f"{verb} {_count(count, size)}")
    return 0


def _clear(directory: Path, args: argparse.Namespace) -> int:
    count, size = _maintenance.clear(directory)
    print(f"removed {_count(count, size)}")
    return 0


# -- build ------------------------------------------------------------------------------


def _build(directory: Path, args: argparse.Namespace) -> int:
    """Import every marked module named and process it with ``directory`` as the cache.

    Unlike the maintenance commands this imports user code: deriving needs the live module.
    """
    import warnings

    from toolcall._load import warm
    from toolcall.cli.imports import UserCodeError, import_for_build, user_output_to_stderr

    built = 0
    try:  # the shared import rule of every command that imports user code (cli/imports.py)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            modules = import_for_build(args.targets or ["."], _build_targets)
    except UserCodeError as exc:
        _error(str(exc))
        return 1
    for module in modules:
        name = module.__name__
        try:
            with warnings.catch_warnings(), user_output_to_stderr():
                warnings.simplefilter("ignore")
                stored = warm.build(module, directory)
        except Exception as exc:
            _error(f"cannot build the entry of {name}: {type(exc).__name__}: {exc}")
            return 1
        if not stored:
            _error(f"could not write the entry of {name} in {directory}")
            return 1
        built += 1
    print(f"built {built} {'entry' if built == 1 else 'entries'} in {directory}")
    return 0


def _build_targets(targets: list[str]) -> list[str]:
    """Module names for build's arguments, as the application will import them.

    An entry is found by module name, so a wrong name is a permanent silent miss in
    production. A package named by its dotted name gives each module found under it the
    package's name as a prefix (namespace packages included). A path is searched like
    ``toolcall export`` does (``__init__.py`` chains), except that a module outside any
    package, in a directory below the current one, is named the way the current directory
    imports it: ``myapp/tools/weather.py`` without ``__init__.py`` files is
    ``myapp.tools.weather`` (namespace packages), not ``weather``. Each such choice is
    printed on stderr with the alternative.
    """
    import importlib

    from toolcall.cli.discover import find_modules

    names: list[str] = []
    for target in targets:
        path = Path(target)
        if path.exists():
            roots = [path.parent if path.is_file() else path]
            found = [f for f in find_modules(roots) if not path.is_file() or f.path == path]
            for item in found:
                name = _namespace_name(item.name, item.path, item.root)
                if name != item.name:
                    _note(
                        f"{item.path}: built as {name} (namespace packages from the current "
                        f"directory); if the application imports it as {item.name}, run "
                        f"build from {item.root} instead"
                    )
                else:
                    _importable(item.root)
                names.append(name)
            continue
        package = importlib.import_module(target)
        search = getattr(package, "__path__", None)
        if search is None:
            names.append(target)
            continue
        for folder in search:
            for item in find_modules([Path(folder)]):
                parts = item.path.relative_to(folder).with_suffix("").parts
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                names.append(".".join((target, *parts)))
    return sorted(set(names))


def _namespace_name(name: str, path: Path, root: Path) -> str:
    """``name`` prefixed with the namespace packages between the current directory and
    ``root``, for a top-level module whose directory is not already importable."""
    here = Path.cwd()
    if "." in name or str(root) in sys.path:
        return name
    try:
        between = root.resolve().relative_to(here.resolve()).parts
    except ValueError:
        return name
    if not between or not all(part.isidentifier() for part in between):
        return name
    return ".".join((*between, name))


def _importable(root: Path) -> None:
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))


def _note(message: str) -> None:
    print(f"{PROG}: note: {message}", file=sys.stderr)


# -- parsing and output -----------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Inspect and tidy toolcall's cache of derived tool modules. The cache lives in "
            "TOOLCALL_CACHE_DIR, else the user cache directory; TOOLCALL_CACHE=0 disables it."
        ),
        epilog="Exit status: 0 success, 1 failure, 2 usage error.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)
    common = _common()

    def command(name: str, run: Command, help: str, description: str) -> argparse.ArgumentParser:
        found = commands.add_parser(name, parents=[common], help=help, description=description)
        found.set_defaults(command=run)
        return found

    command(
        "list",
        _list,
        "show the cache location, its entries, their sizes and sources",
        "Show the cache location, then one line per entry: module, size, status and "
        "source file. A status other than 'valid' says why `clean` would remove it.",
    )
    cleaning = command(
        "clean",
        _clean,
        "remove orphaned entries (source gone or changed, old format, unreadable) and search "
        "terms whose module has no valid entry left",
        "Remove entries no process will read again: their source is gone or changed, a "
        "dependency changed, they are of an old format or unreadable, or they are temp "
        "files a crashed writer left; and a module's search terms once no valid entry of it "
        "is left. Valid entries stay unless --older-than says so.",
    )
    cleaning.add_argument("--dry-run", action="store_true", help="only say what would be removed")
    cleaning.add_argument(
        "--older-than",
        type=_days,
        metavar="DAYS",
        help="also remove valid entries not used for DAYS days (use is recorded at most "
        "once a day, so values under 1 may remove entries in use)",
    )
    command(
        "clear",
        _clear,
        "remove every entry, valid or not",
        "Remove every entry and temp file from the cache directory, valid or not. Other "
        "files in the directory are left alone.",
    )
    building = command(
        "build",
        _build,
        "pre-compute the entries of marked modules, to ship with a deployment",
        "Import every marked module found in the given paths or packages and write its "
        "entry, so a deployment can ship them (see docs/production.md). An argument naming "
        "an existing file or directory is a path; anything else is a dotted module or "
        "package name. Default: the current directory.",
    )
    building.add_argument("targets", nargs="*", metavar="PATH|PACKAGE")
    return parser


def _common() -> argparse.ArgumentParser:
    """The options every command takes."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="the cache directory (default: TOOLCALL_CACHE_DIR, else the user cache directory)",
    )
    return common


def _days(text: str) -> float:
    try:
        days = float(text)
    except ValueError:
        days = math.nan
    if not math.isfinite(days) or days < 0:
        msg = f"expected a number of days (0 or more), got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return days


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value, unit = size / 1024, "KiB"
    for bigger in ("MiB", "GiB"):
        if round(value, 1) < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{value:.1f} {unit}"


def _count(count: int, size: int) -> str:
    return f"{count} {'entry' if count == 1 else 'entries'} ({_size(size)})"


def _describe(exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename else reason


def _error(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
