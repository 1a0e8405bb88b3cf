"""The one way tests start a fresh Python: which environment it gets, and how it runs.

A child sees this checkout's ``src`` first on ``PYTHONPATH`` (never an installed toolcall),
inherits the isolated ``TOOLCALL_CACHE_DIR`` the conftest set (so no test touches the user's
cache), and keeps coverage.py's variables, so that under ``scripts/test`` what the child runs
counts towards the coverage of ``src/``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

# Removed from a clean environment: what the parent's interpreter, pytest run or toolcall
# settings would otherwise leak into a child that must start from the defaults.
_CLEAN_PREFIXES = ("PYTHON", "PYTEST", "TOOLCALL_")


def environment(
    paths: Sequence[str | os.PathLike[str]] = (),
    env: Mapping[str, str | None] | None = None,
    *,
    clean: bool = False,
) -> dict[str, str]:
    """The parent's environment with ``src`` then ``paths`` on ``PYTHONPATH``.

    ``env`` sets variables (None removes one). ``clean`` first drops every ``PYTHON*``,
    ``PYTEST*`` and ``TOOLCALL_*`` variable; coverage's are always kept.
    """
    result = {
        key: value
        for key, value in os.environ.items()
        if not (clean and key.startswith(_CLEAN_PREFIXES))
    }
    result["PYTHONPATH"] = os.pathsep.join([str(SRC), *map(str, paths)])
    for key, value in (env or {}).items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result


def python(
    *args: str | os.PathLike[str],
    paths: Sequence[str | os.PathLike[str]] = (),
    env: Mapping[str, str | None] | None = None,
    clean: bool = False,
    timeout: float = 120,
    **options: Any,
) -> subprocess.CompletedProcess[Any]:
    """Run this interpreter with ``args`` in `environment`, output captured as text.

    ``options`` go to `subprocess.run` (``cwd``, ``input``, ``text=False``...). The timeout
    only stops a hung child; it asserts nothing about speed.
    """
    options = {"capture_output": True, "text": True, "check": False, **options}
    return subprocess.run(
        [sys.executable, *map(str, args)],
        env=environment(paths, env, clean=clean),
        timeout=timeout,
        **options,
    )


def spawn(
    *args: str | os.PathLike[str],
    paths: Sequence[str | os.PathLike[str]] = (),
    env: Mapping[str, str | None] | None = None,
    clean: bool = False,
    **options: Any,
) -> subprocess.Popen[Any]:
    """Start this interpreter with ``args`` in `environment` without waiting for it.

    Output is piped as text unless ``options`` (passed to `subprocess.Popen`) say otherwise.
    """
    options = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, **options}
    return subprocess.Popen(
        [sys.executable, *map(str, args)], env=environment(paths, env, clean=clean), **options
    )


def json_run(root: Path, cache: Path, code: str, *args: str, **env: str) -> Any:
    """Run ``code`` (dedented) in ``root`` with ``cache`` as the cache directory and no
    bytecode written; it must succeed, and its last line of output is JSON, returned."""
    import json
    import textwrap

    done = python(
        "-c",
        textwrap.dedent(code),
        *args,
        paths=[root],
        env={"TOOLCALL_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": "1", **env},
        cwd=root,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])
