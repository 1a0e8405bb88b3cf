# Sourced by scripts/*: make (or reuse) a virtualenv with the project installed.
# Usage: ensure_venv DIR PYTHON EXTRAS
ensure_venv() {
  local dir="$1" python="$2" extras="$3"
  if [ ! -x "$dir/bin/python" ]; then
    $python -m venv "$dir"
  fi
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -e ".$extras"
}
