"""Reading docstrings from source: qualnames, attribute docs, module lookup, -OO, caching."""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import subprocess
import sys
import textwrap
import types
import zipfile
import zipimport
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import subproc
from toolcall._derive import source as _source
from toolcall._derive.source import SourceDocs, module_docs, object_docs, parse_source

_names = itertools.count()

Loader = Callable[..., types.ModuleType]


@pytest.fixture
def load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Loader:
    """Write ``source`` to a fresh module file and import it (registered unless told not)."""

    def load(source: str, *, register: bool = True) -> types.ModuleType:
        name = f"toolcall_source_case_{next(_names)}"
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        if register:
            monkeypatch.setitem(sys.modules, name, module)
        spec.loader.exec_module(module)
        return module

    return load


@pytest.fixture
def parse_count(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count calls to ``parse_source`` made by the caching layer, starting from a cold cache."""
    calls = [0]
    real = _source.parse_source

    def counting(source: str | bytes) -> SourceDocs:
        calls[0] += 1
        return real(source)

    monkeypatch.setattr(_source, "parse_source", counting)
    monkeypatch.setattr(_source, "_cache", type(_source._cache)())
    return calls


NESTED = '''\
"""Module doc."""


def top(a: int) -> None:
    """Top doc."""


async def coro() -> None:
    """Coro doc."""


def undocumented() -> None:
    pass


class Outer:
    """Outer doc."""

    def meth(self) -> None:
        """Meth doc."""

    class Inner:
        """Inner doc."""

        @staticmethod
        def deep() -> None:
            """Deep doc."""


def factory():
    """Factory doc."""

    def inner():
        """Inner function doc."""

    class Local:
        """Local class doc."""

        def method(self):
            """Local method doc."""

    global promoted

    def promoted():
        """Promoted doc."""

    return inner, Local, Local.method


if True:
    def in_block():
        """In block doc."""
else:
    pass
'''


def test_qualnames_match_runtime(load: Loader) -> None:
    """Keys are the live objects' ``__qualname__``, nested classes and ``<locals>`` included."""
    module = load(NESTED)
    docs = parse_source(NESTED)
    inner, local, method = module.factory()
    live = {
        obj.__qualname__: obj.__doc__
        for obj in (
            module.top,
            module.coro,
            module.Outer.meth,
            module.Outer.Inner.deep,
            module.factory,
            inner,
            method,
            module.promoted,
            module.in_block,
        )
    }
    assert dict(docs.functions) == live
    assert dict(docs.functions) == {
        "top": "Top doc.",
        "coro": "Coro doc.",
        "Outer.meth": "Meth doc.",
        "Outer.Inner.deep": "Deep doc.",
        "factory": "Factory doc.",
        "factory.<locals>.inner": "Inner function doc.",
        "factory.<locals>.Local.method": "Local method doc.",
        "promoted": "Promoted doc.",
        "in_block": "In block doc.",
    }
    assert dict(docs.classes) == {
        module.Outer.__qualname__: "Outer doc.",
        module.Outer.Inner.__qualname__: "Inner doc.",
        local.__qualname__: "Local class doc.",
    }
    assert local.__qualname__ == "factory.<locals>.Local"


def test_handler_branch_is_read() -> None:
    """Definitions inside ``except`` / ``else`` / ``match`` blocks belong to the enclosing scope."""
    source = textwrap.dedent(
        '''
        try:
            pass
        except ImportError:
            def handler():
                """H."""
        match 1:
            case 1:
                def case():
                    """C."""
        '''
    )
    assert dict(parse_source(source).functions) == {"handler": "H.", "case": "C."}


def test_docstrings_are_raw() -> None:
    """Docstrings are returned uncleaned, indentation and leading newline kept."""
    source = 'def f():\n    """\n    Line one.\n        Deeper.\n    """\n'
    assert parse_source(source).functions == {"f": "\n    Line one.\n        Deeper.\n    "}


def test_lines_match_co_firstlineno(load: Loader) -> None:
    """``lines`` gives the def's first line, decorators included, like ``co_firstlineno``."""
    source = """\
    def ident(fn):
        return fn


    def plain():
        pass


    @ident
    @ident
    def decorated():
        pass


    class Cls:
        def meth(self):
            pass
    """
    module = load(source)
    docs = parse_source(textwrap.dedent(source))
    assert dict(docs.lines) == {
        "ident": 1,
        "plain": 5,
        "decorated": 9,
        "Cls": 15,
        "Cls.meth": 16,
    }
    assert docs.lines["plain"] == module.plain.__code__.co_firstlineno
    assert docs.lines["decorated"] == module.decorated.__code__.co_firstlineno
    assert docs.lines["Cls.meth"] == module.Cls.meth.__code__.co_firstlineno


def test_redefinitions() -> None:
    """A later definition keeps the last written docstring; lines follow the last definition."""
    source = textwrap.dedent(
        '''
        from typing import overload

        @overload
        def f(x: int) -> int: ...
        @overload
        def f(x: str) -> str: ...
        def f(x):
            """Implementation doc."""
            return x

        class C:
            @property
            def value(self) -> int:
                """Getter doc."""
                return 1

            @value.setter
            def value(self, new: int) -> None:
                pass
        '''
    )
    docs = parse_source(source)
    assert docs.functions == {"f": "Implementation doc.", "C.value": "Getter doc."}
    assert docs.lines["f"] == 8
    assert docs.lines["C.value"] == 18
    assert docs.annotations["f"] == {}
    assert docs.annotations["C.value"] == {"new": "int"}


def test_module_attribute_docstrings() -> None:
    """A string statement right after a module-level assignment documents that name."""
    source = textwrap.dedent(
        '''
        from typing import TypeAlias
        import typing

        Location = tuple[float, float]
        """A lat/lon pair."""

        Address: TypeAlias = "dict[str, str]"
        """A postal address."""

        Zone: typing.TypeAlias = str
        """A zone."""

        LIMIT: int = 3
        """The limit."""

        A = B = int
        """Both."""

        Undocumented = int

        x, y = 1, 2
        """Not a plain name."""

        NotDoc = int
        f"""An f-string is not a docstring."""

        if True:
            Guarded = int
            """Guarded alias."""
        '''
    )
    docs = parse_source(source)
    assert docs.attributes == {
        "Location": "A lat/lon pair.",
        "Address": "A postal address.",
        "Zone": "A zone.",
        "LIMIT": "The limit.",
        "A": "Both.",
        "B": "Both.",
        "Guarded": "Guarded alias.",
    }
    assert docs.aliases == {
        "Location": "tuple[float, float]",
        "Address": '"dict[str, str]"',
        "Zone": "str",
        "A": "int",
        "B": "int",
        "Undocumented": "int",
        "NotDoc": "int",
        "Guarded": "int",
    }


@pytest.mark.skipif(sys.version_info < (3, 12), reason="`type` statements need Python 3.12")
def test_type_statement_docstring() -> None:
    """``type Alias = ...`` followed by a string is an attribute docstring and an alias."""
    docs = parse_source('type Pair = tuple[int, int]\n"""Two ints."""\n')
    assert docs.attributes == {"Pair": "Two ints."}
    assert docs.aliases == {"Pair": "tuple[int, int]"}


def test_class_field_docstrings(load: Loader) -> None:
    """Field docstrings of TypedDict, dataclass, NamedTuple and Struct bodies, as ``Cls.field``."""
    source = '''\
    import dataclasses
    from typing import NamedTuple, TypedDict

    import msgspec


    class Address(TypedDict):
        """A postal address."""

        street: str
        """The street."""
        city: str


    @dataclasses.dataclass
    class Point:
        x: int = 0
        """Horizontal."""
        y: int = dataclasses.field(default=0)
        """Vertical."""


    class Pair(NamedTuple):
        left: int
        """Left side."""


    class Money(msgspec.Struct):
        """An amount."""

        amount: int
        """In cents."""
        currency = "EUR"
        """ISO code."""

        def method(self):
            local = 1
            """Locals are not attributes."""
    '''
    module = load(source)
    docs = object_docs(module.Address)
    assert docs is not None
    assert docs.attributes == {
        "Address.street": "The street.",
        "Point.x": "Horizontal.",
        "Point.y": "Vertical.",
        "Pair.left": "Left side.",
        "Money.amount": "In cents.",
        "Money.currency": "ISO code.",
    }
    assert docs.classes == {"Address": "A postal address.", "Money": "An amount."}
    assert docs.aliases == {"Money.currency": '"EUR"'}


def test_nested_class_fields() -> None:
    """Fields of nested and function-local classes are keyed by the class's qualname."""
    source = textwrap.dedent(
        '''
        class Outer:
            class Inner:
                field: int
                """Inner field."""

        def f():
            class Local:
                field: int
                """Local field."""
        '''
    )
    assert parse_source(source).attributes == {
        "Outer.Inner.field": "Inner field.",
        "f.<locals>.Local.field": "Local field.",
    }


def test_annotations_as_source_text() -> None:
    """Each annotated parameter's annotation is kept as written (aliases not resolved)."""
    source = textwrap.dedent(
        """
        def f(a: Location, /, b: "Address | None", *args: int, c=1, d: Optional[Zone], **kw: str):
            pass

        class C:
            def m(self, x: list[Address]) -> None:
                pass
        """
    )
    docs = parse_source(source)
    assert docs.annotations == {
        "f": {
            "a": "Location",
            "b": '"Address | None"',
            "args": "int",
            "d": "Optional[Zone]",
            "kw": "str",
        },
        "C.m": {"x": "list[Address]"},
    }


def test_annotation_text_whatever_the_encoding_or_layout() -> None:
    """The text is sliced from the source where the parser's offsets fit the bytes (UTF-8,
    one line), and unparsed where they do not (a PEP 263 latin-1 file, several lines)."""
    latin = "# -*- coding: latin-1 -*-\ndef f(\u00e9: 'Caf\u00e9', x: Optional[Zone]): pass\n"
    assert parse_source(latin.encode("latin-1")).annotations == {
        "f": {"\u00e9": "'Caf\u00e9'", "x": "Optional[Zone]"}
    }
    utf8 = (
        "def g(\u00fc: Zon\u00e9 | None, w: (\n    Zone | None\n), v: dict[\n    str, int]): pass\n"
    )
    for source in (utf8, utf8.encode(), b"\xef\xbb\xbf" + utf8.encode()):
        assert parse_source(source).annotations == {
            "g": {"\u00fc": "Zon\u00e9 | None", "w": "Zone | None", "v": "dict[str, int]"}
        }


@pytest.mark.parametrize(
    "source",
    ["def (:\n", "x = 1\0\n", "".join("    " * i + "if x:\n" for i in range(300)), b"\xff\xfe"],
)
def test_unparsable_source_is_empty(source: str | bytes) -> None:
    """Syntax errors, null bytes, absurd nesting and undecodable bytes give empty docs."""
    assert parse_source(source) == SourceDocs()


def test_bytes_follow_coding_cookie() -> None:
    """Source bytes are decoded per their PEP 263 coding declaration."""
    source = b"# -*- coding: latin-1 -*-\ndef f():\n    '\xe9t\xe9'\n"
    assert parse_source(source).functions == {"f": "\xe9t\xe9"}


def test_docs_are_read_only() -> None:
    """Shared, cached results cannot be mutated by a caller."""
    docs = parse_source('def f():\n    "Doc."\n')
    with pytest.raises(TypeError):
        docs.functions["f"] = "changed"  # type: ignore[index]


# --- module_docs / object_docs --------------------------------------------------------------


def test_module_docs_of_an_imported_module(load: Loader) -> None:
    """A module imported from a file gets the docs of its source."""
    module = load('def f():\n    """F doc."""\n')
    docs = module_docs(module)
    assert docs is not None
    assert docs.functions == {"f": "F doc."}


def test_module_docs_without_source() -> None:
    """Builtin and sourceless modules give None."""
    assert module_docs(sys) is None
    assert module_docs(types.ModuleType("bare")) is None


def test_module_docs_loader_failure() -> None:
    """A loader whose ``get_source`` raises gives None, not an exception."""

    class Broken:
        def get_source(self, name: str) -> str:
            raise RuntimeError(name)

    module = types.ModuleType("broken")
    module.__spec__ = importlib.util.spec_from_loader("broken", Broken())  # type: ignore[arg-type]
    assert module_docs(module) is None


def test_module_docs_reads_file_when_loader_cannot(tmp_path: Path) -> None:
    """Without a ``get_source``, a ``.py`` ``__file__`` is read directly."""
    path = tmp_path / "plain.py"
    path.write_text('def f():\n    """From file."""\n', encoding="utf-8")
    module = types.ModuleType("plain")
    module.__file__ = str(path)
    docs = module_docs(module)
    assert docs is not None
    assert docs.functions == {"f": "From file."}


def test_module_docs_from_zip(tmp_path: Path) -> None:
    """A module imported from a zip file is read through its loader's ``get_source``."""
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("zipped.py", 'def f():\n    """Zipped."""\n')
    spec = zipimport.zipimporter(str(archive)).find_spec("zipped")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    docs = module_docs(module)
    assert docs is not None
    assert docs.functions == {"f": "Zipped."}


def test_object_docs_registered_module(load: Loader) -> None:
    """Functions and classes of a module in ``sys.modules`` get that module's docs."""
    module = load('def f():\n    """F."""\nclass C:\n    """C."""\n')
    assert object_docs(module.f) is module_docs(module)
    assert object_docs(module.C) is module_docs(module)


def test_object_docs_unregistered_module(load: Loader) -> None:
    """A function whose module is not in ``sys.modules`` is read from its own file."""
    module = load('def f():\n    """F."""\nclass C:\n    """C."""\n', register=False)
    docs = object_docs(module.f)
    assert docs is not None
    assert docs.functions == {"f": "F."}
    assert object_docs(module.C) is None


def test_object_docs_module_replaced(load: Loader, monkeypatch: pytest.MonkeyPatch) -> None:
    """When ``sys.modules`` holds another module under the name, the function's file wins."""
    module = load('def f():\n    """Mine."""\n')
    other = load('def f():\n    """Other."""\n')
    monkeypatch.setitem(sys.modules, module.__name__, other)
    docs = object_docs(module.f)
    assert docs is not None
    assert docs.functions == {"f": "Mine."}


def test_object_docs_follows_wrapped(load: Loader) -> None:
    """A ``functools.wraps`` wrapper defined elsewhere is traced back to the wrapped function."""
    decorators = load(
        "import functools\n"
        "def deco(fn):\n"
        "    @functools.wraps(fn)\n"
        "    def wrapper(*a, **k):\n"
        "        return fn(*a, **k)\n"
        "    return wrapper\n"
    )
    user = load(f'from {decorators.__name__} import deco\n@deco\ndef f():\n    """User."""\n')
    docs = object_docs(user.f)
    assert docs is not None
    assert docs.functions == {"f": "User."}


@pytest.mark.parametrize("obj", [len, int, 3, object(), lambda: None])
def test_object_docs_never_raises(obj: Any) -> None:
    """Builtins, instances and lambdas never raise; builtins have no source docs."""
    docs = object_docs(obj)
    assert docs is None or isinstance(docs, SourceDocs)
    if obj in (len, int, 3):
        assert docs is None


# --- caching --------------------------------------------------------------------------------


def test_one_parse_per_module(load: Loader, parse_count: list[int]) -> None:
    """Asking for the docs of 1000 functions of one module parses its source once."""
    source = "".join(f'def f{i}(x: int) -> int:\n    """Doc {i}."""\n' for i in range(1000))
    module = load(source)
    results = {id(object_docs(getattr(module, f"f{i}"))) for i in range(1000)}
    assert len(results) == 1
    assert parse_count[0] == 1
    assert module_docs(module) is object_docs(module.f0)


def test_changed_file_is_reparsed(load: Loader, parse_count: list[int]) -> None:
    """A file whose size or mtime changed is parsed again; the new docs are returned."""
    module = load('def f():\n    """Old."""\n')
    path = Path(module.__file__)
    before = module_docs(module)
    assert before is not None
    assert before.functions == {"f": "Old."}
    path.write_text('def f():\n    """New!"""\n', encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    after = module_docs(module)
    assert after is not None
    assert after.functions == {"f": "New!"}
    path.write_text('def f():\n    """Old."""\n', encoding="utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    assert module_docs(module) is before
    assert parse_count[0] == 2


def test_cache_is_bounded(
    load: Loader, parse_count: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parse cache never holds more entries than its bound."""
    monkeypatch.setattr(_source, "_CACHE_SIZE", 4)
    for i in range(6):
        assert module_docs(load(f"def f{i}():\n    pass\n")) is not None
    assert len(_source._cache) == 4


# --- fresh interpreters ---------------------------------------------------------------------

WEATHER = '''\
Location = tuple[float, float]
"""A lat/lon pair."""


def get_weather(city: str, days: int = 3) -> dict:
    """Get the forecast for a city.

    Args:
        city: city name, e.g. "Oslo"
    """
    return {"city": city, "days": days}
'''

PROBE = """\
import json
import weather
from toolcall._derive.source import module_docs, object_docs
docs = module_docs(weather)
print(json.dumps({
    "__doc__": weather.get_weather.__doc__,
    "file": weather.__file__.rsplit(".", 1)[-1],
    "docs": None if docs is None else [dict(docs.functions), dict(docs.attributes)],
    "object": None if (found := object_docs(weather.get_weather)) is None else found is docs,
}))
"""


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subproc.python(
        *args,
        paths=[tmp_path],
        env={"TOOLCALL_HOOK": "0", "TOOLCALL_CACHE": "0"},
        cwd=tmp_path,
        check=True,
    )


def test_docs_survive_python_oo(tmp_path: Path) -> None:
    """Under ``-OO`` ``__doc__`` is None, yet the docs come from the source on disk."""
    (tmp_path / "weather.py").write_text(WEATHER, encoding="utf-8")
    result = json.loads(_run(tmp_path, "-OO", "-c", PROBE).stdout)
    assert result == {
        "__doc__": None,
        "file": "py",
        "docs": [
            {
                "get_weather": "Get the forecast for a city.\n\n    Args:\n"
                '        city: city name, e.g. "Oslo"\n    '
            },
            {"Location": "A lat/lon pair."},
        ],
        "object": True,
    }


def test_sourceless_module_gives_none(tmp_path: Path) -> None:
    """A ``.pyc``-only deployment (``compileall -b``, ``.py`` deleted) gives None, no error."""
    source = tmp_path / "weather.py"
    source.write_text(WEATHER, encoding="utf-8")
    _run(tmp_path, "-OO", "-m", "compileall", "-b", "-q", str(source))
    source.unlink()
    result = json.loads(_run(tmp_path, "-OO", "-c", PROBE).stdout)
    assert result == {"__doc__": None, "file": "pyc", "docs": None, "object": None}


LOSS_PROBE = """
import ast, json, sys, warnings
from toolcall._derive import source

def stripping(text):
    # what Python 3.14+'s ast.parse does under -OO when the level is not pinned
    tree = ast.parse(text)
    for node in ast.walk(tree):
        kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        if isinstance(node, kinds) and ast.get_docstring(node, clean=False) is not None:
            node.body = node.body[1:] or [ast.Pass()]
    return tree

if sys.argv[1] == "stripped":
    source.parse_tree = stripping
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import toolcall, weather
    description = toolcall.emit(weather, "openai")[0]["function"].get("description", "")
print(json.dumps({"description": description, "warnings": [str(w.message) for w in caught]}))
"""


@pytest.mark.parametrize("mode", ["pinned", "stripped"])
def test_docstrings_lost_by_the_parse_are_a_warning_naming_the_module(
    tmp_path: Path, mode: str
) -> None:
    """Under ``-OO`` the pinned parse keeps every docstring on every Python; a parse that
    loses them (as Python 3.14+'s unpinned ``ast.parse`` does) warns, naming the module,
    instead of emitting empty descriptions in silence."""
    (tmp_path / "weather.py").write_text("__toolcall__ = True\n" + WEATHER, encoding="utf-8")
    result = json.loads(_run(tmp_path, "-OO", "-c", LOSS_PROBE, mode).stdout)
    if mode == "pinned":
        assert result == {"description": "Get the forecast for a city.", "warnings": []}
    else:
        assert result["description"] == ""
        assert [w for w in result["warnings"] if "docstrings" in w] == [
            "weather: its source has docstrings but parsing it found none, so its tools would "
            "have no descriptions; report this with your Python version"
        ]


def test_the_parse_keeps_docstrings_under_every_optimisation_level() -> None:
    """``parse_tree`` pins ``optimize=0``: the running interpreter's ``-O`` level (inherited by
    ``ast.parse`` since 3.14) never reaches it."""
    done = subproc.python(
        "-OO",
        "-c",
        "import ast; from toolcall._derive.source import parse_tree;"
        "print(ast.get_docstring(parse_tree('def f():\\n    \"doc\"\\n').body[0]))",
        check=True,
    )
    assert done.stdout == "doc\n"
