"""SPEC section 6, first two bullets: the import hook, and what it must not break.

Everything that changes global import state runs in a fresh interpreter, so these tests stay
isolated from each other and from the rest of the suite.
"""

from __future__ import annotations

import importlib.util
import json
import py_compile
import shutil
import sys
import textwrap
import zipfile
from importlib import machinery
from pathlib import Path
from typing import Any

import pytest

from files import write
from subproc import python

TOOLS = '''
__toolcall__ = True


def ping(x: int) -> int:
    """Ping back."""
    return x
'''

PRELUDE = """\
import importlib, json, sys
import os
from importlib import machinery
import toolcall
from toolcall._load import hook
from toolcall._load import warm
from toolcall._load import registry

def loader(module):
    return type(module.__spec__.loader).__name__
"""


# A clean environment (see subproc.environment) with no cache and no auto-install.
QUIET = {"TOOLCALL_CACHE": "0", "TOOLCALL_HOOK": "0"}


def run(code: str, *paths: Path, **extra: str | None) -> Any:
    """Run ``PRELUDE + code`` in a fresh interpreter with ``paths`` importable; the JSON it
    prints in ``out`` comes back. ``extra`` sets (None: removes) environment variables."""
    script = PRELUDE + textwrap.dedent(code) + "\nprint(json.dumps(out))\n"
    done = python("-c", script, paths=paths, env={**QUIET, **extra}, clean=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_install_goes_just_before_the_standard_hook_once() -> None:
    """install() adds one hook right before the standard FileFinder hook; uninstall undoes it."""
    out = run("""
        other = machinery.FileFinder.path_hook(
            (machinery.SourceFileLoader, machinery.SOURCE_SUFFIXES))
        sys.path_hooks.insert(0, other)
        before = list(sys.path_hooks)
        hook.install()
        hook.install()
        after = list(sys.path_hooks)
        ours = [hook for hook in after if hook not in before]
        out = {
            "added": len(ours),
            "ours": after.index(ours[0]) - len(before),
            "standard": after.index(before[-1]) - len(before),
            "other": after.index(other),
            "installed": hook.installed(),
        }
        hook.uninstall()
        hook.uninstall()
        out["restored"] = sys.path_hooks == before
        out["installed_after"] = hook.installed()
    """)
    assert out == {
        "added": 1,
        "ours": -1,
        "standard": 0,
        "other": 0,
        "installed": True,
        "restored": True,
        "installed_after": False,
    }


def test_marked_module_is_processed_once_at_import(tmp_path: Path) -> None:
    """A marked module is registered right after import; emit reuses that entry."""
    write(tmp_path, "marked.py", TOOLS)
    write(tmp_path, "plain.py", "def ping(x: int) -> int:\n    return x\n")
    write(tmp_path, "truthy.py", TOOLS.replace("= True", "= 1"))
    out = run(
        """
        calls = []
        real = warm.process
        def counting(module, **kwargs):
            calls.append(module.__name__)
            return real(module, **kwargs)
        warm.process = counting
        hook.install()
        import marked, plain, truthy
        registered = registry.names()
        entry = registry.find("marked")
        toolcall.emit(marked, "openai")
        toolcall.tool_names("marked")
        out = {
            "registered": registered,
            "calls": calls,
            "tools": list(entry.tool_names),
            "same_entry": warm.lookup(marked) is entry,
            "loader": loader(marked),
            "is_source_loader": isinstance(marked.__spec__.loader, machinery.SourceFileLoader),
        }
        """,
        tmp_path,
    )
    assert out == {
        "registered": ["marked"],
        "calls": ["marked"],
        "tools": ["ping"],
        "same_entry": True,
        "loader": "ToolcallSourceLoader",
        "is_source_loader": True,
    }


def test_finders_cached_before_install_and_after_uninstall_are_replaced(tmp_path: Path) -> None:
    """install() and uninstall() take effect on directories already searched; lazy path works."""
    for name in ("early", "middle", "late"):
        write(tmp_path, f"{name}.py", TOOLS)
    out = run(
        """
        import early
        hook.install()
        import middle
        hook.uninstall()
        import late
        registered = registry.names()
        ours = (hook.ToolcallSourceLoader, hook.ToolcallSourcelessLoader)
        out = {
            "loaders": [loader(early), loader(middle), loader(late)],
            "registered": registered,
            "ours_cached": any(
                cls in ours
                for finder in sys.path_importer_cache.values()
                if isinstance(finder, machinery.FileFinder)
                for _, cls in finder._loaders
            ),
            "lazy": [list(toolcall.tool_names(early)), list(toolcall.tool_names("late"))],
        }
        """,
        tmp_path,
    )
    assert out == {
        "loaders": ["SourceFileLoader", "ToolcallSourceLoader", "SourceFileLoader"],
        "registered": ["middle"],
        "ours_cached": False,
        "lazy": [["ping"], ["ping"]],
    }


def test_processing_failure_never_breaks_the_import(tmp_path: Path) -> None:
    """A failing process() is logged at DEBUG with traceback; the lazy path retries it."""
    write(tmp_path, "fragile.py", TOOLS)
    out = run(
        """
        import logging
        records = []
        handler = logging.Handler(logging.DEBUG)
        handler.emit = records.append
        logging.getLogger("toolcall").addHandler(handler)
        logging.getLogger("toolcall").setLevel(logging.DEBUG)
        real = warm.process
        def broken(module, **kwargs):
            raise RuntimeError("bug")
        warm.process = broken
        hook.install()
        import fragile
        warm.process = real
        out = {
            "imported": fragile.ping(4),
            "registered": registry.find("fragile") is not None,
            "records": [
                [r.levelname, r.getMessage(), r.exc_info[0].__name__] for r in records
            ],
            "lazy": list(toolcall.tool_names(fragile)),
        }
        """,
        tmp_path,
    )
    assert out == {
        "imported": 4,
        "registered": False,
        "records": [
            [
                "DEBUG",
                "processing fragile at import failed; it will be retried on first use",
                "RuntimeError",
            ]
        ],
        "lazy": ["ping"],
    }


def test_reload_reprocesses_the_edited_module(tmp_path: Path) -> None:
    """importlib.reload re-executes through the hook, so an edited module's tools change."""
    path = write(tmp_path, "editable.py", TOOLS)
    edited = TOOLS + "\n\ndef pang() -> int:\n    return 1\n"
    out = run(
        f"""
        import os
        hook.install()
        import editable
        first = list(registry.find("editable").tool_names)
        with open({str(path)!r}, "w") as handle:
            handle.write({edited!r})
        stat = os.stat({str(path)!r})
        os.utime({str(path)!r}, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
        importlib.reload(editable)
        out = {{
            "first": first,
            "hook": list(registry.find("editable").tool_names),
            "public": list(toolcall.tool_names(editable)),
            "loader": loader(editable),
        }}
        """,
        tmp_path,
    )
    assert out == {
        "first": ["ping"],
        "hook": ["ping", "pang"],
        "public": ["ping", "pang"],
        "loader": "ToolcallSourceLoader",
    }


def test_importlib_resources_on_a_hooked_package(tmp_path: Path) -> None:
    """importlib.resources reads data files of a package imported through the hook."""
    write(tmp_path, "respkg/__init__.py", TOOLS)
    write(tmp_path, "respkg/data.txt", "hello\n")
    out = run(
        """
        import importlib.resources as resources
        hook.install()
        import respkg
        root = resources.files(respkg)
        with resources.as_file(root / "data.txt") as real_path:
            on_disk = real_path.read_text()
        out = {
            "loader": loader(respkg),
            "registered": registry.find("respkg") is not None,
            "read": (root / "data.txt").read_text(),
            "by_name": resources.files("respkg").joinpath("data.txt").read_bytes().decode(),
            "on_disk": on_disk,
            "listing": sorted(p.name for p in root.iterdir() if p.name != "__pycache__"),
        }
        """,
        tmp_path,
    )
    assert out == {
        "loader": "ToolcallSourceLoader",
        "registered": True,
        "read": "hello\n",
        "by_name": "hello\n",
        "on_disk": "hello\n",
        "listing": ["__init__.py", "data.txt"],
    }


def test_pkgutil_sees_real_file_finders(tmp_path: Path) -> None:
    """The hook's finders are real FileFinders, so pkgutil.iter_modules lists the directory."""
    write(tmp_path, "alpha.py", TOOLS)
    write(tmp_path, "beta/__init__.py", "")
    write(tmp_path, "gamma.txt", "")
    out = run(
        f"""
        import pkgutil
        hook.install()
        import alpha
        finder = sys.path_importer_cache[{str(tmp_path)!r}]
        out = {{
            "finder": type(finder) is machinery.FileFinder,
            "get_importer": pkgutil.get_importer({str(tmp_path)!r}) is finder,
            "loader": loader(alpha),
            "modules": [[m.name, m.ispkg] for m in pkgutil.iter_modules([{str(tmp_path)!r}])],
        }}
        """,
        tmp_path,
    )
    assert out == {
        "finder": True,
        "get_importer": True,
        "loader": "ToolcallSourceLoader",
        "modules": [["alpha", False], ["beta", True]],
    }


def test_namespace_package_across_two_directories(tmp_path: Path) -> None:
    """A namespace package split over two sys.path entries imports, and its marked part is seen."""
    write(tmp_path, "a/nsp/left.py", TOOLS)
    write(tmp_path, "b/nsp/right.py", "VALUE = 2\n")
    out = run(
        """
        hook.install()
        import nsp.left, nsp.right
        import nsp
        out = {
            "path": sorted(nsp.__path__),
            "file": getattr(nsp, "__file__", None),
            "left": [loader(nsp.left), registry.find("nsp.left") is not None],
            "right": [loader(nsp.right), nsp.right.VALUE],
        }
        """,
        tmp_path / "a",
        tmp_path / "b",
    )
    assert out == {
        "path": [str(tmp_path / "a" / "nsp"), str(tmp_path / "b" / "nsp")],
        "file": None,
        "left": ["ToolcallSourceLoader", True],
        "right": ["ToolcallSourceLoader", 2],
    }


def _extension_file() -> str:
    """A standard-library C extension this interpreter has as a shared-library file.

    Which ones are files depends on the build: Debian's 3.14 and 3.15 build ``_csv`` into the
    interpreter (``sys.builtin_module_names``), so no single name serves every Python.
    """
    for name in ("_csv", "_lzma", "_bz2", "_sqlite3", "_ctypes"):
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        if (
            name not in sys.builtin_module_names
            and origin
            and origin.endswith(tuple(machinery.EXTENSION_SUFFIXES))
        ):
            return name
    pytest.skip("this interpreter has no standard-library extension module as a file")


def test_extension_module_imported_after_install() -> None:
    """A C extension first imported after install loads with the standard ExtensionFileLoader."""
    name = _extension_file()
    out = run(f"""
        fresh = {name!r} not in sys.modules
        hook.install()
        module = importlib.import_module({name!r})
        spec = module.__spec__
        out = {{
            "fresh": fresh,
            "loader": type(spec.loader).__name__,
            "extension": spec.origin.endswith(tuple(machinery.EXTENSION_SUFFIXES)),
            "works": spec.name == module.__name__ and len(vars(module)) > 5,
        }}
    """)
    assert out == {
        "fresh": True,
        "loader": "ExtensionFileLoader",
        "extension": True,
        "works": True,
    }


def test_the_standard_library_keeps_the_standard_loader(tmp_path: Path) -> None:
    """The standard library holds no tool module: its imports get no toolcall loader (and
    no overhead); a module anywhere else does."""
    (tmp_path / "mine.py").write_text("X = 1\n")
    out = run(f"""
        fresh = "colorsys" not in sys.modules and "wsgiref.util" not in sys.modules
        hook.install()
        sys.path.insert(0, {str(tmp_path)!r})
        import colorsys, mine, wsgiref.util
        out = {{
            "fresh": fresh,
            "stdlib": type(colorsys.__spec__.loader).__name__,
            "subpackage": type(wsgiref.util.__spec__.loader).__name__,
            "mine": type(mine.__spec__.loader).__name__,
        }}
    """)
    assert out == {
        "fresh": True,
        "stdlib": "SourceFileLoader",
        "subpackage": "SourceFileLoader",
        "mine": "ToolcallSourceLoader",
    }


def test_a_site_packages_below_the_standard_library_keeps_the_hook() -> None:
    """An interpreter used without a venv installs packages below the standard library's
    directory; those may hold tool modules, so only the standard library itself is refused."""
    out = run("""
        stdlib = os.path.dirname(os.__file__)
        hook = hook._path_hook(lambda path: "kept")
        def answer(*parts):
            try:
                return hook(os.path.join(stdlib, *parts))
            except ImportError:
                return "refused"
        cases = [(), ("email",), ("xml", "dom"), ("site-packages",), ("site-packages", "app")]
        out = [answer(*parts) for parts in cases + [("dist-packages",)]]
        out.append(hook(stdlib + "-extra"))
    """)
    assert out == ["refused", "refused", "refused", "kept", "kept", "kept", "kept"]


def test_extension_still_wins_over_a_same_named_source(tmp_path: Path) -> None:
    """The hook keeps the standard loader order: an extension beats a .py of the same name."""
    name = _extension_file()
    origin = importlib.util.find_spec(name).origin
    assert origin is not None
    shutil.copy(origin, tmp_path / Path(origin).name)
    write(tmp_path, f"{name}.py", "SHADOW = True\n")
    out = run(
        f"""
        hook.install()
        import {name} as extension
        out = {{"loader": loader(extension), "shadowed": hasattr(extension, "SHADOW"),
               "here": extension.__file__.startswith({str(tmp_path)!r})}}
        """,
        tmp_path,
    )
    assert out == {"loader": "ExtensionFileLoader", "shadowed": False, "here": True}


def test_sourceless_module_is_processed(tmp_path: Path) -> None:
    """A .pyc-only module (compileall -b, source deleted) goes through the sourceless loader."""
    source = write(tmp_path, "compiled.py", TOOLS)
    py_compile.compile(str(source), cfile=str(tmp_path / "compiled.pyc"), doraise=True)
    source.unlink()
    out = run(
        """
        hook.install()
        import compiled
        out = {
            "loader": loader(compiled),
            "sourceless": isinstance(compiled.__spec__.loader, machinery.SourcelessFileLoader),
            "registered": registry.find("compiled") is not None,
        }
        """,
        tmp_path,
    )
    assert out == {"loader": "ToolcallSourcelessLoader", "sourceless": True, "registered": True}


def test_zip_module_uses_the_lazy_path(tmp_path: Path) -> None:
    """A marked module inside a zip is imported by zipimport and processed on first use."""
    archive = tmp_path / "tools.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("zipped.py", TOOLS)
    out = run(
        """
        hook.install()
        import zipped
        before = registry.find("zipped") is not None
        emitted = toolcall.emit(zipped, "openai")
        out = {
            "loader": loader(zipped),
            "before": before,
            "names": [tool["function"]["name"] for tool in emitted],
            "after": registry.find("zipped") is not None,
        }
        """,
        archive,
    )
    assert out == {"loader": "zipimporter", "before": False, "names": ["ping"], "after": True}


def test_pytest_assertion_rewriting_still_works(tmp_path: Path) -> None:
    """With the hook installed from a conftest, pytest still rewrites asserts in test modules."""
    write(tmp_path, "pytest.ini", "[pytest]\n")
    write(
        tmp_path,
        "conftest.py",
        "import toolcall\nfrom toolcall._load import hook\nhook.install()\n",
    )
    write(tmp_path, "helper_tools.py", TOOLS)
    write(
        tmp_path,
        "test_rewritten.py",
        """
        from toolcall._load import hook
        from toolcall._load import warm
        from toolcall._load import registry

        import helper_tools


        def inc(x):
            return x + 1


        def test_hook_saw_the_helper():
            assert hook.installed()
            assert type(__loader__).__name__ == "AssertionRewritingHook"
            assert type(helper_tools.__loader__).__name__ == "ToolcallSourceLoader"
            assert registry.find("helper_tools").tool_names == ("ping",)


        def test_rewritten():
            assert inc(1) == 3
        """,
    )
    done = python(
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        tmp_path,
        paths=[tmp_path],
        env=QUIET,
        clean=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "E       assert 2 == 3\n" in done.stdout
    assert "E        +  where 2 = inc(1)\n" in done.stdout
    assert "1 failed, 1 passed" in done.stdout


def test_autoinstall_honours_toolcall_hook() -> None:
    """autoinstall() installs unless TOOLCALL_HOOK is exactly "0"."""
    out = run("""
        import os
        out = {}
        for value in ("0", "1", "", None):
            hook.uninstall()
            if value is None:
                os.environ.pop("TOOLCALL_HOOK", None)
            else:
                os.environ["TOOLCALL_HOOK"] = value
            hook.autoinstall()
            out[repr(value)] = hook.installed()
    """)
    assert out == {"'0'": False, "'1'": True, "''": True, "None": True}


@pytest.mark.parametrize(("value", "expected"), [(None, True), ("0", False)])
def test_import_toolcall_installs_the_hook(value: str | None, expected: bool) -> None:
    """`import toolcall` installs the hook, unless TOOLCALL_HOOK=0."""
    out = run("out = {'installed': hook.installed()}", TOOLCALL_HOOK=value)
    assert out == {"installed": expected}


@pytest.mark.parametrize(
    "getattr_body",
    [
        'return importlib.import_module(f"{__name__}.{name}")',
        "raise KeyError(name)",
    ],
    ids=["lazy-submodule", "raises-keyerror"],
)
def test_a_module_getattr_is_never_run_by_the_hook(tmp_path: Path, getattr_body: str) -> None:
    """The marker is read from ``__dict__``: a package whose ``__getattr__`` imports
    submodules lazily (or raises) imports exactly as it does without the hook."""
    write(
        tmp_path,
        "lazypkg/__init__.py",
        f"""
        import importlib
        calls = []

        def __getattr__(name):
            calls.append(name)
            {getattr_body}
        """,
    )
    write(tmp_path, "lazypkg/sub.py", "VALUE = 1\n")
    out = run(
        """
        hook.install()
        import lazypkg
        out = {"calls": lazypkg.calls, "sub": "lazypkg.sub" in sys.modules}
        """,
        tmp_path,
    )
    assert out == {"calls": [], "sub": False}


def test_a_provider_importing_a_marked_module_lazily_does_not_deadlock(tmp_path: Path) -> None:
    """Thread A derives ``a``, whose provider imports ``b`` lazily in ``resolve``, while
    thread B is importing ``b`` (so A waits for B's import lock): B's processing of ``b``
    must not wait for anything A holds."""
    write(
        tmp_path,
        "prov.py",
        """
        import builtins, importlib
        import toolcall

        class Money:
            pass

        class MoneyType:
            def resolve(self, tp, args):
                if tp is Money:
                    builtins.resolving.set()
                    importlib.import_module("b")
                    return toolcall.ir.Type(kind="string")
                return None
        """,
    )
    write(
        tmp_path,
        "a.py",
        """
        from prov import Money, MoneyType

        __toolcall__ = True
        __toolcall_types__ = [MoneyType]


        def pay(amount: Money) -> None:
            pass
        """,
    )
    write(
        tmp_path,
        "b.py",
        """
        import builtins

        __toolcall__ = True

        builtins.b_started.set()
        builtins.resolving.wait(30)


        def ping(x: int) -> int:
            return x
        """,
    )
    out = run(
        """
        import builtins, os, threading
        builtins.b_started, builtins.resolving = threading.Event(), threading.Event()
        hook.install()
        importer_b = threading.Thread(target=importlib.import_module, args=("b",), daemon=True)
        importer_b.start()
        builtins.b_started.wait(30)
        importer_a = threading.Thread(target=importlib.import_module, args=("a",), daemon=True)
        importer_a.start()
        importer_a.join(10)
        importer_b.join(10)
        if importer_a.is_alive() or importer_b.is_alive():
            print(json.dumps("deadlock"), flush=True)
            os._exit(0)
        import a, b
        out = [list(toolcall.tool_names(a)), list(toolcall.tool_names(b))]
        """,
        tmp_path,
    )
    assert out == [["pay"], ["ping"]]
