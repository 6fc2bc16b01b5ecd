"""Explicit retrieval over events and raw messages (SPEC §8.4, §8.6); each call is a batch.

The rankings are `memory.recall`'s; this records what they showed as the agent's batch. The only
side effect on memory is `last_retrieved_at`; adoption never changes here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from django.db import transaction
from django.utils import timezone

from memory.engine.gate import Ref
from memory.models import Event, Namespace, RetrievalBatch
from memory.recall.events import EventHit, EventSearch, events_rank, search_params, validate_search
from memory.recall.query import validate_limit, validate_query
from memory.recall.raw import RawHit, RawSearch, raw_rank
from memory.services.batches import (
    BatchEntry,
    batch_create,
    caller_session,
    visible_events_for_messages,
)


class Shown[T](NamedTuple):
    """A hit and the ref its batch recorded for it: the API returns this ref, not a rebuilt one,
    so a result and the batch an assessment is checked against can never disagree."""

    ref: str
    hit: T


@dataclass(frozen=True)
class Found[T]:
    """A search's batch and its hits in rank order, each with the ref the batch recorded."""

    batch: RetrievalBatch
    shown: list[Shown[T]] = field(default_factory=list)

    @property
    def hits(self) -> list[T]:
        return [s.hit for s in self.shown]


def _shown[T](entries: list[BatchEntry], hits: list[T]) -> list[Shown[T]]:
    return [Shown(entry.ref, hit) for entry, hit in zip(entries, hits, strict=True)]


def events_search(*, namespace: Namespace, params: EventSearch) -> Found[EventHit]:
    """`events_rank`, recorded as the agent's batch; sets `last_retrieved_at` on the hits."""
    validate_search(params)
    session = caller_session(namespace, params.session_id)
    results = events_rank(namespace=namespace, params=params)
    with transaction.atomic():
        if results:
            Event.objects.filter(pk__in=[h.event.pk for h in results]).update(
                last_retrieved_at=timezone.now()
            )
        entries = [
            BatchEntry(
                target=Ref.event(h.event.pk),
                score=h.score,
                events=(h.event.pk,),
            )
            for h in results
        ]
        batch = batch_create(
            namespace=namespace,
            session=session,
            tool="search_events",
            query=params.query,
            params=search_params(params),
            entries=entries,
        )
    return Found(batch=batch, shown=_shown(entries, results))


def raw_search(*, namespace: Namespace, params: RawSearch) -> Found[RawHit]:
    """`raw_rank` within the caller's session when given, recorded as the agent's batch."""
    validate_query(params.query)
    validate_limit(params.limit, default=6)
    session = caller_session(namespace, params.session_id)
    results = raw_rank(namespace=namespace, params=params, session=session)
    behind = visible_events_for_messages(m.message.pk for m in results)
    entries = [
        BatchEntry(
            target=Ref.raw(h.message.pk),
            score=h.score,
            events=tuple(behind.get(h.message.pk, [])),
        )
        for h in results
    ]
    batch = batch_create(
        namespace=namespace,
        session=session,
        tool="search_raw",
        query=params.query,
        params={"limit": params.limit, "session_filter": params.session_id},
        entries=entries,
    )
    return Found(batch=batch, shown=_shown(entries, results))
