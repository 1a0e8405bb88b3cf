"""``toolcall export``: output format, discovery, formats, refusals, exit statuses."""

from __future__ import annotations

import json
import os
import subprocess
import types
from collections.abc import Callable
from pathlib import Path

import pytest

import subproc
import toolcall
from files import write
from toolcall._shared.names import FORMATS
from toolcall.cli.discover import DiscoveryError, find_modules, is_marked_source

WEATHER = '''\
__toolcall__ = True


def get_weather(city: str, days: int = 3) -> dict:
    """Get the forecast for a city.

    Args:
        city: city name, e.g. "Oslo"
    """
    return {}
'''

WEATHER_JSON = """\
[
  {
    "function": {
      "description": "Get the forecast for a city.",
      "name": "get_weather",
      "parameters": {
        "additionalProperties": false,
        "properties": {
          "city": {
            "description": "city name, e.g. \\"Oslo\\"",
            "type": "string"
          },
          "days": {
            "default": 3,
            "type": "integer"
          }
        },
        "required": [
          "city"
        ],
        "type": "object"
      }
    },
    "type": "function"
  }
]
"""


def marked(*names: str) -> str:
    """A marked module defining one no-argument tool per name, in the order given."""
    tools = "".join(f'\n\ndef {n}() -> None:\n    """Tool {n}."""\n' for n in names)
    return f"__toolcall__ = True\n{tools}"


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The console entry, as ``python -m toolcall.cli.main``, in a fresh interpreter."""
    return subproc.python(
        "-m",
        "toolcall.cli.main",
        *args,
        env={"TOOLCALL_CACHE": "0", **(env or {})},
        cwd=cwd,
        text=False,
        timeout=60,
    )


def names(output: bytes) -> list[str]:
    """Tool names of an OpenAI-format export, in output order."""
    return [tool["function"]["name"] for tool in json.loads(output)]


def error_lines(result: subprocess.CompletedProcess[bytes]) -> list[str]:
    """The stderr lines, decoded."""
    return result.stderr.decode().splitlines()


def test_exact_output(tmp_path: Path) -> None:
    """One small module: sorted keys, two-space indent, trailing newline, nothing on stderr."""
    write(tmp_path, "weather.py", WEATHER)
    result = run("export", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.decode() == WEATHER_JSON


def test_byte_identical_across_runs_and_cache_states(tmp_path: Path) -> None:
    """Output bytes are the same without a cache, with a cold one and with a warm one."""
    project = tmp_path / "project"
    write(project, "weather.py", WEATHER)
    write(project, "notes.py", marked("note").replace("Tool note.", "Écrit une note — ✓."))
    cache = {"TOOLCALL_CACHE": "", "TOOLCALL_CACHE_DIR": str(tmp_path / "cache")}
    outputs = [
        run("export", cwd=project).stdout,
        run("export", cwd=project, env=cache).stdout,
        run("export", cwd=project, env=cache).stdout,
    ]
    assert any((tmp_path / "cache").iterdir())
    assert outputs[0] == outputs[1] == outputs[2]
    assert "Écrit une note — ✓." in outputs[0].decode()


def test_modules_in_name_order_tools_in_definition_order(tmp_path: Path) -> None:
    """Modules sort by dotted name, whichever order they are given in; tools keep source order."""
    write(tmp_path, "b_tools.py", marked("aardvark"))
    write(tmp_path, "a_tools.py", marked("zebra", "beta", "alpha"))
    expected = ["zebra", "beta", "alpha", "aardvark"]
    assert names(run("export", cwd=tmp_path).stdout) == expected
    assert names(run("export", "b_tools", "a_tools", "b_tools", cwd=tmp_path).stdout) == expected


def test_discovery_exports_marked_modules_only(tmp_path: Path) -> None:
    """Packages and src layouts are found; unmarked, `= 1`, skipped and hidden dirs are not."""
    write(tmp_path, "pkg/__init__.py")
    write(tmp_path, "pkg/sub/__init__.py")
    write(tmp_path, "pkg/sub/deep.py", marked("deep_tool"))
    write(tmp_path, "src/app/__init__.py")
    write(tmp_path, "src/app/tools.py", marked("app_tool") + "\nfrom app import helper\n")
    write(tmp_path, "src/app/helper.py", "")
    write(tmp_path, "top.py", marked("top_tool"))
    write(tmp_path, "plain.py", "def plain_tool() -> None: ...\n")
    write(tmp_path, "one.py", marked("one_tool").replace("= True", "= 1"))
    write(tmp_path, "quoted.py", 'DOC = "__toolcall__ = True"\ndef quoted_tool() -> None: ...\n')
    for skipped in (".hidden", "node_modules", "build", "__pycache__", "env"):
        write(tmp_path, f"{skipped}/skipped_{skipped.strip('._')}.py", marked("skipped"))
    write(tmp_path, "env/pyvenv.cfg", "home = /usr/bin\n")
    result = run("export", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, b"")
    assert names(result.stdout) == ["app_tool", "deep_tool", "top_tool"]


def test_discovered_names_follow_init_files(tmp_path: Path) -> None:
    """A module's name follows its __init__.py chain; its import root is the first dir above."""
    write(tmp_path, "pkg/__init__.py", marked("pkg_tool"))
    write(tmp_path, "pkg/sub/__init__.py")
    write(tmp_path, "pkg/sub/deep.py", marked("deep"))
    write(tmp_path, "src/app/__init__.py")
    write(tmp_path, "src/app/tools.py", marked("t"))
    write(tmp_path, "scripts/loose.py", marked("loose"))
    write(tmp_path, "dist/pkgdist/__init__.py")
    write(tmp_path, "dist/pkgdist/skipped.py", marked("skipped"))
    write(tmp_path, "build/__init__.py")
    write(tmp_path, "build/kept.py", marked("kept"))
    found = [(f.name, f.root.relative_to(tmp_path).as_posix()) for f in find_modules([tmp_path])]
    assert found == [
        ("app.tools", "src"),
        ("build.kept", "."),
        ("loose", "scripts"),
        ("pkg", "."),
        ("pkg.sub.deep", "."),
    ]


