"""A realistic demo namespace, loaded through the real services (never by writing rows).

`demo_load` ingests four sessions of a software-project conversation (one in Chinese), runs
the queued processing in-process (offline processor: L0–L2, events, graph), runs agent
retrieval loops with assessments and usage receipts, commits one past import from "ChatGPT",
forgets one event and pins another. Every step is idempotent, so loading twice changes
nothing. `nodes` additionally grows the graph to at least that many nodes (benchmarks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count

from memory.demo.bulk_graph import graph_grow
from memory.demo.conversation import jobs_settle, session_ingest
from memory.demo.external import demo_import
from memory.demo.lifecycle import demo_lifecycle
from memory.demo.script import SESSIONS
from memory.demo.usage import loop_run, loops_for
from memory.models import (
    Activation,
    Assessment,
    Block,
    Event,
    EventRelation,
    GraphEdge,
    GraphFact,
    GraphNode,
    ImportBatch,
    JobStatus,
    Namespace,
    ProcessingJob,
    RetrievalBatch,
    Session,
    Turn,
    UsageReceipt,
)
from memory.services.namespaces import namespace_get_or_create

__all__ = ["DemoSummary", "demo_counts", "demo_load"]


@dataclass(frozen=True)
class DemoSummary:
    namespace: str
    new_turns: int
    imported: bool
    bulk_nodes: int
    counts: dict[str, Any]

    @property
    def already_loaded(self) -> bool:
        return not (self.new_turns or self.imported or self.bulk_nodes)


def demo_load(*, name: str = "demo", nodes: int = 0) -> DemoSummary:
    """Load the demo into namespace `name` (created when missing); safe to run again."""
    namespace = namespace_get_or_create(name=name)
    new_turns = 0
    for session in SESSIONS:
        new_turns += session_ingest(namespace, session)
        jobs_settle(namespace)  # later sessions' extraction must see this session's events
        for offset, loop in enumerate(loops_for(session.session_id), start=1):
            new_turns += loop_run(namespace, loop, number=len(session.lines) + offset)
        jobs_settle(namespace)
    imported = demo_import(namespace)
    demo_lifecycle(namespace)
    bulk_nodes = 0
    if nodes > 0:
        bulk_nodes = graph_grow(namespace=namespace, nodes=nodes)
    jobs_settle(namespace)
    return DemoSummary(name, new_turns, imported, bulk_nodes, demo_counts(namespace))


def _by(queryset: Any, field: str) -> dict[str, int]:
    rows = queryset.values(field).annotate(n=Count("pk")).order_by(field)
    return {row[field]: row["n"] for row in rows}


def demo_counts(namespace: Namespace) -> dict[str, Any]:
    """What the demo holds, grouped for the command's summary (and the tests)."""
    ns = {"namespace": namespace}
    receipts = UsageReceipt.objects.filter(**ns)
    return {
        "sessions": Session.objects.filter(**ns).count(),
        "turns": Turn.objects.filter(**ns).count(),
        "blocks": _by(Block.objects.filter(**ns), "status"),
        "events": _by(Event.objects.filter(**ns), "status"),
        "relations": _by(EventRelation.objects.filter(**ns), "kind"),
        "nodes": GraphNode.objects.filter(**ns).count(),
        "facts": _by(GraphFact.objects.filter(**ns), "status"),
        "edges": _by(GraphEdge.objects.filter(**ns), "status"),
        "batches": RetrievalBatch.objects.filter(**ns).count(),
        "assessments": _by(Assessment.objects.filter(**ns), "verdict"),
        "activations": Activation.objects.filter(**ns).count(),
        "receipts": receipts.count(),
        "zero_increment_receipts": receipts.filter(evidence_refs=[]).count(),
        "imports": _by(ImportBatch.objects.filter(**ns), "status"),
        "jobs_open": ProcessingJob.objects.filter(**ns).exclude(status=JobStatus.SUCCEEDED).count(),
    }
