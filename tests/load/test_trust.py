"""A cache entry is data, never authority (SPEC section 6: Trust, Freshness; issue 10).

Forged entries are built with the cache's own encoder (``read_entry`` then ``write_entry``
of a modified copy), so they pass every integrity check a damaged file would fail: only the
check against the live module stands between them and what runs. Each scenario runs in real
processes, the way a deployment meets it.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import textwrap
import tracemalloc
from pathlib import Path
from typing import Any

import msgspec
import pytest

import subproc
from toolcall import ir
from toolcall._cache import store as _cache

TOOLS = '''
import os

__toolcall__ = True


def greet(name: str) -> str:
    """Say hello."""
    return f"hello {name}"


def _secret(name: str) -> str:
    return "private"
'''

CALL = """
import json, sys, toolcall, tools
result = toolcall.run(tools, "greet", json.loads(sys.argv[1]))
ok = isinstance(result, toolcall.Ok)
print(json.dumps({"ok": ok, "value": result.value if ok else None,
                  "names": list(toolcall.tool_names(tools))}))
"""


LOGGED = "import logging; logging.basicConfig(level=logging.WARNING)\n" + CALL
"""``CALL`` with toolcall's warnings on stderr."""

run = subproc.json_run


def greeted(root: Path, cache: Path | str, code: str) -> subprocess.CompletedProcess[Any]:
    """A child running ``code`` (``CALL`` and more) for ``{"name": "x"}`` with this cache,
    which must exit 0: what a test reads is what it printed and logged."""
    done = subproc.python(
        "-c",
        code,
        '{"name": "x"}',
        paths=[root],
        env={"TOOLCALL_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=root,
    )
    assert done.returncode == 0, done.stderr
    return done


def primed(tmp_path: Path, source: str = TOOLS) -> tuple[Path, Path, Path]:
    """(import root, cache, the one entry file) after a first process cached ``tools``."""
    root, cache = tmp_path / "proj", tmp_path / "cache"
    root.mkdir()
    (root / "tools.py").write_text(textwrap.dedent(source))
    run(root, cache, CALL, json.dumps({"name": "x"}))
    (entry,) = cache.glob("tools-*.tcc")
    return root, cache, entry


def forge(entry: Path, **changes: Any) -> None:
    """Rewrite ``entry`` in place, consistently, with the cache's own encoder."""
    record = _cache.read_entry(entry)
    assert record is not None
    assert _cache.write_entry(entry, msgspec.structs.replace(record, **changes))


def retyped(record_ir: ir.ModuleIR, **tool_changes: Any) -> ir.ModuleIR:
    (tool,) = record_ir.tools
    return ir.ModuleIR(
        module=record_ir.module, tools=(msgspec.structs.replace(tool, **tool_changes),)
    )


def current_ir(entry: Path) -> ir.ModuleIR:
    record = _cache.read_entry(entry)
    assert record is not None
    return record.ir


@pytest.mark.parametrize("qualname", ["os.system", "_secret", "__loader__.get_data"])
def test_a_forged_tool_never_routes_a_call_elsewhere(tmp_path: Path, qualname: str) -> None:
    """A tool naming an attribute path, a private or an imported function is a miss: the
    module is derived again and ``greet`` runs."""
    root, cache, entry = primed(tmp_path)
    marker = tmp_path / "pwned"
    module_ir = current_ir(entry)
    (param,) = module_ir.tools[0].parameters
    forged = retyped(
        module_ir,
        qualname=qualname,
        parameters=(msgspec.structs.replace(param, positional_only=True),),
    )
    forge(entry, ir=forged)
    out = run(root, cache, CALL, json.dumps({"name": f"touch {marker}"}))
    assert out == {"ok": True, "value": f"hello touch {marker}", "names": ["greet"]}
    assert not marker.exists()


DATACLASS_TOOLS = '''
import dataclasses
import enum
import os

__toolcall__ = True


@dataclasses.dataclass
class Order:
    command: str


class Size(enum.Enum):
    S = "s"


def greet(order: Order, size: Size = Size.S) -> str:
    """Take an order."""
    return f"{type(order).__name__} {order.command} {size.value}"
'''

ORDER = """
import json, sys, toolcall, tools
calls = [toolcall.run(tools, "greet", json.loads(arg)) for arg in sys.argv[1:]]
ok = [isinstance(r, toolcall.Ok) for r in calls]
print(json.dumps([[o, r.value if o else r.error.kind] for o, r in zip(ok, calls)]))
"""


def test_forged_class_references_are_never_imported_or_called(tmp_path: Path) -> None:
    """A dataclass reference rewritten to ``os:system`` and an Enum one rewritten to a
    function are misses: nothing is called, not even for a call rejected for a missing
    argument (an Enum is resolved when the tool is first prepared)."""
    root, cache, _ = primed(tmp_path, DATACLASS_TOOLS)
    cache_entries = list(cache.glob("tools-*.tcc"))
    run(root, cache, ORDER, json.dumps({"order": {"command": "x"}}))
    (entry,) = cache_entries
    marker = tmp_path / "pwned"
    module_ir = current_ir(entry)
    order, size = module_ir.tools[0].parameters
    forged = retyped(
        module_ir,
        parameters=(
            msgspec.structs.replace(
                order, type=msgspec.structs.replace(order.type, ref="os:system")
            ),
            msgspec.structs.replace(
                size,
                type=msgspec.structs.replace(
                    size.type, ref="os:system", values=(f"touch {marker}",)
                ),
            ),
        ),
    )
    forge(entry, ir=forged)
    out = run(root, cache, ORDER, "{}", json.dumps({"order": {"command": f"touch {marker}"}}))
    assert out == [[False, "missing_argument"], [True, f"Order touch {marker} s"]]
    assert not marker.exists()


def test_types_nested_deeper_than_the_library_writes_are_a_miss(tmp_path: Path) -> None:
    """A 600-deep parameter type and a 900-deep rendered schema neither raise
    ``RecursionError`` out of ``run`` / ``emit`` nor replace the real tool."""
    root, cache, entry = primed(tmp_path)
    module_ir = current_ir(entry)
    (param,) = module_ir.tools[0].parameters
    deep = ir.Type(kind="string")
    for _ in range(600):
        deep = ir.Type(kind="array", py="list", items=deep)
    record = _cache.read_entry(entry)
    assert record is not None
    # a node table whose schema is a 900-deep list: each node the one-item list of the last
    nested: list[Any] = ["x", *([[i]] for i in range(900))]
    forge(
        entry,
        ir=retyped(module_ir, parameters=(msgspec.structs.replace(param, type=deep),)),
        variants={**record.variants, "nodes": nested, "loose": [900], "strict": [900]},
    )
    code = CALL + "print(json.dumps(toolcall.emit(tools, 'openai')[0]['function']['name']))\n"
    done = greeted(root, cache, code)
    first, name = done.stdout.splitlines()
    assert json.loads(first)["value"] == "hello x"
    assert json.loads(name) == "greet"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("planted", ["fifo", "/dev/zero"])
def test_recorded_paths_that_are_not_regular_files_are_a_miss(tmp_path: Path, planted: str) -> None:
    """A dependency recorded as a FIFO does not hang the import, nor does ``/dev/zero``
    exhaust memory (the child runs with a 1 GiB address-space limit); ``toolcall-cache
    list`` and ``clean`` do not hang either."""
    root, cache, entry = primed(tmp_path)
    path = tmp_path / "fifo"
    if planted == "fifo":
        os.mkfifo(path)
    else:
        path = Path(planted)
    dep = _cache.Dep(kind="file", name=str(path), digest="0" * 128)
    forge(entry, deps=(dep,))
    limited = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
    out = run(root, cache, limited + CALL, json.dumps({"name": "x"}))
    assert out["value"] == "hello x"
    for command in ("list", "clean"):
        done = subproc.python(
            "-c",
            limited + "from toolcall.cli.cache import main; raise SystemExit(main())",
            command,
            "--cache-dir",
            str(cache),
            paths=[root],
            cwd=root,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr


def test_an_oversized_entry_is_not_read(tmp_path: Path) -> None:
    """A 200 MiB file at an entry's path is refused from its size, without reading it."""
    *_, entry = primed(tmp_path)
    with open(entry, "r+b") as f:
        f.truncate(200 << 20)
    tracemalloc.start()
    try:
        assert _cache.read_entry(entry) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def _untrusted(kind: str, tmp_path: Path) -> Path:
    real = tmp_path / "real-cache"
    real.mkdir(mode=0o700)
    if kind == "symlink":
        link = tmp_path / "cache-link"
        link.symlink_to(real)
        return link
    if kind == "world-writable":
        real.chmod(0o1777)
    elif kind == "group-writable":
        real.chmod(0o770)
    elif os.geteuid() == 0:
        os.chown(real, 4321, 4321)
    else:
        pytest.skip("making a directory owned by another user needs root")
    return real


@pytest.mark.parametrize("kind", ["symlink", "world-writable", "group-writable", "foreign"])
def test_an_untrusted_cache_directory_is_refused_loudly(tmp_path: Path, kind: str) -> None:
    """The directory is neither read nor written, and a WARNING names it."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "tools.py").write_text(TOOLS)
    directory = _untrusted(kind, tmp_path)
    done = greeted(root, directory, LOGGED)
    assert json.loads(done.stdout)["value"] == "hello x"
    assert f"not using the cache directory {directory}" in done.stderr
    assert list(Path(directory).iterdir()) == []
    assert stat.S_ISDIR(os.lstat(tmp_path / "real-cache").st_mode)


def test_an_entry_another_user_can_write_is_refused(tmp_path: Path) -> None:
    """An entry another user can write is not used, and the log says so."""
    root, cache, entry = primed(tmp_path)
    entry.chmod(0o666)
    done = greeted(root, cache, LOGGED)
    assert f"not using the cache entry {entry}" in done.stderr


ENV_DEFAULT = '''
import os

__toolcall__ = True


def forecast(days: int = int(os.environ.get("DAYS", "3"))) -> int:
    """Forecast."""
    return days
'''

DEFAULT = """
import json, toolcall, tools
(tool,) = toolcall.emit(tools, "mcp")
print(json.dumps(tool["inputSchema"]["properties"]["days"].get("default")))
"""


def test_a_default_computed_at_import_is_checked_on_a_warm_load(tmp_path: Path) -> None:
    """A default computed at import is checked against the live one on a warm load."""
    root, cache = tmp_path / "proj", tmp_path / "cache"
    root.mkdir()
    (root / "tools.py").write_text(ENV_DEFAULT)
    assert run(root, cache, DEFAULT, DAYS="3") == 3
    assert run(root, cache, DEFAULT, DAYS="7") == 7
    assert run(root, cache, DEFAULT, DAYS="3") == 3


@pytest.mark.parametrize(
    ("consts_module", "imports", "annotation"),
    [
        ("consts", "from consts import Units", "Units"),
        ("app.consts", "from ..consts import Units", "Units"),
        ("app.consts", "from .. import consts", "consts.Units"),
        # only the import inside the function names app.consts
        (
            "app.consts",
            "import app\n\n\ndef _setup() -> None:\n    import app.consts",
            "app.consts.Units",
        ),
    ],
)
def test_project_imports_are_dependencies(
    tmp_path: Path, consts_module: str, imports: str, annotation: str
) -> None:
    """Editing a constants module the tools import changes the next process's schema,
    however the import is written: absolute, relative, or inside a function."""
    root, cache = tmp_path / "proj", tmp_path / "cache"
    (root / "app" / "sub").mkdir(parents=True)
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "sub" / "__init__.py").write_text("")
    consts = root.joinpath(*consts_module.split(".")).with_suffix(".py")
    consts.write_text('from typing import Literal\n\nUnits = Literal["c", "f"]\n')
    (root / "app" / "sub" / "tools.py").write_text(
        f"{imports}\n\n__toolcall__ = True\n\n\n"
        f"def temp(units: {annotation}) -> str:\n    return units\n"
    )
    schema = f"""
import json, toolcall, {consts_module}, app.sub.tools as tools
(tool,) = toolcall.emit(tools, "mcp")
print(json.dumps(tool["inputSchema"]["properties"]["units"]["enum"]))
"""
    assert run(root, cache, schema) == ["c", "f"]
    consts.write_text('from typing import Literal\n\nUnits = Literal["c", "f", "k"]\n')
    assert run(root, cache, schema) == ["c", "f", "k"]


KINDS = '''
import dataclasses
import enum
import typing

import msgspec
import typing_extensions

__toolcall__ = True


class Size(enum.Enum):
    S = "s"


@dataclasses.dataclass
class Box:
    size: Size


class Point(typing.NamedTuple):
    x: int


class Tag(msgspec.Struct):
    name: str


class Plain(typing.TypedDict):
    a: int


class Extended(typing_extensions.TypedDict):
    b: int


def pack(box: Box, at: Point, tag: Tag, plain: Plain, extended: Extended, days: int = 3) -> str:
    """Pack."""
    return "ok"
'''

WARM = """
import json, sys, toolcall, tools
names = list(toolcall.tool_names(tools))
print(json.dumps([names, "toolcall._derive.module" in sys.modules]))
"""


def test_a_genuine_entry_of_every_class_kind_passes_the_checks(tmp_path: Path) -> None:
    """The checks never turn a real entry into a miss: the second process loads it without
    importing derivation at all."""
    root, cache, _ = primed(tmp_path, KINDS)
    assert run(root, cache, WARM) == [["pack"], False]


SUBCLASSES = '''
import dataclasses
import typing

__toolcall__ = True


class Point(typing.NamedTuple):
    x: int


class Point3(Point):
    """Inherits the NamedTuple's fields."""


@dataclasses.dataclass
class Box:
    w: int


class Crate(Box):
    """Not decorated: the dataclass's fields and __init__ serve it."""


class Meters(int):
    pass


class Name(str):
    pass


def pack(at: Point3, box: Crate, n: int = Meters(3), s: str = Name("a")) -> str:
    """Pack."""
    return "ok"
'''


def test_subclasses_of_a_kind_or_of_a_json_type_load_warm(tmp_path: Path) -> None:
    """Derivation and the checks read a class's kind and a default's JSON value by one rule:
    a NamedTuple or dataclass subclass, or an ``int`` or ``str`` subclass as a default, does
    not make every load a miss (and such a default no longer makes the first ``emit`` raise:
    msgspec encodes no subclass)."""
    root, cache, _ = primed(tmp_path, SUBCLASSES)
    assert run(root, cache, WARM) == [["pack"], False]
