"""Activated memory's graph cards (SPEC §8.7): the nodes a context query ranks, with their
current state. Split from `services.activation`, which packs them with the events and passages.

A node is a candidate when it is a text hit whose card matches the query beyond people's names
and holds enough of what it asks (memory.engine.relevance), and is not a person other than the
ones the query names; or when it is tied to a current pinned or safety event (which always may
enter). It weighs what its current items' active sources weigh. Only current state is shown,
and never a node whose every current source is the asking session's own. Every read is plain
SQL (memory.models.rows).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from memory import search
from memory.engine.gate import Ref
from memory.engine.graph_state import ITEM_ACTIVE
from memory.engine.ranking import rrf
from memory.engine.redact import redact
from memory.engine.relevance import covers, matches_beyond_names
from memory.engine.weights import current_weight
from memory.models import (
    Block,
    Event,
    EventStatus,
    GraphEdge,
    GraphFact,
    GraphNode,
    Namespace,
    Session,
)
from memory.models.rows import columns_of, marks, read_by_id, read_rows, read_values
from memory.search.documents import NODES
from memory.search.index import indexed_fields
from memory.search.query import CONTEXT_GATE_BUDGET
from memory.search.text import analyze, query_terms
from memory.selectors.graph import NodeStateOut, node_states

NODE_HITS = 12
# What a node hit is judged on: its index document's fields that make hits (the current ones)
# and the relation labels; a person's own names are left out.
_JUDGED_FIELDS = (
    "name",
    "aliases",
    "tags",
    "node_type",
    "facts_current",
    "neighbours_current",
    "relations",
)

_EVENTS, _BLOCKS, _NODES = Event._meta.db_table, Block._meta.db_table, GraphNode._meta.db_table
_FACT_SOURCES = GraphFact.source_events.through._meta.db_table
_EDGE_SOURCES = GraphEdge.source_events.through._meta.db_table
_FACTS, _EDGES = GraphFact._meta.db_table, GraphEdge._meta.db_table


class _Source(NamedTuple):
    """What activation needs of a graph item's source event."""

    id: int
    last_adopted_turn: int
    adoptions: int
    criticality: str
    status: str
    pinned: bool
    session_id: int


def node_card(ranked: tuple[GraphNode, NodeStateOut]) -> dict[str, Any]:
    node, state = ranked
    links = [
        f"{e.relation} {e.to_name}" if e.from_ == node.pk else f"{e.from_name} {e.relation}"
        for e in state.current_edges
    ][:6]
    card: dict[str, Any] = {
        "ref": str(Ref.node(node.pk)),
        "name": redact(node.name),
        "type": node.node_type,
        "facts": {f.key: f.value for f in state.current_facts},
    }
    if links:
        card["links"] = links
    return card


def _source_events(event_ids: list[int]) -> dict[int, _Source]:
    """The source events by id, what activation needs of each, in plain SQL."""
    if not event_ids:
        return {}
    rows = read_rows(
        "SELECT e.id, e.last_adopted_turn, e.adoptions, e.criticality, e.status, e.pinned, "
        f"b.session_id FROM {_EVENTS} e JOIN {_BLOCKS} b ON e.source_block_id = b.id "
        f"WHERE e.id IN ({marks(event_ids)})",
        event_ids,
    )
    return {
        pk: _Source(pk, turn, adoptions, criticality, status, bool(pinned), session_id)
        for pk, turn, adoptions, criticality, status, pinned, session_id in rows
    }  # SQLite gives a boolean column as 0 or 1


def _current_sources(node_ids: list[int]) -> dict[int, set[int]]:
    """node id → its current graph items' active source events: the sources of its active facts
    and of the active edges at either end, those events still active (SPEC §6.4: an item is
    current while it is active and has an active source). Two queries, plain ids, in plain
    SQL: the ORM's compilation of these joins cost more than running them."""
    found: dict[int, set[int]] = {pk: set() for pk in node_ids}
    if not node_ids:
        return found
    ids = marks(node_ids)
    facts = read_rows(
        f"SELECT f.node_id, s.event_id FROM {_FACT_SOURCES} s "
        f"JOIN {_EVENTS} e ON s.event_id = e.id JOIN {_FACTS} f ON s.graphfact_id = f.id "
        f"WHERE e.status = %s AND f.node_id IN ({ids}) AND f.status = %s",
        [EventStatus.ACTIVE, *node_ids, ITEM_ACTIVE],
    )
    edges = read_rows(
        f"SELECT g.from_node_id, g.to_node_id, s.event_id FROM {_EDGE_SOURCES} s "
        f"JOIN {_EVENTS} e ON s.event_id = e.id JOIN {_EDGES} g ON s.graphedge_id = g.id "
        f"WHERE e.status = %s AND (g.from_node_id IN ({ids}) OR g.to_node_id IN ({ids})) "
        "AND g.status = %s",
        [EventStatus.ACTIVE, *node_ids, *node_ids, ITEM_ACTIVE],
    )
    for node_id, event_id in facts:
        found[node_id].add(event_id)
    for from_id, to_id, event_id in edges:
        for end in (from_id, to_id):
            if end in found:
                found[end].add(event_id)
    return found


