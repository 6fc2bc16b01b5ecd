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

Reads only; no batch, nothing recorded.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from memory import search
from memory.engine.ranking import rrf
from memory.models import Message
from memory.models.rows import marks, read_rows
from memory.search.backend import backend
from memory.search.documents import MESSAGES
from memory.search.query import GATE_BUDGET, counts_shared
from memory.search.text import analyze, query_terms

POOL = 60  # BM25 hits considered before re-ranking (more when more are asked for)
FEEDBACK_DOCS = 3
FEEDBACK_TERMS = 5
FEEDBACK_CANDIDATES = 20  # words of the top documents whose frequency is looked up
FEEDBACK_WEIGHT = 0.5
FEEDBACK_MAX_DF = 100  # messages holding a word beyond which it is not a feedback term


@dataclass(frozen=True)
class RankedMessage:
    message_id: int
    score: float


def dedupe(ids: Iterable[int]) -> list[int]:
    """The ids in first-seen order, each once."""
    seen: set[int] = set()
    out: list[int] = []
    for i in ids:
        if i not in seen:
            seen.add(i)
            out.append(i)
    return out


def _bm25(namespace_id: int, query: str, session_pk: int | None, pool: int) -> list[int]:
    hits = search.search_messages(namespace_id, query, limit=pool, session_pk=session_pk)
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
        counts.update(dict.fromkeys(t for t in analyze(text) if t not in terms).keys())
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
    namespace_id: int, query: str, *, limit: int, session_pk: int | None = None
) -> list[RankedMessage]:
    """Message ids best first (at most `limit`), by BM25 with the speaker and feedback
    corrections; nothing when the query matches nothing."""
    with counts_shared():  # the feedback query repeats the query's terms
        return _messages_rank(namespace_id, query, limit=limit, session_pk=session_pk)


def _messages_rank(
    namespace_id: int, query: str, *, limit: int, session_pk: int | None
) -> list[RankedMessage]:
    pool = max(POOL, limit)
    first = _bm25(namespace_id, query, session_pk, pool)
    if not first:
        return []
    terms = set(query_terms(query))
    rows = _rows(first)
    first = _speaker_first(first, rows, terms)
    extra = _feedback_terms(
        namespace_id, [rows[i][1] for i in first[:FEEDBACK_DOCS] if i in rows], terms
    )
    rankings, weights = [first], [1.0]
    if extra:
        second = _bm25(namespace_id, f"{query} {' '.join(extra)}", session_pk, pool)
        rows |= _rows([i for i in second if i not in rows])
        rankings.append(_speaker_first(second, rows, terms))
        weights.append(FEEDBACK_WEIGHT)
    fused = rrf(rankings, weights)
    return [RankedMessage(pk, score) for pk, score in fused[:limit]]
