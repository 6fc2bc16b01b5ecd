"""Graph node search: names, facts and neighbours split into current and historical; relation
labels help ranking but never make a hit (SPEC §6.4, §8.2)."""

from __future__ import annotations

import pytest

from memory.engine.prompts.graph import GraphProposal
from memory.models import GraphNode
from memory.search import search_nodes
from memory.search.documents import EVENTS, NODES, node_documents
from memory.search.index import indexed_fields
from memory.services.events import event_lifecycle, event_supersede
from memory.services.graph import graph_apply
from tests.search.conftest import index_ids

pytestmark = pytest.mark.django_db


def _apply(w, events, nodes=(), facts=(), edges=()):
    ids = [e.pk for e in events]
    proposal = GraphProposal(
        nodes=[{"source_event_ids": ids, **n} for n in nodes],
        facts=[{"source_event_ids": ids, **f} for f in facts],
        edges=[{"source_event_ids": ids, **e} for e in edges],
    )
    graph_apply(namespace_id=w.pk, events=list(events), proposal=proposal)


def _node(name):
    return GraphNode.objects.get(name=name).pk


def _ids(hits):
    return [h.object_id for h in hits]


def _distractor_nodes(w, count=6):
    event = w.event("Background", "Background entities.")
    _apply(
        w,
        [event],
        nodes=[{"key": f"d{n}", "name": f"Distractor {n}", "type": "tool"} for n in range(count)],
    )


def test_graph_apply_indexes_the_nodes_it_touches(world):
    w = world()
    event = w.event("Use Kafka", "Kafka for events.")
    _apply(w, [event], nodes=[{"key": "kafka", "name": "Kafka", "type": "tool"}])
    assert index_ids(NODES.table) == {_node("Kafka")}
    assert _ids(search_nodes(w.pk, "kafka")) == [_node("Kafka")]


def test_a_match_only_on_a_relation_label_is_not_a_hit_but_helps_ranking(world):
    w = world()
    _distractor_nodes(w)
    event = w.event("Mentoring", "Ada mentors Bob; both do design.")
    _apply(
        w,
        [event],
        nodes=[
            {"key": "ada", "name": "Ada", "type": "person", "tags": ["design"]},
            {"key": "bob", "name": "Bob", "type": "person"},
            {"key": "cy", "name": "Cy", "type": "person", "tags": ["design"]},
            {"key": "dee", "name": "Dee", "type": "person"},
        ],
        # Same shape for Ada and Cy (one neighbour, a two-word relation): only the label differs.
        edges=[
            {"from_key": "ada", "to_key": "bob", "relation": "design mentor"},
            {"from_key": "cy", "to_key": "dee", "relation": "peer review"},
        ],
    )
    assert search_nodes(w.pk, "mentor") == []  # only the relation label says it
    assert _node("Bob") not in _ids(search_nodes(w.pk, "design"))
    assert _ids(search_nodes(w.pk, "peer review")) == []
    assert _ids(search_nodes(w.pk, "design")) == [_node("Ada"), _node("Cy")]


def test_a_current_fact_match_ranks_above_a_historical_only_match(world):
    w = world()
    _distractor_nodes(w)
    alpha_npm = w.event("Alpha uses npm", "Alpha uses npm.")
    beta_npm = w.event("Beta uses npm", "Beta uses npm.")
    alpha_pnpm = w.event("Alpha switches to pnpm", "Alpha switches to pnpm.")
    projects = [
        {"key": "alpha", "name": "Alpha", "type": "project"},
        {"key": "beta", "name": "Beta", "type": "project"},
    ]
    _apply(
        w,
        [alpha_npm, beta_npm],
        nodes=projects,
        facts=[
            {"node_key": "alpha", "key": "package_manager", "value": "npm"},
            {"node_key": "beta", "key": "package_manager", "value": "npm"},
        ],
    )
    _apply(
        w,
        [alpha_pnpm],
        nodes=projects[:1],
        facts=[{"node_key": "alpha", "key": "package_manager", "value": "pnpm"}],
    )
    assert _ids(search_nodes(w.pk, "npm")) == [_node("Beta"), _node("Alpha")]
    assert _ids(search_nodes(w.pk, "pnpm")) == [_node("Alpha")]


def test_neighbour_names_find_the_node_below_the_neighbour_itself(world):
    w = world()
    _distractor_nodes(w)
    event = w.event("Cache", "Orion uses Redis.")
    _apply(
        w,
        [event],
        nodes=[
            {"key": "orion", "name": "Orion", "type": "project"},
            {"key": "redis", "name": "Redis", "type": "tool"},
        ],
        edges=[{"from_key": "orion", "to_key": "redis", "relation": "depends_on"}],
    )
    assert _ids(search_nodes(w.pk, "redis")) == [_node("Redis"), _node("Orion")]


