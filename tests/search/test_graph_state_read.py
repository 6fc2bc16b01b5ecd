"""The graph-state read (`memory.selectors.graph_state`), which every page, the API and the
search index's node documents share: the source events' statuses of many facts and edges in
one query, and the state rule applied to each — now, as of a turn and as of a date — from
model instances, `values()` rows and rows without dates alike."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.engine.graph_state import CURRENT, HIDDEN, HISTORICAL, AsOf
from memory.models import Event, GraphEdge, GraphFact, GraphNode
from memory.selectors.graph_state import item_states, source_statuses

pytestmark = pytest.mark.django_db

DAY = {d: datetime(2023, 5, d, tzinfo=UTC) for d in range(1, 8)}  # DAY[n]: 2023-05-n
VALIDITY = ("id", "status", "valid_from", "valid_to", "valid_from_turn", "valid_to_turn")


@pytest.fixture
def graph(world: Any) -> dict[str, Any]:
    """Facts and edges of `proj` over events of every status, and one fact of another namespace.
    Every item is valid from turn 2 (May 2nd); the closed ones until turn 5 (May 5th)."""
    w = world("proj")
    events = {s: w.event(f"{s} event", f"An event that is {s}.") for s in ("a", "s", "f", "r")}
    Event.objects.filter(pk=events["s"].pk).update(status="superseded")
    Event.objects.filter(pk=events["f"].pk).update(status="forgotten")
    Event.objects.filter(pk=events["r"].pk).update(status="archived")
    ns = w.namespace
    one = GraphNode.objects.create(namespace=ns, key="one", name="one", node_type="tool")
    two = GraphNode.objects.create(namespace=ns, key="two", name="two", node_type="tool")
    open_ = {"valid_from": DAY[2], "valid_from_turn": 2}
    closed = {**open_, "valid_to": DAY[5], "valid_to_turn": 5, "status": "superseded"}

    def fact(key: str, sources: str, **validity: Any) -> GraphFact:
        item = GraphFact.objects.create(
            namespace=ns, node=one, key=key, value=key, **(validity or open_)
        )
        item.source_events.set([events[s] for s in sources])
        return item

    def edge(relation: str, sources: str, **validity: Any) -> GraphEdge:
        item = GraphEdge.objects.create(
            namespace=ns, from_node=one, to_node=two, relation=relation, **(validity or open_)
        )
        item.source_events.set([events[s] for s in sources])
        return item

    other = world("other")
    elsewhere = other.event("elsewhere", "Another namespace's event.")
    far = GraphNode.objects.create(
        namespace=other.namespace, key="far", name="far", node_type="tool"
    )
    foreign = GraphFact.objects.create(
        namespace=other.namespace, node=far, key="k", value="v", **open_
    )
    foreign.source_events.set([elsewhere])
    return {
        "events": {s: e.pk for s, e in events.items()},
        "namespace": ns,
        "facts": {
            "active_and_forgotten": fact("active_and_forgotten", "af"),
            "superseded_only": fact("superseded_only", "s"),
            "forgotten_and_archived": fact("forgotten_and_archived", "fr"),
            "no_sources": fact("no_sources", ""),
            "closed": fact("closed", "a", **closed),
        },
        "edges": {
            "active": edge("active", "a"),
            "superseded_and_archived": edge("superseded_and_archived", "sr"),
            "forgotten": edge("forgotten", "f"),
            "closed": edge("closed", "as", **closed),
        },
    }


# name → state now, as of turn 1, turn 3, turn 5, and as of May 1st, 3rd and 5th
FACT_STATES = {
    "active_and_forgotten": "current hidden current current hidden current current",
    "superseded_only": "historical hidden current current hidden current current",
    "forgotten_and_archived": "hidden hidden hidden hidden hidden hidden hidden",
    "no_sources": "hidden hidden hidden hidden hidden hidden hidden",
    "closed": "historical hidden current historical hidden current historical",
}
EDGE_STATES = {
    "active": "current hidden current current hidden current current",
    "superseded_and_archived": "historical hidden current current hidden current current",
    "forgotten": "hidden hidden hidden hidden hidden hidden hidden",
    "closed": "historical hidden current historical hidden current historical",
}
AS_OF = [
    None,
    AsOf(turn=1),
    AsOf(turn=3),
    AsOf(turn=5),
    AsOf(at=DAY[1]),
    AsOf(at=DAY[3]),
    AsOf(at=DAY[5]),
]


def _expected(items: dict[str, Any], table: dict[str, str], at: int) -> dict[int, str]:
    return {item.pk: table[name].split()[at] for name, item in items.items()}


@pytest.mark.parametrize(("kind", "model", "table"), [
    ("facts", GraphFact, FACT_STATES),
    ("edges", GraphEdge, EDGE_STATES),
])  # fmt: skip
def test_states_from_instances_and_rows_now_and_as_of(graph, kind, model, table):
    items = graph[kind]
    ids = [item.pk for item in items.values()]
    sources = source_statuses(model, ids)
    instances = list(model.objects.filter(pk__in=ids))
    rows = list(model.objects.filter(pk__in=ids).values(*VALIDITY))
    undated = list(model.objects.filter(pk__in=ids).values("id", "status", *VALIDITY[4:]))
    for at, as_of in enumerate(AS_OF):
        expected = _expected(items, table, at)
        assert item_states(instances, as_of, sources=sources) == expected, as_of
        assert item_states(rows, as_of, sources=sources) == expected, as_of
        if as_of is None or as_of.at is None:  # the rule reads dates only for a date as-of
            assert item_states(undated, as_of, sources=sources) == expected, as_of
    assert {CURRENT, HISTORICAL, HIDDEN} <= {s for states in table.values() for s in states.split()}


def test_source_statuses_name_each_source_event_with_its_status(graph):
    e, facts = graph["events"], graph["facts"]
    found = source_statuses(GraphFact, [f.pk for f in facts.values()])
    assert {pk: sorted(sources) for pk, sources in found.items()} == {
        facts["active_and_forgotten"].pk: sorted([(e["a"], "active"), (e["f"], "forgotten")]),
        facts["superseded_only"].pk: [(e["s"], "superseded")],
        facts["forgotten_and_archived"].pk: sorted([(e["f"], "forgotten"), (e["r"], "archived")]),
        facts["closed"].pk: [(e["a"], "active")],
    }  # no key for the fact without sources: item_states reads it as hidden
    edge = graph["edges"]["closed"]
    assert sorted(source_statuses(GraphEdge, [edge.pk])[edge.pk]) == sorted(
        [(e["a"], "active"), (e["s"], "superseded")]
    )


def test_a_namespace_at_once_reads_its_own_items_only(graph):
    ns = graph["namespace"]
    for kind, model in (("facts", GraphFact), ("edges", GraphEdge)):
        by_id = source_statuses(model, [item.pk for item in graph[kind].values()])
        whole = source_statuses(model, namespace=ns)
        assert {k: sorted(v) for k, v in whole.items()} == {k: sorted(v) for k, v in by_id.items()}


def test_one_query_for_the_statuses_and_none_for_the_rule(graph):
    facts = list(graph["facts"].values())
    ids = [f.pk for f in facts]
    with CaptureQueriesContext(connection) as queries:
        sources = source_statuses(GraphFact, ids)
    assert len(queries) == 1
    with CaptureQueriesContext(connection) as queries:
        source_statuses(GraphEdge, namespace=graph["namespace"])
    assert len(queries) == 1
    with CaptureQueriesContext(connection) as queries:
        assert source_statuses(GraphFact, []) == {}
        for as_of in AS_OF:
            item_states(facts, as_of, sources=sources)
    assert len(queries) == 0
