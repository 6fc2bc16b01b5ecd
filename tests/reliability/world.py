"""What the reliability tests ingest and what they check afterwards.

`ingest_sessions` stores turns through the ingest service (sessions of plausible project talk
that the offline processor turns into events and graph facts). The `assert_*` helpers are the
invariants every fault must leave intact.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from io import StringIO
from typing import Any

from django.core.management import call_command
from django.db.models import Count

from memory.models import (
    Block,
    BlockStatus,
    BlockView,
    Event,
    GraphEdge,
    GraphFact,
    GraphItemStatus,
    GraphNode,
    IngestReceipt,
    JobKind,
    JobStatus,
    Message,
    Namespace,
    ProcessingJob,
    Session,
    Turn,
)
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create
from tests.conftest import BASE_TIME

# Lines the offline processor makes events and graph facts of: decisions that supersede each
# other, people and where they work, plans with dates. `{p}` is the session's project.
LINES = (
    "Use npm for {p}.",
    "Let's switch {p} to pnpm, installs are too slow.",
    "Finish the {p} prototype next week.",
    "We decided to deploy {p} on PostgreSQL.",
    "Maya works at Acme on the {p} project.",
    "The release of {p} is planned for Friday.",
    "Bob moved to the search team of {p} last week.",
    "The {p} budget is 4,000 EUR a month.",
    "We deploy {p} through the staging cluster in Frankfurt first.",
    "Anything else for today?",
    "Carol is on call for {p} from Monday.",
    "{p} uses Redis for the channel layer now.",
)
PROJECTS = ("Orion", "Vega", "Lyra", "Altair", "Deneb", "Rigel", "Sirius", "Castor")


def turn_in(session: int, n: int, *, messages: int = 2) -> TurnIn:
    """Turn n (from 1) of session `session` (from 0); the same arguments give the same turn."""
    project = PROJECTS[session % len(PROJECTS)]
    line = LINES[(n - 1 + session) % len(LINES)].format(p=project)
    parts = [MessageIn(role="user", content=line)]
    for extra in range(messages - 2):
        parts.append(
            MessageIn(role="tool", name="shell", content=f"step {extra}: {line} " + "x" * 200)
        )
    parts.append(MessageIn(role="assistant", content=f"Noted for session {session}: {line}"))
    return TurnIn(
        session_id=f"session-{session}",
        receipt_id=f"session-{session}-turn-{n}",
        messages=parts,
        occurred_at=BASE_TIME + timedelta(hours=session, minutes=n),
    )


def ingest_sessions(name: str, *, sessions: int, turns: int) -> Namespace:
    """`sessions` sessions of `turns` turns each, interleaved as parallel agents would post."""
    namespace = namespace_get_or_create(name=name)
    for n in range(1, turns + 1):
        for session in range(sessions):
            turn_ingest(namespace=namespace, turn=turn_in(session, n))
    namespace.refresh_from_db()
    return namespace


def consistency_output(namespace: Namespace) -> str:
    """`manage.py check_consistency --namespace NS`; fails the test on a non-zero exit."""
    out = StringIO()
    call_command("check_consistency", "--namespace", namespace.name, stdout=out)
    return out.getvalue()


def assert_consistent(namespace: Namespace) -> None:
    output = consistency_output(namespace)
    assert output == f'namespace "{namespace.name}": consistent, no violations.\n', output


def assert_turns_whole(namespace: Namespace, expected_messages: dict[str, int]) -> None:
    """Every stored turn has its receipt and all its messages; counters match the turns.

    `expected_messages` maps each receipt id that may have been stored to its message count.
    """
    turns = Turn.objects.filter(namespace=namespace)
    receipts = dict(
        IngestReceipt.objects.filter(namespace=namespace).values_list("turn_id", "receipt_id")
    )
    per_turn = dict(
        Message.objects.filter(namespace=namespace)
        .values("turn_id")
        .annotate(n=Count("pk"))
        .values_list("turn_id", "n")
    )
    assert set(receipts) == set(turns.values_list("pk", flat=True)), "a turn without receipt"
    for turn_id, receipt_id in receipts.items():
        assert per_turn.get(turn_id, 0) == expected_messages[receipt_id], (
            f"turn {turn_id} ({receipt_id}) has {per_turn.get(turn_id, 0)} messages"
        )
    numbers = sorted(turns.values_list("namespace_turn", flat=True))
    assert numbers == list(range(1, len(numbers) + 1)), "namespace turn numbers have gaps"
    namespace.refresh_from_db()
    assert namespace.current_turn == len(numbers)
    for session in Session.objects.filter(namespace=namespace):
        mine = sorted(turns.filter(session=session).values_list("session_turn", flat=True))
        assert mine == list(range(1, len(mine) + 1)), f"session {session.external_id} has gaps"
        assert session.turn_count == len(mine)


def assert_processed_once(namespace: Namespace) -> None:
    """Every block ready in order, one set of views, one job per kind, no duplicate rows."""
    blocks = list(Block.objects.filter(namespace=namespace).order_by("session_id", "sequence"))
    assert blocks, "nothing was sealed"
    assert {b.status for b in blocks} == {BlockStatus.READY}
    by_session: dict[int, list[int]] = {}
    for block in blocks:
        by_session.setdefault(block.session_id, []).append(block.ready_position or 0)
    for positions in by_session.values():
        assert positions == list(range(1, len(positions) + 1)), "ready out of order"
    views = Counter(BlockView.objects.filter(block__namespace=namespace).values_list("block_id"))
    assert set(views.values()) == {6}, "a block has a missing or repeated view"
    jobs = Counter(
        ProcessingJob.objects.filter(namespace=namespace, block__isnull=False).values_list(
            "block_id", "kind"
        )
    )
    assert set(jobs.values()) == {1}, "a block job was created twice"
    assert {kind for _, kind in jobs} <= {JobKind.BLOCK_VIEWS, JobKind.BLOCK_EXTRACT}
    statuses = set(ProcessingJob.objects.filter(namespace=namespace).values_list("status"))
    assert statuses == {(JobStatus.SUCCEEDED,)}
    assert_no_duplicate_derivations(namespace)


def assert_no_duplicate_derivations(namespace: Namespace) -> None:
    events = Counter(
        Event.objects.filter(namespace=namespace).values_list("source_block_id", "title", "summary")
    )
    assert max(events.values(), default=1) == 1, "an event was extracted twice"
    active_facts = Counter(
        GraphFact.objects.filter(namespace=namespace, status=GraphItemStatus.ACTIVE).values_list(
            "node_id", "key"
        )
    )
    assert max(active_facts.values(), default=1) == 1, "two active values for one fact"
    edges = GraphEdge.objects.filter(namespace=namespace, status=GraphItemStatus.ACTIVE)
    pairs = Counter(edges.values_list("from_node_id", "to_node_id", "relation"))
    assert max(pairs.values(), default=1) == 1, "an active edge exists twice"
    exclusive = Counter(
        edges.exclude(exclusivity_key="").values_list("from_node_id", "exclusivity_key")
    )
    assert max(exclusive.values(), default=1) == 1, "two active edges for one exclusive slot"


def derived_summary(namespace: Namespace) -> dict[str, Any]:
    """What processing derived, comparable across namespaces fed the same turns: events per
    block, node keys, fact and edge contents (statuses may differ with processing order)."""
    events: dict[tuple[str, int], list[tuple[str, str, str]]] = {}
    for session, sequence, kind, title, summary in Event.objects.filter(
        namespace=namespace
    ).values_list(
        "source_block__session__external_id",
        "source_block__sequence",
        "event_type",
        "title",
        "summary",
    ):
        events.setdefault((session, sequence), []).append((kind, title, summary))
    return {
        "events": {key: sorted(rows) for key, rows in events.items()},
        "nodes": sorted(
            GraphNode.objects.filter(namespace=namespace).values_list("key", flat=True)
        ),
        "facts": sorted(
            set(
                GraphFact.objects.filter(namespace=namespace).values_list(
                    "node__key", "key", "value"
                )
            )
        ),
        "edges": sorted(
            set(
                GraphEdge.objects.filter(namespace=namespace).values_list(
                    "from_node__key", "relation", "to_node__key"
                )
            )
        ),
    }
