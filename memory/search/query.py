"""Full-text queries per source kind: BM25-style relevance only, no fusion (that is retrieval's
job, SPEC §8.3). A query with no terms after analysis, or no match, returns nothing: results
are never padded with rows that do not match.

Cost control: ranking costs in proportion to the rows a query matches, and an OR of common
words can match most of a namespace. So the query's rarest terms, as long as together they
hold at most GATE_BUDGET of the namespace's rows (at least the rarest one), form the *gate*:
a hit must hold a gate term, in a field that makes hits. The remaining, more common terms
still add to a hit's score but do not widen the match set. While every term together stays
within the budget — any small namespace, any selective query — this is plain BM25 over all
terms. Beyond it, rows that hold only common terms are not returned, and on SQLite the gate
terms weigh twice the common ones. Activated memory's searches gate within CONTEXT_GATE_BUDGET.

A long query (a new message plus the open tail of a conversation: thirty terms and more) is
ranked on its RANKED_TERMS rarest terms only, among those some row holds. Every term costs its
doclist, and a common term adds little to BM25 (its idf is small) but reads many rows: at 100k
messages a 32-term context query took 84 ms (p50) and its 12 rarest terms take 9 ms
(benchmarks/README.md, "Search latency").
Finding them counts every term's rows only up to PRECOUNT first (a count stops at its cap, so
a common term costs at most that many steps); only when fewer than RANKED_TERMS terms stay
under it are the capped ones counted further. The terms chosen, and their counts, are the
same as counting each term to the gate's budget.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.db import connection

from memory.engine.relevance import term_weight
from memory.search.backend import backend
from memory.search.documents import EVENTS, MESSAGES, NODES, Kind, Within
from memory.search.text import query_terms

MAX_LIMIT = 1000
GATE_BUDGET = 5000
# Activated memory's searches gate within fewer rows: they run before every proxied model call,
# under its deadline, to fill ~15 passages and 8 cards, and at 100k messages the ranking of the
# gated rows was half their cost (benchmarks/README.md, "Model proxy overhead"). On the LoCoMo
# development split no figure moves (budget@900 0.809, budget@2000 0.864).
CONTEXT_GATE_BUDGET = 1000
RANKED_TERMS = 12  # the rarest terms a query is ranked on
PRECOUNT = 200  # how far a long query's terms are counted first, to find its rarest
MAX_COUNTED_MESSAGES = 20 * GATE_BUDGET  # how far `term_weights` counts a namespace's messages


@dataclass(frozen=True)
class TextHit:
    object_id: int
    score: float  # relevance, higher is better, > 0
    rank: int  # 1-based


def _search(
    kind: Kind,
    namespace_id: int,
    query: str,
    limit: int,
    *,
    session_id: int | None = None,
    statuses: Sequence[str] | None = None,
    gate_budget: int | None = None,
) -> list[TextHit]:
    if limit <= 0 or (statuses is not None and not statuses):
        return []
    terms, gate = _plan(kind, namespace_id, query, gate_budget)
    if not terms:
        return []
    return _hits(
        backend().search(
            kind,
            namespace_id,
            gate,
            terms,
            min(limit, MAX_LIMIT),
            session_id=session_id,
            statuses=statuses,
        )
    )


def _plan(
    kind: Kind, namespace_id: int, query: str, gate_budget: int | None = None
) -> tuple[list[str], list[str]]:
    """The terms a query is ranked on and its gate within `gate_budget` rows (GATE_BUDGET when
    None; both empty when the query has no terms)."""
    terms = query_terms(query)
    if not terms:
        return [], []
    counted = _SHARED.get()
    if counted is None:
        counted = {}
    if len(terms) > RANKED_TERMS:
        terms = _rarest(kind, namespace_id, terms, counted)
    counts = _counts(kind, namespace_id, terms, GATE_BUDGET + 1, counted)
    return terms, _gate(terms, counts, GATE_BUDGET if gate_budget is None else gate_budget)


def _hits(rows: list[tuple[int, float]]) -> list[TextHit]:
    return [
        TextHit(object_id=object_id, score=score, rank=rank)
        for rank, (object_id, score) in enumerate(rows, start=1)
    ]


# Document counts by (kind, namespace, term): (count, the cap it was counted to). A count
# below its cap is exact; one at its cap means "at least that many".
Counted = dict[tuple[str, int, str], tuple[int, int]]
_SHARED: ContextVar[Counted | None] = ContextVar("counts", default=None)


@contextmanager
def counts_shared() -> Iterator[None]:
    """Within the block, a term's document count is taken once: a caller that searches several
    times with overlapping terms (recall's feedback query) does not count them again. Counts
    are read-only snapshots; use it for one request's searches, not across writes."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def _counts(
    kind: Kind, namespace_id: int, terms: list[str], cap: int, counted: Counted
) -> list[int]:
    """Each term's rows in the namespace (in a field that makes hits), counted no further than
    `cap`; taken from `counted` when known that far, and recorded there. In a large namespace
    (`_large`) a count is also remembered for TOTAL_REUSED_SECONDS, as its total is."""

    def known(term: str) -> int | None:
        entry = counted.get((kind.name, namespace_id, term))
        if entry is None:
            return None
        count, counted_to = entry
        return min(count, cap) if count < counted_to or counted_to >= cap else None

    missing = [t for t in dict.fromkeys(terms) if known(t) is None]
    now = time.monotonic()
    large = bool(missing) and _large(namespace_id, now)
    if large:
        for term in missing:
            key = (kind.name, namespace_id, term)
            count, counted_to, when = _REMEMBERED.get(key, (0, 0, -TOTAL_REUSED_SECONDS))
            if now - when < TOTAL_REUSED_SECONDS and counted_to >= counted.get(key, (0, 0))[1]:
                counted[key] = (count, counted_to)
        missing = [t for t in missing if known(t) is None]
    if missing:
        found = backend().doc_counts(kind, namespace_id, missing, cap)
        for term, count in zip(missing, found, strict=True):
            counted[(kind.name, namespace_id, term)] = (count, cap)
        if large:
            _remember(kind, namespace_id, dict(zip(missing, found, strict=True)), cap, now)
    # Every entry now holds its term's count at least as far as `cap` (or exactly).
    return [min(counted[(kind.name, namespace_id, t)][0], cap) for t in terms]


