"""Message ranking for recall: BM25 over messages, then two general corrections measured on the
LoCoMo development split (docs/EVALUATION.md), used by `search/raw`, the UI's search and the
source passages of activated memory.

1. **Speaker**: when the query names someone who speaks in the candidate messages ("What did
   Caroline research?"), their own messages rise: RRF of the BM25 list and its sub-list said
   by them. A reply rarely names its own speaker, while others' messages name them often
   ("Thanks, Caroline!"), so plain BM25 prefers the wrong side of the conversation.
2. **Pseudo-relevance feedback**: the most distinctive words of the top three messages (by
   document frequency among this namespace's messages) extend the query once; the second
   list is fused with the first at half weight.
3. **Event sources**: the source messages of the events the query's text matches (their own
   index: titles, summaries, participants, dates) are fused in at a fifth of the weight, below
   the five best message matches, which keep their places. A fact stated across a few turns
   ("I signed up for a pottery class" … "we made bowls") is one event whose words reach
   messages that share none with the question.

Reads only; no batch, nothing recorded.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from memory import search
from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.engine.ranking import rrf
from memory.engine.redact import redact
from memory.models import Event, Message
from memory.models.rows import marks, read_rows
from memory.search.backend import backend
from memory.search.documents import MESSAGES
from memory.search.query import (
    GATE_BUDGET,
    TextHit,
    counts_shared,
    search_messages_ranking,
    search_messages_widened,
)
from memory.search.text import analyze, query_terms

POOL = 60  # BM25 hits considered before re-ranking (more when more are asked for)
FEEDBACK_DOCS = 3
FEEDBACK_TERMS = 5
FEEDBACK_CANDIDATES = 20  # words of the top documents whose frequency is looked up
FEEDBACK_WEIGHT = 0.5
FEEDBACK_MAX_DF = 100  # messages holding a word beyond which it is not a feedback term
EVENT_HITS = 20  # events whose sources are fused in
EVENT_WEIGHT = 0.2
KEPT = 5  # the best message matches, which event sources never pass


@dataclass(frozen=True)
class RankedMessage:
    message_id: int
    score: float
    events: tuple[int, ...] = ()  # the query's event hits this message is a source of


def dedupe(ids: Iterable[int]) -> list[int]:
    """The ids in first-seen order, each once."""
    seen: set[int] = set()
    out: list[int] = []
    for i in ids:
        if i not in seen:
            seen.add(i)
            out.append(i)
    return out


def _ids(hits: list[TextHit]) -> list[int]:
    return [h.object_id for h in sorted(hits, key=lambda h: h.rank)]


def _speaker_first(ids: list[int], rows: dict[int, tuple[str, str]], terms: set[str]) -> list[int]:
    named = {
        name
        for name, _ in rows.values()
        if name and set(analyze(name)) and set(analyze(name)) <= terms
    }
    if not named:
        return ids
    theirs = [i for i in ids if i in rows and rows[i][0] in named]
    return [pk for pk, _ in rrf([ids, theirs])]


def _feedback_terms(namespace_id: int, texts: list[str], terms: set[str]) -> list[str]:
    counts: Counter[str] = Counter()
    for text in texts:
        # Each word once per document, in the order said: ties keep the first-seen word (a
        # set's order here made the ranking differ between processes, by string hashing).
        # Redacted as the index has it: a secret's words are in no document, so they would
        # look like the rarest words and waste a slot.
        words = analyze(redact(text))
        counts.update(dict.fromkeys(t for t in words if t not in terms).keys())
    candidates = [t for t, _ in counts.most_common(FEEDBACK_CANDIDATES)]
    if not candidates:
        return []
    # Counting stops at FEEDBACK_MAX_DF: a word held by more messages is too common to steer
    # the second query, and counting its every row was most of the cost on large namespaces.
    frequency = backend().doc_counts(MESSAGES, namespace_id, candidates, FEEDBACK_MAX_DF)
    scored = sorted(
        (
            (counts[t] * math.log((GATE_BUDGET + 2) / (1 + n)), t)
            for t, n in zip(candidates, frequency, strict=True)
            if n < FEEDBACK_MAX_DF
        ),
        key=lambda pair: (-pair[0], pair[1]),
    )
    return [t for score, t in scored[:FEEDBACK_TERMS] if score > 0]


def _rows(ids: list[int]) -> dict[int, tuple[str, str]]:
    """message id → (speaker name, content), in plain SQL: it runs twice per search."""
    if not ids:
        return {}
    rows = read_rows(
        f"SELECT id, name, content FROM {Message._meta.db_table} WHERE id IN ({marks(ids)})", ids
    )
    return {pk: (name, content) for pk, name, content in rows}


def messages_rank(
    namespace_id: int,
    query: str,
    *,
    limit: int,
    session_pk: int | None = None,
    event_ids: list[int] | None = None,
) -> list[RankedMessage]:
    """Message ids best first (at most `limit`), by BM25 with the speaker, feedback and
    event-source corrections; nothing when the query matches no message. `event_ids`: the
    query's event text hits, best first, when the caller has them already (activation)."""
    ranked = messages_rank_text(namespace_id, query, limit=limit, session_pk=session_pk)
    if not ranked:
        return []
    if event_ids is None:
        hits = search.search_events(
            namespace_id, query, limit=EVENT_HITS, statuses=VISIBLE_STATUSES
        )
        event_ids = [h.object_id for h in sorted(hits, key=lambda h: h.rank)]
    return messages_rank_fuse(ranked, event_ids, limit=limit, session_pk=session_pk)


