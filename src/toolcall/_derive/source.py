"""Docstrings read from a module's source text, never from ``__doc__``.

``python -OO`` strips ``__doc__`` but leaves the ``.py`` files on disk, so reading the AST keeps
tool descriptions intact in production. The AST also holds what ``__doc__`` never had:
attribute docstrings (a string statement under ``Alias = ...`` or a class field), which
document type aliases and fields.

Parsing is cached per source file (path, mtime, size) and per source text, because deriving
every tool of a module asks for the same module's docs once per tool.
"""

from __future__ import annotations

import ast
import gc
import inspect
import linecache
import os
import re
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any, Final

import msgspec

from toolcall._shared.digest import blake2b

__all__ = ["SourceDocs", "module_docs", "object_docs", "parse_source", "parse_tree", "source_docs"]

_EMPTY: Final[Mapping[str, Any]] = types.MappingProxyType({})


class SourceDocs(msgspec.Struct, frozen=True, kw_only=True):
    """What one module's source says that the live objects cannot, keyed by ``__qualname__``.

    - ``functions`` / ``classes``: raw docstrings (``ast.get_docstring(clean=False)``).
    - ``attributes``: the raw string statement under an assignment: ``"Alias"`` at module
      level, ``"Cls.field"`` in a class body.
    - ``aliases``: the source of what a module- or class-level alias names (``Alias = X``,
      ``Alias: TypeAlias = X``, ``type Alias = X``), keyed like ``attributes``, because at
      runtime an alias is indistinguishable from its target.
    - ``annotations``: per function, each annotated parameter's annotation as source text, so
      that the alias a parameter was declared with can be told apart from its target.
    - ``returns``: per function, its return annotation as source text (written the same
      way tool after tool, it is resolved once).
    - ``lines``: the first line of every ``def`` and ``class``, decorators included, which is
      what ``__code__.co_firstlineno`` reports for the live function.
    - ``imports``: every module an ``import`` statement names, at any depth, a relative one
      with its leading dots (``from .a import b`` gives ``.a`` and ``.a.b``): what the
      cache records as the module's project dependencies, read from this same parse.

    The mappings are read-only because one parsed instance is shared by every caller. When a
    qualname is defined more than once (``@overload`` stubs, a property's setter,
    ``if``/``else`` variants), ``lines`` and ``annotations`` follow the last definition, the one
    that usually survives at runtime, and the docstring is the last one written among them.
    """

    functions: Mapping[str, str] = _EMPTY
    classes: Mapping[str, str] = _EMPTY
    attributes: Mapping[str, str] = _EMPTY
    aliases: Mapping[str, str] = _EMPTY
    annotations: Mapping[str, Mapping[str, str]] = _EMPTY
    returns: Mapping[str, str] = _EMPTY
    lines: Mapping[str, int] = _EMPTY
    imports: frozenset[str] = frozenset()
    lost: bool = False
    """The text has docstrings, yet the parse found none: descriptions would silently vanish."""


_NOTHING: Final = SourceDocs()

_CACHE_SIZE: Final = 256
_cache: OrderedDict[Hashable, SourceDocs] = OrderedDict()
_cache_lock: Final = threading.Lock()


def parse_source(source: str | bytes) -> SourceDocs:
    """Collect the docstrings of ``source``; unparsable source gives an empty result.

    ``bytes`` are decoded the way Python decodes a source file (PEP 263 coding cookie).
    """
    # The AST is most of a cold derivation's allocations, and lives only while it is read:
    # collections during the parse would find nothing to free, only promote the tree to
    # older generations, whose full collections then sweep every live object (at 10,000
    # tools, two thirds of all collections and most of their time). No user code runs
    # meanwhile. The tree is gone when ``_collect`` returns, before collection resumes.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        collector = _collect(source)
    except (SyntaxError, ValueError, RecursionError):
        return _NOTHING
    finally:
        if paused:
            gc.enable()
    found = collector.functions or collector.classes
    proxy = types.MappingProxyType
    return SourceDocs(
        functions=proxy(collector.functions),
        classes=proxy(collector.classes),
        attributes=proxy(collector.attributes),
        aliases=proxy(collector.aliases),
        annotations=proxy({name: proxy(a) for name, a in collector.annotations.items()}),
        returns=proxy(collector.returns),
        lines=proxy(collector.lines),
        imports=frozenset(collector.imports),
        lost=not found and _DOCSTRING.search(_as_bytes(source)) is not None,
    )


def _collect(source: str | bytes) -> _Collector:
    collector = _Collector(_utf8_lines(source))
    collector.scope(parse_tree(source).body, "", is_function=False)
    return collector