# A large namespace's term counts, as last counted: (kind, namespace id, term) → (count, the
# cap it was counted to, when). At 100k messages, counting a context query's terms was a sixth
# of building activated memory; a term's count moves as little as the total does in a minute.
_REMEMBERED: dict[tuple[str, int, str], tuple[int, int, float]] = {}
MAX_REMEMBERED = 100_000
_remembering = threading.Lock()  # the proxy's threads count side by side


def _large(namespace_id: int, now: float) -> bool:
    """Whether the namespace's message total is being reused (`_messages_total`)."""
    known = _TOTALS.get(namespace_id)
    return known is not None and now - known[0] < TOTAL_REUSED_SECONDS


def _remember(kind: Kind, namespace_id: int, counts: dict[str, int], cap: int, now: float) -> None:
    """Keep these counts (made at `now`), making room by dropping what is too old, or all."""
    with _remembering:
        if len(_REMEMBERED) + len(counts) > MAX_REMEMBERED:
            for key in [k for k, v in _REMEMBERED.items() if now - v[2] >= TOTAL_REUSED_SECONDS]:
                del _REMEMBERED[key]
            if len(_REMEMBERED) + len(counts) > MAX_REMEMBERED:
                _REMEMBERED.clear()
        for term, count in counts.items():
            _REMEMBERED[(kind.name, namespace_id, term)] = (count, cap, now)


def _rarest(kind: Kind, namespace_id: int, terms: list[str], counted: Counted) -> list[str]:
    """The RANKED_TERMS rarest terms that some row holds, in query order (ties: the earlier
    term). A term no row holds matches nothing and adds nothing to a score: counted as the
    rarest it would push the question's own words out of a long query (a typo, a name never
    said, in the open tail of a proxied conversation)."""
    counts = _counts(kind, namespace_id, terms, PRECOUNT, counted)
    if sum(1 for n in counts if 0 < n < PRECOUNT) < RANKED_TERMS:
        counts = _counts(kind, namespace_id, terms, GATE_BUDGET + 1, counted)
    held = [i for i in range(len(terms)) if counts[i] > 0]
    rarest = sorted(held, key=lambda i: (counts[i], i))[:RANKED_TERMS]
    return [terms[i] for i in sorted(rarest)]


def _gate(terms: list[str], counts: list[int], budget: int) -> list[str]:
    """The rarest terms whose rows add up to at most `budget` (always at least one)."""
    gate: list[str] = []
    rows = 0
    for count, term in sorted(zip(counts, terms, strict=True), key=lambda pair: pair[0]):
        if gate and rows + count > budget:
            break
        gate.append(term)
        rows += count
    return gate


def term_weights(namespace_id: int, query: str) -> dict[str, float]:
    """Each of the query's terms → how much of the question it is (`engine.relevance`): its
    idf among the namespace's messages, counted as far as a search's gate counts them
    (GATE_BUDGET + 1). A term no message holds but an event or a graph node does (a model's
    paraphrase, a fact's key) weighs as one that a single message holds; a term nothing holds
    (a typo, a Han bigram across a word boundary) weighs 0. Two statements, and one or two
    more only for terms no message holds."""
    terms = query_terms(query)
    if not terms:
        return {}
    shared = _SHARED.get()
    counted: Counted = {} if shared is None else shared
    said = _counts(MESSAGES, namespace_id, terms, GATE_BUDGET + 1, counted)
    counts = dict(zip(terms, said, strict=True))
    for kind in (EVENTS, NODES):
        unsaid = [t for t in terms if counts[t] == 0]
        if not unsaid:
            break
        for term, n in zip(unsaid, _counts(kind, namespace_id, unsaid, 1, counted), strict=True):
            counts[term] = min(n, 1)
    total = _messages_total(namespace_id)
    return {t: term_weight(counts[t], total) for t in terms}