def test_discovery_refuses_unimportable_and_clashing_names(tmp_path: Path) -> None:
    """A marked file whose name cannot be imported, or two files with one name, are errors."""
    write(tmp_path, "a/my-tools.py", marked("t"))
    with pytest.raises(DiscoveryError, match="'my-tools' is not a valid module name"):
        find_modules([tmp_path / "a"])
    write(tmp_path, "b/tools.py", marked("t"))
    write(tmp_path, "c/tools.py", marked("u"))
    with pytest.raises(DiscoveryError, match="two marked modules are named tools: "):
        find_modules([tmp_path / "b", tmp_path / "c"])
    result = run("export", "--path", "b", "--path", "c", cwd=tmp_path)
    assert result.returncode == 1
    assert error_lines(result) == [
        f"toolcall: error: two marked modules are named tools: {tmp_path / 'b' / 'tools.py'} "
        f"and {tmp_path / 'c' / 'tools.py'}"
    ]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("__toolcall__ = True", True),
        ("__toolcall__: bool = True", True),
        ("x = __toolcall__ = True", True),
        ("__toolcall__ = 1", False),
        ("__toolcall__ = 'True'", False),
        ("__toolcall__ = True\n__toolcall__ = False", False),
        ("if True:\n    __toolcall__ = True", False),
        ("def f():\n    __toolcall__ = True", False),
        ("s = '__toolcall__ = True'", False),
        ("__toolcall__ = True\nx = (", True),
        ("x = 1", False),
    ],
)
def test_is_marked_source(source: str, expected: bool) -> None:
    """Only a module-level `__toolcall__ = True` marks; unparsable source mentioning it counts."""
    assert is_marked_source(source.encode()) is expected


