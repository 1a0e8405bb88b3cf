"""The command line says what a new user needs, through the real console scripts (issue 15).

Each test runs ``bin/toolcall`` or ``bin/toolcall-cache`` of this interpreter's environment in
a fresh process, with this checkout's ``src`` first on ``PYTHONPATH`` (``tests/subproc.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import subproc
import toolcall
from files import write

BIN = Path(sys.executable).parent
ROOT = subproc.ROOT

TYPO = '''\
__toolcall__ = True


def search(query: str) -> list[str]:
    """Search the workspace.

    Args:
        qeury: the text to look for
    """
    return []
'''
TYPO_LINE = 4
TYPO_WARNING = "search: the docstring documents 'qeury', which it does not have"

CLEAN = '''\
__toolcall__ = True


def ping(host: str) -> str:
    """Ping a host.

    Args:
        host: the host name
    """
    return host
'''


def script(
    name: str, *args: str, cwd: Path, env: dict[str, str | None] | None = None, **options: object
) -> subprocess.CompletedProcess[str]:
    """Run console script ``name`` (``toolcall`` or ``toolcall-cache``) with ``args``."""
    return subproc.python(BIN / name, *args, cwd=cwd, env=env, **options)


def toolcall_cli(*args: str, cwd: Path, **options: object) -> subprocess.CompletedProcess[str]:
    return script("toolcall", *args, cwd=cwd, **options)


def agent_project(root: Path, body: str = CLEAN) -> Path:
    """``agent/tools/workspace.py`` in regular packages, as in the issue's report."""
    write(root, "agent/__init__.py")
    write(root, "agent/tools/__init__.py")
    return write(root, "agent/tools/workspace.py", body)


# -- 1. installable under its own name, with a version ---------------------------------


@pytest.mark.parametrize("name", ["toolcall", "toolcall-cache"])
def test_version_option_on_both_scripts(tmp_path: Path, name: str) -> None:
    """`--version` prints the script name and `toolcall.__version__`, exit 0."""
    result = script(name, "--version", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f"{name} {toolcall.__version__}\n",
        "",
    )


def test_version_attribute_costs_no_metadata_scan(tmp_path: Path) -> None:
    """`toolcall.__version__` is a string from the source, read without importlib.metadata."""
    code = (
        "import sys, toolcall; v = toolcall.__version__; "
        "print(v, 'importlib.metadata' in sys.modules)"
    )
    result = subproc.python("-c", code, cwd=tmp_path)
    assert result.stdout == f"{toolcall.__version__} False\n"
    assert toolcall.__version__.count(".") >= 2