def parse_tree(source: str | bytes) -> ast.Module:
    """The AST with docstrings kept whatever the interpreter's ``-O`` level.

    Since Python 3.14, ``ast.parse`` inherits the optimisation level of the running
    interpreter, so under ``-OO`` it strips the docstrings this module exists to read.
    ``compile`` with ``optimize=0`` pins the level on every supported version.
    """
    tree = compile(source, "<source>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True, optimize=0)
    assert isinstance(tree, ast.Module)
    return tree


# A ``def`` or ``class`` line followed by a string statement: the text has a docstring.
_DOCSTRING: Final = re.compile(
    rb"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t][^\n]*:[ \t]*\r?\n[ \t]+[rRuU]?(?:\"|')",
    re.MULTILINE,
)


def _as_bytes(source: str | bytes) -> bytes:
    return source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source


def module_docs(module: types.ModuleType) -> SourceDocs | None:
    """The docs of ``module``'s source, or None when no source is available (never raises)."""
    spec = getattr(module, "__spec__", None)
    name = getattr(spec, "name", None) or getattr(module, "__name__", None)
    loader = getattr(spec, "loader", None) or getattr(module, "__loader__", None)
    path = getattr(module, "__file__", None)
    key = _file_key(path) if isinstance(path, str) and path.endswith(".py") else None
    if key is not None:
        cached = _cache_get(key)
        if cached is not None:
            return cached
    source: str | bytes | None = _loader_source(loader, name)
    if source is None and key is not None and isinstance(path, str):
        source = _read(path)
    if source is None:
        return None
    return _parse_cached(source, key)


def source_docs(source: bytes) -> SourceDocs:
    """The docs of source bytes, such as the ones a loader executed (parsed once per text)."""
    return _parse_cached(source, None)


def object_docs(obj: object) -> SourceDocs | None:
    """The docs of the module source that defines the function or class ``obj``.

    The module comes from ``sys.modules``; when it is missing, or a function's code was
    compiled from another file than the module's (a module replaced under the same name),
    the function's own source file is read instead.
    """
    module_name = getattr(obj, "__module__", None)
    module = sys.modules.get(module_name) if isinstance(module_name, str) else None
    try:
        code = getattr(inspect.unwrap(obj), "__code__", None) if callable(obj) else None
    except ValueError:  # a ``__wrapped__`` cycle
        code = None
    filename = getattr(code, "co_filename", None)
    if module is not None and (
        not isinstance(filename, str) or filename == getattr(module, "__file__", None)
    ):
        docs = module_docs(module)
        if docs is not None:
            return docs
    if not isinstance(filename, str):
        try:
            filename = inspect.getsourcefile(obj)  # type: ignore[arg-type]
        except (TypeError, OSError):
            return None
    return _file_docs(filename) if filename else None


def _file_docs(path: str) -> SourceDocs | None:
    key = _file_key(path)
    if key is not None:
        cached = _cache_get(key)
        if cached is not None:
            return cached
        source = _read(path)
        if source is not None:
            return _parse_cached(source, key)
    lines = linecache.getlines(path)
    return _parse_cached("".join(lines), None) if lines else None


def _file_key(path: str) -> tuple[str, str, int, int] | None:
    try:
        stat = os.stat(path)
    except (OSError, ValueError):
        return None
    return ("file", path, stat.st_mtime_ns, stat.st_size)


def _loader_source(loader: object, name: object) -> str | None:
    get_source = getattr(loader, "get_source", None)
    if get_source is None or not isinstance(name, str):
        return None
    try:
        source = get_source(name)
    except Exception:  # a third-party loader may fail in any way; no source is the answer
        return None
    return source if isinstance(source, str) else None


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            return file.read()
    except (OSError, ValueError):
        return None


def _parse_cached(source: str | bytes, file_key: Hashable | None) -> SourceDocs:
    data = _as_bytes(source)
    text_key = ("text", isinstance(source, str), blake2b(data, digest_size=16).digest())
    docs = _cache_get(text_key)
    if docs is None:
        docs = parse_source(source)
    with _cache_lock:
        for key in (text_key, file_key):
            if key is not None:
                _cache[key] = docs
                _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return docs


def _cache_get(key: Hashable) -> SourceDocs | None:
    with _cache_lock:
        docs = _cache.get(key)
        if docs is not None:
            _cache.move_to_end(key)
        return docs


class _Collector:
    """Walks scopes the way the compiler names them, so keys equal ``__qualname__``.

    ``lines`` is the source as the parser's offsets count it (UTF-8, split at line ends), or
    None: an annotation's text is then unparsed from the AST instead of sliced from it
    (``ast.unparse`` was over half of collecting a module's docs).
    """

    def __init__(self, lines: list[bytes] | None) -> None:
        self._lines = lines
        self.functions: dict[str, str] = {}
        self.classes: dict[str, str] = {}
        self.attributes: dict[str, str] = {}
        self.aliases: dict[str, str] = {}
        self.annotations: dict[str, dict[str, str]] = {}
        self.returns: dict[str, str] = {}
        self.lines: dict[str, int] = {}
        self.imports: set[str] = set()

    def scope(self, body: Sequence[ast.stmt], prefix: str, *, is_function: bool) -> None:
        """Record the definitions of one scope, in source order; ``prefix`` is ``""`` or ends
        with ``.``."""
        statements = list(_statements(body))
        declared_global: set[str] = set()
        for block, index in statements:
            stmt = block[index]
            if isinstance(stmt, ast.Global):
                declared_global.update(stmt.names)
        for block, index in statements:
            stmt = block[index]
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                qualname = stmt.name if stmt.name in declared_global else prefix + stmt.name
                self.definition(stmt, qualname)
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                self.imports.update(_imported(stmt))
            elif not is_function:
                names, target = _assignment(stmt)
                doc = _string_statement(block[index + 1]) if index + 1 < len(block) else None
                for name in names:
                    if doc is not None:
                        self.attributes[prefix + name] = doc
                    if target is not None:
                        self.aliases[prefix + name] = self.text(target)

    def definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, qualname: str
    ) -> None:
        decorators = [decorator.lineno for decorator in node.decorator_list]
        self.lines[qualname] = min([node.lineno, *decorators])
        doc = ast.get_docstring(node, clean=False)
        if isinstance(node, ast.ClassDef):
            if doc is not None:
                self.classes[qualname] = doc
            self.scope(node.body, qualname + ".", is_function=False)
        else:
            if doc is not None:
                self.functions[qualname] = doc
            arguments = node.args
            self.annotations[qualname] = {
                argument.arg: self.text(argument.annotation)
                for argument in (
                    *arguments.posonlyargs,
                    *arguments.args,
                    *([arguments.vararg] if arguments.vararg else []),
                    *arguments.kwonlyargs,
                    *([arguments.kwarg] if arguments.kwarg else []),
                )
                if argument.annotation is not None
            }
            if node.returns is not None:
                self.returns[qualname] = self.text(node.returns)
            self.scope(node.body, qualname + ".<locals>.", is_function=True)

    def text(self, node: ast.expr) -> str:
        """The source text of an expression on one line, else its unparsed form."""
        lines, end = self._lines, node.end_col_offset
        if lines is not None and node.end_lineno == node.lineno and end is not None:
            try:
                return lines[node.lineno - 1][node.col_offset : end].decode()
            except (IndexError, UnicodeDecodeError):
                pass
        return ast.unparse(node)