def _important_nodes(namespace: Namespace, important: list[tuple[int, str]]) -> dict[int, set[int]]:
    """node id → the sessions of its current pinned or safety sources: nodes with an active
    fact, or an active edge at either end, citing an active pinned or safety event. Driven by
    the through tables' event index; the namespace is checked here, not in SQL, so that
    SQLite's planner cannot start from the namespace's every fact or edge instead."""
    ids = [pk for pk, status in important if status == EventStatus.ACTIVE]
    if not ids:
        return {}
    current = (
        f"JOIN {_EVENTS} e ON s.event_id = e.id JOIN {_BLOCKS} b ON e.source_block_id = b.id "
        f"WHERE e.status = %s AND s.event_id IN ({marks(ids)})"
    )
    params = [EventStatus.ACTIVE, *ids, ITEM_ACTIVE]
    facts = read_rows(
        f"SELECT f.namespace_id, f.node_id, b.session_id FROM {_FACT_SOURCES} s "
        f"JOIN {_FACTS} f ON s.graphfact_id = f.id {current} AND f.status = %s",
        params,
    )
    edges = read_rows(
        f"SELECT g.namespace_id, g.from_node_id, g.to_node_id, b.session_id "
        f"FROM {_EDGE_SOURCES} s JOIN {_EDGES} g ON s.graphedge_id = g.id {current} "
        "AND g.status = %s",
        params,
    )
    ends = [
        *((ns_id, (node_id,), session_id) for ns_id, node_id, session_id in facts),
        *((ns_id, (one, other), session_id) for ns_id, one, other, session_id in edges),
    ]
    found: dict[int, set[int]] = {}
    for ns_id, node_ids, session_id in ends:
        if ns_id == namespace.pk:
            for node_id in node_ids:
                found.setdefault(node_id, set()).add(session_id)
    return found


def ranked_nodes(
    namespace: Namespace,
    session: Session | None,
    query: str,
    current_turn: int,
    important: list[tuple[int, str]],
    limit: int,
    weights: Sequence[Mapping[str, float]],
) -> list[tuple[GraphNode, NodeStateOut]]:
    """The `limit` best nodes with their current state. A search hit is judged on its index
    document first; only one that passes is read with every current source (its weight is
    theirs: at 100k messages most hits fail, and reading their sources was a sixth of the
    graph branch of activated memory). A node tied to a
    current pinned or safety source weighs 1 (pinned → 1, safety's floor is 1), so one that
    is not a hit needs only those sources' sessions, unless all of them are this session's
    (then its other sources decide whether it is this session's alone). Graph state is read
    for the nodes that make the cut."""
    hits = (
        search.search_nodes(namespace.pk, query, limit=NODE_HITS, gate_budget=CONTEXT_GATE_BUDGET)
        if query
        else []
    )
    hit_ids = [h.object_id for h in sorted(hits, key=lambda h: h.rank)]
    always = _important_nodes(namespace, important)
    here = session.pk if session is not None else None
    read = {*hit_ids, *(pk for pk, sessions in always.items() if sessions == {here})}
    nodes = read_by_id(GraphNode, sorted(read))
    terms = set(query_terms(query))
    people = {
        t
        for name, aliases in [
            *((n.name, n.aliases) for n in nodes.values() if n.node_type == "person"),
            *_person_names([pk for pk in always if pk not in nodes]),
        ]
        for t in analyze(" ".join([name, *aliases]))
    }
    # A person's card is about that person: when the query names people and not this one,
    # their facts answer a question about someone else ("What did Gina win at the dance
    # contest?" is not about Jon's love of dance).
    named = terms & people

    def about_them(pk: int) -> bool:
        node = nodes[pk]
        return (
            not named
            or node.node_type != "person"
            or not named.isdisjoint(analyze(" ".join([node.name, *node.aliases])))
        )

    def relevant(card_terms: set[str]) -> bool:
        return matches_beyond_names(terms, people, card_terms) and covers(
            weights, people, card_terms
        )

    # A hit is judged on what its index document holds: its tags, type, current facts and
    # links, and a non-person's names; only the hits that pass, and the nodes that always may
    # enter, have their sources read.
    judged = [pk for pk in nodes if pk not in always and about_them(pk)]
    passed: list[int] = []
    for pk, (name, aliases, *rest) in indexed_fields(NODES, judged, _JUDGED_FIELDS).items():
        held = set().union(*rest)
        if nodes[pk].node_type != "person":
            held |= {*name, *aliases}
        if relevant(held):
            passed.append(pk)
    kept: dict[int, float] = {  # node id → weight
        pk: 1.0 for pk in always if pk not in nodes
    }
    looked_at = [*passed, *(pk for pk in nodes if pk in always)]
    sources_of = _current_sources(looked_at)
    events = _source_events([*{i for ids in sources_of.values() for i in ids}])
    for node_id in looked_at:
        # Activation shows current state only; history is for explicit search.
        sources = [events[i] for i in sorted(sources_of[node_id]) if i in events]
        if sources and not (here is not None and all(e.session_id == here for e in sources)):
            kept[node_id] = max(current_weight(e, current_turn) for e in sources)
    relevance = [i for i in hit_ids if i in kept]
    weight = sorted(kept, key=lambda i: (-kept[i], i))
    chosen = [pk for pk, _ in rrf([relevance, weight])[:limit]]
    nodes |= read_by_id(GraphNode, [pk for pk in chosen if pk not in nodes])
    states = node_states([nodes[pk] for pk in chosen], current_only=True)
    return [(nodes[pk], states[pk]) for pk in chosen]


_PERSON_FIELDS = columns_of(GraphNode, ["name", "aliases"], "n")


def _person_names(ids: list[int]) -> list[tuple[Any, ...]]:
    """(name, aliases) of those of these nodes that are people."""
    if not ids:
        return []
    return read_values(
        _PERSON_FIELDS,
        f"FROM {_NODES} n WHERE n.id IN ({marks(ids)}) AND n.node_type = %s ORDER BY n.id",
        [*ids, "person"],
    )
