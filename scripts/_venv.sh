# Sourced by scripts/*: make (or reuse) a virtualenv with the project installed.
# Usage: ensure_venv DIR PYTHON EXTRAS    (PYTHON: an interpreter's path or command name)
# Environments are made with uv, which is itself installed once into .uv with python3's pip:
# it is several times faster than pip at resolving .[dev], and it seeds pip into each venv for
# the tests that pip-install. The install is skipped while pyproject.toml, EXTRAS and PYTHON
# are what DIR was last installed with, so a repeated run pays for no resolution at all.
# Packages are compiled to bytecode at install (uv leaves that to the first import, which
# PYTHONDONTWRITEBYTECODE, set in many containers, forbids): otherwise every Python the tests
# start compiles pydantic and the SDKs from source again. compileall, not uv's
# --compile-bytecode, which skips the packages an earlier install left in place.
UV=.uv/bin/uv

ensure_uv() {
  [ -x "$UV" ] && return 0
  python3 -m venv .uv &&
    .uv/bin/python -m pip install -q --disable-pip-version-check uv >.uv/install.log 2>&1 ||
    { cat .uv/install.log >&2; return 1; }
}

ensure_venv() {
  local dir="$1" python="$2" extras="$3" stamp want
  ensure_uv || return 1
  stamp="$dir/.toolcall-install"
  want="$extras $python compiled $(cksum <pyproject.toml)"
  if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  mkdir -p "$dir"
  if "$UV" venv -q --seed --allow-existing -p "$python" "$dir" >"$dir/.install.log" 2>&1 &&
    "$UV" pip install -q -p "$dir/bin/python" -e ".$extras" >>"$dir/.install.log" 2>&1; then
    # some packages ship files that are not Python 3 (test data): their failure is no failure
    "$dir/bin/python" -m compileall -q -j 0 \
      "$("$dir/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" \
      >/dev/null 2>&1 || true
    echo "$want" >"$stamp"
  else
    cat "$dir/.install.log" >&2
    return 1
  fi
}
