"""The one rule every command that imports user code follows (SPEC section 7).

``toolcall export``, ``check``, ``serve-mcp`` and ``toolcall-cache build`` all import the
user's modules, and a user should not have to learn four behaviours:

- **Where from.** The directories the command was given, then the current directory, go first
  on ``sys.path``, as ``python -m`` does for the current directory: a project's own
  packages import from its root whichever script started the process.
- **What an argument is.** An existing file or directory is a path (a file imports under
  the name its ``__init__.py`` chain gives it, a directory is searched); anything else is a
  dotted module name. A package named that is not marked itself stands for the marked
  modules inside it.
- **stdout is the command's.** Whatever user code writes to standard output while it is
  imported or derived (``print``, or a C extension writing to file descriptor 1) goes to
  stderr instead, so the JSON of ``export`` parses and the MCP stream of ``serve-mcp`` starts
  with the protocol.
- **Failures are one line naming the module.** Anything raised at import, ``sys.exit``,
  ``KeyboardInterrupt`` and other ``BaseException`` included, is a `UserCodeError`; the
  command prints it and exits 1. A ``sys.exit(0)`` in a module body is a failure too: the
  command did not do what it was asked.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import types
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from toolcall._errors import DiscoveryError, ToolcallWarning
from toolcall.cli.discover import find_in_package, find_modules, module_for_file

__all__ = [
    "Target",
    "UserCodeError",
    "describe_exception",
    "display_path",
    "import_for_build",
    "import_module",
    "load_targets",
    "prepare_sys_path",
    "reporting_warnings",
    "resolve_targets",
    "user_output_to_stderr",
]


class UserCodeError(Exception):
    """A module could not be found, read or imported: one line, naming it (exit status 1)."""


@dataclass(frozen=True, slots=True)
class Target:
    """A module to import: its dotted ``name``, and the file it must come from when known."""

    name: str
    path: Path | None = None
    root: Path | None = None


def describe_exception(exc: BaseException) -> str:
    """``Type: message`` on one line; a bare ``SystemExit`` or ``KeyboardInterrupt`` by name."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def display_path(filename: str) -> str:
    """Relative to the current directory when inside it: short, and clickable in editors."""
    try:
        relative = os.path.relpath(filename)
    except ValueError:  # another drive, on Windows
        return filename
    return filename if relative.startswith(os.pardir) else relative


def prepare_sys_path(roots: Sequence[Path] = ()) -> None:
    """Put ``roots``, then the current directory, first on ``sys.path`` (each once)."""
    front = [str(root) for root in dict.fromkeys([*roots, Path.cwd().resolve()])]
    sys.path[:] = [*front, *(entry for entry in sys.path if entry not in front)]


@contextlib.contextmanager
def user_output_to_stderr() -> Iterator[None]:
    """Send what runs inside to stderr when it writes to stdout, at both levels.

    ``sys.stdout`` is swapped for ``sys.stderr`` (so ``print`` output keeps its order with
    warnings) and file descriptor 1 is pointed at descriptor 2 (so C-level writes and child
    processes follow). Both are restored on exit, after flushing, so nothing buffered while
    redirected reaches the real stdout later. A closed stdout is left closed.
    """
    stream = sys.stdout
    _flush(stream)
    saved = _redirect_fd1()
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        _flush(sys.stdout)
        _flush(sys.stderr)
        sys.stdout = stream
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


@contextlib.contextmanager
def reporting_warnings(report: Callable[[str, int, str], object]) -> Iterator[None]:
    """Hand each ``ToolcallWarning`` issued inside to ``report(file, line, one-line text)``.

    Every one is caught, even one issued before (a lint must see each), while other warnings
    are replayed through ``warnings.showwarning``, so the interpreter's filters still decide
    about them. A failure still reports the warnings issued before it.
    """
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ToolcallWarning)
            yield
    finally:
        for w in caught:
            if issubclass(w.category, ToolcallWarning):
                report(w.filename, w.lineno, " ".join(str(w.message).split()))
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file, w.line)


def _flush(stream: object) -> None:
    flush = getattr(stream, "flush", None)
    if flush is not None:
        with contextlib.suppress(Exception):
            flush()


def _redirect_fd1() -> int | None:
    """Point fd 1 at stderr (or the null device when stderr is closed); the saved fd 1."""
    try:
        saved = os.dup(1)
    except OSError:  # stdout is closed: nothing of ours to protect
        return None
    try:
        os.dup2(2, 1)
    except OSError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    return saved


