"""A memory's usage page: from one event forward to the answers that cited it, the batches that
showed it without its being used, and the times it was injected as activated memory."""

from __future__ import annotations

from memory.engine.gate import Ref
from memory.engine.redact import redact
from memory.errors import NotFound
from memory.models import Event, Namespace, UsageReceipt
from memory.selectors.audit import CitationOut, InjectedOut, ShownUnusedOut, memory_usage
from memory.selectors.audit_view.refs import RefTitleOut
from memory.selectors.out import Out

USAGE_SHOWN = 50  # the newest rows of each kind; the counts cover them all


class CitationRowOut(Out):
    citation: CitationOut
    receipt_pk: int | None


class ShownRowOut(Out):
    shown: ShownUnusedOut
    receipt_pk: int | None  # the receipt that closed the batch without citing it; None: open


class EventUsagePageOut(Out):
    event: RefTitleOut
    adoptions: int
    last_adopted_turn: int
    cited_total: int
    retrieved_unused_total: int
    open_batches: int
    injected_total: int
    cited: list[CitationRowOut]  # newest first, at most USAGE_SHOWN of each list
    retrieved_unused: list[ShownRowOut]
    injected: list[InjectedOut]


def event_usage_detail(*, namespace: Namespace, event_id: int) -> EventUsagePageOut:
    """Every way one event of this namespace met an answer (`audit.memory_usage`), newest
    first, with the receipts to link to; six queries. Another namespace's event is as unknown
    as a missing one (404 `event_not_found`)."""
    event = Event.objects.filter(namespace=namespace, pk=event_id).first()
    if event is None:
        raise NotFound(f"event {event_id} not found", code="event_not_found")
    usage = memory_usage(event)
    cited = usage.cited[:USAGE_SHOWN]
    shown = usage.retrieved_unused[:USAGE_SHOWN]
    by_receipt_id = dict(
        UsageReceipt.objects.filter(
            namespace=namespace, receipt_id__in=[c.receipt_id for c in cited]
        ).values_list("receipt_id", "pk")
    )
    by_batch = dict(
        UsageReceipt.objects.filter(
            namespace=namespace, batch__public_id__in=[s.batch_id for s in shown]
        ).values_list("batch__public_id", "pk")
    )
    return EventUsagePageOut.model_construct(
        event=RefTitleOut.model_construct(
            ref=str(Ref.event(event.pk)),
            kind="event",
            object_id=event.pk,
            level=None,
            found=True,
            label=redact(event.title),
            detail=event.event_type,
            status=event.status,
        ),
        adoptions=usage.adoptions,
        last_adopted_turn=usage.last_adopted_turn,
        cited_total=len(usage.cited),
        retrieved_unused_total=len(usage.retrieved_unused),
        open_batches=sum(1 for s in usage.retrieved_unused if s.status == "open"),
        injected_total=len(usage.injected),
        cited=[
            CitationRowOut.model_construct(
                citation=c.model_copy(
                    update={
                        "receipt_id": redact(c.receipt_id),
                        "session_id": redact(c.session_id) if c.session_id else None,
                    }
                ),
                receipt_pk=by_receipt_id.get(c.receipt_id),
            )
            for c in cited
        ],
        retrieved_unused=[
            ShownRowOut.model_construct(
                shown=s.model_copy(
                    update={"session_id": redact(s.session_id) if s.session_id else None}
                ),
                receipt_pk=by_batch.get(s.batch_id),
            )
            for s in shown
        ],
        injected=[
            a.model_copy(update={"session_id": redact(a.session_id) if a.session_id else None})
            for a in usage.injected[:USAGE_SHOWN]
        ],
    )
