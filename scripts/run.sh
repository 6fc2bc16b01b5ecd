#!/usr/bin/env bash
# Install (first run) and start StrataGate on the embedded default: SQLite under ./var,
# offline processor, no API key. Arguments go to `manage.py serve` (--host, --port, --workers),
# except --demo, which loads the demo namespace (`manage.py load_demo`) before serving.
#
#   bash scripts/run.sh
#   bash scripts/run.sh --port 9000 --workers 2
#   bash scripts/run.sh --demo
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

# A superuser `admin` with a random password, created once; the password is printed only now.
ADMIN_PASSWORD="$("$PY" manage.py shell --no-imports -c '
import secrets
from django.contrib.auth import get_user_model

User = get_user_model()
if not User.objects.filter(is_superuser=True).exists():
    password = secrets.token_urlsafe(12)
    User.objects.create_superuser("admin", "", password)
    print(password)
')"

TOKEN="$("$PY" manage.py create_agent_token --namespace demo --scope admin --label "scripts/run.sh")"

cat <<EOF

================================================================================
 StrataGate: $URL/
--------------------------------------------------------------------------------
EOF
if [[ -n "$ADMIN_PASSWORD" ]]; then
  cat <<EOF
 Memory UI login  user: admin   password: $ADMIN_PASSWORD
 (shown once and stored nowhere else; change it with
  $PY manage.py changepassword admin)
EOF
else
  cat <<EOF
 Memory UI login: your existing superuser (forgot the password?
  $PY manage.py changepassword admin)
EOF
fi
cat <<EOF

 Agent token for namespace "demo" (admin scope, shown once):
   $TOKEN
 More tokens: $PY manage.py create_agent_token --namespace NAME
 Demo data: bash scripts/run.sh --demo, or $PY manage.py load_demo

 Try it (README.md "First steps" has more):
   export URL=$URL TOKEN=$TOKEN
   curl -s -X POST $URL/api/v1/ns/demo/turns \\
     -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\
     -d '{"session_id": "s1", "receipt_id": "r1", "messages": [
          {"role": "user", "content": "Hello, remember that I prefer tea."},
          {"role": "assistant", "content": "Noted: tea, not coffee."}]}'
   curl -s $URL/api/v1/ns/demo/sessions/s1/blocks -H "Authorization: Bearer $TOKEN"

 API docs: $URL/api/docs    Stop: Ctrl-C
================================================================================

EOF

exec "$PY" manage.py serve ${args[@]+"${args[@]}"}
