# Sourced by scripts/*: make (or reuse) a virtualenv with the project installed.
# Usage: ensure_venv DIR PYTHON EXTRAS
# The install is skipped while pyproject.toml and EXTRAS are what DIR was last installed
# with, so a repeated run does not pay for pip's dependency resolution.
ensure_venv() {
  local dir="$1" python="$2" extras="$3" stamp want
  if [ ! -x "$dir/bin/python" ]; then
    $python -m venv "$dir" || return 1
  fi
  stamp="$dir/.toolcall-install"
  want="$extras $(cksum <pyproject.toml)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  if "$dir/bin/python" -m pip install --disable-pip-version-check --upgrade pip >"$stamp.log" 2>&1 &&
    "$dir/bin/python" -m pip install --disable-pip-version-check -e ".$extras" >>"$stamp.log" 2>&1; then
    echo "$want" >"$stamp"
  else
    cat "$stamp.log" >&2
    return 1
  fi
}
