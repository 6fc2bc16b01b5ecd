#!/usr/bin/env bash
# Install (first run) and start StrataGate on the embedded default: SQLite under ./var,
# offline processor, no API key. Arguments go to `manage.py serve` (--host, --port, --workers,
# --verbose to log every background job), except --demo, which loads the demo namespace
# (`manage.py load_demo`) before serving.
#
#   bash scripts/run.sh
#   bash scripts/run.sh --port 9000 --workers 2
#   bash scripts/run.sh --demo
#   bash scripts/run.sh --verbose
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export VENV_DIR="${VENV_DIR:-.venv}"

bash scripts/bootstrap.sh
PY="$VENV_DIR/bin/python"

DEMO=0
args=()
for arg in "$@"; do
  if [[ "$arg" == "--demo" ]]; then DEMO=1; else args+=("$arg"); fi
done

HOST=127.0.0.1
PORT=8000
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --host) HOST="${args[i + 1]:-$HOST}" ;;
    --host=*) HOST="${args[i]#--host=}" ;;
    --port) PORT="${args[i + 1]:-$PORT}" ;;
    --port=*) PORT="${args[i]#--port=}" ;;
  esac
done
case "$HOST" in
  0.0.0.0 | "") SHOWN_HOST=127.0.0.1 ;;
  ::) SHOWN_HOST="[::1]" ;;
  *:*) SHOWN_HOST="[$HOST]" ;;
  *) SHOWN_HOST="$HOST" ;;
esac
URL="http://$SHOWN_HOST:$PORT"

"$PY" manage.py migrate --noinput --verbosity 0
if [[ "$DEMO" == 1 ]]; then
  "$PY" manage.py load_demo
fi

# The URL, the admin login and the demo namespace's agent token: the login and the token are
# made on the first start only and shown then (manage.py quickstart).
"$PY" manage.py quickstart --url "$URL"

exec "$PY" manage.py serve ${args[@]+"${args[@]}"}