@pytest.mark.long
def test_fresh_install_is_named_pytoolcall(tmp_path: Path) -> None:
    """`pip install .` of a clean copy installs distribution `pytoolcall` (importing as
    `toolcall`, scripts unchanged) and the installed `toolcall --version` prints the version."""
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    shutil.copytree(ROOT / "src", tree / "src", ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    target = tmp_path / "target"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
         "--no-index", "--quiet", "--target", str(target), str(tree)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    [info] = target.glob("pytoolcall-*.dist-info")
    metadata = (info / "METADATA").read_text()
    assert "Name: pytoolcall\n" in metadata
    assert f"Version: {toolcall.__version__}\n" in metadata
    entry_points = (info / "entry_points.txt").read_text()
    assert "toolcall = toolcall.cli.main:main" in entry_points
    assert "toolcall-cache = toolcall.cli.cache:main" in entry_points
    assert (target / "toolcall" / "py.typed").is_file()
    installed = subprocess.run(
        [sys.executable, str(target / "bin" / "toolcall"), "--version"],
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert installed.stdout == f"toolcall {toolcall.__version__}\n"
    probe = (
        "import importlib.metadata as m, toolcall; "
        "print(m.version('pytoolcall'), toolcall.__file__)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, "PYTHONPATH": str(target)},
        capture_output=True, text=True, timeout=60, check=False, cwd=tmp_path,
    )  # fmt: skip
    version, file = shown.stdout.split()
    assert version == toolcall.__version__
    assert Path(file).is_relative_to(target)


def test_readme_and_metadata_say_pytoolcall() -> None:
    """README says `pip install pytoolcall` and warns about the unrelated `toolcall`; no
    `toolcall[extra]` spelling is left in the metadata, README, docs or CLI messages."""
    readme = (ROOT / "README.md").read_text()
    assert "pip install pytoolcall" in readme
    assert "cannot be installed" in readme
    texts = [ROOT / "pyproject.toml", ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    texts += sorted((ROOT / "src" / "toolcall" / "cli").glob("*.py"))
    stale = [str(p.relative_to(ROOT)) for p in texts if "'toolcall[" in p.read_text()]
    stale += [str(p.relative_to(ROOT)) for p in texts if '"toolcall[' in p.read_text()]
    assert stale == []


# -- 2. toolcall check ------------------------------------------------------------------


def test_check_reports_every_warning_even_with_a_warm_cache(tmp_path: Path) -> None:
    """The typo warns at every check, although a warm cache makes `export` silent; exit 1."""
    agent_project(tmp_path, TYPO)
    cache = {"TOOLCALL_CACHE_DIR": str(tmp_path / "cache")}
    first = toolcall_cli("export", cwd=tmp_path, env=cache)
    assert TYPO_WARNING in first.stderr
    warm = toolcall_cli("export", cwd=tmp_path, env=cache)
    assert (warm.returncode, warm.stderr) == (0, "")
    before = sorted(p.name for p in (tmp_path / "cache").iterdir())
    for _ in range(2):
        result = toolcall_cli("check", cwd=tmp_path, env=cache)
        assert result.returncode == 1
        assert result.stdout == f"agent/tools/workspace.py:{TYPO_LINE}: {TYPO_WARNING}\n"
        assert result.stderr == "toolcall: checked 1 module (1 tool): 1 problem\n"
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == before


def test_check_clean_module_exits_0(tmp_path: Path) -> None:
    """Nothing to report: empty stdout, exit 0, and nothing written to the cache."""
    agent_project(tmp_path)
    cache = tmp_path / "cache"
    result = toolcall_cli("check", cwd=tmp_path, env={"TOOLCALL_CACHE_DIR": str(cache)})
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == "toolcall: checked 1 module (1 tool): no problems\n"
    assert not cache.exists() or not any(cache.iterdir())


def test_check_takes_paths_names_and_path_option(tmp_path: Path) -> None:
    """A file, a directory, a dotted name (with --path) all check the same module."""
    write(tmp_path, "src/agent/__init__.py")
    write(tmp_path, "src/agent/tools.py", TYPO)
    expected = f"src/agent/tools.py:{TYPO_LINE}: {TYPO_WARNING}\n"
    for args in (
        ["src/agent/tools.py"],
        ["src"],
        ["agent.tools", "--path", "src"],
        ["agent", "--path", "src"],  # an unmarked package: the marked modules inside it
    ):
        result = toolcall_cli("check", *args, cwd=tmp_path)
        assert (result.returncode, result.stdout) == (1, expected), args


def test_check_strict_adds_strict_mode_problems(tmp_path: Path) -> None:
    """`--strict` also prints every check_strict line; without it, only the warnings."""
    write(
        tmp_path,
        "tags.py",
        "from typing import Any\n__toolcall__ = True\n\n\ndef tag(x: Any) -> None:\n"
        '    """Tag.\n\n    Args:\n        x: anything\n    """\n',
    )
    warning = "tags.py:5: tag: x (Any) accepts any value, which strict mode cannot express"
    plain = toolcall_cli("check", cwd=tmp_path)
    strict = toolcall_cli("check", "--strict", cwd=tmp_path)
    [line] = plain.stdout.splitlines()
    assert (plain.returncode, line.startswith(warning)) == (1, True)
    assert strict.stdout.splitlines() == [
        line,
        "tags.py:5: tag: $.properties.x: no type: it accepts any value, which strict mode "
        "cannot express",
    ]
    assert strict.stderr == "toolcall: checked 1 module (1 tool): 2 problems\n"


def test_check_without_marked_modules_fails(tmp_path: Path) -> None:
    """Nothing marked under the search path is a failure, so a misconfigured CI job shows."""
    write(tmp_path, "plain.py", "def f() -> None: ...\n")
    result = toolcall_cli("check", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"toolcall: error: no marked module under {tmp_path}\n"


def test_warnings_as_errors_the_way_the_docs_say(tmp_path: Path) -> None:
    """`-W error::toolcall.ToolcallWarning` is ignored (Python reads -W before installed packages
    are importable), as the docs now say; the `warnings.simplefilter` they recommend works."""
    agent_project(tmp_path, TYPO)
    ignored = subproc.python("-W", "error::toolcall.ToolcallWarning", "-c", "pass", cwd=tmp_path)
    assert ignored.stderr == "Invalid -W option ignored: invalid module name: 'toolcall'\n"
    doc = toolcall.ToolcallWarning.__doc__ or ""
    page = (ROOT / "docs" / "troubleshooting.md").read_text()
    for text in (doc, page):
        assert "toolcall check" in text
        assert 'simplefilter("error", toolcall.ToolcallWarning)' in text
    code = (
        "import warnings, toolcall\n"
        "warnings.simplefilter('error', toolcall.ToolcallWarning)\n"
        "import agent.tools.workspace as tools\n"
        "try:\n    toolcall.emit(tools)\n"
        "except toolcall.ToolcallWarning as exc:\n    print('raised:', exc)\n"
    )
    result = subproc.python("-c", code, cwd=tmp_path, env={"TOOLCALL_CACHE": "0"})
    assert result.stdout == f"raised: {TYPO_WARNING}\n"


# -- 3. stdout carries only the JSON / the protocol -------------------------------------

NOISY = """\
import os
print("hello from import")
os.write(1, b"fd one\\n")
"""


def test_export_stdout_is_only_json(tmp_path: Path) -> None:
    """print() and fd-1 writes at import go to stderr; stdout parses as the export."""
    agent_project(tmp_path, NOISY + CLEAN)
    result = toolcall_cli("export", cwd=tmp_path)
    assert result.returncode == 0
    assert [t["function"]["name"] for t in json.loads(result.stdout)] == ["ping"]
    assert result.stderr.splitlines() == ["hello from import", "fd one"]


def test_serve_mcp_stdio_starts_with_the_protocol(tmp_path: Path) -> None:
    """Over stdio the first line of stdout is the JSON-RPC answer, not the module's print."""
    pytest.importorskip("mcp")
    agent_project(tmp_path, NOISY + CLEAN)
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    result = toolcall_cli(
        "serve-mcp", "agent.tools.workspace", cwd=tmp_path, input=json.dumps(request) + "\n"
    )
    first = result.stdout.splitlines()[0]
    assert json.loads(first)["id"] == 1
    assert "hello from import" in result.stderr
    assert "fd one" in result.stderr


# -- 4. one import rule -----------------------------------------------------------------


def test_build_imports_from_the_current_directory(tmp_path: Path) -> None:
    """`toolcall-cache build agent.tools.workspace` from the project root works like export."""
    agent_project(tmp_path)
    result = script(
        "toolcall-cache", "build", "agent.tools.workspace", "--cache-dir", "c", cwd=tmp_path
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith("built 1 entry in ")


def test_build_names_the_module_that_fails(tmp_path: Path) -> None:
    """A dotted name that does not import: one line naming it."""
    result = script(
        "toolcall-cache", "build", "agent.tools.nothing", "--cache-dir", "c", cwd=tmp_path
    )
    assert result.returncode == 1
    assert result.stderr == (
        "toolcall-cache: error: cannot import agent.tools.nothing: "
        "ModuleNotFoundError: No module named 'agent'\n"
    )


def test_export_takes_file_paths(tmp_path: Path) -> None:
    """`toolcall export agent/tools/workspace.py` exports that module under its package name."""
    agent_project(tmp_path)
    by_path = toolcall_cli("export", "agent/tools/workspace.py", cwd=tmp_path)
    by_name = toolcall_cli("export", "agent.tools.workspace", cwd=tmp_path)
    assert by_path.returncode == 0
    assert by_path.stdout == by_name.stdout
    missing = toolcall_cli("export", "agent/tools/nothing.py", cwd=tmp_path)
    assert (missing.returncode, missing.stderr) == (
        1,
        "toolcall: error: no such file or directory: agent/tools/nothing.py\n",
    )


IMPORT_FAILURES = {
    "exit0": ("import sys\nsys.exit(0)\n", "SystemExit: 0"),
    "exit3": ("import sys\nsys.exit(3)\n", "SystemExit: 3"),
    "interrupted": ("raise KeyboardInterrupt\n", "KeyboardInterrupt"),
    "custom": (
        "class Stop(BaseException):\n    pass\nraise Stop('no config')\n",
        "Stop: no config",
    ),
}


@pytest.mark.parametrize("case", sorted(IMPORT_FAILURES))
@pytest.mark.parametrize(
    ("command", "prog"),
    [
        (["toolcall", "export"], "toolcall"),
        (["toolcall", "check"], "toolcall"),
        (["toolcall-cache", "build", "--cache-dir", "c"], "toolcall-cache"),
    ],
)
def test_failure_at_import_is_one_line_exit_1(
    tmp_path: Path, case: str, command: list[str], prog: str
) -> None:
    """sys.exit (even 0), KeyboardInterrupt, a custom BaseException: exit 1, one line naming
    the module, no traceback, for every command that imports user code."""
    source, shown = IMPORT_FAILURES[case]
    write(tmp_path, f"{case}.py", "__toolcall__ = True\n" + source)
    name, *args = command
    result = script(name, *args, f"{case}.py", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [f"{prog}: error: cannot import {case}: {shown}"]


def test_unreadable_python_file_is_an_error(tmp_path: Path) -> None:
    """A .py file under the search path that cannot be read is reported, not skipped."""
    write(tmp_path, "ok.py", CLEAN)
    (tmp_path / "broken.py").symlink_to(tmp_path / "gone.py")
    commands = [["toolcall", "export"], ["toolcall", "check"], ["toolcall-cache", "build", "."]]
    for name, *args in commands:
        result = script(name, *args, cwd=tmp_path, env={"TOOLCALL_CACHE_DIR": str(tmp_path / "c")})
        assert result.returncode == 1, args
        [line] = result.stderr.splitlines()
        assert line.startswith(f"{name}: error: cannot read "), args
        assert line.endswith(
            "broken.py: No such file or directory; cannot tell whether it is marked"
        ), args


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_file_without_read_permission_is_an_error(tmp_path: Path) -> None:
    """The permission case of the rule above, where the OS enforces it."""
    path = write(tmp_path, "secret.py", CLEAN)
    path.chmod(0)
    result = toolcall_cli("export", cwd=tmp_path)
    assert result.returncode == 1
    assert "cannot read" in result.stderr
    assert "Permission denied" in result.stderr


def test_export_to_closed_stdout(tmp_path: Path) -> None:
    """`toolcall export >&-`: a clean one-line error, exit 1."""
    agent_project(tmp_path)
    result = toolcall_cli(
        "export",
        cwd=tmp_path,
        capture_output=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),
    )
    assert result.returncode == 1
    assert result.stderr == (
        "toolcall: error: standard output is closed: nowhere to write the JSON; use --out FILE\n"
    )


@pytest.mark.parametrize("command", [["toolcall", "check"], ["toolcall-cache", "build"]])
def test_nothing_marked_fails(tmp_path: Path, command: list[str]) -> None:
    """`build` and `check` that find no marked module exit 1 (export writes [] and warns)."""
    write(tmp_path, "plain.py", "def f() -> None: ...\n")
    name, *args = command
    extra = ["--cache-dir", "c"] if "build" in args else []
    result = script(name, *args, *extra, str(tmp_path), cwd=tmp_path)
    assert result.returncode == 1
    assert "no marked module" in result.stderr


def test_serve_mcp_without_the_extra_names_it(tmp_path: Path) -> None:
    """Without anyio/mcp installed, serve-mcp says which extra to install."""
    blocker = write(
        tmp_path,
        "blocked/anyio/__init__.py",
        "raise ModuleNotFoundError(\"No module named 'anyio'\", name='anyio')\n",
    )
    agent_project(tmp_path)
    result = script(
        "toolcall",
        "serve-mcp",
        "agent.tools.workspace",
        cwd=tmp_path,
        env={"PYTHONPATH": os.pathsep.join([str(subproc.SRC), str(blocker.parent.parent)])},
    )
    assert result.returncode == 1
    assert result.stderr == (
        "toolcall: error: serve-mcp needs the mcp extra (no module 'anyio'): "
        "pip install 'pytoolcall[mcp]'\n"
    )


# -- 7. the documentation's extras ------------------------------------------------------


def test_changelog_and_pre_commit_hook() -> None:
    """CHANGELOG.md has an Unreleased section; .pre-commit-hooks.yaml runs `toolcall check`."""
    import yaml

    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert "## [Unreleased]" in changelog
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    [hook] = hooks
    assert hook["id"] == "toolcall-check"
    assert hook["entry"] == "toolcall check"
    assert hook["pass_filenames"] is False
