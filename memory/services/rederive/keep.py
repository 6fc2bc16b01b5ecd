"""Why a re-derivation must keep an old event the current rules no longer produce: a person's
decision (pinned, forgotten or archived) or a record that names it (a usage receipt, an
assessment, an import's commit or candidates, an event not derived from blocks). Removing such
an event would undo the decision or break the audit chain (SPEC §10), so it stays as it is.

Reads only; the reasons are checked in this order and the first one counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from django.db.models import Q

from memory.engine.gate import parse_ref
from memory.engine.lifecycle import HIDDEN_STATUSES
from memory.models import (
    Assessment,
    Event,
    EventOrigin,
    EventRelation,
    ImportBatch,
    ImportCandidate,
    UsageItem,
    UsageReceipt,
)

PINNED: Final = "pinned"
FORGOTTEN: Final = "forgotten"  # forgotten or archived: hidden by a person
CITED: Final = "cited"
REASONS: Final = (PINNED, FORGOTTEN, CITED)


def _event_refs(refs: Iterable[object]) -> set[int]:
    ids: set[int] = set()
    for raw in refs:
        ref = parse_ref(raw)
        if ref is not None and ref.kind == "event":
            ids.add(ref.object_id)
    return ids


def _ints(values: Iterable[object]) -> set[int]:
    return {int(v) for v in values if isinstance(v, int | str) and str(v).isdigit()}


def cited_events(*, namespace_id: int, event_ids: set[int]) -> set[int]:
    """The events among `event_ids` that a receipt, an assessment, an import or an event not
    derived from blocks (imported, created by an agent) names."""
    cited: set[int] = set(
        UsageItem.events.through.objects.filter(event_id__in=event_ids).values_list(
            "event_id", flat=True
        )
    )
    for refs, reinforced in UsageReceipt.objects.filter(namespace_id=namespace_id).values_list(
        "evidence_refs", "reinforced_event_ids"
    ):
        cited |= _event_refs(refs or ()) | _ints(reinforced or ())
    for evidence, accepted in Assessment.objects.filter(namespace_id=namespace_id).values_list(
        "evidence_refs", "accepted_refs"
    ):
        cited |= _event_refs([*(evidence or ()), *(accepted or ())])
    for record in ImportBatch.objects.filter(namespace_id=namespace_id).values_list(
        "commit_record", flat=True
    ):
        cited |= _ints((record or {}).get("before", {}))
    for lists in ImportCandidate.objects.filter(batch__namespace_id=namespace_id).values_list(
        "target_event_ids", "chosen_target_event_ids", "match_event_ids"
    ):
        for ids in lists:
            cited |= _ints(ids or ())
    others = Event.objects.filter(namespace_id=namespace_id).exclude(origin=EventOrigin.EXTRACTION)
    other_ids = set(others.values_list("pk", flat=True))
    for superseder in others.filter(superseded_by_id__in=event_ids).values_list(
        "superseded_by_id", flat=True
    ):
        cited.add(superseder)
    for a, b in EventRelation.objects.filter(
        Q(from_event_id__in=other_ids, to_event_id__in=event_ids)
        | Q(to_event_id__in=other_ids, from_event_id__in=event_ids)
    ).values_list("from_event_id", "to_event_id"):
        cited |= {a, b}
    return cited & event_ids


def keep_reasons(*, namespace_id: int, events: list[Event]) -> dict[int, str]:
    """Each old event that must stay whatever the rules say, with the first reason that holds."""
    ids = {e.pk for e in events}
    cited = cited_events(namespace_id=namespace_id, event_ids=ids)
    reasons: dict[int, str] = {}
    for event in events:
        if event.pinned:
            reasons[event.pk] = PINNED
        elif event.status in HIDDEN_STATUSES:
            reasons[event.pk] = FORGOTTEN
        elif event.pk in cited:
            reasons[event.pk] = CITED
    return reasons
