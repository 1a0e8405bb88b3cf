"""``toolcall watch``: keep an export fresh while the tool modules are edited.

Each rebuild runs ``toolcall export`` in a fresh interpreter rather than reloading modules
here: ``importlib.reload`` leaves stale classes and functions behind, and a fresh import is
exactly what a program sees (it also re-derives the changed modules and refreshes their
cache entries on the way). The child writes to a temporary file; only a successful export
replaces the output, so a broken save leaves the last good file in place.

Events are filtered by type before path (opened and closed-without-write events would make
an editor's every glance a rebuild), then by path: only ``.py`` files, outside the
directories discovery skips, the output and the cache directory. Both ``src_path`` and
``dest_path`` are matched, so an editor's atomic save (write a temp file, rename it over the
module) counts. Rebuilds wait for a short quiet period (a trailing debounce), so a burst of
events from one save, or a ``git checkout``, is one rebuild.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

import toolcall
from toolcall._cache.store import cache_dir
from toolcall._errors import DiscoveryError
from toolcall.cli.discover import find_modules, skipped_dir

__all__ = ["watch"]

PREFIX = "toolcall watch:"
DEBOUNCE = 0.15
"""Seconds of quiet after the last event before a rebuild starts."""
EXPORT_TIMEOUT = 120.0
"""A module that hangs at import must not hang the watcher for good."""

_CHANGES = frozenset({"created", "modified", "moved", "deleted", "closed"})
_DIRECTORY_CHANGES = frozenset({"moved", "deleted"})


class _Stop(Exception):
    """SIGTERM, turned into an exception so the main loop unwinds like on Ctrl-C."""


def watch(
    paths: Sequence[Path],
    *,
    out: Path | None = None,
    format: str = "openai",
    strict: bool = False,
    polling: bool = False,
) -> int:
    """Export once, then after every change under ``paths``, until Ctrl-C or SIGTERM."""
    given = list(paths) or [Path.cwd()]
    for path in given:
        if not path.is_dir():
            return _error(f"not a directory: {path}")
    if out is not None and not out.parent.is_dir():
        return _error(f"cannot write {out}: no directory {out.parent}")
    roots = list(dict.fromkeys(p.resolve() for p in given))
    # inotify's emitter warns when a directory tree appears faster than it adds watches;
    # the events still arrive, and the noise would bury the status lines.
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"watchdog\.")
    wake = threading.Event()
    observer: BaseObserver = PollingObserver(timeout=0.5) if polling else Observer()
    ignored = _ignored(out)
    for root in roots:
        observer.schedule(_Changes(root, ignored, wake), str(root), recursive=True)
    with _exporter(roots, out, format, strict) as exporter, _sigterm_stops():
        try:
            try:
                observer.start()
            except OSError as exc:
                hint = "" if polling else "; try --polling"
                return _error(f"cannot watch {', '.join(map(str, given))}: {exc}{hint}")
            # The observer runs before the first export, so no save after it can be missed.
            _status(f"watching {', '.join(map(str, given))} (Ctrl-C to stop)")
            exporter.run()
            while True:
                _settle(wake)
                exporter.run()
        except (KeyboardInterrupt, _Stop):
            _status("stopped")
            return 0
        finally:
            observer.stop()
            if observer.is_alive():
                observer.join(timeout=5)


def _settle(wake: threading.Event) -> None:
    """Return once an event arrived and then nothing for ``DEBOUNCE`` seconds."""
    while not wake.wait(0.5):  # a timeout keeps Ctrl-C responsive everywhere
        pass
    while True:
        wake.clear()
        if not wake.wait(DEBOUNCE):
            return


def _ignored(out: Path | None) -> tuple[str, ...]:
    """Paths whose changes are ours, not the user's: the output file and the cache."""
    ignored = []
    if out is not None:
        ignored.append(os.path.join(os.path.realpath(out.parent), out.name))
    directory = cache_dir()
    if directory is not None:
        ignored.append(os.path.realpath(directory))
    return tuple(ignored)


class _Changes(FileSystemEventHandler):
    """Wakes the main loop for changes that can alter an export."""

    def __init__(self, root: Path, ignored: tuple[str, ...], wake: threading.Event) -> None:
        self._root = root
        self._ignored = ignored
        self._wake = wake

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in _CHANGES:
            return
        if event.is_directory and event.event_type not in _DIRECTORY_CHANGES:
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            try:
                relevant = self._relevant(os.fsdecode(raw), event.is_directory)
            except OSError:  # cannot tell (permissions): a spare rebuild is harmless
                relevant = True
            if relevant:
                self._wake.set()
                return

    def _relevant(self, path: str, is_directory: bool) -> bool:
        if any(path == p or path.startswith(p + os.sep) for p in self._ignored):
            return False
        try:
            parts = Path(path).relative_to(self._root).parts
        except ValueError:  # moved in from, or out to, somewhere we do not watch
            return False
        if not parts:
            return False
        here = self._root
        for part in parts[:-1]:
            here = here / part
            if skipped_dir(here):
                return False
        if is_directory:
            return not skipped_dir(here / parts[-1])
        return parts[-1].endswith(".py") and not parts[-1].startswith(".")


