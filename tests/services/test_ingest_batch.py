"""`turn_batch_ingest` stores what one-by-one `turn_ingest` stores, in far fewer queries, and
keeps the same idempotency (also under concurrent replays) and live announcements."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from memory.errors import Conflict, Invalid
from memory.models import (
    Block,
    BlockView,
    IngestReceipt,
    Message,
    Namespace,
    ProcessingJob,
    Session,
    Turn,
)
from memory.search import search_messages
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.ingest_batch import MAX_BATCH_TURNS, turn_batch_ingest, turn_batches
from memory.services.live import namespace_group
from memory.services.namespaces import namespace_get_or_create

pytestmark = pytest.mark.django_db

START = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def _turn(n: int, session: str = "s1", *, receipt: str | None = None) -> TurnIn:
    at = START + timedelta(minutes=n)
    return TurnIn(
        session_id=session,
        receipt_id=receipt or f"{session}-{n}",
        occurred_at=at,
        messages=[
            MessageIn(role="user", content=f"Step {n}: shall we move the queue to Redis?"),
            MessageIn(
                role="assistant",
                content="",
                tool_calls=[{"name": "memory_search_raw", "arguments": {"query": "queue"}}],
            ),
            MessageIn(role="tool", name="memory_search_raw", content="recalled text"),
            MessageIn(
                role="assistant",
                content=f"Answer {n}: yes, with a fallback.",
                name="helper",
                created_at=at + timedelta(seconds=5),
                tool_calls=[{"name": "run_tests", "arguments": {"k": n}, "result": "ok"}],
            ),
        ],
    )


def _snapshot(namespace: Namespace) -> dict[str, Any]:
    """Everything ingest writes, without ids that differ between namespaces."""
    namespace.refresh_from_db()
    return {
        "current_turn": namespace.current_turn,
        "sessions": sorted(
            Session.objects.filter(namespace=namespace).values_list("external_id", "turn_count")
        ),
        "turns": list(
            Turn.objects.filter(namespace=namespace)
            .order_by("namespace_turn")
            .values_list(
                "session__external_id", "session_turn", "namespace_turn", "occurred_at", "block"
            )
        ),
        "messages": list(
            Message.objects.filter(namespace=namespace)
            .order_by("pk")
            .values_list(
                "turn__namespace_turn", "position", "role", "name", "content", "created_at"
            )
        ),
        "tool_calls": [
            m.tool_calls for m in Message.objects.filter(namespace=namespace).order_by("pk")
        ],
        "receipts": sorted(
            IngestReceipt.objects.filter(namespace=namespace).values_list(
                "receipt_id", "content_hash", "turn__namespace_turn"
            )
        ),
        "blocks": list(
            Block.objects.filter(namespace=namespace)
            .order_by("pk")
            .values_list("session__external_id", "sequence", "first_turn", "last_turn", "status")
        ),
        "views": list(
            BlockView.objects.filter(block__namespace=namespace)
            .order_by("block_id", "level")
            .values_list("block__sequence", "level", "content", "tokens", "produced_by")
        ),
        "jobs": list(
            ProcessingJob.objects.filter(namespace=namespace)
            .order_by("pk")
            .values_list("kind", "block__session__external_id", "block__sequence", "status")
        ),
    }


def _renumbered(snapshot: dict[str, Any]) -> dict[str, Any]:
    # Block ids differ between namespaces; compare each turn's block by its rank instead.
    ids = sorted({t[4] for t in snapshot["turns"] if t[4] is not None})
    rank = {pk: i for i, pk in enumerate(ids)}
    turns = [(*t[:4], rank.get(t[4])) for t in snapshot["turns"]]
    return {**snapshot, "turns": turns}


def test_a_batch_writes_exactly_what_one_by_one_ingest_writes() -> None:
    single = namespace_get_or_create(name="single")
    batched = namespace_get_or_create(name="batched")
    turns = [_turn(n, "a") for n in range(1, 4)]
    turns += [_turn(n, "b") for n in range(1, 8)]
    turns += [_turn(n, "a") for n in range(4, 15)]
    # An open tail from earlier single ingests, which the batch completes.
    for turn in (_turn(100, "b"), _turn(101, "b")):
        turn_ingest(namespace=single, turn=turn)
        turn_ingest(namespace=batched, turn=turn)

    one_by_one = [turn_ingest(namespace=single, turn=t) for t in turns]
    result = turn_batch_ingest(namespace=batched, turns=turns)

    assert _renumbered(_snapshot(batched)) == _renumbered(_snapshot(single))
    assert [(i.turn.session_turn, i.turn.namespace_turn, i.duplicate) for i in result.items] == [
        (r.turn.session_turn, r.turn.namespace_turn, False) for r in one_by_one
    ]
    sealed_batch = [i.sealed_block_id is not None for i in result.items]
    assert sealed_batch == [bool(r.sealed_blocks) for r in one_by_one]
    assert len(result.sealed_blocks) == 3  # b: 2 + 7 turns → 1 block; a: 14 turns → 2
    assert (result.stored, result.duplicates) == (21, 0)


def _hits(namespace: Namespace, query: str) -> list[tuple[str, int, int, float]]:
    where = {
        m.pk: (m.session.external_id, m.turn.session_turn, m.position)
        for m in Message.objects.filter(namespace=namespace).select_related("session", "turn")
    }
    return [
        (*where[h.object_id], round(h.score, 6))
        for h in search_messages(namespace.pk, query, limit=50)
    ]


def test_batch_turns_are_indexed_as_one_by_one_turns_are() -> None:
    # Message documents hold their neighbours' text: a batch must leave the same documents,
    # across its own boundary too (the second batch re-indexes the first one's last messages).
    single = namespace_get_or_create(name="single")
    batched = namespace_get_or_create(name="batched")
    turns = [_turn(n, f"s{n % 2}") for n in range(1, 15)]
    for turn in turns:
        turn_ingest(namespace=single, turn=turn)
    turn_batch_ingest(namespace=batched, turns=turns[:9])
    turn_batch_ingest(namespace=batched, turns=turns[9:])

    for query in ("redis queue", "step 9", "answer fallback", "helper", "2024-03-01"):
        expected = _hits(single, query)
        assert expected, query
        assert _hits(batched, query) == expected, query


def test_with_block_size_lowered_the_first_new_turn_seals_the_old_open_tail(admin) -> None:
    namespace = namespace_get_or_create(name="proj")
    for n in range(1, 6):
        turn_ingest(namespace=namespace, turn=_turn(n))
    assert admin.put("/settings", {"block_turns": 2}).status_code == 200

    result = turn_batch_ingest(namespace=namespace, turns=[_turn(6), _turn(7), _turn(8)])

    ranges = list(Block.objects.order_by("pk").values_list("first_turn", "last_turn"))
    assert ranges == [(1, 2), (3, 4), (5, 6), (7, 8)]
    # One by one, turn 6 would have sealed 1–2, 3–4 and 5–6, reporting the last.
    blocks = list(Block.objects.order_by("pk").values_list("pk", flat=True))
    assert [i.sealed_block_id for i in result.items] == [blocks[2], None, blocks[3]]
    assert result.sealed_blocks == list(Block.objects.order_by("pk"))


def test_a_replayed_batch_reads_only_and_stores_nothing() -> None:
    namespace = namespace_get_or_create(name="proj")
    turns = [_turn(n) for n in range(1, 10)]
    first = turn_batch_ingest(namespace=namespace, turns=turns)
    before = _snapshot(namespace)
    with CaptureQueriesContext(connection) as queries:
        again = turn_batch_ingest(namespace=namespace, turns=turns)
    assert _snapshot(namespace) == before
    assert [q["sql"].split()[0] for q in queries.captured_queries] == ["SELECT"]
    assert (again.stored, again.duplicates) == (0, 9)
    assert [i.turn.pk for i in again.items] == [i.turn.pk for i in first.items]


def test_queries_do_not_grow_with_the_number_of_turns(settings) -> None:
    settings.STRATAGATE_BLOCK_TURNS = 100  # nothing seals here: inserts only

    def count(prefix: str, size: int) -> int:
        namespace = namespace_get_or_create(name=prefix)
        turns = [_turn(n, f"{prefix}-{n % 3}") for n in range(size)]
        with CaptureQueriesContext(connection) as queries:
            turn_batch_ingest(namespace=namespace, turns=turns)
        return len(queries.captured_queries)

    assert count("small", 12) == count("large", MAX_BATCH_TURNS)


def test_sealing_many_blocks_costs_a_fixed_number_of_queries() -> None:
    def count(prefix: str, size: int) -> int:
        namespace = namespace_get_or_create(name=prefix)
        with CaptureQueriesContext(connection) as queries:
            result = turn_batch_ingest(
                namespace=namespace, turns=[_turn(n, prefix) for n in range(size)]
            )
        assert len(result.sealed_blocks) == size // 6
        return len(queries.captured_queries)

    assert count("one", 6) == count("many", 198)


def test_an_invalid_turn_or_a_reused_receipt_leaves_the_namespace_untouched() -> None:
    namespace = namespace_get_or_create(name="proj")
    turn_batch_ingest(namespace=namespace, turns=[_turn(1)])
    before = _snapshot(namespace)
    empty = TurnIn(session_id="s1", receipt_id="x", messages=[])
    with pytest.raises(Invalid) as invalid:
        turn_batch_ingest(namespace=namespace, turns=[_turn(2), _turn(3), empty])
    assert invalid.value.code == "invalid_batch"
    assert [(e["index"], e["code"]) for e in invalid.value.details["errors"]] == [(2, "empty_turn")]
    changed = TurnIn(
        session_id="s1",
        receipt_id="s1-1",
        messages=[MessageIn(role="user", content="Another question entirely?")],
    )
    with pytest.raises(Conflict) as conflict:
        turn_batch_ingest(namespace=namespace, turns=[_turn(2), changed])
    assert conflict.value.code == "receipt_conflict"
    assert [e["index"] for e in conflict.value.details["errors"]] == [1]
    assert _snapshot(namespace) == before


def test_turn_batches_keep_the_order_and_cap_the_size() -> None:
    turns = [_turn(n) for n in range(450)]
    batches = list(turn_batches(iter(turns)))
    assert [len(b) for b in batches] == [200, 200, 50]
    assert [t for b in batches for t in b] == turns


def test_one_announcement_per_session_after_commit(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    layer = get_channel_layer()
    namespace = namespace_get_or_create(name="proj")
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(namespace_group(namespace.pk), channel)
    turns = [_turn(n, "a") for n in range(1, 8)] + [_turn(n, "b") for n in range(1, 3)]
    with django_capture_on_commit_callbacks(execute=True):
        result = turn_batch_ingest(namespace=namespace, turns=turns)
        turn_batch_ingest(namespace=namespace, turns=turns)  # a replay announces nothing

    received = []
    for _ in range(3):
        try:
            message = async_to_sync(_receive_now)(layer, channel)
        except TimeoutError:
            break
        received.append(message["payload"])
    sealed = [b.pk for b in result.sealed_blocks]
    assert received == [
        {
            "kind": "turn.created",
            "session_id": "a",
            "session_turn": 7,
            "namespace_turn": 7,
            "sealed_block_ids": sealed,
        },
        {
            "kind": "turn.created",
            "session_id": "b",
            "session_turn": 2,
            "namespace_turn": 9,
            "sealed_block_ids": [],
        },
    ]


async def _receive_now(layer: Any, channel: str) -> dict[str, Any]:
    import asyncio

    return await asyncio.wait_for(layer.receive(channel), timeout=0.05)


@pytest.mark.django_db(transaction=True)
def test_concurrent_replays_of_one_batch_store_it_once() -> None:
    namespace = namespace_get_or_create(name="proj")
    turns = [_turn(n, f"s{n % 2}") for n in range(1, 14)]
    barrier = threading.Barrier(4)

    def call(_: int) -> int:
        barrier.wait()
        try:
            return turn_batch_ingest(namespace=namespace, turns=turns).stored
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=4) as pool:
        stored = sorted(pool.map(call, range(4)))

    assert stored == [0, 0, 0, 13]
    assert Turn.objects.count() == 13
    assert IngestReceipt.objects.count() == 13
    assert Namespace.objects.get().current_turn == 13
    assert Block.objects.count() == 2


def test_one_by_one_ingest_reads_little_and_a_replay_writes_nothing() -> None:
    """The per-turn hot path: a turn that fills no block costs a bounded number of statements
    (no Turn rows read to learn that nothing seals); a replayed receipt costs at most two reads."""
    namespace = namespace_get_or_create(name="hot")
    turn_ingest(namespace=namespace, turn=_turn(1))
    with CaptureQueriesContext(connection) as stored:
        turn_ingest(namespace=namespace, turn=_turn(2))
    with CaptureQueriesContext(connection) as replayed:
        again = turn_ingest(namespace=namespace, turn=_turn(2))

    assert again.duplicate is True
    verbs = [q["sql"].split()[0] for q in replayed.captured_queries]
    assert set(verbs) == {"SELECT"} and len(verbs) <= 2
    statements = [q["sql"] for q in stored.captured_queries]
    assert len(statements) <= 16, statements
    turn_reads = [s for s in statements if s.startswith('SELECT "memory_turn"')]
    assert turn_reads == []
    assert Turn.objects.filter(namespace=namespace).count() == 2
