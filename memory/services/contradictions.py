"""Contradictions that are not clearly a change, and changes said only as a new value
(issue 29, SPEC §5.4). Conflicting events both stay active, linked `conflicts_with` both ways,
until new evidence resolves it (a later change supersedes one, or a person forgets one).

Two rules, here so the offline rules, the model path and imports share them:

- **A statement and its denial.** A new event that denies what an active event of its type
  states, or states what it denied, with nothing else different
  (`engine.event_identity.contradicts`): "we use Kafka for the event bus" / "we don't use Kafka
  for the event bus". `services.extraction` asks after change supersession, so "we no longer
  use Redis", a change, has already superseded the use it ends and conflicts with nothing.
- **Two values for one thing.** Graph projection closes a single-valued edge or fact when a
  new value arrives (SPEC §6.3). Where the value answers one question (where a service runs,
  where a person lives or works: the relations of `SINGLE_VALUED_RELATIONS` and the matching
  facts) and the events that gave the old value are still active, nothing superseded them: the
  memory holds two answers. `services.graph.graph_apply` reports the closed rows here.
  - A new value stated as a change ("I moved to Porto", type `change`) supersedes the old
    value's events, unless one of them still states something current: superseding it would
    end that too, so it conflicts instead.
  - Otherwise the new value's events conflict with the old one's. The graph still shows the
    newest value as current; the link tells whoever reads the events (the evidence gate's
    `unresolved_conflict` advice) that it was never stated as a change.
  - Other closed rows are left alone: a slot or preference fact is keyed by a rough topic
    ("likes working late on Fridays" and "dislikes working late on Mondays" share one), and a
    name or a role adds to the last ("Maya", "Maya Chen").

Every function runs inside the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from memory.engine.event_identity import contradicts
from memory.engine.event_types import NOT_CURRENT
from memory.engine.prompts.extraction import ExtractedEvent
from memory.engine.prompts.graph import SINGLE_VALUED_RELATIONS
from memory.models import Event, EventStatus, GraphEdge, GraphFact, GraphItemStatus, RelationKind
from memory.services.events import event_conflict, event_supersede
from memory.services.mentions import fact_candidates, fact_text

# The facts that answer one question, as the offline projection keys them (offline_graph).
_ONE_ANSWER_FACTS: Final = frozenset({"employer", "residence"})
# The event types that state a change: their new value ends the old one.
CHANGE_TYPES: Final = frozenset({"change", "migration"})


def denial_conflicts(*, event: Event, extracted: ExtractedEvent) -> list[Event]:
    """Link `event` with the active events of its type it denies or that deny it; returns them."""
    new = fact_text(extracted)
    candidates = fact_candidates(
        namespace_id=event.namespace_id, event_type=event.event_type, extracted_only=False
    )
    ids = [pk for pk, old in candidates if pk != event.pk and contradicts(new, old)]
    others = list(Event.objects.filter(pk__in=ids).order_by("id")) if ids else []
    for other in others:
        event_conflict(event=event, other=other)
    return others


def values_displaced(
    *, closed: Sequence[GraphFact | GraphEdge], new_sources: Iterable[Event]
) -> list[tuple[int, int, str]]:
    """Settle the still-active events of the rows a new single-valued value closed: a change
    event ("I moved to Porto") supersedes each one that states nothing else still current,
    anything else conflicts with it. Returns (new id, old id, relation kind) per link."""
    rows = [r for r in closed if _one_answer(r)]
    fresh = [
        e
        for e in new_sources
        if e.status == EventStatus.ACTIVE and e.temporal_status not in NOT_CURRENT
    ]
    if not rows or not fresh:
        return []
    old_ids: set[int] = set()
    for row in rows:
        old_ids.update(row.source_events.values_list("pk", flat=True))
    old_events = Event.objects.filter(pk__in=old_ids - {e.pk for e in fresh}).filter(
        status=EventStatus.ACTIVE
    )
    change = next((e for e in fresh if e.event_type in CHANGE_TYPES), None)
    links: list[tuple[int, int, str]] = []
    for old in old_events.exclude(temporal_status__in=NOT_CURRENT).order_by("id"):
        if change is not None and not _states_more(old):
            event_supersede(new=change, old=old)
            links.append((change.pk, old.pk, RelationKind.SUPERSEDES))
            continue
        for new in fresh:
            event_conflict(event=new, other=old)
            links.append((new.pk, old.pk, RelationKind.CONFLICTS_WITH))
    return links


def _states_more(event: Event) -> bool:
    """Whether `event` still sources a current fact or edge (the closed rows no longer are)."""
    active = GraphItemStatus.ACTIVE
    return (
        GraphFact.objects.filter(source_events=event, status=active).exists()
        or GraphEdge.objects.filter(source_events=event, status=active).exists()
    )


def _one_answer(row: GraphFact | GraphEdge) -> bool:
    if isinstance(row, GraphFact):
        return row.key in _ONE_ANSWER_FACTS
    return row.relation in SINGLE_VALUED_RELATIONS
