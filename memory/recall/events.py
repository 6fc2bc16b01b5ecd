"""Event ranking (SPEC §8.4): reads only; `services.retrieval.events_search` records it as a batch.

Event search fuses, with RRF, the BM25 ranking, a weight ranking (current long-term weight, then
recency) or — with `temporal_intent` — a chronological one, and one ranking per structured filter.
Filters are hard: only events matching all of them are candidates. Without a filter only text
hits are candidates, so a query that matches nothing returns nothing (no padding).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from django.db.models import QuerySet
from django.db.models.functions import Coalesce

from memory import search
from memory.engine.event_types import EVENT_TYPE_ALIASES, normalize_event_type, normalize_key
from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.engine.ranking import rrf
from memory.engine.weights import current_weight
from memory.errors import Invalid
from memory.models import Event, Namespace
from memory.models.rows import columns_of, marks, read_by_id, read_values
from memory.recall.query import validate_limit, validate_query
from memory.selectors.namespaces import namespace_turn

TEXT_POOL = 200  # BM25 hits considered before fusion and filtering
FILTER_POOL = 2000  # most recent filter matches considered when a filter is set
TEMPORAL_INTENTS = ("first", "latest")


class _Ranked(NamedTuple):
    """What `_rankings` reads of a text-only pool (no filter), as a plain row: building ~200
    model instances per search cost more than the search. Results are then loaded in full."""

    id: int
    status: str
    criticality: str
    pinned: bool
    adoptions: int
    last_adopted_turn: int
    mentioned_at: datetime
    happened_start: datetime | None
    happened_end: datetime | None

    @property
    def pk(self) -> int:
        return self.id


@dataclass(frozen=True)
class EventSearch:
    query: str
    limit: int | None = None
    session_id: str | None = None  # the caller's session: the batch belongs to it
    source_session_id: str | None = None  # filter: events extracted from this session
    participants: tuple[str, ...] = ()
    event_type: str | None = None
    happened_from: datetime | None = None
    happened_to: datetime | None = None
    temporal_intent: str | None = None

    @property
    def has_filter(self) -> bool:
        return bool(
            self.participants
            or self.event_type
            or self.source_session_id
            or self.happened_from
            or self.happened_to
        )


@dataclass(frozen=True)
class EventHit:
    event: Event
    score: float
    matched_by: tuple[str, ...]


def _fuzzy(a: str, b: str) -> bool:
    x, y = normalize_key(a), normalize_key(b)
    return bool(x and y) and (x == y or x in y or y in x)


def chronology(event: Event | _Ranked) -> tuple[datetime, int]:
    """When it happened (start, else end), else when it was mentioned; then id."""
    return (event.happened_start or event.happened_end or event.mentioned_at, event.pk)


def _event_type(raw: str) -> str:
    kind = normalize_event_type(raw)
    if normalize_key(raw) not in EVENT_TYPE_ALIASES:
        raise Invalid(
            f"unknown event_type {raw[:60]!r}",
            code="invalid_event_type",
            details={"event_type": raw[:60]},
        )
    return kind


def validate_search(params: EventSearch) -> int:
    validate_query(params.query)
    limit = validate_limit(params.limit, default=6)
    if params.temporal_intent not in (None, "", *TEMPORAL_INTENTS):
        raise Invalid(
            "temporal_intent must be first or latest",
            code="invalid_temporal_intent",
            details={"temporal_intent": str(params.temporal_intent)[:40]},
        )
    if params.happened_from and params.happened_to and params.happened_from > params.happened_to:
        raise Invalid("happened_from is after happened_to", code="invalid_happened_range")
    if params.event_type:
        _event_type(params.event_type)
    return limit


def _filtered(namespace: Namespace, params: EventSearch) -> QuerySet[Event]:
    events = Event.objects.filter(namespace=namespace, status__in=VISIBLE_STATUSES)
    if params.event_type:
        events = events.filter(event_type=_event_type(params.event_type))
    if params.source_session_id:
        events = events.filter(source_block__session__external_id=params.source_session_id)
    if params.happened_from or params.happened_to:
        # Interval overlap: [start ?? end, end ?? start] must meet [from, to].
        events = events.annotate(
            span_start=Coalesce("happened_start", "happened_end"),
            span_end=Coalesce("happened_end", "happened_start"),
        ).filter(span_start__isnull=False)
        if params.happened_to:
            events = events.filter(span_start__lte=params.happened_to)
        if params.happened_from:
            events = events.filter(span_end__gte=params.happened_from)
    return events


def _participant_matches(event: Event, wanted: Sequence[str]) -> int:
    """How many of the event's participants match a wanted name; 0 unless every wanted name
    matches some participant."""
    names = [str(p) for p in event.participants]
    if not all(any(_fuzzy(w, n) for n in names) for w in wanted):
        return 0
    return sum(1 for n in names if any(_fuzzy(w, n) for w in wanted))


def _overlap(event: Event | _Ranked, start: datetime | None, end: datetime | None) -> float:
    """Share of the event's occurrence interval inside the requested window (1 for instants)."""
    s = event.happened_start or event.happened_end
    e = event.happened_end or event.happened_start
    assert s is not None and e is not None
    span = (e - s).total_seconds()
    if span <= 0:
        return 1.0
    inside = (min(e, end or e) - max(s, start or s)).total_seconds()
    return max(0.0, inside) / span


