"""``toolcall check``: every derivation warning of every marked module, every time.

A derivation warning is issued once, when a module is derived; a warm cache derives nothing,
so the next run is silent even though the typo in the docstring is still there. ``check`` is
the lint for CI and pre-commit hooks: it imports the modules with the hook off and the cache
disabled, derives and renders each one afresh, and prints every ``ToolcallWarning`` as
``file:line: message`` on stdout (with ``--strict``, every problem ``check_strict`` finds in
the strict schemas too). Exit status 1 when anything was printed or nothing marked was found,
0 when clean, 2 on a usage error.

Why not the pipeline: it reads and writes the cache and registers the entry, and a lint must
do neither (a check run should not warm the cache that then hides the next run's warnings).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from toolcall._load.cold import derive_fresh
from toolcall.cli import imports

__all__ = ["check"]

PROG = "toolcall"

Problem = tuple[str, int, str]


def check(arguments: Sequence[str], roots: Sequence[Path], *, strict: bool = False) -> int:
    """Print every problem of the modules ``arguments`` name (default: every marked module
    under ``roots``); the exit status."""
    os.environ["TOOLCALL_CACHE"] = "0"  # and for anything user code derives through the API
    import toolcall

    toolcall.uninstall()
    imports.prepare_sys_path(roots)
    try:
        targets = imports.resolve_targets(arguments, roots)
    except imports.UserCodeError as exc:
        _error(str(exc))
        return 1
    if not targets:
        where = ", ".join(arguments) if arguments else ", ".join(str(r) for r in roots)
        _error(f"no marked module under {where}")
        return 1
    problems: list[Problem] = []
    failed = checked = tools = 0
    for target in targets:
        try:
            modules = _recording(problems, partial(imports.load_targets, [target]))
        except imports.UserCodeError as exc:
            _error(str(exc))
            failed += 1
            continue
        for module in modules:
            try:
                tools += _recording(problems, partial(derive_fresh, module, strict=strict))
            except (Exception, SystemExit) as exc:  # a provider's resolve is user code
                _error(f"cannot derive {module.__name__}: {imports.describe_exception(exc)}")
                failed += 1
                continue
            checked += 1
    shown = list(dict.fromkeys(problems))
    for filename, lineno, message in shown:
        print(f"{imports.display_path(filename)}:{lineno}: {message}")
    sys.stdout.flush()
    noun = "module" if checked == 1 else "modules"
    summary = f"checked {checked} {noun} ({tools} {'tool' if tools == 1 else 'tools'})"
    if shown:
        count = len(shown)
        print(f"{PROG}: {summary}: {count} problem{'s' * (count != 1)}", file=sys.stderr)
    elif not failed:
        print(f"{PROG}: {summary}: no problems", file=sys.stderr)
    return 1 if shown or failed else 0


def _recording(problems: list[Problem], run: Callable[[], Any]) -> Any:
    """Run user code with stdout sent to stderr, collecting every ``ToolcallWarning``."""
    record = imports.reporting_warnings(lambda *problem: problems.append(problem))
    with record, imports.user_output_to_stderr():
        return run()


def _error(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)
