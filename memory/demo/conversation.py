"""Turn the demo script into ingested turns, through `turn_ingest` (idempotent on receipt ids),
and wait for their processing.

Receipt ids are `demo:<session>:<n>`, so loading the demo again stores nothing new.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from memory.demo.script import Line, ScriptSession, ToolCall
from memory.models import JobStatus, Namespace, ProcessingJob
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain

YEAR = 2026
ANSWER_DELAY = timedelta(minutes=1)
SETTLE_TIMEOUT = 300.0
SETTLE_POLL = 0.2


def script_time(when: str) -> datetime:
    """ "MM-DD HH:MM" of the demo year, in UTC."""
    return datetime.strptime(f"{YEAR}-{when}", "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


def demo_turn(
    *,
    session_id: str,
    speaker: str,
    number: int,
    line: Line,
    tool_calls: Sequence[ToolCall] = (),
) -> TurnIn:
    when, user, assistant = line
    asked = script_time(when)
    return TurnIn(
        session_id=session_id,
        receipt_id=f"demo:{session_id}:{number}",
        occurred_at=asked,
        messages=[
            MessageIn(role="user", content=user, name=speaker, created_at=asked),
            MessageIn(
                role="assistant",
                content=assistant,
                created_at=asked + ANSWER_DELAY,
                tool_calls=[dict(call) for call in tool_calls],
            ),
        ],
    )


def turn_store(namespace: Namespace, turn: TurnIn) -> bool:
    """Ingest one turn; True when it was new (False: a replay of an earlier load)."""
    return not turn_ingest(namespace=namespace, turn=turn).duplicate


def session_ingest(namespace: Namespace, session: ScriptSession) -> int:
    """Ingest a scripted session's turns in order; returns how many were new."""
    stored = 0
    for number, line in enumerate(session.lines, start=1):
        turn = demo_turn(
            session_id=session.session_id,
            speaker=session.speaker,
            number=number,
            line=line,
            tool_calls=session.tools.get(number, ()),
        )
        stored += turn_store(namespace, turn)
    return stored


def jobs_settle(namespace: Namespace) -> None:
    """Run the queued jobs here (`jobs_drain`), and while a worker (a server running at the same
    time) holds one of this namespace's jobs, wait and drain again: later steps (supersession
    against earlier sessions, retrieval) need them done. Without a worker this is one drain.
    Jobs left queued behind a failed block are not waited for (they need a retry)."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        jobs_drain()
        busy = ProcessingJob.objects.filter(namespace=namespace, status=JobStatus.RUNNING)
        if not busy.exists() or time.monotonic() > deadline:
            return
        time.sleep(SETTLE_POLL)
