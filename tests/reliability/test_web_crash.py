"""kill -9 of the web process while agents post turns: no partial turn, counters intact, and a
client that re-posts what went unanswered ends with every turn exactly once (issue 11, item 2).

Agents post large turns (many tool messages, so a turn's transaction takes a while) over
keep-alive connections to a web process; once turns are being stored, the process is
killed with SIGKILL and a new one starts on the same socket. Requests cut by a kill either
committed before it (the answer was lost) or left nothing at all: every stored turn has its
receipt and all its messages, turn numbers have no gaps and the counters equal the turns.
"""

from __future__ import annotations

import http.client
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import connection

from memory.models import Namespace, Turn
from memory.services.ingest import TurnIn
from memory.services.tokens import token_create
from tests.reliability.procs import Processes, listening_socket, wait_until
from tests.reliability.world import assert_consistent, assert_turns_whole, turn_in

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("subprocess-serve"),
]

NAMESPACE = "webcrash"


def turn_json(turn: TurnIn) -> str:
    return json.dumps(
        {
            "session_id": turn.session_id,
            "receipt_id": turn.receipt_id,
            "occurred_at": turn.occurred_at.isoformat() if turn.occurred_at else None,
            "messages": [
                {"role": m.role, "content": m.content, "name": m.name or None}
                for m in turn.messages
            ],
        }
    )


@dataclass
class Agent:
    """Posts turns n = 1, 2, … of its session until told to stop; never retries on its own."""

    index: int
    port: int
    token: str
    messages: int
    answers: dict[str, int] = field(default_factory=dict)  # receipt → HTTP status
    cut: list[str] = field(default_factory=list)  # receipts whose request failed
    stop: threading.Event = field(default_factory=threading.Event)

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def post(self, conn: http.client.HTTPConnection, turn: TurnIn) -> tuple[int, dict[str, Any]]:
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        conn.request("POST", f"/api/v1/ns/{NAMESPACE}/turns", turn_json(turn), headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")

    def turns(self) -> list[TurnIn]:
        sent = len(self.answers) + len(self.cut)
        return [turn_in(self.index, n, messages=self.messages) for n in range(1, sent + 1)]

    def run(self) -> None:
        conn = self.connection()
        n = 0
        while not self.stop.is_set():
            n += 1
            turn = turn_in(self.index, n, messages=self.messages)
            try:
                status, _ = self.post(conn, turn)
            except (OSError, http.client.HTTPException):
                self.cut.append(turn.receipt_id)
                conn.close()
                conn = self.connection()
                continue
            self.answers[turn.receipt_id] = status
        conn.close()


def _open_transactions() -> int:
    """PostgreSQL: how many other sessions of the test database are inside a transaction (the
    web process's ingest, when a kill lands mid-turn). SQLite cannot tell: 0."""
    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND xact_start IS NOT NULL"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def web_crash_scenario(
    processes: Processes, *, agents: int, kills: int, messages: int
) -> dict[str, Any]:
    namespace = Namespace.objects.get_or_create(name=NAMESPACE)[0]
    _, token = token_create(namespaces=[NAMESPACE], scope="read-write")
    listener = listening_socket()
    port = int(listener.getsockname()[1])
    try:
        [web] = processes.webs_ready(listener, prefix="web-0")
        crew = [Agent(i, port, token, messages) for i in range(agents)]
        threads = [threading.Thread(target=a.run, name=f"agent-{a.index}") for a in crew]
        in_transaction = 0
        for thread in threads:
            thread.start()
        try:
            for k in range(1, kills + 1):
                before = Turn.objects.filter(namespace=namespace).count()
                wait_until(
                    lambda before=before: (
                        Turn.objects.filter(namespace=namespace).count() >= before + agents
                    ),
                    timeout=120,
                    what="turns to be stored",
                    every=0.02,
                )
                in_transaction += _open_transactions()
                web.kill9()
                [web] = processes.webs_ready(listener, prefix=f"web-{k}")
            # Every agent gets through once more after the last restart.
            counts = [len(a.answers) for a in crew]
            wait_until(
                lambda: all(len(a.answers) > c for a, c in zip(crew, counts, strict=True)),
                timeout=120,
                what="every agent to be answered after the last restart",
            )
        finally:
            for agent in crew:
                agent.stop.set()
            for thread in threads:
                thread.join(180)

        unexpected = {r: s for a in crew for r, s in a.answers.items() if s != 201}
        assert unexpected == {}, unexpected
        cut = [r for a in crew for r in a.cut]
        assert len(cut) >= kills, "a kill cut no request"
        posted = {t.receipt_id: len(t.messages) for a in crew for t in a.turns()}
        # Before anyone retries: whole turns only, counters equal to the turns.
        assert_turns_whole(namespace, posted)
        stored_before_retry = Turn.objects.filter(namespace=namespace).count()

        # The agents re-post every turn they sent: the stored ones come back as duplicates.
        replies: dict[str, int] = {}
        for agent in crew:
            conn = agent.connection()
            for turn in agent.turns():
                status, body = agent.post(conn, turn)
                assert status in (200, 201), body
                assert body["duplicate"] is (status == 200)
                replies[turn.receipt_id] = status
            conn.close()
    finally:
        listener.close()

    answered = [r for a in crew for r in a.answers]
    assert all(replies[r] == 200 for r in answered), "an answered turn was stored again"
    committed_unanswered = sum(1 for r in cut if replies[r] == 200)
    assert Turn.objects.filter(namespace=namespace).count() == len(posted)
    assert_turns_whole(namespace, posted)
    assert_consistent(namespace)
    return {
        "kills": kills,
        "turns_posted": len(posted),
        "requests_cut": len(cut),
        "cut_but_committed": committed_unanswered,
        "cut_and_rolled_back": len(cut) - committed_unanswered,
        "stored_before_retry": stored_before_retry,
        "kills_with_a_transaction_open": in_transaction if connection.vendor != "sqlite" else None,
    }


def test_killing_the_web_process_mid_ingest_leaves_no_partial_turn(processes):
    figures = web_crash_scenario(processes, agents=3, kills=2, messages=30)
    assert figures["requests_cut"] >= 2
    assert (
        figures["turns_posted"] == figures["stored_before_retry"] + figures["cut_and_rolled_back"]
    )
