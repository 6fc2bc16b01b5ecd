"""Two graph batches touching one node at the same moment leave its search document whole: one
adds a fact to the node, the other moves a single-valued edge off it (the node is displaced, not
proposed, so no row lock covers it). Each batch rebuilds the node's document from what its own
transaction sees; without the namespace's lock for derived memory each missed the other's
change and `check_consistency` reported `index_row_stale` (the reliability suite's worker-crash
run, now and then, on PostgreSQL). SQLite lets one writer in at a time; the test runs on both."""

from __future__ import annotations

import contextlib
import threading

import pytest
from django.db import connections, transaction

from memory.engine.prompts.graph import GraphProposal
from memory.models import Event, GraphNode
from memory.services import graph as graph_service
from memory.services.consistency import consistency_run
from memory.services.graph import graph_apply
from memory.services.jobs import jobs_drain
from tests.reliability.world import ingest_sessions

pytestmark = pytest.mark.django_db(transaction=True)


def _proposal(event: Event, **items: list[dict[str, object]]) -> GraphProposal:
    return GraphProposal(
        **{
            kind: [{"source_event_ids": [event.pk], **item} for item in rows]
            for kind, rows in items.items()
        }
    )


def test_two_batches_touching_one_node_at_once_leave_its_document_whole(monkeypatch):
    namespace = ingest_sessions("graph-race", sessions=2, turns=6)
    jobs_drain()
    first, second, third = list(Event.objects.filter(namespace=namespace).order_by("pk"))[:3]
    vega = {"key": "project:vega", "name": "Vega", "type": "project"}
    heroku = {"key": "tool:heroku", "name": "Heroku", "type": "tool"}
    with transaction.atomic():
        graph_apply(
            namespace_id=namespace.pk,
            events=[first],
            proposal=_proposal(
                first,
                nodes=[vega, heroku],
                edges=[
                    {"from_key": "project:vega", "to_key": "tool:heroku", "relation": "runs_on"}
                ],
            ),
        )
    # Each batch waits here, inside its transaction, for the other (or 2 s when the other is
    # kept out until this one commits).
    barrier = threading.Barrier(2, timeout=2)
    real_index = graph_service.index_nodes

    def index_nodes(ids):  # type: ignore[no-untyped-def]
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait()
        real_index(ids)

    monkeypatch.setattr(graph_service, "index_nodes", index_nodes)
    fact = _proposal(
        second,
        nodes=[heroku],
        facts=[{"node_key": "tool:heroku", "key": "region", "value": "eu-west"}],
    )
    moved = _proposal(
        third,
        nodes=[vega, {"key": "tool:render", "name": "Render", "type": "tool"}],
        edges=[{"from_key": "project:vega", "to_key": "tool:render", "relation": "runs_on"}],
    )
    errors: list[BaseException] = []

    def apply(event: Event, proposal: GraphProposal) -> None:
        try:
            with transaction.atomic():
                graph_apply(namespace_id=namespace.pk, events=[event], proposal=proposal)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=apply, args=(second, fact)),
        threading.Thread(target=apply, args=(third, moved)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    heroku_node = GraphNode.objects.get(namespace=namespace, key="tool:heroku")
    assert heroku_node.facts.filter(key="region").exists()
    report = consistency_run(namespace=namespace)
    assert [v for v in report.remaining if v.code == "index_row_stale"] == []
