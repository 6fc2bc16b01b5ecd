"""What gets indexed: the weighted fields of each source kind (SPEC §8.2) and the documents
built from the database rows, as analyzed terms per field.

Every text is indexed as the reader is shown it, redacted (SPEC §15.3): an index holding a
secret's words would let a search for part of a secret confirm that it exists, though every
hit shows [REDACTED]. The rows keep the text as sent.

Backends only store and rank these documents; they never look at the models themselves.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from memory.engine.graph_state import CURRENT, HISTORICAL
from memory.engine.redact import redact
from memory.models import Event, EventStatus, GraphEdge, GraphFact, GraphNode, Message
from memory.models.rows import in_chunks, marks, read_models, read_rows
from memory.search.text import CACHED_TEXT_CHARS, CACHED_TEXTS, analyze, date_terms
from memory.selectors.graph_state import item_states, source_statuses  # a leaf: see its doc

CHUNK = 500


@dataclass(frozen=True)
class Field:
    name: str
    weight: float
    # Whether a match in this field alone makes a hit (relation labels only help ranking).
    makes_hit: bool = True


@dataclass(frozen=True)
class Kind:
    name: str
    table: str  # the search index table (both backends)
    base_table: str  # the model table whose rows are indexed
    fields: tuple[Field, ...]
    has_session: bool = False
    # Every status a base row can have, for kinds whose searches filter on it.
    statuses: tuple[str, ...] = ()

    @property
    def hit_fields(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.makes_hit)

    @property
    def all_fields_make_hits(self) -> bool:
        return all(f.makes_hit for f in self.fields)


MESSAGES = Kind(
    name="message",
    table="memory_search_message",
    base_table=Message._meta.db_table,
    # Who said it, and the text said just before and after it in the same session (two
    # messages each side: in a two-party exchange, the other side's question and reply and the
    # speaker's own previous and next words): a reply is often only understandable with the
    # question it answers ("They loved it!"). The neighbours only rank: a hit needs a query
    # term of its own (content, date or speaker), a rare one when the query is gated.
    fields=(
        Field("content", 2.0),
        Field("session_date", 2.0),
        Field("speaker", 2.0),
        Field("before", 1.0, makes_hit=False),
        Field("after", 1.0, makes_hit=False),
    ),
    has_session=True,
)
EVENTS = Kind(
    name="event",
    table="memory_search_event",
    base_table=Event._meta.db_table,
    fields=(
        Field("title", 4.0),
        Field("summary", 3.0),
        Field("tags", 2.0),
        Field("quotes", 2.0),
        Field("participants", 5.0),
        Field("event_type", 5.0),
        Field("temporal", 4.0),
        Field("dates", 4.0),
    ),
    statuses=tuple(EventStatus.values),
)
NODES = Kind(
    name="node",
    table="memory_search_node",
    base_table=GraphNode._meta.db_table,
    fields=(
        Field("name", 6.0),
        Field("aliases", 5.0),
        Field("tags", 5.0),
        Field("node_type", 2.0),
        Field("facts_current", 4.0),
        Field("facts_historical", 2.0),
        Field("neighbours_current", 4.0),
        Field("neighbours_historical", 2.0),
        Field("relations", 1.0, makes_hit=False),
    ),
)
KINDS = (MESSAGES, EVENTS, NODES)


@dataclass(frozen=True)
class Within:
    """The only rows a follow-up search scores (`memory.search.query.search_messages_widened`):
    `ids`, hits of an earlier search whose gate this one's includes (so they pass its hit
    filter), and the rows that hold one of `terms`, the terms it adds, and match it."""

    ids: tuple[int, ...]
    terms: tuple[str, ...]


@dataclass(frozen=True)
class Document:
    """One indexed object: its analyzed terms per field, in the kind's field order."""

    object_id: int
    namespace_id: int
    fields: tuple[tuple[str, ...], ...]
    session_id: int | None = None


def _terms(*texts: str) -> tuple[str, ...]:
    """The terms every document field is made of: each text redacted, then analyzed. The one
    place index text is read from a row (migration 0012 re-indexed what was there before)."""
    return tuple(term for text in texts for term in analyze(_redacted(text)))


@lru_cache(maxsize=CACHED_TEXTS)
def _redacted_cached(text: str) -> str:
    return redact(text)


def _redacted(text: str) -> str:
    """`redact`, remembered like `analyze` is: a message's text is in five documents (its own
    and its neighbours'), built one after another."""
    return _redacted_cached(text) if len(text) <= CACHED_TEXT_CHARS else redact(text)


