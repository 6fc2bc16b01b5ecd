"""The Memory UI's search (SPEC §13.2): events, graph nodes, blocks and raw messages ranked
exactly as the agent tools rank them, each hit with why it matched.

It uses the `*_rank` functions, never `*_search`: a person browsing is not an agent's evidence
loop, so a UI search records no retrieval batch, sets no `last_retrieved_at` and changes no
weight. Everything returned is redacted (SPEC §15.3). Query count is fixed: it does not grow
with the number of hits.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce

from memory.engine.graph_state import CURRENT
from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.engine.redact import redact
from memory.models import Block, BlockView, Event, GraphNode, Message, Namespace
from memory.models.rows import marks, read_rows
from memory.recall.events import EventSearch, events_rank
from memory.recall.graph import GraphHit, GraphSearch, graph_rank
from memory.recall.query import validate_query
from memory.recall.raw import RawHit, RawSearch, raw_rank
from memory.search.documents import (
    EVENTS,
    MESSAGES,
    NODES,
    Document,
    Kind,
    event_document,
    node_documents,
)
from memory.search.highlight import has_match, query_words
from memory.search.index import message_documents
from memory.search.text import query_terms
from memory.selectors.events import EventOut, TimelineEntryOut, events_by_ids
from memory.selectors.graph import FactOut, NodeStateOut
from memory.selectors.messages import MessageOut, message_out
from memory.selectors.namespaces import namespace_turn
from memory.selectors.out import Out

LIMIT = 20  # per kind: the most the agent tools return
ALL, EVENTS_KIND, GRAPH_KIND, BLOCKS_KIND, MESSAGES_KIND = (
    "all", "events", "graph", "blocks", "messages",
)  # fmt: skip
SEARCH_KINDS = (ALL, EVENTS_KIND, GRAPH_KIND, BLOCKS_KIND, MESSAGES_KIND)
SUGGESTION_EVENTS = 200  # recent events whose tags suggest queries on the empty page
SUGGESTIONS = 8
UNMATCHED_FACTS = 3  # a node card shows its matching facts, else this many current ones
UNMATCHED_LINKS = 4


class FieldMatch(Out):
    """One indexed field that holds query terms, and the query's words behind those terms."""

    field: str  # a field name of `memory.search.documents` (title, facts_current, …)
    words: list[str]


class EventResult(Out):
    rank: int
    score: float  # the fused RRF score
    event: EventOut
    matched_by: list[str]  # rankings that placed it: text, weight, …
    fields: list[FieldMatch]

    @property
    def matched_fields(self) -> set[str]:
        return {f.field for f in self.fields}


class LinkOut(Out):
    relation: str
    outgoing: bool
    other_id: int
    other_name: str
    state: str  # current | historical


class NodeResult(Out):
    rank: int
    score: float  # BM25 relevance
    match_type: str  # current | historical | both
    state: NodeStateOut
    fields: list[FieldMatch]
    timeline: list[TimelineEntryOut]
    # What the card shows: the facts and links holding query words (else a few current ones).
    facts: list[FactOut]
    links: list[LinkOut]
    more_facts: int
    more_links: int


class EventLink(Out):
    id: int
    title: str  # redacted


class MessageResult(Out):
    rank: int
    score: float  # the fused recall score (recall.messages)
    message: MessageOut
    before: MessageOut | None  # the previous message of its block (or open turn)
    after: MessageOut | None
    block_id: int | None  # None: still in the session's open tail
    session_turn: int  # the message's own turn within its session
    turn_range: list[int]  # its block's turns (its own turn while in the open tail)
    turn_at: datetime
    fields: list[FieldMatch]
    # The query's matching events it is a source of: why it ranks where its words may not reach.
    via_events: list[EventLink]


class BlockResult(Out):
    rank: int
    block_id: int
    session_id: str
    sequence: int
    status: str
    turn_range: list[int]
    title: str | None  # from L0; None until the block is processed
    tags: list[str]
    message_ids: list[int]  # its matching messages, best first (blocks rank by the first)
    message_ranks: list[int]  # their ranks among the matching messages

    @property
    def matches(self) -> list[tuple[int, int]]:
        """(rank, message id) of each of its matching messages."""
        return list(zip(self.message_ranks, self.message_ids, strict=True))


class Searched(Out):
    """What a search looks through (cheap counts, for the page to say so)."""

    events: int  # active and superseded
    nodes: int
    blocks: int
    messages: int


class SearchPage(Out):
    namespace: str
    query: str
    kind: str
    words: list[str]  # the query's words that can match (stop words dropped)
    events: list[EventResult]
    nodes: list[NodeResult]
    blocks: list[BlockResult]
    messages: list[MessageResult]
    searched: Searched
    suggestions: list[str]  # for the empty page: tags of recent events

    @property
    def total(self) -> int:
        return len(self.events) + len(self.nodes) + len(self.blocks) + len(self.messages)

    @property
    def tabs(self) -> list[tuple[str, int]]:
        """Each kind with its number of hits, for the kind chips."""
        found = (len(self.events), len(self.nodes), len(self.blocks), len(self.messages))
        return [(ALL, self.total), *zip(SEARCH_KINDS[1:], found, strict=True)]


