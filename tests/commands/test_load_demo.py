"""`manage.py load_demo`: a demo namespace built through the real services, loaded once however
often the command runs, and a graph that grows to N nodes for benchmarks."""

from __future__ import annotations

import re
from io import StringIO
from typing import Any

import pytest
from django.apps import apps
from django.core.management import call_command

from memory.engine.decay import display_level
from memory.engine.redact import redact
from memory.models import (
    Activation,
    AdminAction,
    Assessment,
    Block,
    BlockStatus,
    Event,
    EventRelation,
    EventStatus,
    GraphEdge,
    GraphItemStatus,
    GraphNode,
    ImportBatch,
    ImportStatus,
    JobStatus,
    Message,
    Namespace,
    ProcessingJob,
    RelationKind,
    Session,
    UsageReceipt,
)
from memory.selectors.graph import node_states
from memory.selectors.settings import memory_settings_get

pytestmark = pytest.mark.django_db
HAN = re.compile(r"[\u4e00-\u9fff]")
CONVERSATIONS = ("atlas-kickoff", "atlas-storage", "zh-backend-sync", "atlas-release")


def load(*args: str) -> str:
    out = StringIO()
    call_command("load_demo", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def demo() -> Namespace:
    load()
    return Namespace.objects.get(name="demo")


def every_count() -> dict[str, int]:
    """Rows of every model of the memory app (the whole database StrataGate writes)."""
    return {
        model.__name__: model.objects.count()
        for model in apps.get_app_config("memory").get_models()
    }


def test_demo_holds_four_conversations_processed_to_ready_blocks(demo: Namespace) -> None:
    sessions = Session.objects.filter(namespace=demo, external_id__in=CONVERSATIONS)
    assert sessions.count() == 4
    lam = memory_settings_get().block_lambda
    tails = 0
    for session in sessions:
        blocks = list(Block.objects.filter(session=session).order_by("sequence"))
        assert 2 <= len(blocks) <= 4, session.external_id
        assert {b.status for b in blocks} == {BlockStatus.READY}
        tails += session.turn_count - blocks[-1].last_turn
        oldest = blocks[0]
        level = display_level(
            anchor_level=oldest.anchor_level,
            anchor_position=oldest.anchor_position,
            latest=len(blocks),
            lam=lam,
        )
        assert level == {2: 5, 3: 4, 4: 3}[len(blocks)], session.external_id
    assert tails > 0  # a partly filled open tail
    assert not ProcessingJob.objects.filter(namespace=demo).exclude(status=JobStatus.SUCCEEDED)
    chinese = [
        s.external_id
        for s in sessions
        if all(HAN.search(m.content) for m in Message.objects.filter(session=s, role="user"))
    ]
    assert chinese == ["zh-backend-sync"]
    with_tools = Message.objects.filter(session__in=sessions, role="assistant").exclude(
        tool_calls=[]
    )
    assert with_tools.count() >= 5
    secret = Message.objects.get(session__in=sessions, content__contains="sk-demo-")
    assert "sk-demo-" not in redact(secret.content)


def test_decisions_are_superseded_and_the_graph_keeps_their_history(demo: Namespace) -> None:
    superseded = Event.objects.filter(namespace=demo, status=EventStatus.SUPERSEDED)
    assert superseded.count() >= 2
    assert not superseded.filter(superseded_by__isnull=True).exists()
    titles = {e.title: e.superseded_by.title for e in superseded if e.superseded_by}
    assert titles["Use npm as package manager"] == "Use pnpm as package manager"
    assert titles["Use SQLite as database"] == "Use PostgreSQL as database"
    kinds = set(Event.objects.filter(namespace=demo).values_list("event_type", flat=True))
    assert {"decision", "plan", "cancellation", "incident", "meeting", "migration"} <= kinds
    planned = Event.objects.get(namespace=demo, title="Finish the prototype next week")
    assert (planned.temporal_status, str(planned.happened_start.date())) == (
        "planned",
        "2026-09-07",
    )

    atlas = GraphNode.objects.get(namespace=demo, key="project:atlas")
    state = node_states([atlas])[atlas.pk]
    current = {f.value for f in state.current_facts if f.key == "package_manager"}
    historical = {f.value for f in state.historical_facts if f.key == "package_manager"}
    assert (current, historical) == ({"pnpm"}, {"npm"})
    uses = {(e.to_name, e.state) for e in state.edges if e.relation == "uses"}
    assert {("pnpm", "current"), ("npm", "historical"), ("SQLite", "historical")} <= uses
    nodes = list(GraphNode.objects.filter(namespace=demo))
    full, current_only = node_states(nodes), node_states(nodes, current_only=True)
    for pk, whole in full.items():
        lean = current_only[pk]
        assert lean.current_facts == whole.current_facts and not lean.historical_facts
        assert lean.current_edges == whole.current_edges and not lean.historical_edges
    assert set(GraphNode.objects.filter(namespace=demo).values_list("node_type", flat=True)) >= {
        "person",
        "project",
        "tool",
        "organization",
        "place",
    }


def test_one_conflict_one_forgotten_and_one_pinned_event(demo: Namespace) -> None:
    conflicts = EventRelation.objects.filter(namespace=demo, kind=RelationKind.CONFLICTS_WITH)
    pairs = set(conflicts.values_list("from_event_id", "to_event_id"))
    assert pairs and all((b, a) in pairs for a, b in pairs)
    forgotten = Event.objects.filter(namespace=demo, status=EventStatus.FORGOTTEN)
    assert forgotten.count() == 1
    assert "after lunch" in forgotten.get().summary
    assert Event.objects.filter(namespace=demo, pinned=True).count() == 1
    actions = AdminAction.objects.filter(namespace_id=demo.pk, actor="demo")
    assert sorted(actions.values_list("action", flat=True)) == ["forget", "pin"]


def test_retrieval_loops_leave_verdicts_receipts_and_answer_turns(demo: Namespace) -> None:
    receipts = UsageReceipt.objects.filter(namespace=demo)
    assert receipts.count() >= 3
    assert receipts.filter(evidence_refs=[]).count() == 1
    citing = [r for r in receipts if any(ref.startswith("event:") for ref in r.evidence_refs)]
    assert len(citing) >= 2
    assert all(r.verdict == "sufficient" and r.reinforced_event_ids for r in citing)
    assert Event.objects.filter(namespace=demo, adoptions__gt=1).exists()
    assert {r.batch.tool for r in receipts} >= {"search_events", "search_raw", "search_graph"}
    partial = Assessment.objects.get(namespace=demo, verdict="partial")
    assert {r["reason"] for r in partial.rejected_refs} == {"duplicate", "not_in_batch"}
    assert Activation.objects.filter(namespace=demo).count() >= 2
    for receipt in receipts.exclude(answer_text=""):
        assert Message.objects.filter(
            session=receipt.session, role="assistant", content=receipt.answer_text
        ).exists()
    assert set(receipts.values_list("receipt_id", flat=True)) >= {
        "demo-receipt-1",
        "demo-receipt-2",
        "demo-receipt-3",
    }


def test_one_import_from_chatgpt_is_committed_with_choices(demo: Namespace) -> None:
    batch = ImportBatch.objects.get(namespace=demo)
    assert (batch.status, batch.source_system) == (ImportStatus.COMMITTED, "ChatGPT")
    rows: dict[str, Any] = {c.chosen_action: c for c in batch.candidates.order_by("-index")}
    assert set(rows) == {"add", "ignore", "supersede", "conflict"}
    duplicate = batch.candidates.get(reason__startswith="exact duplicate of event")
    assert (duplicate.chosen_action, duplicate.confidence) == ("ignore", 1.0)
    assert duplicate.decided_by == "exact"
    moved = Event.objects.get(namespace=demo, title="Atlas 1.0 release moved to 2026-10-22")
    planned = Event.objects.get(namespace=demo, title="We plan to ship Atlas 1.0 on 2026-10-15")
    assert (planned.status, planned.superseded_by_id) == (EventStatus.SUPERSEDED, moved.pk)


def test_loading_twice_changes_no_count(demo: Namespace) -> None:
    before = every_count()

    output = load()

    assert every_count() == before
    assert "already loaded" in output
    assert "12 ready" in output


def test_nodes_option_grows_a_fresh_namespace_to_a_connected_graph_with_history() -> None:
    load("--namespace", "bench", "--nodes", "300")

    bench = Namespace.objects.get(name="bench")
    assert GraphNode.objects.filter(namespace=bench).count() >= 300
    edges = GraphEdge.objects.filter(namespace=bench)
    assert edges.filter(status=GraphItemStatus.ACTIVE).count() > 300
    assert edges.filter(status=GraphItemStatus.SUPERSEDED).exists()
    assert {"works_at", "lives_in", "participates_in", "uses", "depends_on"} <= set(
        edges.values_list("relation", flat=True)
    )
    assert not Namespace.objects.filter(name="demo").exists()
    assert not ProcessingJob.objects.filter(namespace=bench).exclude(status=JobStatus.SUCCEEDED)
