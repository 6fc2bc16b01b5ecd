#!/usr/bin/env bash
# Make a virtualenv with StrataGate installed (pinned by requirements.lock).
#
#   bash scripts/bootstrap.sh          # runtime dependencies
#   bash scripts/bootstrap.sh --dev    # plus the test/lint tools
#
# Finds Python >= 3.12: $PYTHON, python3.13, python3.12, python3, then pyenv's versions.
# The venv lives in $VENV_DIR (default .venv, relative to the repository root).
# Re-running is cheap: pip runs only when pyproject.toml, requirements.lock or the extras change.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV_DIR="${VENV_DIR:-.venv}"

DEV=0
for arg in "$@"; do
  case "$arg" in
    --dev) DEV=1 ;;
    *) echo "bootstrap.sh: unknown argument $arg (use --dev)" >&2; exit 2 ;;
  esac
done

say() { printf '[bootstrap] %s\n' "$*" >&2; }

new_enough() {
  "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' >/dev/null 2>&1
}

find_python() {
  local candidate path
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3; do
    [[ -n "$candidate" ]] || continue
    path="$(command -v "$candidate" 2>/dev/null)" || continue
    if new_enough "$path"; then
      printf '%s\n' "$path"
      return 0
    fi
  done
  for path in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
    if [[ -x "$path" ]] && new_enough "$path"; then
      printf '%s\n' "$path"
      return 0
    fi
  done
  return 1
}

VENV_PY="$VENV_DIR/bin/python"
if [[ -x "$VENV_PY" ]]; then
  if ! new_enough "$VENV_PY"; then
    say "$VENV_DIR exists but its Python is older than 3.12 (or broken); remove it and re-run."
    exit 1
  fi
else
  if ! PY="$(find_python)"; then
    say "StrataGate needs Python >= 3.12. Install one (e.g. 'pyenv install 3.12') or set PYTHON=/path/to/python3.12."
    exit 1
  fi
  say "creating $VENV_DIR with $PY ($("$PY" -c 'import platform; print(platform.python_version())'))"
  "$PY" -m venv "$VENV_DIR"
fi

TARGET="."
[[ "$DEV" == 1 ]] && TARGET=".[dev]"
STAMP_FILE="$VENV_DIR/.stratagate-install"
HASH="$(cat pyproject.toml requirements.lock | cksum | cut -d' ' -f1) $ROOT"
if [[ -f "$STAMP_FILE" ]]; then
  read -r STAMP_DEV STAMP_HASH <"$STAMP_FILE" || true
  if [[ "${STAMP_HASH:-}" == "$HASH" && "${STAMP_DEV:-0}" -ge "$DEV" ]]; then
    exit 0  # already installed from these exact files
  fi
fi

say "installing $TARGET into $VENV_DIR (the first run takes a minute or two)"
"$VENV_PY" -m pip install --quiet --disable-pip-version-check -c requirements.lock -e "$TARGET"
printf '%s %s\n' "$DEV" "$HASH" >"$STAMP_FILE"