def messages_rank_text(
    namespace_id: int,
    query: str,
    *,
    limit: int,
    session_pk: int | None = None,
    gate_budget: int | None = None,
    feedback: bool = True,
) -> list[RankedMessage]:
    """`messages_rank` before the event sources are fused in: BM25 with the speaker and
    feedback corrections (a caller may run it beside its event search), gated within
    `gate_budget` rows (memory.search.query). `feedback=False`: without the second, widened
    query (activated memory's passages: see memory.services.activation)."""
    with counts_shared():  # the feedback query repeats the query's terms
        return _messages_rank(
            namespace_id,
            query,
            limit=limit,
            session_pk=session_pk,
            gate_budget=gate_budget,
            feedback=feedback,
        )


def messages_rank_fuse(
    ranked: list[RankedMessage],
    event_ids: list[int],
    *,
    limit: int,
    session_pk: int | None = None,
    event_weight: float = EVENT_WEIGHT,
) -> list[RankedMessage]:
    """`messages_rank`'s last step: the query's event hits' source messages fused in below
    the best matches, at `event_weight` of the message ranking's weight."""
    if not ranked:
        return []
    sources = _event_sources(event_ids[:EVENT_HITS], session_pk)
    if not sources:
        return ranked[:limit]
    head = [r.message_id for r in ranked[:KEPT]]
    score = dict(rrf([[r.message_id for r in ranked], list(sources)], [1.0, event_weight]))
    order = [*head, *(pk for pk in score if pk not in head)][:limit]
    out: list[RankedMessage] = []
    for pk in order:
        # The fused score, never above the hit before it (a kept hit may score lower).
        fused = min(score[pk], out[-1].score) if out else score[pk]
        out.append(RankedMessage(pk, fused, tuple(sources.get(pk, ()))))
    return out


_SOURCES = Event.source_messages.through._meta.db_table


def _event_sources(event_ids: list[int], session_pk: int | None) -> dict[int, list[int]]:
    """The events' source messages (within the session, when given), the best event's first,
    each event's in conversation order, each message once: message id → its events among
    `event_ids`, in their order."""
    if not event_ids:
        return {}
    sql = f"SELECT es.event_id, es.message_id FROM {_SOURCES} es"
    params: list[int] = []
    if session_pk is not None:
        sql += f" JOIN {Message._meta.db_table} m ON m.id = es.message_id AND m.session_id = %s"
        params.append(session_pk)
    sql += f" WHERE es.event_id IN ({marks(event_ids)})"
    by_event: dict[int, list[int]] = {}
    for event_id, message_id in read_rows(sql, [*params, *event_ids]):
        by_event.setdefault(event_id, []).append(message_id)
    sources: dict[int, list[int]] = {}
    for event_id in event_ids:
        for message_id in sorted(by_event.get(event_id, [])):
            sources.setdefault(message_id, []).append(event_id)
    return sources


def _messages_rank(
    namespace_id: int,
    query: str,
    *,
    limit: int,
    session_pk: int | None,
    gate_budget: int | None,
    feedback: bool,
) -> list[RankedMessage]:
    ranking = search_messages_ranking(
        namespace_id, query, limit=max(POOL, limit), session_pk=session_pk, gate_budget=gate_budget
    )
    first = _ids(ranking.hits)
    if not first:
        return []
    terms = set(query_terms(query))
    rows = _rows(first)
    first = _speaker_first(first, rows, terms)
    extra = (
        _feedback_terms(
            namespace_id, [rows[i][1] for i in first[:FEEDBACK_DOCS] if i in rows], terms
        )
        if feedback
        else []
    )
    rankings, weights = [first], [1.0]
    if extra:
        second = _ids(search_messages_widened(ranking, f"{query} {' '.join(extra)}"))
        rows |= _rows([i for i in second if i not in rows])
        rankings.append(_speaker_first(second, rows, terms))
        weights.append(FEEDBACK_WEIGHT)
    fused = rrf(rankings, weights)
    return [RankedMessage(pk, score) for pk, score in fused[: ranking.limit]]