def _field_matches(
    kind: Kind, document: Document, terms: list[str], words: dict[str, str]
) -> list[FieldMatch]:
    found: list[FieldMatch] = []
    for field, values in zip(kind.fields, document.fields, strict=True):
        present = set(values)
        matched = [words.get(t, t) for t in terms if t in present]
        if matched:
            found.append(
                FieldMatch.model_construct(field=field.name, words=list(dict.fromkeys(matched)))
            )
    return found


def _count(
    model: type[Event] | type[GraphNode] | type[Block] | type[Message], **filters: object
) -> Coalesce:
    rows = (
        model.objects.filter(namespace=OuterRef("pk"), **filters)
        .order_by()
        .values("namespace")
        .annotate(n=Count("pk"))
        .values("n")[:1]
    )
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def search_scope(namespace: Namespace) -> Searched:
    """How many events, nodes, blocks and messages a search looks through, in one query."""
    row = (
        Namespace.objects.filter(pk=namespace.pk)
        .annotate(
            n_events=_count(Event, status__in=VISIBLE_STATUSES),
            n_nodes=_count(GraphNode),
            n_blocks=_count(Block),
            n_messages=_count(Message),
        )
        .values("n_events", "n_nodes", "n_blocks", "n_messages")
        .get()
    )
    return Searched.model_construct(
        events=row["n_events"],
        nodes=row["n_nodes"],
        blocks=row["n_blocks"],
        messages=row["n_messages"],
    )


def search_suggestions(namespace: Namespace) -> list[str]:
    """The commonest tags of recent events: queries that will find something here."""
    tags: Counter[str] = Counter()
    recent = (
        Event.objects.filter(namespace=namespace, status__in=VISIBLE_STATUSES)
        .order_by("-pk")
        .values_list("tags", flat=True)[:SUGGESTION_EVENTS]
    )
    for event_tags in recent:
        for tag in event_tags or []:
            text = " ".join(str(tag).split())
            if text and query_terms(text):
                tags[text] += 1
    return [redact(tag) for tag, _ in tags.most_common(SUGGESTIONS)]


def _events(
    namespace: Namespace, query: str, terms: list[str], words: dict[str, str]
) -> list[EventResult]:
    hits = events_rank(namespace=namespace, params=EventSearch(query=query, limit=LIMIT))
    if not hits:
        return []
    shown = events_by_ids(
        namespace, [h.event.pk for h in hits], current_turn=namespace_turn(namespace)
    )
    return [
        EventResult.model_construct(
            rank=rank,
            score=hit.score,
            event=shown[hit.event.pk],
            matched_by=list(hit.matched_by),
            fields=_field_matches(EVENTS, event_document(hit.event), terms, words),
        )
        for rank, hit in enumerate(hits, start=1)
        if hit.event.pk in shown
    ]


def _redacted_state(state: NodeStateOut) -> NodeStateOut:
    # The graph selector redacts names, aliases and fact values but keeps node tags as stored.
    node = state.node.model_copy(update={"tags": [redact(t) for t in state.node.tags]})
    return state.model_copy(update={"node": node})


def _links(state: NodeStateOut) -> list[LinkOut]:
    """The node's shown edges as seen from it: relation, direction and the other end."""
    node_id = state.node.id
    out: list[LinkOut] = []
    for edge in state.edges:
        other_id, other_name = edge.other_end(node_id)
        out.append(
            LinkOut.model_construct(
                relation=edge.relation,
                outgoing=edge.from_ == node_id,
                other_id=other_id,
                other_name=other_name,
                state=edge.state,
            )
        )
    return out


def _node_result(
    rank: int,
    hit: GraphHit,
    document: Document | None,
    terms: list[str],
    words: dict[str, str],
    query: str,
) -> NodeResult:
    state = _redacted_state(hit.state)
    facts = [*state.current_facts, *state.historical_facts]
    links = _links(state)
    shown_facts = [f for f in facts if has_match(f"{f.key.replace('_', ' ')} {f.value}", query)]
    shown_links = [link for link in links if has_match(link.other_name, query)]
    if not shown_facts:
        shown_facts = state.current_facts[:UNMATCHED_FACTS]
    if not shown_links:
        shown_links = [link for link in links if link.state == CURRENT][:UNMATCHED_LINKS]
    return NodeResult.model_construct(
        rank=rank,
        score=hit.score,
        match_type=hit.match_type,
        state=state,
        fields=_field_matches(NODES, document, terms, words) if document else [],
        timeline=hit.timeline,
        facts=shown_facts,
        links=shown_links,
        more_facts=len(facts) - len(shown_facts),
        more_links=len(links) - len(shown_links),
    )


def _nodes(
    namespace: Namespace, query: str, terms: list[str], words: dict[str, str]
) -> list[NodeResult]:
    hits = graph_rank(namespace=namespace, params=GraphSearch(query=query, limit=LIMIT))
    if not hits:
        return []
    # The index's own documents (all facts and neighbours, not only the bounded ones shown).
    documents = {d.object_id: d for d in node_documents(h.node.pk for h in hits)}
    return [
        _node_result(rank, hit, documents.get(hit.node.pk), terms, words, query)
        for rank, hit in enumerate(hits, start=1)
    ]


