"""Graph projections running at once (several workers on PostgreSQL) keep one current value per
fact key and per single-valued relation: a new value closes the old one, never sits beside it.

Each round, two threads (each with its own connection and transaction) project a different
value for the same node's fact and `works_at` edge at the same moment. SQLite lets one writer
in at a time, so the race exists only on PostgreSQL; the test runs on both.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connections, transaction

from memory.engine.prompts.graph import GraphProposal
from memory.models import Event, GraphEdge, GraphFact, GraphItemStatus
from memory.services.graph import graph_apply
from memory.services.jobs import jobs_drain
from tests.reliability.world import ingest_sessions

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 12


def _proposal(round_: int, side: int, event_id: int) -> GraphProposal:
    sources = [event_id]
    return GraphProposal.model_validate(
        {
            "nodes": [
                {"key": "maya", "name": "Maya", "type": "person", "source_event_ids": sources},
                {
                    "key": f"firm-{round_}-{side}",
                    "name": f"Firm {round_} {side}",
                    "type": "organization",
                    "source_event_ids": sources,
                },
            ],
            "facts": [
                {
                    "node_key": "maya",
                    "key": f"desk-{round_}",
                    "value": f"floor {side}",
                    "source_event_ids": sources,
                }
            ],
            "edges": [
                {
                    "from_key": "maya",
                    "to_key": f"firm-{round_}-{side}",
                    "relation": "works_at",
                    "source_event_ids": sources,
                }
            ],
        }
    )


def test_concurrent_projections_keep_one_current_value_per_key():
    namespace = ingest_sessions("graph-race", sessions=1, turns=6)
    jobs_drain()
    first, second = Event.objects.filter(namespace=namespace).order_by("pk")[:2]
    with transaction.atomic():  # as every job applies a batch
        graph_apply(namespace_id=namespace.pk, events=[first], proposal=_proposal(-1, 0, first.pk))
    errors: list[BaseException] = []

    for round_ in range(ROUNDS):
        barrier = threading.Barrier(2)

        def project(
            side: int, event: Event, round_: int = round_, barrier: threading.Barrier = barrier
        ) -> None:
            proposal = _proposal(round_, side, event.pk)
            try:
                barrier.wait()
                with transaction.atomic():
                    graph_apply(namespace_id=namespace.pk, events=[event], proposal=proposal)
            except BaseException as exc:  # reported below, with the thread's traceback lost
                errors.append(exc)
            finally:
                connections.close_all()

        threads = [
            threading.Thread(target=project, args=(side, event))
            for side, event in enumerate((first, second))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)

    assert errors == []
    facts = Counter(
        GraphFact.objects.filter(namespace=namespace, status=GraphItemStatus.ACTIVE).values_list(
            "node__key", "key"
        )
    )
    assert {key for key, n in facts.items() if n > 1} == set()
    assert sum(1 for _, key in facts if key.startswith("desk-")) == ROUNDS + 1  # and round -1
    works_at = GraphEdge.objects.filter(
        namespace=namespace, status=GraphItemStatus.ACTIVE, relation="works_at"
    )
    assert works_at.filter(from_node__key="maya").count() == 1
    # The race's edges only: the conversation's own "use npm" → "switch to pnpm" closes one too.
    closed = GraphEdge.objects.filter(
        namespace=namespace, status=GraphItemStatus.SUPERSEDED, relation="works_at"
    )
    assert closed.count() == 2 * ROUNDS  # every round's first edge closed by a later one
