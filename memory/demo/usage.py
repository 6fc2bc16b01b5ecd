"""The demo's agent retrieval loops: search → assess → record use, then the answer turn.

Each loop runs like an agent would: optionally build activated memory for the question, search
(events, raw messages or the graph), assess the batch, record a usage receipt (which reinforces
the cited events), then ingest the turn holding the question and the answer, so the audit chain
finds the answer turn. Loops are keyed by their receipt ids: a loop whose last receipt exists has
already run, so loading the demo again adds no batch, assessment, activation or receipt.
"""

from __future__ import annotations

from dataclasses import dataclass

from memory.demo.conversation import demo_turn, turn_store
from memory.engine.gate import Ref
from memory.models import Namespace, UsageReceipt
from memory.recall.events import EventSearch
from memory.recall.graph import GraphSearch
from memory.recall.raw import RawSearch
from memory.services.activation import activation_build
from memory.services.adoption import UseRequest, usage_record
from memory.services.batches import caller_session
from memory.services.gate import AssessRequest, gate_assess
from memory.services.retrieval import events_search, raw_search
from memory.services.retrieval_graph import graph_search

MAX_CITED = 8
NOT_IN_ANY_BATCH = str(Ref.event(999_999_999))


@dataclass(frozen=True)
class Step:
    """One retrieval and what the agent made of it.

    `cite`: hits whose text contains one of these words are cited. `probe_rejections` adds a
    duplicate and a foreign ref, so the gate's rejected refs show in the audit. `use=False`
    records a zero-increment receipt ("retrieved, used nothing").
    """

    tool: str  # events | raw | graph
    query: str
    verdict: str
    receipt_id: str
    cite: tuple[str, ...] = ()
    fit: str = ""
    missing: str = ""
    next_strategy: str = "answer"
    probe_rejections: bool = False
    use: bool = True


@dataclass(frozen=True)
class Loop:
    session_id: str
    speaker: str
    when: str
    question: str
    answer: str
    steps: tuple[Step, ...]
    activate: bool = False


LOOPS: tuple[Loop, ...] = (
    Loop(
        "atlas-storage", "Maya", "09-10 09:00",
        "Quick check before I update the onboarding doc: which package manager does Atlas use "
        "now?",
        "Atlas uses pnpm. It replaced npm on 8 September because installs were slow and the "
        "lockfile kept conflicting.",
        (
            Step("events", "Atlas package manager npm pnpm", "sufficient", "demo-receipt-1",
                 cite=("pnpm",), fit="the pnpm decision replaced npm"),
        ),
        activate=True,
    ),
    Loop(
        "zh-backend-sync", "李伟", "09-16 16:00",
        "数据库现在用的是PostgreSQL还是SQLite？",
        "现在用的是PostgreSQL：9月8日决定从SQLite迁移到PostgreSQL，因为并发写入太多。",
        (
            Step("events", "数据库 PostgreSQL SQLite", "sufficient", "demo-receipt-2",
                 cite=("PostgreSQL",), fit="PostgreSQL 决定和迁移记录"),
        ),
    ),
    Loop(
        "atlas-release", "Maya", "10-05 09:00",
        "When does Atlas 1.0 ship?",
        "Atlas 1.0 is planned for 15 October 2026, the date set in the last release discussion.",
        (
            Step("events", "when does Atlas 1.0 ship release date", "partial", "demo-receipt-3",
                 cite=("ship",), fit="a planned date, no confirmation",
                 missing="whether the 2026-10-15 date still holds",
                 next_strategy="search_raw", probe_rejections=True, use=False),
            Step("raw", "ship Atlas 1.0 2026-10-15", "sufficient", "demo-receipt-4",
                 cite=("2026-10-15",), fit="Maya's own words give the date"),
        ),
        activate=True,
    ),
    Loop(
        "atlas-release", "Maya", "10-05 09:10",
        "Which tools does the Atlas project use today?",
        "pnpm as package manager, PostgreSQL as database, Redis as cache and GitHub Actions "
        "for CI.",
        (
            Step("graph", "Atlas package manager database cache", "sufficient", "demo-receipt-5",
                 cite=("Atlas", "pnpm", "PostgreSQL"), fit="current facts of the Atlas node"),
        ),
    ),
)  # fmt: skip


def _search(namespace: Namespace, step: Step, session_id: str) -> tuple[str, list[str]]:
    """Run the step's search; (batch id, the refs the agent cites: hits naming a cue word)."""
    words = [w.casefold() for w in step.cite]

    def wanted(text: str) -> bool:
        return any(w in text.casefold() for w in words)

    refs: list[str] = []
    if step.tool == "events":
        events = events_search(
            namespace=namespace, params=EventSearch(query=step.query, session_id=session_id)
        )
        batch = events.batch
        refs = [ref for ref, h in events.shown if wanted(h.event.summary)]
    elif step.tool == "raw":
        raw = raw_search(
            namespace=namespace, params=RawSearch(query=step.query, session_id=session_id)
        )
        batch = raw.batch
        refs = [ref for ref, h in raw.shown if wanted(h.message.content)]
    else:
        graph = graph_search(
            namespace=namespace, params=GraphSearch(query=step.query, session_id=session_id)
        )
        batch = graph.batch
        for ref, hit in graph.shown:
            if wanted(hit.node.name):
                refs.append(ref)
                refs += [f.ref for f in hit.state.current_facts if wanted(f.value)]
    return batch.public_id, refs[:MAX_CITED]


def _step_run(namespace: Namespace, loop: Loop, step: Step, *, last: bool) -> None:
    batch_id, refs = _search(namespace, step, loop.session_id)
    submitted = list(refs)
    if step.probe_rejections:
        submitted += [*refs[:1], NOT_IN_ANY_BATCH]
    assessed = gate_assess(
        namespace=namespace,
        request=AssessRequest(
            verdict=step.verdict,
            evidence_refs=submitted,
            fit=step.fit,
            missing=step.missing,
            next_strategy=step.next_strategy,
            question=loop.question,
            batch_id=batch_id,
            session_id=loop.session_id,
        ),
    )
    sufficient = assessed.outcome.verdict == "sufficient"
    used = list(assessed.outcome.accepted_refs) if step.use and sufficient else []
    usage_record(
        namespace=namespace,
        request=UseRequest(
            receipt_id=step.receipt_id,
            evidence_refs=used,
            batch_id=batch_id,
            session_id=loop.session_id,
            answer=loop.answer if last else None,
        ),
    )


def loop_run(namespace: Namespace, loop: Loop, *, number: int) -> int:
    """Run one loop unless an earlier load did; then ingest its answer turn (turn `number` of
    the session). Returns the number of new turns (0 or 1)."""
    done = UsageReceipt.objects.filter(
        namespace=namespace, receipt_id=loop.steps[-1].receipt_id
    ).exists()
    if not done:
        if loop.activate:
            session = caller_session(namespace, loop.session_id)
            activation_build(namespace=namespace, session=session, query=loop.question)
        for index, step in enumerate(loop.steps):
            _step_run(namespace, loop, step, last=index == len(loop.steps) - 1)
    turn = demo_turn(
        session_id=loop.session_id,
        speaker=loop.speaker,
        number=number,
        line=(loop.when, loop.question, loop.answer),
    )
    return int(turn_store(namespace, turn))


def loops_for(session_id: str) -> list[Loop]:
    return [loop for loop in LOOPS if loop.session_id == session_id]
