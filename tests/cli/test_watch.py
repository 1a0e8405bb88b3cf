"""``toolcall watch``: initial export, rebuilds on saves, broken saves, filtering, stopping."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import subproc

TIMEOUT = 10.0

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def tool(name: str) -> str:
    """Source of one no-argument tool."""
    return f'\n\ndef {name}() -> None:\n    """Tool {name}."""\n'


def marked(*names: str) -> str:
    """A marked module defining one tool per name."""
    return "__toolcall__ = True\n" + "".join(tool(n) for n in names)


def wait_for(
    condition: Callable[[], object],
    what: str,
    log: Callable[[], str] = str,
    timeout: float = TIMEOUT,
) -> None:
    """Poll ``condition`` until it is true; fail naming ``what`` (and the log) after a timeout."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what}; log:\n{log()}")
        time.sleep(0.05)


def _interruptible() -> None:
    """In the watcher, before it starts: Ctrl-C's SIGINT as in a terminal. A test run started
    as a shell's background job (``scripts/test &``) ignores SIGINT, and a child inherits that,
    which a Python then keeps."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Watcher:
    """A ``toolcall watch`` subprocess on ``project``, exporting to ``out``, logging to a file."""

    def __init__(self, tmp_path: Path, *options: str, cwd: Path | None = None) -> None:
        self.options = options
        self.cwd = cwd
        self.project = tmp_path / "project"
        self.project.mkdir()
        self.out = tmp_path / "tools.json"
        self.log_path = tmp_path / "watch.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        # -P, like the console script: the current directory is not on sys.path.
        command = ["-P", "-m", "toolcall.cli.main", "watch", str(self.project)]
        with self.log_path.open("wb") as log:
            self.proc = subproc.spawn(
                *command,
                "--out",
                self.out,
                *self.options,
                # faulthandler: a watcher that hangs is made to dump its threads (stop)
                env={"TOOLCALL_CACHE": "0", "PYTHONFAULTHANDLER": "1"},
                cwd=self.cwd,
                stdout=log,
                stderr=subprocess.STDOUT,
                text=False,
                preexec_fn=_interruptible,
            )

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8")

    def names(self) -> list[str] | None:
        try:
            return [t["function"]["name"] for t in json.loads(self.out.read_bytes())]
        except (OSError, ValueError):
            return None

    def wait_for_names(self, *names: str) -> None:
        wait_for(lambda: self.names() == list(names), f"tools {names}", self.log)

    def wait_for_log(self, text: str) -> None:
        wait_for(lambda: text in self.log(), repr(text), self.log)

    def write(self, relative: str, source: str) -> Path:
        path = self.project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
        return path

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, signum: int) -> int:
        """Send ``signum``; the exit code. A watcher still running after ``TIMEOUT`` is
        aborted, so that faulthandler writes where each of its threads was, and the test
        fails showing that log."""
        assert self.proc is not None
        self.proc.send_signal(signum)
        try:
            return self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            try:  # which signals it ignores or blocks (Linux)
                status = Path(f"/proc/{self.proc.pid}/status").read_text(encoding="utf-8")
            except OSError:
                status = ""
            masks = " ".join(line for line in status.splitlines() if line.startswith("Sig"))
            self.proc.send_signal(signal.SIGABRT)
            self.proc.wait(timeout=TIMEOUT)
            log = self.log()
            pytest.fail(f"the watcher did not stop on signal {signum} ({masks}); log:\n{log}")

    def close(self) -> None:
        """Stop the watcher if it still runs: SIGTERM first, so that it exits normally (and a
        child measured by coverage saves its data), SIGKILL if it does not."""
        if not self.running():
            return
        assert self.proc is not None
        self.proc.terminate()
        try:
            self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def started(tmp_path: Path, *options: str) -> Iterator[Watcher]:
    """A started watcher whose project holds ``tools.py`` with tool ``one``, initial export done."""
    w = Watcher(tmp_path, *options)
    w.write("tools.py", marked("one"))
    w.start()
    try:
        w.wait_for_names("one")
        w.wait_for_log("exported 1 tool")
        yield w
    finally:
        w.close()


@pytest.fixture
def watcher(tmp_path: Path) -> Iterator[Watcher]:
    """A watcher on OS notifications."""
    yield from started(tmp_path)


@pytest.fixture
def polling_watcher(tmp_path: Path) -> Iterator[Watcher]:
    """A watcher polling the file system (``--polling``)."""
    yield from started(tmp_path, "--polling")


def test_initial_export(watcher: Watcher) -> None:
    """The watcher exports once at start and says so in one status line."""
    assert "toolcall watch: exported 1 tool from 1 module to " in watcher.log()
    assert watcher.out.read_text().endswith("]\n")


def test_edit_updates_the_export(watcher: Watcher) -> None:
    """Saving a module (a tool added) re-exports it within seconds."""
    watcher.write("tools.py", marked("one", "two"))
    watcher.wait_for_names("one", "two")
    watcher.wait_for_log("exported 2 tools from 1 module")


def test_atomic_save_is_noticed(watcher: Watcher) -> None:
    """An editor's atomic save (write a temp file, rename it over the module) counts."""
    temp = watcher.write("tools.py~tmp", marked("one", "renamed"))
    os.replace(temp, watcher.project / "tools.py")
    watcher.wait_for_names("one", "renamed")