@pytest.mark.parametrize(
    ("format", "strict"),
    [(f, s) for f in ("openai", "anthropic", "mcp") for s in (False, True)],
)
def test_output_is_emit_concatenated(
    tmp_path: Path, make_module: Callable[..., types.ModuleType], format: str, strict: bool
) -> None:
    """`--format` / `--strict` print exactly `toolcall.emit(m, format, strict=...)` per module."""
    first = make_module(WEATHER, name="cli_a_weather")
    second = make_module(marked("ping", "pong"), name="cli_b_ping")
    args = ["--format", format, *(["--strict"] if strict else [])]
    result = run("export", *args, cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, b"")
    expected = [*toolcall.emit(first, format, strict=strict)]
    expected += toolcall.emit(second, format, strict=strict)
    assert json.loads(result.stdout) == json.loads(json.dumps(expected))


def test_out_writes_the_file_and_nothing_on_stdout(tmp_path: Path) -> None:
    """`--out FILE`: the same bytes in the file, an existing file replaced, stdout empty."""
    write(tmp_path, "weather.py", WEATHER)
    out = write(tmp_path, "out/tools.json", "stale")
    result = run("export", "--out", "out/tools.json", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert out.read_text() == WEATHER_JSON
    assert os.listdir(tmp_path / "out") == ["tools.json"]


def test_path_option_imports_from_that_directory(tmp_path: Path) -> None:
    """`--path DIR` is searched and put on sys.path, with or without module names."""
    write(tmp_path, "lib/weather.py", WEATHER)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    by_discovery = run("export", "--path", str(tmp_path / "lib"), cwd=elsewhere)
    by_name = run("export", "weather", "--path", str(tmp_path / "lib"), cwd=elsewhere)
    assert by_discovery.stdout.decode() == by_name.stdout.decode() == WEATHER_JSON


def test_invalid_tool_name_is_refused(tmp_path: Path) -> None:
    """A name outside ^[a-zA-Z0-9_-]{1,64}$: exit 1 naming it and its module, nothing written."""
    write(tmp_path, "weather.py", WEATHER)
    write(tmp_path, "drinks.py", marked("café", "tea"))
    result = run("export", "--out", "tools.json", cwd=tmp_path)
    assert result.returncode == 1
    assert error_lines(result)[-1] == (
        "toolcall: error: invalid tool name 'café' in drinks: providers require names matching "
        "^[a-zA-Z0-9_-]{1,64}$; rename the function or mark it @toolcall.exclude"
    )
    assert [name for name in os.listdir(tmp_path) if "tools.json" in name] == []


def test_duplicate_tool_name_is_refused(tmp_path: Path) -> None:
    """Two modules defining the same tool name: exit 1 naming both, since providers refuse it."""
    write(tmp_path, "a.py", marked("ping"))
    write(tmp_path, "b.py", marked("ping"))
    result = run("export", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, b"")
    assert error_lines(result) == ["toolcall: error: two tools are named 'ping': in a and in b"]


def test_unknown_module(tmp_path: Path) -> None:
    """A module that does not exist: exit 1, one line."""
    result = run("export", "no_such_module", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, b"")
    assert error_lines(result) == [
        "toolcall: error: cannot import no_such_module: "
        "ModuleNotFoundError: No module named 'no_such_module'"
    ]


def test_unmarked_module(tmp_path: Path) -> None:
    """A module without `__toolcall__ = True` named explicitly: exit 1, one line."""
    write(tmp_path, "plain.py", "def f() -> None: ...\n")
    result = run("export", "plain", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, b"")
    [line] = error_lines(result)
    assert line.startswith("toolcall: error: plain is not a tool module")


def test_syntax_error(tmp_path: Path) -> None:
    """A syntax error: exit 1, one line with the file and line, no traceback."""
    write(tmp_path, "broken.py", "__toolcall__ = True\n\nx = (\n")
    result = run("export", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, b"")
    [line] = error_lines(result)
    assert line.startswith("toolcall: error: cannot import broken: SyntaxError: ")
    assert line.endswith("(broken.py, line 3)")


def test_error_at_import(tmp_path: Path) -> None:
    """An exception or sys.exit while importing a module: exit 1, one line, no traceback."""
    write(tmp_path, "raises.py", "__toolcall__ = True\nraise RuntimeError('no db\\nconfigured')\n")
    write(tmp_path, "exits.py", "__toolcall__ = True\nimport sys\nsys.exit(3)\n")
    raises = run("export", "raises", cwd=tmp_path)
    exits = run("export", "exits", cwd=tmp_path)
    assert (raises.returncode, exits.returncode) == (1, 1)
    assert error_lines(raises) == [
        "toolcall: error: cannot import raises: RuntimeError: no db configured"
    ]
    assert error_lines(exits) == ["toolcall: error: cannot import exits: SystemExit: 3"]


def test_name_taken_by_another_module(tmp_path: Path) -> None:
    """A discovered file whose name imports something else (`json.py`): exit 1, not wrong output."""
    write(tmp_path, "lib/json.py", marked("parse"))
    result = run("export", "--path", "lib", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, b"")
    [line] = error_lines(result)
    expected = f"toolcall: error: cannot import json from {tmp_path / 'lib' / 'json.py'}: "
    assert line.startswith(expected + "that name is taken by ")


def test_warnings_are_printed_but_do_not_fail(tmp_path: Path) -> None:
    """Derivation warnings go to stderr as `warning: file:line: message`; the export succeeds."""
    source = marked("ok") + "\n\ndef untyped(x):\n    return x\n"
    write(tmp_path, "tools.py", source)
    lineno = source.splitlines().index("def untyped(x):") + 1
    result = run("export", cwd=tmp_path)
    assert result.returncode == 0
    assert names(result.stdout) == ["ok"]
    [line] = error_lines(result)
    assert line.startswith(f"warning: tools.py:{lineno}: untyped has parameters but no annotations")


def test_no_marked_modules(tmp_path: Path) -> None:
    """Nothing marked under --path: an empty array, and a warning saying where it looked."""
    result = run("export", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, b"[]\n")
    assert error_lines(result) == [f"toolcall: warning: no marked modules under {tmp_path}"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["export", "--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["export", "--bogus"], "unrecognized arguments: --bogus"),
        ([], "the following arguments are required: COMMAND"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    """A bad option or a missing command is a usage error: exit 2, usage on stderr."""
    result = run(*args, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, b"")
    assert message in result.stderr.decode()
    assert b"Traceback" not in result.stderr


def test_path_must_be_a_directory(tmp_path: Path) -> None:
    """`--path` naming no directory: exit 1, one line."""
    result = run("export", "--path", "missing", cwd=tmp_path)
    assert result.returncode == 1
    assert error_lines(result) == ["toolcall: error: not a directory: missing"]


def test_help(tmp_path: Path) -> None:
    """`export --help` documents discovery and the options, and exits 0."""
    result = run("export", "--help", cwd=tmp_path)
    text = result.stdout.decode()
    assert result.returncode == 0
    formats = "--format {" + ",".join(FORMATS) + "}"
    for option in (formats, "--strict", "--out FILE", "--path DIR"):
        assert option in text
    assert "__init__.py" in text


def test_strict_export_refuses_what_strict_mode_rejects(tmp_path: Path) -> None:
    """`--strict` fails (exit 1, one line) on a schema strict mode rejects; plain export works."""
    write(
        tmp_path,
        "loose.py",
        "from typing import Any\n__toolcall__ = True\n\n\ndef f(x: Any) -> None:\n    pass\n",
    )
    assert run("export", cwd=tmp_path).returncode == 0
    result = run("export", "--strict", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == b""
    (line,) = [line for line in error_lines(result) if not line.startswith("warning: ")]
    assert line.startswith("toolcall: error: not accepted by strict mode: f: $.properties.x: ")