def _rankings(
    params: EventSearch,
    pool: Sequence[Event | _Ranked],
    text_rank: list[int],
    current_turn: int,
    participant_matches: dict[int, int],
) -> tuple[list[list[int]], list[str]]:
    by_id = {e.pk: e for e in pool}
    rankings: list[list[int]] = []
    names: list[str] = []
    text = [i for i in text_rank if i in by_id]
    if text:
        rankings.append(text)
        names.append("text")
    if params.temporal_intent in TEMPORAL_INTENTS:
        ordered = sorted(pool, key=chronology, reverse=params.temporal_intent == "latest")
        rankings.append([e.pk for e in ordered])
        names.append("chronology")
    else:

        def weight_key(e: Event | _Ranked) -> tuple[float, datetime, int]:
            return (current_weight(e, current_turn), e.mentioned_at, e.pk)

        rankings.append([e.pk for e in sorted(pool, key=weight_key, reverse=True)])
        names.append("weight")
    recent_first = sorted(pool, key=chronology, reverse=True)
    if params.event_type:
        rankings.append([e.pk for e in recent_first])
        names.append("event_type")
    if params.source_session_id:
        rankings.append([e.pk for e in recent_first])
        names.append("session")
    if params.participants:
        rankings.append(
            [e.pk for e in sorted(recent_first, key=lambda e: -participant_matches[e.pk])]
        )
        names.append("participants")
    if params.happened_from or params.happened_to:
        start, end = params.happened_from, params.happened_to
        rankings.append(
            [e.pk for e in sorted(pool, key=lambda e: (-_overlap(e, start, end), chronology(e)))]
        )
        names.append("happened")
    return rankings, names


_RANKED_FIELDS = columns_of(Event, _Ranked._fields, "e")


def _ranked_pool(namespace: Namespace, ids: list[int]) -> list[_Ranked]:
    """The visible ones of these events as _Ranked rows, by id (plain SQL, values converted by
    their fields)."""
    if not ids:
        return []
    statuses = list(VISIBLE_STATUSES)
    rows = read_values(
        _RANKED_FIELDS,
        f"FROM {Event._meta.db_table} e WHERE e.namespace_id = %s "
        f"AND e.status IN ({marks(statuses)}) AND e.id IN ({marks(ids)}) ORDER BY e.id",
        [namespace.pk, *statuses, *ids],
    )
    return [_Ranked(*row) for row in rows]


def events_rank(*, namespace: Namespace, params: EventSearch) -> list[EventHit]:
    """Rank events for a search (SPEC §8.4). Reads only: no batch, no `last_retrieved_at`
    (the UI's search uses this directly; agents go through `events_search`)."""
    limit = validate_search(params)
    hits = (
        search.search_events(namespace.pk, params.query, limit=TEXT_POOL, statuses=VISIBLE_STATUSES)
        if params.query.strip()
        else []
    )
    text_rank = [h.object_id for h in sorted(hits, key=lambda h: h.rank)]
    filtered: list[Event] = []
    matches: dict[int, int] = {}
    pool: Sequence[Event | _Ranked]
    if params.has_filter:
        filtered = list(_filtered(namespace, params).order_by("-formed_turn", "-pk")[:FILTER_POOL])
        if params.participants:
            matches = {e.pk: _participant_matches(e, params.participants) for e in filtered}
            filtered = [e for e in filtered if matches[e.pk]]
        pool = filtered
    else:
        pool = _ranked_pool(namespace, text_rank)
    if not pool:
        return []
    current_turn = namespace_turn(namespace)
    rankings, names = _rankings(params, pool, text_rank, current_turn, matches)
    fused = rrf(rankings)[:limit]
    # A filtered pool holds full events; a text-only one only the ranking columns.
    by_id = (
        {e.pk: e for e in filtered}
        if params.has_filter
        else read_by_id(Event, [pk for pk, _ in fused])
    )
    member = [set(r) for r in rankings]
    results = [
        EventHit(
            event=by_id[pk],
            score=score,
            matched_by=tuple(n for n, m in zip(names, member, strict=True) if pk in m),
        )
        for pk, score in fused
    ]
    if params.temporal_intent in TEMPORAL_INTENTS:
        results.sort(key=lambda h: chronology(h.event), reverse=params.temporal_intent == "latest")
    return results


def search_params(params: EventSearch) -> dict[str, object]:
    """The search's filters as its batch records them."""
    return {
        "limit": params.limit,
        "source_session_id": params.source_session_id,
        "participants": list(params.participants),
        "event_type": params.event_type,
        "happened_from": params.happened_from.isoformat() if params.happened_from else None,
        "happened_to": params.happened_to.isoformat() if params.happened_to else None,
        "temporal_intent": params.temporal_intent,
    }
