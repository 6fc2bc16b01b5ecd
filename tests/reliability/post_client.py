"""An agent posting turns over HTTP, run as a process of its own (no Django):

    python -m tests.reliability.post_client PORT TOKEN NAMESPACE FIRST LAST START_AT

posts receipts FIRST…LAST (one keep-alive connection, retrying nothing), starting at the wall
clock time START_AT so that every client begins together, and prints one JSON line per
answer: {"receipt", "status", "turn_id", "duplicate"} or {"receipt", "error"}.

Every client sends the same content for the same receipt (`turn_for`), so all of them but one
must get the stored turn back as a duplicate.
"""

from __future__ import annotations

import http.client
import json
import sys
import time
from typing import Any

BASE_TIME = "2024-03-01T09:00:00+00:00"


def receipt_id(n: int) -> str:
    return f"agent-turn-{n:05d}"


def turn_for(n: int) -> dict[str, Any]:
    """The turn for receipt n: two sessions, a user question and an answer."""
    return {
        "session_id": f"s{n % 2}",
        "receipt_id": receipt_id(n),
        "occurred_at": BASE_TIME,
        "messages": [
            {"role": "user", "content": f"Question {n}: which queue backend do we use for jobs?"},
            {"role": "assistant", "content": f"Answer {n}: the database queue, with leases."},
        ],
    }


def post_all(port: int, token: str, namespace: str, numbers: range) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    answers: list[dict[str, Any]] = []
    for n in numbers:
        try:
            conn.request("POST", f"/api/v1/ns/{namespace}/turns", json.dumps(turn_for(n)), headers)
            response = conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as exc:
            answers.append({"receipt": receipt_id(n), "error": repr(exc)})
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            continue
        answer: dict[str, Any] = {"receipt": receipt_id(n), "status": response.status}
        try:
            body = json.loads(payload)
            answer.update(turn_id=body.get("turn_id"), duplicate=body.get("duplicate"))
        except ValueError:
            answer["body"] = payload[:300].decode(errors="replace")
        if response.status not in (200, 201):
            answer["body"] = payload[:300].decode(errors="replace")
        answers.append(answer)
    conn.close()
    return answers


def main(argv: list[str]) -> int:
    port, token, namespace, first, last, start_at = argv
    time.sleep(max(0.0, float(start_at) - time.time()))
    for answer in post_all(int(port), token, namespace, range(int(first), int(last) + 1)):
        print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