def _event_titles(hits: list[RawHit]) -> dict[int, str]:
    """id → redacted title of the events behind the message hits, in one read."""
    ids = sorted({e for h in hits for e in h.events})
    if not ids:
        return {}
    rows = read_rows(
        f"SELECT id, title FROM {Event._meta.db_table} WHERE id IN ({marks(ids)})", ids
    )
    return {pk: redact(title) for pk, title in rows}


def _message_result(
    rank: int,
    hit: RawHit,
    document: Document,
    terms: list[str],
    words: dict[str, str],
    titles: dict[int, str],
) -> MessageResult:
    message = hit.message
    here = (message.turn_id, message.position)
    before = [n for n in hit.neighbours if (n.turn_id, n.position) < here]
    after = [n for n in hit.neighbours if (n.turn_id, n.position) > here]
    return MessageResult.model_construct(
        rank=rank,
        score=hit.score,
        message=message_out(message),
        before=message_out(before[-1]) if before else None,
        after=message_out(after[0]) if after else None,
        block_id=hit.block.pk if hit.block else None,
        session_turn=message.turn.session_turn,
        turn_range=list(hit.turn_range),
        turn_at=message.turn.occurred_at,
        fields=_field_matches(MESSAGES, document, terms, words),
        via_events=[
            EventLink.model_construct(id=e, title=titles[e]) for e in hit.events if e in titles
        ],
    )


def _l0(text: str) -> tuple[str, list[str]]:
    """L0 is `<title>\\nTags: <t1, t2 …>` (`none` without tags), SPEC §3."""
    title, _, rest = text.partition("\n")
    tags_line = rest.strip()
    tags_text = tags_line.removeprefix("Tags:").strip() if tags_line.startswith("Tags:") else ""
    tags = (
        [] if tags_text in ("", "none") else [t.strip() for t in tags_text.split(",") if t.strip()]
    )
    return redact(title.strip()), [redact(t) for t in tags]


def _blocks(hits: list[RawHit]) -> list[BlockResult]:
    """The blocks holding the matching messages, ranked by their best message."""
    grouped: dict[int, list[tuple[int, RawHit]]] = {}
    for rank, hit in enumerate(hits, start=1):
        if hit.block is not None:
            grouped.setdefault(hit.block.pk, []).append((rank, hit))
    if not grouped:
        return []
    l0 = dict(
        BlockView.objects.filter(block_id__in=list(grouped), level=0).values_list(
            "block_id", "content"
        )
    )
    results: list[BlockResult] = []
    for position, (block_id, members) in enumerate(grouped.items(), start=1):
        best = members[0][1]
        block = best.block
        assert block is not None
        title, tags = _l0(l0[block_id]) if block_id in l0 else (None, [])
        results.append(
            BlockResult.model_construct(
                rank=position,
                block_id=block_id,
                session_id=best.message.session.external_id,
                sequence=block.sequence,
                status=block.status,
                turn_range=[block.first_turn, block.last_turn],
                title=title,
                tags=tags,
                message_ids=[hit.message.pk for _, hit in members],
                message_ranks=[rank for rank, _ in members],
            )
        )
    return results


def ui_search(*, namespace: Namespace, query: str, kind: str = ALL) -> SearchPage:
    """Search every kind the way the agent tools rank them; writes nothing.

    Raises `Invalid` (422 `query_too_long`) for a query over 4,000 characters, before reading
    anything. An unknown `kind` shows every kind.
    """
    validate_query(query)
    kind = kind if kind in SEARCH_KINDS else ALL
    terms = query_terms(query)
    words = query_words(query)
    searched = search_scope(namespace)
    if not query.strip():
        return SearchPage.model_construct(
            namespace=namespace.name,
            query=query,
            kind=kind,
            words=[],
            events=[],
            nodes=[],
            blocks=[],
            messages=[],
            searched=searched,
            suggestions=search_suggestions(namespace),
        )
    raw = raw_rank(namespace=namespace, params=RawSearch(query=query, limit=LIMIT)) if terms else []
    titles = _event_titles(raw)
    page = SearchPage.model_construct(
        namespace=namespace.name,
        query=query,
        kind=kind,
        words=list(dict.fromkeys(words.get(t, t) for t in terms)),
        events=_events(namespace, query, terms, words) if terms else [],
        nodes=_nodes(namespace, query, terms, words) if terms else [],
        blocks=_blocks(raw),
        messages=[
            _message_result(rank, hit, document, terms, words, titles)
            for rank, (hit, document) in enumerate(
                zip(raw, message_documents([h.message for h in raw]), strict=True), start=1
            )
        ],
        searched=searched,
        suggestions=[],
    )
    if page.total:
        return page
    # Nothing matched: offer queries that do find something here.
    return page.model_copy(update={"suggestions": search_suggestions(namespace)})
