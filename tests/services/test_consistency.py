"""services.consistency: a processed namespace is consistent; each invariant broken on purpose is
reported with the ids of the rows involved, repair fixes exactly the fixable ones (and a check
afterwards is clean), and no repair ever deletes source data."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memory.models import (
    Block,
    BlockStatus,
    BlockView,
    Event,
    GraphFact,
    GraphNode,
    JobKind,
    JobStatus,
    Message,
    Namespace,
    ProcessingJob,
    Session,
    Turn,
    UsageReceipt,
)
from memory.search import search_events, search_messages, search_nodes
from memory.search.documents import EVENTS, MESSAGES
from memory.services.consistency import consistency_check, consistency_repair, consistency_run
from tests.services.consistency_world import World, build, codes, index_row_copy, index_row_delete

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> World:
    return build("proj")


def _block(world: World) -> Block:
    return Block.objects.get(namespace=world.namespace, session__external_id="s1", sequence=1)


def _source_counts() -> dict[str, int]:
    return {
        "messages": Message.objects.count(),
        "turns": Turn.objects.count(),
        "events": Event.objects.count(),
        "blocks": Block.objects.count(),
        "receipts": UsageReceipt.objects.count(),
    }


def test_a_processed_namespace_is_consistent(world):
    block = _block(world)
    assert block.status == BlockStatus.READY and (block.first_turn, block.last_turn) == (1, 6)
    assert Event.objects.filter(namespace=world.namespace).count() >= 3
    assert GraphNode.objects.filter(namespace=world.namespace).exists()
    assert UsageReceipt.objects.filter(namespace=world.namespace).count() == 2
    assert consistency_check() == []
    assert consistency_check(namespace=world.namespace) == []


def test_a_missing_index_row_is_reported_and_reindexed(world):
    message = Message.objects.filter(namespace=world.namespace, content__contains="pnpm").first()
    assert message is not None
    index_row_delete(MESSAGES, message.pk)
    assert message.pk not in [h.object_id for h in search_messages(world.namespace.pk, "pnpm")]

    found = consistency_check()
    assert codes(found) == [("index_row_missing", {"message": message.pk})]
    assert found[0].kind == "search_index" and found[0].fixable

    repairs = consistency_repair(found)
    assert [(r.code, dict(r.ids)) for r in repairs] == [
        ("index_reindexed", {"message": [message.pk]})
    ]
    assert consistency_check() == []
    assert message.pk in [h.object_id for h in search_messages(world.namespace.pk, "pnpm")]


def test_an_orphan_index_row_is_reported_and_removed(world):
    orphan = (Event.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000
    index_row_copy(EVENTS, world.cited_event.pk, orphan)
    found = consistency_check()
    assert codes(found) == [("index_row_orphan", {"event": orphan})]
    before = _source_counts()

    repairs = consistency_repair(found)
    assert [(r.code, dict(r.ids)) for r in repairs] == [
        ("index_orphans_removed", {"event": [orphan]})
    ]
    assert consistency_check() == []
    assert _source_counts() == before
    assert world.cited_event.pk in [h.object_id for h in search_events(world.namespace.pk, "pnpm")]


def test_a_stale_index_row_is_reported_and_rewritten(world):
    # A hand edit behind memory.search's back: the row still holds the old title.
    Event.objects.filter(pk=world.cited_event.pk).update(title="Quokka migration")
    assert search_events(world.namespace.pk, "quokka") == []

    found = consistency_check()
    assert codes(found) == [("index_row_stale", {"event": world.cited_event.pk})]
    consistency_repair(found)
    assert consistency_check() == []
    assert [h.object_id for h in search_events(world.namespace.pk, "quokka")] == [
        world.cited_event.pk
    ]


def test_an_index_row_filed_under_another_namespace_is_stale(world):
    other = Namespace.objects.create(name="elsewhere")
    node = world.cited_node
    GraphNode.objects.filter(pk=node.pk).update(namespace=other)
    assert search_nodes(other.pk, "pnpm") == []

    # Checked from proj: the row is proj's, its node is not.
    found = [v for v in consistency_check(namespace=world.namespace) if v.kind == "search_index"]
    assert codes(found) == [("index_row_stale", {"node": node.pk})]
    consistency_repair(found)
    assert not [v for v in consistency_check() if v.kind == "search_index"]
    assert [h.object_id for h in search_nodes(other.pk, "pnpm")] == [node.pk]


def test_a_namespace_counter_behind_its_turns_is_raised(world):
    Namespace.objects.filter(pk=world.namespace.pk).update(current_turn=3)
    found = consistency_check()
    assert codes(found) == [("namespace_turn_counter", {"namespace": world.namespace.pk})]
    assert found[0].fixable and "current_turn is 3 but its highest turn is 7" in found[0].message

    repairs = consistency_repair(found)
    assert [r.message for r in repairs] == [f"namespace {world.namespace.pk}: current_turn 3 → 7"]
    world.namespace.refresh_from_db()
    assert world.namespace.current_turn == 7
    assert consistency_check() == []


def test_a_namespace_counter_ahead_is_lowered_only_below_nothing_recorded(world):
    Namespace.objects.filter(pk=world.namespace.pk).update(current_turn=12)
    found = consistency_check()
    assert [(v.code, v.fixable) for v in found] == [("namespace_turn_counter", True)]

    # A receipt recorded at turn 10: lowering the counter under it would make it "future".
    UsageReceipt.objects.filter(pk=world.receipt.pk).update(namespace_turn=10)
    found = consistency_check()
    assert [(v.code, v.fixable) for v in found] == [("namespace_turn_counter", False)]
    assert "turn 10 is recorded by its memory" in found[0].message
    assert consistency_repair(found) == []
    world.namespace.refresh_from_db()
    assert world.namespace.current_turn == 12


def test_session_counters_are_recomputed_and_gaps_only_reported(world):
    session = Session.objects.get(namespace=world.namespace, external_id="s1")
    Session.objects.filter(pk=session.pk).update(turn_count=2)
    found = consistency_check()
    assert codes(found) == [("session_turn_counter", {"session": session.pk})]
    consistency_repair(found)
    session.refresh_from_db()
    assert session.turn_count == 7 and consistency_check() == []

    # The open turn renumbered 7 → 9: the counter follows, the gap (no turn 8) cannot be fixed.
    Turn.objects.filter(session=session, session_turn=7).update(session_turn=9)
    found = consistency_check()
    assert [(v.code, v.fixable) for v in found] == [
        ("session_turn_counter", True),
        ("session_turn_gap", False),
    ]
    report = consistency_run(repair=True)
    assert [r.code for r in report.repairs] == ["session_turn_counter"]
    assert codes(report.remaining) == [("session_turn_gap", {"session": session.pk})]


def test_a_job_running_past_its_lease_is_released(world):
    now = timezone.now()
    block = _block(world)
    stuck = ProcessingJob.objects.create(
        namespace=world.namespace,
        kind=JobKind.GRAPH_PROJECT,
        status=JobStatus.RUNNING,
        attempts=1,
        lease_expires_at=now - timedelta(minutes=5),
    )
    last_try = ProcessingJob.objects.create(
        namespace=world.namespace,
        kind=JobKind.BLOCK_EXTRACT,
        block=block,
        status=JobStatus.RUNNING,
        attempts=3,
        lease_expires_at=None,
    )
    ProcessingJob.objects.create(  # leased into the future: a worker is on it
        namespace=world.namespace,
        kind=JobKind.GRAPH_PROJECT,
        status=JobStatus.RUNNING,
        attempts=1,
        lease_expires_at=now + timedelta(minutes=5),
    )
    found = consistency_check()
    assert codes(found) == [
        ("job_lease_expired", {"job": stuck.pk}),
        ("job_lease_expired", {"job": last_try.pk, "block": block.pk}),
    ]
    assert "it has no lease" in found[1].message

    consistency_repair(found)
    stuck.refresh_from_db()
    last_try.refresh_from_db()
    assert (stuck.status, stuck.attempts, stuck.lease_expires_at) == (JobStatus.QUEUED, 1, None)
    assert last_try.status == JobStatus.FAILED and "lease expired" in last_try.last_error
    block.refresh_from_db()
    assert block.status == BlockStatus.FAILED  # visible and retryable, like any failed job
    assert not [v for v in consistency_check() if v.code == "job_lease_expired"]


def test_a_receipt_citing_a_deleted_event_is_reported_and_kept(world):
    event_id = world.cited_event.pk
    node_receipt = UsageReceipt.objects.get(receipt_id="proj-use-node")
    assert event_id in node_receipt.reinforced_event_ids
    Event.objects.filter(pk=event_id).delete()
    found = consistency_check()
    receipt_codes = [(v.code, dict(v.ids)) for v in found if v.kind == "receipts"]
    assert receipt_codes == [
        (
            "receipt_ref_missing",
            {
                "receipt": world.receipt.pk,
                "receipt_id": "proj-use-event",
                "ref": f"event:{event_id}",
            },
        ),
        # The node's receipt reinforced the event too: it stands behind the node.
        (
            "receipt_reinforced_event_missing",
            {"receipt": node_receipt.pk, "receipt_id": "proj-use-node", "event": event_id},
        ),
        (
            "receipt_reinforced_event_missing",
            {"receipt": world.receipt.pk, "receipt_id": "proj-use-event", "event": event_id},
        ),
    ]
    assert not any(v.fixable for v in found if v.kind == "receipts")
    report = consistency_run(repair=True)
    assert UsageReceipt.objects.filter(pk=world.receipt.pk).exists()
    assert [v.code for v in report.remaining if v.kind == "receipts"] == [
        "receipt_ref_missing",
        "receipt_reinforced_event_missing",
        "receipt_reinforced_event_missing",
    ]


def test_a_receipt_citing_a_deleted_node_is_reported(world):
    GraphNode.objects.filter(pk=world.cited_node.pk).delete()
    refs = [dict(v.ids)["ref"] for v in consistency_check() if v.code == "receipt_ref_missing"]
    assert refs == [f"node:{world.cited_node.pk}"]


def test_derived_rows_without_sources_are_reported(world):
    event = world.cited_event
    open_message = Message.objects.get(namespace=world.namespace, turn__session_turn=7, position=0)
    other = Event.objects.filter(namespace=world.namespace).exclude(pk=event.pk).first()
    assert other is not None
    event.source_messages.clear()
    other.source_messages.add(open_message)
    fact = GraphFact.objects.filter(namespace=world.namespace).first()
    assert fact is not None
    fact.source_events.clear()
    bare = GraphNode.objects.create(
        namespace=world.namespace, key="tool:nowhere", name="Nowhere", node_type="tool"
    )
    found = codes([v for v in consistency_check() if v.kind == "provenance"])
    block = _block(world)
    assert found == [
        ("event_without_source_messages", {"event": event.pk, "block": block.pk}),
        (
            "event_source_outside_block",
            {"event": other.pk, "block": block.pk, "messages": [open_message.pk]},
        ),
        ("fact_without_source_events", {"fact": fact.pk}),
        ("node_without_provenance", {"node": bare.pk, "key": "tool:nowhere"}),
    ]


def test_block_ranges_views_and_pointers_are_checked(world):
    block = _block(world)
    Block.objects.filter(pk=block.pk).update(anchor_position=4, last_turn=7)
    BlockView.objects.filter(block=block, level=1).delete()
    found = consistency_check()
    assert [(v.code, v.fixable) for v in found] == [
        ("block_turns_mismatch", False),
        ("block_views_missing", False),
        ("block_anchor_out_of_range", True),
    ]
    assert dict(found[1].ids) == {"block": block.pk, "levels": [1]}

    consistency_repair(found)
    block.refresh_from_db()
    assert (block.anchor_level, block.anchor_position) == (5, 1)
    assert [v.code for v in consistency_check()] == ["block_turns_mismatch", "block_views_missing"]


def test_a_pending_block_with_no_job_on_the_way_is_stalled(world):
    block = _block(world)
    Block.objects.filter(pk=block.pk).update(status=BlockStatus.PENDING)
    assert codes(consistency_check()) == [
        ("block_stalled", {"block": block.pk, "session": block.session_id})
    ]
    ProcessingJob.objects.create(namespace=world.namespace, kind=JobKind.BLOCK_VIEWS, block=block)
    assert consistency_check() == []


def test_the_namespace_limits_what_is_checked_and_repaired(world):
    other = build("other")
    for namespace in (world.namespace, other.namespace):
        Namespace.objects.filter(pk=namespace.pk).update(current_turn=1)
    index_row_delete(EVENTS, world.cited_event.pk)

    found = consistency_check(namespace=other.namespace)
    assert codes(found) == [("namespace_turn_counter", {"namespace": other.namespace.pk})]
    report = consistency_run(namespace=other.namespace, repair=True)
    assert report.clean and len(report.repairs) == 1
    assert sorted(v.code for v in consistency_check()) == [
        "index_row_missing",
        "namespace_turn_counter",
    ]
    assert {v.namespace_id for v in consistency_check()} == {world.namespace.pk}


def test_repairing_everything_fixable_keeps_every_source_row(world):
    messages = list(Message.objects.filter(namespace=world.namespace).order_by("pk")[:3])
    index_row_copy(MESSAGES, messages[0].pk, messages[0].pk + 5000)
    for message in messages:
        index_row_delete(MESSAGES, message.pk)
    Namespace.objects.filter(pk=world.namespace.pk).update(current_turn=0)
    Session.objects.filter(namespace=world.namespace).update(turn_count=0)
    before = _source_counts()

    report = consistency_run(repair=True)
    assert sorted(v.code for v in report.found) == [
        "index_row_missing",
        "index_row_missing",
        "index_row_missing",
        "index_row_orphan",
        "namespace_turn_counter",
        "session_turn_counter",
    ]
    assert report.clean
    assert _source_counts() == before
    assert consistency_check() == []