def test_polling_notices_saves(polling_watcher: Watcher) -> None:
    """`--polling` notices a plain save and an atomic save too."""
    polling_watcher.write("tools.py", marked("one", "two"))
    polling_watcher.wait_for_names("one", "two")
    temp = polling_watcher.write("tools.py~tmp", marked("one", "three"))
    os.replace(temp, polling_watcher.project / "tools.py")
    polling_watcher.wait_for_names("one", "three")


def test_new_module_in_a_package_is_picked_up(watcher: Watcher) -> None:
    """A marked module created later, in a new package, joins the export in name order."""
    watcher.write("app/__init__.py", "")
    watcher.write("app/extra.py", marked("extra"))
    watcher.wait_for_names("extra", "one")
    watcher.wait_for_log("exported 2 tools from 2 modules")
    assert "Warning" not in watcher.log()


def test_broken_save_keeps_last_good_output(watcher: Watcher) -> None:
    """A syntax error is reported, the last good file kept, and watching goes on."""
    good = watcher.out.read_bytes()
    watcher.write("tools.py", marked("one") + "\nx = (\n")
    watcher.wait_for_log("export failed")
    log = watcher.log()
    assert "toolcall: error: cannot import tools: SyntaxError: " in log
    assert "kept the last good output; watching for changes" in log
    assert "Traceback" not in log
    assert watcher.out.read_bytes() == good
    assert watcher.running()
    watcher.write("tools.py", marked("one", "fixed"))
    watcher.wait_for_names("one", "fixed")


def test_ignored_paths_do_not_rebuild(watcher: Watcher) -> None:
    """Changes in .git, __pycache__, build, hidden and non-.py files trigger no export."""
    for directory in (".git", "__pycache__", "build"):
        (watcher.project / directory).mkdir(exist_ok=True)  # __pycache__: the first import
    time.sleep(0.3)  # let the observer watch the new directories before files appear in them
    exports = watcher.log().count("exported")
    watcher.write(".git/hook.py", marked("no"))
    watcher.write("build/lib/tools.py", marked("no"))
    watcher.write("__pycache__/cached.py", marked("no"))
    watcher.write(".tools.py", marked("no"))
    watcher.write("notes.txt", "__toolcall__ = True\n")
    time.sleep(1.0)
    watcher.write("tools.py", marked("one", "last"))
    watcher.wait_for_names("one", "last")
    # the export file can be read before its log line is: wait for the line, then count
    wait_for(lambda: watcher.log().count("exported") > exports, "the export's log line")
    assert watcher.log().count("exported") == exports + 1


def test_project_modules_do_not_shadow_the_cli(tmp_path: Path) -> None:
    """Watching from the project directory: its `json.py` does not break the export's startup."""
    project = tmp_path / "project"
    w = Watcher(tmp_path, cwd=project)
    w.write("json.py", "raise ImportError('the project json.py was imported')\n")
    w.write("tools.py", marked("one"))
    w.start()
    try:
        w.wait_for_names("one")
    finally:
        w.close()
    assert "the project json.py was imported" not in w.log()


def test_sigint_exits_zero(watcher: Watcher) -> None:
    """Ctrl-C (SIGINT) stops the watcher: exit 0, no traceback."""
    assert watcher.stop(signal.SIGINT) == 0
    log = watcher.log()
    assert log.endswith("toolcall watch: stopped\n")
    assert "Traceback" not in log


def test_sigterm_exits_zero(watcher: Watcher) -> None:
    """SIGTERM stops the watcher like Ctrl-C: exit 0, no traceback."""
    assert watcher.stop(signal.SIGTERM) == 0
    assert watcher.log().endswith("toolcall watch: stopped\n")


def test_missing_watchdog_is_one_line(tmp_path: Path) -> None:
    """Without watchdog installed: exit 1 and the install hint, no traceback."""
    code = (
        "import sys; sys.modules['watchdog'] = None; "
        "from toolcall.cli.main import main; sys.exit(main(['watch']))"
    )
    result = subproc.python("-c", code, cwd=tmp_path, timeout=60)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "toolcall: error: watch mode needs the watch extra: pip install 'pytoolcall[watch]'\n"
    )


def test_path_must_be_a_directory(tmp_path: Path) -> None:
    """A PATH that is not a directory: exit 1, one line, before any watching."""
    result = subproc.python("-m", "toolcall.cli.main", "watch", "missing", cwd=tmp_path, timeout=60)
    assert (result.returncode, result.stderr) == (1, "toolcall: error: not a directory: missing\n")