def test_superseding_an_event_moves_its_facts_to_history_in_the_index(world):
    w = world()
    old = w.event("Database is MySQL", "Vega stores data in MySQL.")
    _apply(
        w,
        [old],
        nodes=[{"key": "vega", "name": "Vega", "type": "project"}],
        facts=[{"node_key": "vega", "key": "database", "value": "MySQL"}],
    )
    (before,) = node_documents([_node("Vega")])
    assert "mysql" in before.fields[4] and "mysql" not in before.fields[5]
    new = w.event("Database question reopened", "Unclear which database.")
    event_supersede(new=new, old=old)
    (after,) = node_documents([_node("Vega")])
    assert "mysql" not in after.fields[4] and "mysql" in after.fields[5]
    assert _ids(search_nodes(w.pk, "mysql")) == [_node("Vega")]  # history stays searchable


def test_forgetting_the_only_source_hides_the_fact_from_search_and_restore_brings_it_back(world):
    w = world()
    _distractor_nodes(w)
    naming = w.event("Name", "Lyra is a project.")
    secret = w.event("Lyra database", "Lyra uses Cassandra.")
    _apply(w, [naming], nodes=[{"key": "lyra", "name": "Lyra", "type": "project"}])
    _apply(
        w,
        [secret],
        nodes=[{"key": "lyra", "name": "Lyra", "type": "project"}],
        facts=[{"node_key": "lyra", "key": "database", "value": "Cassandra"}],
    )
    assert _ids(search_nodes(w.pk, "cassandra")) == [_node("Lyra")]
    event_lifecycle(event=secret, action="forget", actor="test")
    assert search_nodes(w.pk, "cassandra") == []
    assert _ids(search_nodes(w.pk, "lyra")) == [_node("Lyra")]
    event_lifecycle(event=secret, action="restore", actor="test")
    assert _ids(search_nodes(w.pk, "cassandra")) == [_node("Lyra")]


def test_node_search_is_confined_to_its_namespace(world):
    mine, theirs = world("mine"), world("theirs")
    for w in (mine, theirs):
        event = w.event("Tool", "Uses Terraform.")
        _apply(w, [event], nodes=[{"key": "tf", "name": "Terraform", "type": "tool"}])
    mine_node = GraphNode.objects.get(namespace_id=mine.pk).pk
    assert _ids(search_nodes(mine.pk, "terraform")) == [mine_node]


def test_node_types_and_chinese_names_are_searchable(world):
    w = world()
    _distractor_nodes(w)
    event = w.event("北京办公室", "团队在北京办公。")
    _apply(w, [event], nodes=[{"key": "bj", "name": "北京办公室", "type": "place"}])
    assert _ids(search_nodes(w.pk, "北京")) == [_node("北京办公室")]
    assert _ids(search_nodes(w.pk, "place")) == [_node("北京办公室")]
    assert search_nodes(w.pk, "上海") == []


def test_indexed_fields_are_what_the_index_documents_hold_on_either_backend(world):
    """What activated memory judges a card on (its index document's fields): read from the
    index on SQLite, built by the indexing code on PostgreSQL; the same terms either way, the
    namespace prefix gone, and a supersession moves a fact from current to historical."""
    w = world()
    old = w.event("Vega runs on MySQL", "The Vega service runs on MySQL.", tags=["storage"])
    _apply(
        w,
        [old],
        nodes=[{"key": "vega", "name": "Vega", "type": "project"}],
        facts=[{"node_key": "vega", "key": "database", "value": "MySQL"}],
    )
    vega = _node("Vega")
    fields = ("name", "node_type", "facts_current", "facts_historical")
    assert indexed_fields(NODES, [vega, 10**9], fields) == {
        vega: (("vega",), ("project",), ("databas", "mysql"), ())
    }
    event_supersede(new=w.event("Database question reopened", "Unclear."), old=old)
    assert indexed_fields(NODES, [vega], fields)[vega][2:] == ((), ("databas", "mysql"))
    (document,) = node_documents([vega])
    assert indexed_fields(NODES, [vega], [f.name for f in NODES.fields]) == {vega: document.fields}
    assert indexed_fields(EVENTS, [old.pk], ("title", "tags")) == {
        old.pk: (("vega", "run", "mysql"), ("storag",))
    }
    assert indexed_fields(EVENTS, [], ("title",)) == {}
