"""Retrieval loads graph state in batches: graph search and activated memory issue the same
number of queries however many graph nodes match or are tied to pinned/safety events (the
latency target of SPEC §8 depends on it)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.models.sql.compiler import (
    SQLCompiler,
    SQLDeleteCompiler,
    SQLInsertCompiler,
    SQLUpdateCompiler,
)
from django.test.utils import CaptureQueriesContext

from memory import search
from memory.models import (
    Event,
    GraphEdge,
    GraphFact,
    GraphItemStatus,
    GraphNode,
    Message,
    Namespace,
    NodeType,
    Session,
)
from memory.recall.graph import GraphSearch
from memory.recall.raw import RawSearch
from memory.selectors.graph import node_state, node_states
from memory.services.activation import activation_build
from memory.services.retrieval import raw_search
from memory.services.retrieval_graph import graph_search
from tests.retrieval.conftest import the_events

pytestmark = pytest.mark.django_db

WHEN = datetime(2023, 5, 6, 10, 0, tzinfo=UTC)


def _add_nodes(namespace: Namespace, event: Event, count: int, start: int) -> list[GraphNode]:
    """`count` tool nodes named "zebratool N", each with two facts and an edge citing `event`."""
    nodes = []
    for i in range(start, start + count):
        node = GraphNode.objects.create(
            namespace=namespace,
            key=f"zebratool-{i}",
            name=f"zebratool {i}",
            node_type=NodeType.TOOL,
        )
        for key in ("colour", "size"):
            fact = GraphFact.objects.create(
                namespace=namespace,
                node=node,
                key=key,
                value=f"{key} {i}",
                status=GraphItemStatus.ACTIVE,
                valid_from=WHEN,
                valid_from_turn=1,
            )
            fact.source_events.add(event)
        if nodes:
            edge = GraphEdge.objects.create(
                namespace=namespace,
                from_node=node,
                to_node=nodes[-1],
                relation="uses",
                status=GraphItemStatus.ACTIVE,
                valid_from=WHEN,
                valid_from_turn=1,
            )
            edge.source_events.add(event)
        nodes.append(node)
    search.reindex_namespace(namespace.pk)
    return nodes


def _queries(call) -> int:  # type: ignore[no-untyped-def]
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured)


def test_graph_search_issues_the_same_queries_for_two_or_twenty_matching_nodes(project):
    namespace = Namespace.objects.get(name="proj")
    _, pnpm, _ = the_events(project)
    event = Event.objects.get(pk=pnpm["id"])
    _add_nodes(namespace, event, 2, 0)

    def run() -> int:
        return len(graph_search(namespace=namespace, params=GraphSearch(query="zebratool")).hits)

    few = _queries(run)
    assert run() == 2
    _add_nodes(namespace, event, 18, 2)
    many = _queries(run)
    assert run() == 8  # the default limit
    assert many == few <= 25  # PostgreSQL adds 4 statements per search call (planner cost)


def test_activation_issues_a_bounded_number_of_queries_for_two_or_twenty_pinned_nodes(project):
    namespace = Namespace.objects.get(name="proj")
    _, pnpm, _ = the_events(project)
    Event.objects.filter(pk=pnpm["id"]).update(pinned=True)
    event = Event.objects.get(pk=pnpm["id"])
    session = Session.objects.get(namespace=namespace, external_id="s1")
    other = Session.objects.create(namespace=namespace, external_id="s2")
    _add_nodes(namespace, event, 2, 0)

    def run() -> int:
        built = activation_build(namespace=namespace, session=other, query="zebratool")
        return len(built.nodes)

    few = _queries(run)
    assert run() >= 1
    _add_nodes(namespace, event, 18, 2)
    many = _queries(run)
    assert run() == 4  # MAX_NODES
    # The state of the nodes that make the cut is read once (four queries, whatever their
    # number); their rows once more when some of them are not search hits (one query), and the
    # state of hits whose own words do not match once more (four): never more than five apart.
    assert abs(many - few) <= 5
    # + ranking messages for the passages (BM25, feedback, rows): 26 on both databases since
    # PostgreSQL sets its planner cost when connecting instead of around each search.
    assert max(few, many) <= 30
    # Its own session's memory is never activated, whatever the number of nodes.
    assert activation_build(namespace=namespace, session=session, query="zebratool").nodes == []


def test_node_states_of_many_nodes_equal_each_node_state_in_four_queries(project):
    namespace = Namespace.objects.get(name="proj")
    _, pnpm, _ = the_events(project)
    nodes = _add_nodes(namespace, Event.objects.get(pk=pnpm["id"]), 5, 0)
    nodes += list(GraphNode.objects.filter(namespace=namespace).exclude(key__startswith="zebra"))
    with CaptureQueriesContext(connection) as captured:
        states = node_states(nodes)
    assert len(captured) == 4
    assert states == {node.pk: node_state(node) for node in nodes}
    assert node_states([]) == {}


def test_node_states_read_in_chunks_of_ids_equal_one_read(project, monkeypatch):
    """A whole namespace's nodes are read in chunks of ids: an edge between two chunks is
    listed once per end, and every list keeps its order."""
    from memory.models import rows

    namespace = Namespace.objects.get(name="proj")
    nodes = list(GraphNode.objects.filter(namespace=namespace).order_by("pk"))
    whole = node_states(nodes)
    assert sum(len(s.edges) for s in whole.values()) > 0
    monkeypatch.setattr(rows, "IN_CHUNK", 1)
    assert node_states(nodes) == whole


def test_raw_search_fetches_every_hits_neighbours_in_two_queries(project):
    namespace = Namespace.objects.get(name="proj")
    found = raw_search(namespace=namespace, params=RawSearch(query="pnpm npm prototype noted"))
    assert len(found.hits) >= 3
    assert all(len(hit.neighbours) == 1 for hit in found.hits)  # one-turn blocks: user ↔ reply
    assert all(hit.neighbours[0].turn_id == hit.message.turn_id for hit in found.hits)

    def places() -> list[tuple]:
        return [
            (
                h.message.session.external_id,
                h.message.turn.session_turn,
                h.message.turn.block.pk if h.message.turn.block else None,
                [n.session.external_id for n in h.neighbours],
            )
            for h in found.hits
        ]

    # Each hit holds its session, turn and block, and each neighbour its session: no queries.
    assert _queries(places) == 0
    orm = Message.objects.select_related("session", "turn", "turn__block")
    expected = [
        (m.session.external_id, m.turn.session_turn, m.turn.block_id, ["s1"])
        for m in (orm.get(pk=h.message.pk) for h in found.hits)
    ]
    assert places() == expected and all(block is not None for _, _, block, _ in expected)
    counts = {
        _queries(lambda q=q: raw_search(namespace=namespace, params=RawSearch(query=q)))
        for q in ("pnpm", "pnpm npm prototype noted")
    }
    assert len(counts) == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL planner setting")
def test_postgres_connections_plan_with_a_low_random_page_cost(project):
    """Set when connecting (no statement per search); an `options` of DATABASE_URL wins."""
    from stratagate_site.settings import postgres_options

    with connection.cursor() as cursor:
        cursor.execute("SHOW random_page_cost")
        assert str(cursor.fetchone()[0]) == "1.1"
    assert postgres_options(None) == "-c random_page_cost=1.1"
    assert postgres_options("-c random_page_cost=4") == (
        "-c random_page_cost=1.1 -c random_page_cost=4"
    )


def test_activation_compiles_no_orm_query(project, monkeypatch):
    """Every read and write of building activated memory is plain SQL (memory.models.rows):
    compiling the ORM's statements cost more than running them (benchmarks/README.md)."""
    namespace = Namespace.objects.get(name="proj")
    _, pnpm, _ = the_events(project)
    Event.objects.filter(pk=pnpm["id"]).update(pinned=True)
    other = Session.objects.create(namespace=namespace, external_id="s2")
    compiled: list[str] = []
    for compiler in (SQLCompiler, SQLInsertCompiler, SQLUpdateCompiler, SQLDeleteCompiler):
        real = compiler.as_sql

        def spy(self, *args, real=real, **kwargs):  # type: ignore[no-untyped-def]
            compiled.append(f"{type(self).__name__} {self.query.model.__name__}")
            return real(self, *args, **kwargs)

        monkeypatch.setattr(compiler, "as_sql", spy)
    built = activation_build(namespace=namespace, session=other, query="pnpm prototype noted")
    assert built.events and built.passages and built.activation_id is not None
    assert compiled == []