def message_document(
    message: Message, before: Sequence[str] = (), after: Sequence[str] = ()
) -> Document:
    """Content, the turn's date, the speaker's name and the neighbouring messages' texts (each
    analyzed on its own). Uses `message.turn` (select_related it for many)."""
    return Document(
        object_id=message.pk,
        namespace_id=message.namespace_id,
        session_id=message.session_id,
        fields=(
            _terms(message.content),
            tuple(date_terms(message.turn.occurred_at)),
            _terms(message.name),
            _terms(*before),
            _terms(*after),
        ),
    )


def event_document(event: Event) -> Document:
    return Document(
        object_id=event.pk, namespace_id=event.namespace_id, fields=tuple(event_fields(event))
    )


def event_fields(event: Event) -> Iterator[tuple[str, ...]]:
    """The event's fields' terms in EVENTS' field order."""
    texts: dict[str, Callable[[], tuple[str, ...]]] = {
        "title": lambda: _terms(event.title),
        "summary": lambda: _terms(event.summary),
        "tags": lambda: _terms(*event.tags),
        "quotes": lambda: _terms(*event.quotes),
        "participants": lambda: _terms(*event.participants),
        "event_type": lambda: _terms(event.event_type),
        "temporal": lambda: _terms(event.temporal_text),
        "dates": lambda: tuple(date_terms(event.happened_start, event.happened_end)),
    }
    for field in EVENTS.fields:
        yield texts[field.name]()


def node_documents(node_ids: Iterable[int]) -> Iterator[Document]:
    """Each node's document from the database, with facts and neighbours split into current
    and historical by `selectors.graph_state` (hidden ones left out). Six plain-SQL reads per 500
    nodes."""
    ids = sorted(set(node_ids))
    for start in range(0, len(ids), CHUNK):
        yield from _node_chunk(ids[start : start + CHUNK])


def _node_chunk(ids: list[int]) -> Iterator[Document]:
    facts: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    within = f"IN ({marks(ids)})"
    # In id order, as the models' ordering gave them: a document's terms keep their order, so
    # the consistency check finds a rebuilt document equal to the indexed one.
    fact_rows = read_models(GraphFact, "f", f"WHERE f.node_id {within} ORDER BY f.id", ids)
    fact_states = item_states(
        fact_rows, sources=source_statuses(GraphFact, [f.pk for f in fact_rows])
    )
    for fact in fact_rows:
        state = fact_states[fact.pk]
        if state in (CURRENT, HISTORICAL):
            facts[fact.node_id][state].append(f"{fact.key.replace('_', ' ')} {fact.value}")
    links: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    edges = read_models(
        GraphEdge,
        "g",
        f"WHERE g.from_node_id {within} OR g.to_node_id {within} ORDER BY g.id",
        [*ids, *ids],
    )
    edge_states = item_states(edges, sources=source_statuses(GraphEdge, [e.pk for e in edges]))
    ends = sorted({e for edge in edges for e in (edge.from_node_id, edge.to_node_id)})
    names: dict[int, str] = {
        pk: name
        for chunk in in_chunks(ends)
        for pk, name in read_rows(
            f"SELECT id, name FROM {NODES.base_table} WHERE id IN ({marks(chunk)})", chunk
        )
    }
    wanted = set(ids)
    for edge in edges:
        state = edge_states[edge.pk]
        if state not in (CURRENT, HISTORICAL):
            continue
        one, other = edge.from_node_id, edge.to_node_id
        for here, there in ((one, other), (other, one)):
            if here in wanted:
                links[here][state].append(names[there])
                links[here]["relations"].append(edge.relation.replace("_", " "))
    for node in read_models(GraphNode, "n", f"WHERE n.id {within} ORDER BY n.id", ids):
        node_facts, node_links = facts[node.pk], links[node.pk]
        yield Document(
            object_id=node.pk,
            namespace_id=node.namespace_id,
            fields=(
                _terms(node.name),
                _terms(*node.aliases),
                _terms(*node.tags),
                _terms(node.node_type),
                _terms(*node_facts[CURRENT]),
                _terms(*node_facts[HISTORICAL]),
                _terms(*node_links[CURRENT]),
                _terms(*node_links[HISTORICAL]),
                _terms(*node_links["relations"]),
            ),
        )


def nodes_touched_by_events(event_ids: Iterable[int]) -> set[int]:
    """Nodes whose facts or edges cite these events: their current/historical split follows
    the events' status (SPEC §6.4), so their documents change when an event's status does."""
    ids = list(event_ids)
    if not ids:
        return set()
    touched = set(GraphFact.objects.filter(source_events__in=ids).values_list("node_id", flat=True))
    for origin, target in GraphEdge.objects.filter(source_events__in=ids).values_list(
        "from_node_id", "to_node_id"
    ):
        touched.update((origin, target))
    return touched