# A large namespace's message total, as last counted: (when, total) by namespace id.
_TOTALS: dict[int, tuple[float, int]] = {}
TOTAL_REUSED_FROM = 10_000  # totals at least this big are reused for TOTAL_REUSED_SECONDS
TOTAL_REUSED_SECONDS = 60.0


def _messages_total(namespace_id: int) -> int:
    """How many messages the namespace holds, counted no further than MAX_COUNTED_MESSAGES, so
    that a context call's cost does not grow with the namespace (beyond it, every weight is as
    in a namespace that size). A count of TOTAL_REUSED_FROM or more is reused for a minute
    (4 ms a count at 100k messages; an idf moves by less than 1% while a namespace that size
    grows by 1%); a smaller one is cheap and counted each time."""
    known = _TOTALS.get(namespace_id)
    now = time.monotonic()
    if known is not None and now - known[0] < TOTAL_REUSED_SECONDS:
        return known[1]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {MESSAGES.base_table} WHERE namespace_id = %s "
            "LIMIT %s) AS counted",
            [namespace_id, MAX_COUNTED_MESSAGES],
        )
        total = int(cursor.fetchone()[0])
    if total >= TOTAL_REUSED_FROM:
        _TOTALS[namespace_id] = (now, total)
    return total


def search_events(
    namespace_id: int,
    query: str,
    *,
    limit: int = 50,
    statuses: Sequence[str] = ("active", "superseded"),
    gate_budget: int | None = None,
) -> list[TextHit]:
    """Events by title ×4, summary ×3, tags ×2, quotes ×2, participants ×5, type ×5,
    temporal wording ×4 and occurrence dates ×4, among those whose status is in `statuses`."""
    return _search(
        EVENTS, namespace_id, query, limit, statuses=list(statuses), gate_budget=gate_budget
    )


def search_nodes(
    namespace_id: int, query: str, *, limit: int = 50, gate_budget: int | None = None
) -> list[TextHit]:
    """Graph nodes by name, aliases, tags, type, facts and neighbours; relation labels only
    add to the ranking of nodes that match elsewhere."""
    return _search(NODES, namespace_id, query, limit, gate_budget=gate_budget)


def search_messages(
    namespace_id: int, query: str, *, limit: int = 50, session_pk: int | None = None
) -> list[TextHit]:
    """Raw messages by content and their turn's date, optionally within one session."""
    return search_messages_ranking(namespace_id, query, limit=limit, session_pk=session_pk).hits


@dataclass(frozen=True)
class Ranking:
    """A message search's hits and what it ranked on, for `search_messages_widened`."""

    namespace_id: int
    session_pk: int | None
    limit: int
    terms: tuple[str, ...]
    gate: tuple[str, ...]
    hits: list[TextHit]
    gate_budget: int | None = None


def search_messages_ranking(
    namespace_id: int,
    query: str,
    *,
    limit: int,
    session_pk: int | None = None,
    gate_budget: int | None = None,
) -> Ranking:
    """`search_messages`, keeping what the search ranked on; gated within `gate_budget` rows."""
    terms, gate = _plan(MESSAGES, namespace_id, query, gate_budget) if limit > 0 else ([], [])
    rows = (
        backend().search(
            MESSAGES, namespace_id, gate, terms, min(limit, MAX_LIMIT), session_id=session_pk
        )
        if terms
        else []
    )
    return Ranking(
        namespace_id, session_pk, limit, tuple(terms), tuple(gate), _hits(rows), gate_budget
    )


def search_messages_widened(first: Ranking, query: str) -> list[TextHit]:
    """`search_messages(query)` in `first`'s namespace and session, to `first.limit`, for a
    query that holds `first`'s terms and more (recall's feedback query): the same hits, for
    less work when the added terms leave `first`'s ranked terms and gate as they were. A row
    holding none of the added terms then scores as it did in `first` (the same score; on
    SQLite twice it for every such row when `first` had no term outside its gate, on
    PostgreSQL it times the ratio of the two queries' term counts), while `first`'s hits
    score at least that: only they and the rows holding an added term can make the top, and
    only those are scored. Otherwise this is a plain search (within `first`'s gate budget)."""
    terms, gate = (
        _plan(MESSAGES, first.namespace_id, query, first.gate_budget)
        if first.limit > 0
        else ([], [])
    )
    if not terms:
        return []
    added = tuple(t for t in terms if t not in first.terms)
    kept = set(first.terms) <= set(terms) and {t for t in gate if t in first.terms} == set(
        first.gate
    )
    if kept and not added:
        return first.hits
    within = Within(tuple(h.object_id for h in first.hits), added) if kept else None
    rows = backend().search(
        MESSAGES,
        first.namespace_id,
        gate,
        terms,
        min(first.limit, MAX_LIMIT),
        session_id=first.session_pk,
        within=within,
    )
    return _hits(rows)
