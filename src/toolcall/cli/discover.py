"""Finding marked modules under a directory, without importing anything.

A file is a candidate when its module body assigns the literal ``True`` to ``__toolcall__``
(the last such module-level assignment decides, as it would at run time). The check is a
substring test on the bytes, then ``ast`` on the few files that pass, so walking a project
costs about one read per ``.py`` file. A file that mentions ``__toolcall__`` but does not
parse is kept: importing it reports the syntax error with its line, where skipping it would
silently drop its tools from an export.

Module names follow ``__init__.py`` chains, the way pytest's ``prepend`` import mode does:
a file's name is its stem prefixed by every enclosing directory that holds an ``__init__.py``,
and the first directory up without one is its *import root*, which must be on ``sys.path``
for the name to import. So ``src/myapp/tools.py`` (``myapp`` a package, ``src`` not) is
``myapp.tools`` with import root ``src/``, and a marked ``scripts/tools.py`` in a plain
directory is the top-level module ``tools`` with import root ``scripts/``. The chain may
continue above the directory being searched: a file's real package decides its name.
"""

from __future__ import annotations

import ast
import keyword
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from toolcall._errors import DiscoveryError

__all__ = [
    "DiscoveryError",
    "Found",
    "find_in_package",
    "find_modules",
    "is_marked_source",
    "module_for_file",
    "skipped_dir",
]

_ALWAYS_SKIPPED = frozenset({"__pycache__"})
_SKIPPED_UNLESS_PACKAGE = frozenset({"build", "dist", "node_modules", "site-packages", "venv"})


@dataclass(frozen=True, slots=True)
class Found:
    """A marked file: its dotted ``name``, its ``path`` and the ``root`` it imports from."""

    name: str
    path: Path
    root: Path


def skipped_dir(path: Path) -> bool:
    """Directories that hold no user tools: hidden ones, bytecode, environments, build output.

    ``build`` and friends are skipped only when they are not packages, so a user package
    that happens to be called ``build`` is still searched.
    """
    name = path.name
    if name.startswith(".") or name in _ALWAYS_SKIPPED:
        return True
    if name in _SKIPPED_UNLESS_PACKAGE:
        return not (path / "__init__.py").is_file()
    return (path / "pyvenv.cfg").is_file()


def is_marked_source(source: bytes) -> bool:
    """Whether the module body's last assignment to ``__toolcall__`` is the constant ``True``.

    Source that does not parse counts as marked when it mentions ``__toolcall__``, so the
    import can report the error.
    """
    if b"__toolcall__" not in source:
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # ValueError: null bytes, on Python 3.11
        return True
    marked = False
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__toolcall__" for t in targets):
            marked = isinstance(node.value, ast.Constant) and node.value.value is True
    return marked


def find_modules(roots: Iterable[Path]) -> list[Found]:
    """Every marked module under ``roots``, sorted by name; each file once.

    Raises `DiscoveryError` for a marked file whose name cannot be imported (``my-tools.py``)
    and for two files that would import under the same name.
    """
    by_name: dict[str, Found] = {}
    seen: set[Path] = set()
    namer = _Namer()
    for root in roots:
        for path in _python_files(root):
            real = path.resolve()
            if real in seen or not _marked_file(path):
                continue
            seen.add(real)
            found = namer.found(path)
            other = by_name.get(found.name)
            if other is not None:
                msg = f"two marked modules are named {found.name}: {other.path} and {path}"
                raise DiscoveryError(msg)
            by_name[found.name] = found
    return [by_name[name] for name in sorted(by_name)]


def _python_files(root: Path) -> list[Path]:
    files: list[Path] = []
    for directory, dirnames, filenames in os.walk(root):
        here = Path(directory)
        dirnames[:] = sorted(d for d in dirnames if not skipped_dir(here / d))
        files.extend(
            here / f for f in sorted(filenames) if f.endswith(".py") and not f.startswith(".")
        )
    return files


def find_in_package(package: str, search: Iterable[str]) -> list[Found]:
    """Every marked module inside an imported package, named under that package.

    ``search`` is the package's ``__path__``. Names come from the path below the package
    directory, not from ``__init__.py`` chains: the package imported under its name, so a
    subdirectory without ``__init__.py`` is a namespace package that imports under it too
    (``myapp/tools/weather.py`` in a namespace package ``myapp`` is ``myapp.tools.weather``).
    """
    by_name: dict[str, Found] = {}
    for entry in search:
        directory = Path(entry)
        root = directory.parent.resolve()
        for path in _python_files(directory):
            if not _marked_file(path):
                continue
            relative = path.relative_to(directory).with_suffix("").parts
            parts = [package, *(relative[:-1] if relative[-1] == "__init__" else relative)]
            name = ".".join(parts)
            if not all(p.isidentifier() and not keyword.iskeyword(p) for p in relative):
                msg = f"cannot import {path}: {name!r} is not a valid module name"
                raise DiscoveryError(msg)
            by_name.setdefault(name, Found(name=name, path=path, root=root))
    return [by_name[name] for name in sorted(by_name)]


def module_for_file(path: Path) -> Found:
    """The module a ``.py`` file named on the command line imports as, marked or not."""
    if path.suffix != ".py":
        msg = f"cannot import {path}: not a .py file"
        raise DiscoveryError(msg)
    return _Namer().found(path)


def _marked_file(path: Path) -> bool:
    """Whether ``path`` is marked; a file that exists but cannot be read is an error.

    Skipping it would drop its tools from an export (or its problems from a check) without
    a word, and its bytes are the only way to know whether it is marked.
    """
    try:
        source = path.read_bytes()
    except OSError as exc:
        if not os.path.lexists(path):  # removed while the tree was walked
            return False
        msg = f"cannot read {path}: {exc.strerror or exc}; cannot tell whether it is marked"
        raise DiscoveryError(msg) from None
    return is_marked_source(source)


class _Namer:
    """Dotted names from ``__init__.py`` chains, remembering which directories are packages."""

    def __init__(self) -> None:
        self._packages: dict[Path, bool] = {}

    def _is_package(self, directory: Path) -> bool:
        known = self._packages.get(directory)
        if known is None:
            known = self._packages[directory] = (directory / "__init__.py").is_file()
        return known

    def found(self, path: Path) -> Found:
        parts = [] if path.name == "__init__.py" else [path.stem]
        directory = path.parent.absolute()
        while self._is_package(directory) and directory.parent != directory:
            parts.append(directory.name)
            directory = directory.parent
        bad = [p for p in parts if not p.isidentifier() or keyword.iskeyword(p)]
        if bad:
            msg = f"cannot import {path}: {bad[0]!r} is not a valid module name"
            raise DiscoveryError(msg)
        return Found(name=".".join(reversed(parts)), path=path, root=directory)