def _utf8_lines(source: str | bytes) -> list[bytes] | None:
    """The lines whose byte offsets the AST gives, or None for a source in another encoding
    (a PEP 263 cookie: its offsets count the text re-encoded, not these bytes)."""
    if isinstance(source, str):
        return source.encode("utf-8", "surrogatepass").splitlines()
    lines = source.removeprefix(b"\xef\xbb\xbf").splitlines()
    for line in lines[:2]:
        cookie = _COOKIE.match(line)
        if cookie is not None and cookie.group(1).lower().replace(b"_", b"-") not in _UTF8:
            return None
    return lines


_COOKIE: Final = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_UTF8: Final = frozenset({b"utf-8", b"utf8"})


def _statements(body: Sequence[ast.stmt]) -> Iterator[tuple[Sequence[ast.stmt], int]]:
    """(block, index) of every statement of one scope in source order, compound statements'
    bodies included (they do not open a scope)."""
    for index, stmt in enumerate(body):
        yield body, index
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        blocks: list[Sequence[ast.stmt]] = []
        if isinstance(stmt, ast.Match):
            blocks.extend(case.body for case in stmt.cases)
        else:
            blocks.append(getattr(stmt, "body", ()))
            if isinstance(stmt, ast.Try | ast.TryStar):
                blocks.extend(handler.body for handler in stmt.handlers)
            blocks.append(getattr(stmt, "orelse", ()))
            blocks.append(getattr(stmt, "finalbody", ()))
        for block in blocks:
            if isinstance(block, list):
                yield from _statements(block)


def _imported(stmt: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The modules one import statement may name: each dotted prefix of ``import a.b``; the
    base and each ``base.name`` of a ``from`` import (a name may be a submodule)."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            parts = alias.name.split(".")
            yield from (".".join(parts[: i + 1]) for i in range(len(parts)))
        return
    base = "." * stmt.level + (stmt.module or "")
    if base:
        yield base
    join = "." if stmt.module else ""
    yield from (f"{base}{join}{alias.name}" for alias in stmt.names)


def _string_statement(stmt: ast.stmt) -> str | None:
    if (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    ):
        return stmt.value.value
    return None


def _assignment(stmt: ast.stmt) -> tuple[list[str], ast.expr | None]:
    """The plain names a statement binds, and the expression when it is an alias's target.

    ``X = value`` may be an alias, so its value counts; an annotated assignment is one only
    when annotated ``TypeAlias`` (otherwise its value is a default, as in a class field).
    """
    if isinstance(stmt, ast.Assign):
        names = [target.id for target in stmt.targets if isinstance(target, ast.Name)]
        return names, stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        annotation = stmt.annotation
        is_alias = (isinstance(annotation, ast.Name) and annotation.id == "TypeAlias") or (
            isinstance(annotation, ast.Attribute) and annotation.attr == "TypeAlias"
        )
        return [stmt.target.id], stmt.value if is_alias else None
    if sys.version_info >= (3, 12) and isinstance(stmt, ast.TypeAlias):
        return [stmt.name.id], stmt.value
    return [], None
