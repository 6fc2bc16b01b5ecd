#!/usr/bin/env bash
# Install the test dependencies (first run) and run the whole test suite in parallel.
# Extra arguments go to pytest:  bash scripts/test.sh tests/test_serve.py -x
# Set DATABASE_URL=postgres://... to run it against PostgreSQL instead of SQLite.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export VENV_DIR="${VENV_DIR:-.venv}"

bash scripts/bootstrap.sh --dev

# A private data dir per run: the suite never touches ./var, and concurrent runs in one checkout
# do not share SQLite test databases.
if [[ -z "${STRATAGATE_DATA_DIR:-}" ]]; then
  STRATAGATE_DATA_DIR="$(mktemp -d "${TMPDIR:-/tmp}/stratagate-test.XXXXXX")"
  export STRATAGATE_DATA_DIR
  trap 'rm -rf "$STRATAGATE_DATA_DIR"' EXIT
fi

# Keep bytecode caches even where the environment turns them off (PYTHONDONTWRITEBYTECODE): without
# them every xdist worker rewrites the asserts of all ~460 test modules again on every run (about
# 7 s of each worker's start here), and every `manage.py` the tests start compiles the project anew.
# __pycache__/ is ignored by git.
unset PYTHONDONTWRITEBYTECODE

status=0
# worksteal: a worker that runs out of tests takes half of what another still has queued, so
# the run does not end on one worker alone with a queue of slow tests (see tests/conftest.py).
"$VENV_DIR/bin/python" -m pytest -n auto --dist worksteal "$@" || status=$?
if [[ "$status" -eq 5 ]]; then
  echo "scripts/test.sh: pytest collected no tests; that counts as a failure." >&2
fi
exit "$status"