def resolve_targets(arguments: Sequence[str], search: Sequence[Path]) -> list[Target]:
    """The modules the arguments name; without arguments, every marked module under ``search``.

    Raises `UserCodeError` for a path that does not exist or cannot be imported under a
    valid name, and for an unreadable ``.py`` file under a searched directory.
    """
    try:
        if not arguments:
            return [Target(f.name, f.path, f.root) for f in find_modules(search)]
        targets: list[Target] = []
        for argument in arguments:
            path = Path(argument)
            if path.is_dir():
                targets.extend(Target(f.name, f.path, f.root) for f in find_modules([path]))
            elif path.exists():
                found = module_for_file(path)
                targets.append(Target(found.name, found.path, found.root))
            elif _looks_like_a_path(argument):
                msg = f"no such file or directory: {argument}"
                raise UserCodeError(msg)
            else:
                targets.append(Target(argument))
    except DiscoveryError as exc:
        raise UserCodeError(str(exc)) from None
    return list(dict.fromkeys(targets))


def _looks_like_a_path(argument: str) -> bool:
    separators = {os.sep, "/"} | ({os.altsep} if os.altsep else set())
    return argument.endswith(".py") or any(s in argument for s in separators)


def import_module(target: Target | str) -> types.ModuleType:
    """Import one user module under the rule: stdout to stderr, any failure a one-liner.

    When the target came from a file, the module that imports under its name must be that
    file: a discovered ``lib/json.py`` must not silently export the standard library.
    """
    if isinstance(target, str):
        target = Target(target)
    try:
        with user_output_to_stderr():
            module = importlib.import_module(target.name)
    except BaseException as exc:  # user code: sys.exit, Ctrl-C and odd BaseExceptions too
        msg = f"cannot import {target.name}: {describe_exception(exc)}"
        raise UserCodeError(msg) from None
    if target.path is not None:
        file = getattr(module, "__file__", None)
        if file is None or not _same_file(file, target.path):
            msg = (
                f"cannot import {target.name} from {target.path}: that name is taken by "
                f"{file or module!r}"
            )
            raise UserCodeError(msg)
    return module


def _same_file(a: str, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def load_targets(targets: Sequence[Target], *, sort: bool = True) -> list[types.ModuleType]:
    """Import every target; an unmarked package stands for the marked modules inside it.

    The modules come in name order, each once, or with ``sort=False`` in the order of the
    targets (``serve-mcp`` lists tools in the order its modules were given).

    Raises `UserCodeError` for the first module that fails to import, and for a named
    module that is neither marked nor a package holding marked modules.
    """
    prepare_sys_path([t.root for t in targets if t.root is not None])
    modules: dict[str, types.ModuleType] = {}
    for target in targets:
        for module in _load(target):
            modules.setdefault(module.__name__, module)
    return [modules[name] for name in sorted(modules)] if sort else [*modules.values()]


def _is_marked(module: types.ModuleType) -> bool:
    """The pipeline's rule; imported here, not at the top, so ``--version`` needs no derivation."""
    from toolcall._derive.module import is_marked

    return is_marked(module)


def _load(target: Target) -> list[types.ModuleType]:
    module = import_module(target)
    if _is_marked(module):
        return [module]
    search = getattr(module, "__path__", None)
    if search is None or target.path is not None:
        msg = (
            f"{target.name} is not a tool module: add `__toolcall__ = True` at its top to "
            "make its public functions tools"
        )
        raise UserCodeError(msg)
    try:
        found = find_in_package(target.name, list(search))
    except DiscoveryError as exc:
        raise UserCodeError(str(exc)) from None
    if not found:
        msg = f"no marked module in package {target.name} ({', '.join(search)})"
        raise UserCodeError(msg)
    return [import_module(Target(f.name, f.path)) for f in found]


def import_for_build(
    arguments: Sequence[str], names_of: Callable[[list[str]], list[str]]
) -> list[types.ModuleType]:
    """``toolcall-cache build``'s imports: its own naming (``names_of``), the shared rule.

    Each argument is resolved on its own, so an error names the argument that caused it;
    resolving may import a named package, which runs user code too. The modules are
    returned in name order, each once; none at all is a `UserCodeError`.
    """
    prepare_sys_path()
    names: list[str] = []
    for argument in arguments:
        try:
            with user_output_to_stderr():
                names.extend(names_of([argument]))
        except DiscoveryError as exc:
            raise UserCodeError(str(exc)) from None
        except BaseException as exc:
            msg = f"cannot import {argument}: {describe_exception(exc)}"
            raise UserCodeError(msg) from None
    modules: list[types.ModuleType] = []
    for name in sorted(set(names)):
        module = import_module(name)
        if not _is_marked(module):
            msg = f"{name} is not a tool module (no `__toolcall__ = True`)"
            raise UserCodeError(msg)
        modules.append(module)
    if not modules:
        msg = f"no marked module in {', '.join(arguments)}"
        raise UserCodeError(msg)
    return modules