class _Exporter:
    """Runs one export in a child interpreter and publishes it when it succeeds."""

    def __init__(
        self, roots: list[Path], out: Path | None, format: str, strict: bool, temp: Path
    ) -> None:
        self._roots = roots
        self._out = out
        self._temp = temp
        self._last: bytes | None = None
        paths = [arg for root in roots for arg in ("--path", str(root))]
        options = ["--format", format, *(["--strict"] if strict else []), "--out", str(temp)]
        # -P: the current directory is the user's project, whose `types.py` or `json.py`
        # must not shadow the standard library while the CLI starts.
        command = [sys.executable, "-P", "-m", "toolcall.cli.main", "export"]
        self._command = [*command, *paths, *options]
        self._env = _child_env()

    def run(self) -> None:
        start = time.perf_counter()
        self._temp.unlink(missing_ok=True)
        try:
            child = subprocess.run(
                self._command,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                env=self._env,
                timeout=EXPORT_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            self._failed(f"the export took over {EXPORT_TIMEOUT:.0f} s and was stopped")
            return
        except OSError as exc:
            self._failed(f"cannot start {sys.executable}: {exc}")
            return
        for stream in (child.stdout, child.stderr):
            text = stream.decode("utf-8", "replace")
            if text:
                sys.stderr.write(text if text.endswith("\n") else text + "\n")
        seconds = time.perf_counter() - start
        if child.returncode != 0 or not self._temp.is_file():
            self._failed(f"export failed ({seconds:.2f} s)")
            return
        try:
            data = self._temp.read_bytes()
            self._publish(data)
        except OSError as exc:
            self._failed(f"cannot write {self._out or 'stdout'}: {exc.strerror or exc}")
            return
        tools = _plural(len(json.loads(data)), "tool")
        try:
            modules = _plural(len(find_modules(self._roots)), "module")
        except DiscoveryError:  # a file changed since the child looked; the export stands
            modules = "the marked modules"
        where = self._out if self._out is not None else "stdout"
        _status(f"exported {tools} from {modules} to {where} ({seconds:.2f} s)")

    def _publish(self, data: bytes) -> None:
        if self._out is None:
            self._temp.unlink()
            if data != self._last:
                sys.stdout.buffer.write(data)
                sys.stdout.buffer.flush()
        elif _read(self._out) == data:  # unchanged: leave the file (and its mtime) alone
            self._temp.unlink()
        else:
            with contextlib.suppress(OSError):
                shutil.copymode(self._out, self._temp)
            os.replace(self._temp, self._out)
        self._last = data

    def _failed(self, reason: str) -> None:
        kept = "kept the last good output" if self._last is not None else "nothing exported yet"
        _status(f"{reason}; {kept}; watching for changes")

    def cleanup(self) -> None:
        with contextlib.suppress(OSError):
            self._temp.unlink(missing_ok=True)


def _child_env() -> dict[str, str]:
    """Our environment, plus the directory this ``toolcall`` came from unless it is a site dir.

    Without it, a ``toolcall`` imported from the current directory (which ``-P`` drops)
    would be missing in the child; a site directory is on the path anyway, and putting it
    on ``PYTHONPATH`` would move it ahead of the standard library.
    """
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    home = os.path.realpath(Path(toolcall.__file__).parent.parent)
    sites = {os.path.realpath(p) for p in (*site.getsitepackages(), site.getusersitepackages())}
    if home not in sites:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [home, env.get("PYTHONPATH")]))
    return env


@contextlib.contextmanager
def _exporter(
    roots: list[Path], out: Path | None, format: str, strict: bool
) -> Iterator[_Exporter]:
    """The child writes next to ``--out``, so publishing is one ``os.replace``."""
    with contextlib.ExitStack() as stack:
        if out is None:
            temp = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "tools.json"
        else:
            temp = out.parent / f".{out.name}.{os.getpid()}.watch.tmp"
        exporter = _Exporter(roots, out, format, strict, temp)
        stack.callback(exporter.cleanup)
        yield exporter


@contextlib.contextmanager
def _sigterm_stops() -> Iterator[None]:
    """SIGTERM ends the watch like Ctrl-C (when running in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise _Stop

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _status(message: str) -> None:
    print(f"{PREFIX} {message}", file=sys.stderr, flush=True)


def _error(message: str) -> int:
    print(f"toolcall: error: {message}", file=sys.stderr, flush=True)
    return 1
