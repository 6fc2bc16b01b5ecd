"""Every usage receipt's refs exist (SPEC §10.4–10.5): the audit chain walks from a receipt to
the memories it cited, so a ref to a row that is gone breaks the chain.

Import undo removes what it took away from receipts; anything else that deletes cited rows
(for example `rebuild_graph` or `rederive_events` when the current rules no longer make a
cited node or fact; what they make again keeps its id) leaves dangling refs. They are
reported, never repaired: rewriting what an answer cited would falsify the audit.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Model

from memory.engine.gate import parse_ref
from memory.models import Block, Event, GraphFact, GraphNode, Message, UsageItem, UsageReceipt
from memory.services.consistency.base import RECEIPTS, Violation, chunks, scoped

# What each ref kind's id points at (SPEC §9.1: `raw:<message id>`, `block:<id>:L<level>`).
REF_MODELS: dict[str, type[Model]] = {
    "event": Event,
    "node": GraphNode,
    "fact": GraphFact,
    "raw": Message,
    "block": Block,
}
CHUNK = 1000

Cited = tuple[int, int, str]  # receipt pk, namespace id, receipt_id


def _cited_refs(namespace_id: int | None) -> dict[tuple[int, str, int], dict[Cited, str]]:
    """(namespace, kind, object id) → the receipts citing it, with the ref as they spelled it:
    from the receipts' items and their evidence_refs (the two are written together)."""
    cited: dict[tuple[int, str, int], dict[Cited, str]] = defaultdict(dict)
    items = scoped(UsageItem.objects.all(), namespace_id, "receipt__namespace_id").values_list(
        "receipt_id", "receipt__namespace_id", "receipt__receipt_id", "kind", "object_id", "ref"
    )
    for pk, ns, receipt_id, kind, object_id, ref in items.order_by("receipt_id", "pk"):
        cited[(ns, kind, object_id)][(pk, ns, receipt_id)] = ref
    receipts = scoped(UsageReceipt.objects.all(), namespace_id).values_list(
        "pk", "namespace_id", "receipt_id", "evidence_refs"
    )
    for pk, ns, receipt_id, refs in receipts.order_by("pk"):
        for ref in refs if isinstance(refs, list) else []:
            parsed = parse_ref(ref) if isinstance(ref, str) else None
            if parsed is not None:
                cited[(ns, parsed.kind, parsed.object_id)].setdefault((pk, ns, receipt_id), ref)
    return cited


def _existing(namespace: int, kind: str, ids: list[int]) -> set[int]:
    model = REF_MODELS.get(kind)
    if model is None:
        return set()
    found: set[int] = set()
    for chunk in chunks(sorted(ids), CHUNK):
        found.update(
            model._default_manager.filter(namespace_id=namespace, pk__in=chunk).values_list(
                "pk", flat=True
            )
        )
    return found


def receipt_refs_missing(namespace_id: int | None) -> list[Violation]:
    cited = _cited_refs(namespace_id)
    wanted: dict[tuple[int, str], list[int]] = defaultdict(list)
    for ns, kind, object_id in cited:
        wanted[(ns, kind)].append(object_id)
    found: list[Violation] = []
    for (ns, kind), ids in sorted(wanted.items()):
        present = _existing(ns, kind, ids)
        for object_id in sorted(set(ids) - present):
            for (pk, _, receipt_id), ref in cited[(ns, kind, object_id)].items():
                found.append(
                    Violation(
                        RECEIPTS,
                        "receipt_ref_missing",
                        ns,
                        {"receipt": pk, "receipt_id": receipt_id, "ref": ref},
                        f"receipt {receipt_id!r} (id {pk}) cites {ref}, which does not exist",
                    )
                )
    return sorted(found, key=lambda v: (v.ids["receipt"], str(v.ids["ref"])))


def receipt_reinforced_events_missing(namespace_id: int | None) -> list[Violation]:
    receipts = scoped(UsageReceipt.objects.exclude(reinforced_event_ids=[]), namespace_id)
    found: list[Violation] = []
    for pk, ns, receipt_id, ids in receipts.values_list(
        "pk", "namespace_id", "receipt_id", "reinforced_event_ids"
    ).order_by("pk"):
        wanted = [i for i in ids if isinstance(i, int)] if isinstance(ids, list) else []
        missing = sorted(set(wanted) - _existing(ns, "event", wanted))
        found += [
            Violation(
                RECEIPTS,
                "receipt_reinforced_event_missing",
                ns,
                {"receipt": pk, "receipt_id": receipt_id, "event": event},
                f"receipt {receipt_id!r} (id {pk}) reinforced event {event}, which does not exist",
            )
            for event in missing
        ]
    return found


CHECKS = (receipt_refs_missing, receipt_reinforced_events_missing)
