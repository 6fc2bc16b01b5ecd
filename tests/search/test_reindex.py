"""`manage.py reindex_search` and reindex_namespace rebuild exactly what the writes indexed;
deleting a source row never leaves its index row behind."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memory.engine.prompts.graph import GraphProposal
from memory.models import Event, GraphNode, Namespace
from memory.search import reindex_namespace, search_events, search_messages, search_nodes
from memory.search.backend import backend
from memory.search.documents import EVENTS, KINDS, MESSAGES, NODES
from memory.services.graph import graph_apply, graph_rebuild
from tests.search.conftest import index_ids

pytestmark = pytest.mark.django_db

QUERIES = ["deploy", "postgres", "数据库", "npm", "filler", "2023-05-06", "orion"]


def _populate(w):
    w.say("We deployed Orion on Postgres", "Deploying went fine.")
    w.say("我们把数据库迁移到Postgres", "好的")
    first = w.event("Deploy Orion", "Orion was deployed on Postgres.", tags=["deploy"])
    second = w.event("Orion uses npm", "The package manager is npm.")
    proposal = GraphProposal(
        nodes=[
            {"key": "orion", "name": "Orion", "type": "project", "source_event_ids": [first.pk]},
            {"key": "pg", "name": "Postgres", "type": "tool", "source_event_ids": [first.pk]},
        ],
        facts=[
            {
                "node_key": "orion",
                "key": "package_manager",
                "value": "npm",
                "source_event_ids": [second.pk],
            }
        ],
        edges=[
            {
                "from_key": "orion",
                "to_key": "pg",
                "relation": "depends_on",
                "source_event_ids": [first.pk],
            }
        ],
    )
    graph_apply(namespace_id=w.pk, events=[first, second], proposal=proposal)


def _snapshot(namespace_id):
    def rows(hits):
        return [(h.object_id, h.rank, round(h.score, 9)) for h in hits]

    return {
        q: (
            rows(search_messages(namespace_id, q)),
            rows(search_events(namespace_id, q)),
            rows(search_nodes(namespace_id, q)),
        )
        for q in QUERIES
    }


def _wipe():
    for kind in KINDS:
        backend().delete_all(kind)


def test_reindex_search_rebuilds_identical_results_for_every_namespace(world):
    one, two = world("one"), world("two")
    _populate(one)
    _populate(two)
    before = {w.pk: _snapshot(w.pk) for w in (one, two)}
    assert any(any(parts) for parts in before[one.pk].values())
    _wipe()
    assert _snapshot(one.pk) != before[one.pk]
    out = StringIO()
    call_command("reindex_search", stdout=out)
    assert {w.pk: _snapshot(w.pk) for w in (one, two)} == before
    messages = sum(w.namespace.messages.count() for w in (one, two))
    assert out.getvalue().strip() == f"all namespaces: {messages} messages, 4 events, 4 nodes"


def test_reindex_search_for_one_namespace_touches_only_that_namespace(world):
    one, two = world("one"), world("two")
    _populate(one)
    _populate(two)
    before = {w.pk: _snapshot(w.pk) for w in (one, two)}
    for kind in KINDS:
        backend().delete_namespace(kind, one.pk)
    assert search_messages(one.pk, "orion") == []
    out = StringIO()
    call_command("reindex_search", "--namespace", "one", stdout=out)
    # Identical, scores included: bm25 statistics span the table, so both namespaces count.
    assert {w.pk: _snapshot(w.pk) for w in (one, two)} == before
    messages = one.namespace.messages.count()
    events = Event.objects.filter(namespace_id=one.pk).count()
    nodes = GraphNode.objects.filter(namespace_id=one.pk).count()
    assert out.getvalue().strip() == f"one: {messages} messages, {events} events, {nodes} nodes"


def test_reindex_search_for_an_unknown_namespace_fails_and_changes_nothing(world):
    w = world("one")
    _populate(w)
    before = _snapshot(w.pk)
    with pytest.raises(CommandError, match="does not exist"):
        call_command("reindex_search", "--namespace", "nope")
    assert _snapshot(w.pk) == before


def test_reindex_namespace_counts_what_it_indexed(world):
    w = world()
    _populate(w)
    counts = reindex_namespace(w.pk)
    assert counts == {
        "messages": w.namespace.messages.count(),
        "events": Event.objects.filter(namespace_id=w.pk).count(),
        "nodes": 2,
    }
    assert index_ids(NODES.table) == set(GraphNode.objects.values_list("pk", flat=True))


def test_graph_rebuild_leaves_the_node_index_as_a_full_reindex_would(world):
    w = world()
    _populate(w)
    old_nodes = set(GraphNode.objects.values_list("pk", flat=True))
    graph_rebuild(namespace=Namespace.objects.get(pk=w.pk))
    new_nodes = set(GraphNode.objects.values_list("pk", flat=True))
    assert index_ids(NODES.table) == new_nodes and not (old_nodes & new_nodes)
    rebuilt = _snapshot(w.pk)
    reindex_namespace(w.pk)
    assert _snapshot(w.pk) == rebuilt


def test_deleting_source_rows_deletes_their_index_rows(world):
    w = world()
    _populate(w)
    Event.objects.filter(namespace_id=w.pk).delete()  # cascades to nothing it does not own
    GraphNode.objects.filter(namespace_id=w.pk).delete()
    assert index_ids(EVENTS.table) == set()
    assert index_ids(NODES.table) == set()
    assert index_ids(MESSAGES.table)  # messages untouched
    w.namespace.messages.all().delete()
    assert index_ids(MESSAGES.table) == set()


def test_incremental_message_indexing_writes_what_a_full_rebuild_would(world):
    """Each ingest re-indexes its messages and the neighbours whose context they change; with
    sessions interleaved, one-by-one and batched, every row must equal the rebuilt one."""
    from memory.services.consistency import consistency_check
    from memory.services.ingest import MessageIn, TurnIn
    from memory.services.ingest_batch import turn_batch_ingest

    w = world()
    for n in range(7):
        w.say(f"alpha {n} kiwi", f"reply {n} mango", session=("s1", "s2", "s3")[n % 3])
    batch = [
        TurnIn(
            session_id=("s2", "s4")[n % 2],
            receipt_id=f"batch-{n}",
            messages=[
                MessageIn(role="user", content=f"batch {n} papaya"),
                MessageIn(role="assistant", content=f"ok {n} guava"),
            ],
        )
        for n in range(9)
    ]
    assert turn_batch_ingest(namespace=w.namespace, turns=batch).stored == 9
    w.say("late kiwi", session="s1")

    assert [v for v in consistency_check(namespace=w.namespace) if v.kind == "search_index"] == []
    # The last message of s2 before the batch now has batch text after it.
    hits = search_messages(w.pk, "papaya")
    assert hits, "the batch's own text is indexed"


def test_no_messages_need_no_documents(world):
    from memory.search.index import index_messages, message_documents

    assert message_documents([]) == []
    index_messages([])  # no statement at all (PostgreSQL refuses an empty one)
