"""One receipt's chain page: `audit.audit_chain` (answer turn → gate verdict → cited memories →
their source messages) with what a person needs to read it — titles for every ref, how far each
cited event was reinforced, the batch's earlier assessments, and the activated memory injected
into the session before the answer, kept apart from what was cited."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from memory.errors import NotFound
from memory.models import Activation, Assessment, Namespace, UsageItem, UsageReceipt
from memory.selectors.audit import (
    AssessmentOut,
    AuditChainOut,
    CitedMemoryOut,
    EventBriefOut,
    UnusedRefOut,
    assessment_out,
    audit_chain,
)
from memory.selectors.audit_view.refs import RefTitleOut, ref_titles, snippet, title_of
from memory.selectors.messages import MessageOut, messages_by_ids
from memory.selectors.out import Out
from memory.selectors.proxy_exchange_view import ExchangeLinkOut, receipt_exchange

INJECTED_SHOWN = 2  # the session's latest activations before the receipt


class CitedEventOut(Out):
    """An event a cited ref stood for, and what this receipt did to its n."""

    event: EventBriefOut
    reinforced: bool  # False: forgotten or archived when cited, so left alone
    before: int | None  # n before → after this receipt; None when it cannot be told
    after: int | None


class CitedOut(Out):
    memory: CitedMemoryOut
    title: RefTitleOut
    events: list[CitedEventOut]


class UnusedOut(Out):
    item: UnusedRefOut
    title: RefTitleOut
    # An event ref not cited itself whose event this receipt reinforced through another ref
    # (a node or fact it is a source of): the ref went unused, the event did not.
    event_used_elsewhere: bool
    accepted: bool  # the governing assessment accepted it, yet the answer did not cite it


class SourceGroupOut(Out):
    """The source messages of one event behind the cited refs, or a raw message cited itself."""

    event_id: int | None  # None: a raw message cited directly
    title: str
    via: list[str]  # the cited refs that led here
    messages: list[MessageOut]


class InjectedRefOut(Out):
    title: RefTitleOut
    also_cited: bool


class ActivationOut(Out):
    id: int
    created_at: datetime
    namespace_turn: int
    for_this_question: bool  # built at or after the batch's turn: right before this answer
    query: str
    tokens: int
    refs: list[InjectedRefOut]


class ReceiptPageOut(Out):
    id: int
    chain: AuditChainOut
    assessment: AssessmentOut | None
    earlier_assessments: list[AssessmentOut]
    batch_created_at: datetime
    batch_closed_at: datetime | None
    session_turns: int | None
    answer_in_turn: bool  # the recorded answer is what the answer turn's assistant said
    cited: list[CitedOut]
    sources: list[SourceGroupOut]
    retrieved_unused: list[UnusedOut]
    injected: list[ActivationOut]
    # The proxied answer this receipt belongs to (its "What the model saw" on the session page).
    model_saw: ExchangeLinkOut | None = None


def receipt_by_pk(namespace: Namespace, receipt_pk: int) -> UsageReceipt:
    """A receipt of this namespace by its database id; another namespace's is as unknown as a
    missing one (404 `receipt_not_found`)."""
    receipt = (
        UsageReceipt.objects.filter(namespace=namespace, pk=receipt_pk)
        .select_related("batch", "assessment", "session", "answer_turn")
        .first()
    )
    if receipt is None:
        raise NotFound(f"receipt #{receipt_pk} not found", code="receipt_not_found")
    return receipt


def reinforcement(
    *, adoptions: int, reinforcing: Iterable[int], receipt_pk: int, reinforced: bool
) -> tuple[int | None, int | None]:
    """n before and after this receipt, when the event's whole history is receipts: n is 1 at
    formation and each reinforcing receipt (in creation order) adds 1. Adoptions that came
    without a receipt (imports, restores) make it unknowable: (None, None)."""
    ordered = sorted(set(reinforcing))
    if not reinforced or receipt_pk not in ordered or adoptions != 1 + len(ordered):
        return None, None
    after = 2 + ordered.index(receipt_pk)
    return after - 1, after


def _reinforcing(event_ids: set[int]) -> dict[int, list[int]]:
    """The receipts that reinforced each event (not merely cited it); one query."""
    found: dict[int, list[int]] = {}
    if not event_ids:
        return found
    rows = UsageItem.events.through.objects.filter(event_id__in=event_ids).values_list(
        "event_id", "usageitem__receipt", "usageitem__receipt__reinforced_event_ids"
    )
    for event_id, receipt_pk, reinforced in rows:
        if event_id in (reinforced or []):
            found.setdefault(event_id, []).append(int(receipt_pk))
    return found


def _cited(
    receipt: UsageReceipt, chain: AuditChainOut, titles: dict[str, RefTitleOut]
) -> list[CitedOut]:
    reinforcing = _reinforcing({e.id for m in chain.memories for e in m.events})
    reinforced_ids = set(receipt.reinforced_event_ids)

    def cited_event(event: EventBriefOut) -> CitedEventOut:
        before, after = reinforcement(
            adoptions=event.adoptions,
            reinforcing=reinforcing.get(event.id, []),
            receipt_pk=receipt.pk,
            reinforced=event.id in reinforced_ids,
        )
        return CitedEventOut.model_construct(
            event=event, reinforced=event.id in reinforced_ids, before=before, after=after
        )

    return [
        CitedOut.model_construct(
            memory=m, title=title_of(titles, m.ref), events=[cited_event(e) for e in m.events]
        )
        for m in chain.memories
    ]


def _sources(chain: AuditChainOut) -> list[SourceGroupOut]:
    """Source messages grouped by event (an event a node and its fact both stood for is listed
    once, with both refs); raw messages cited themselves first. One query for those."""
    raw_ids = [m.object_id for m in chain.memories if m.kind == "raw"]
    raw = {m.id: m for m in messages_by_ids(raw_ids)} if raw_ids else {}
    groups: dict[tuple[str, int], dict[str, Any]] = {}
    for memory in chain.memories:
        if memory.kind == "raw" and memory.object_id in raw:
            groups[("raw", memory.object_id)] = {
                "event_id": None,
                "title": "",
                "via": [memory.ref],
                "messages": [raw[memory.object_id]],
            }
        for event in memory.events:
            group = groups.setdefault(
                ("event", event.id),
                {"event_id": event.id, "title": event.title, "via": [],
                 "messages": event.source_messages},
            )  # fmt: skip
            if memory.ref not in group["via"]:
                group["via"].append(memory.ref)
    return [SourceGroupOut.model_construct(**g) for g in groups.values()]


def _activations(receipt: UsageReceipt) -> Sequence[Activation]:
    """The session's latest activated memory up to the receipt's turn; one query."""
    if receipt.session_id is None:
        return []
    return list(
        Activation.objects.filter(
            namespace_id=receipt.namespace_id,
            session_id=receipt.session_id,
            namespace_turn__lte=receipt.namespace_turn,
        ).order_by("-namespace_turn", "-pk")[:INJECTED_SHOWN]
    )


def _injected(
    receipt: UsageReceipt,
    activations: Sequence[Activation],
    titles: dict[str, RefTitleOut],
    cited: set[str],
) -> list[ActivationOut]:
    return [
        ActivationOut.model_construct(
            id=a.pk,
            created_at=a.created_at,
            namespace_turn=a.namespace_turn,
            for_this_question=a.namespace_turn >= receipt.batch.namespace_turn,
            query=snippet(a.query),
            tokens=a.tokens,
            refs=[
                InjectedRefOut.model_construct(
                    title=title_of(titles, str(ref)), also_cited=str(ref) in cited
                )
                for ref in a.refs
            ],
        )
        for a in activations
    ]


def _answer_in_turn(chain: AuditChainOut) -> bool:
    answer = chain.receipt.answer_text.strip()
    turn = chain.answer_turn
    return bool(answer and turn) and any(
        m.role == "assistant" and answer in m.content for m in (turn.messages if turn else [])
    )


def receipt_page_detail(*, namespace: Namespace, receipt_pk: int) -> ReceiptPageOut:
    """The chain page of one receipt: `audit_chain` plus, in a fixed number of queries, the
    titles of every ref shown (one per kind), the cited raw messages, the receipts that
    reinforced each cited event, the batch's earlier assessments and the session's latest
    activated memory."""
    receipt = receipt_by_pk(namespace, receipt_pk)
    chain = audit_chain(receipt)
    cited_refs = {m.ref for m in chain.memories}
    activations = _activations(receipt)
    titles = ref_titles(
        namespace,
        [
            *cited_refs,
            *(u.ref for u in chain.retrieved_unused),
            *(str(ref) for a in activations for ref in a.refs),
        ],
    )
    batch_id = receipt.batch.public_id
    accepted = set(receipt.assessment.accepted_refs) if receipt.assessment else set()
    earlier = Assessment.objects.filter(batch=receipt.batch).order_by("pk")
    if receipt.assessment_id is not None:
        earlier = earlier.filter(pk__lt=receipt.assessment_id)
    return ReceiptPageOut.model_construct(
        id=receipt.pk,
        chain=chain,
        assessment=assessment_out(receipt.assessment, batch_id) if receipt.assessment else None,
        earlier_assessments=[assessment_out(a, batch_id) for a in earlier]
        if receipt.assessment_id is not None
        else [],
        batch_created_at=receipt.batch.created_at,
        batch_closed_at=receipt.batch.closed_at,
        session_turns=receipt.session.turn_count if receipt.session else None,
        answer_in_turn=_answer_in_turn(chain),
        cited=_cited(receipt, chain, titles),
        sources=_sources(chain),
        retrieved_unused=[
            UnusedOut.model_construct(
                item=u,
                title=title_of(titles, u.ref),
                event_used_elsewhere=u.kind == "event"
                and title_of(titles, u.ref).object_id in receipt.reinforced_event_ids,
                accepted=u.ref in accepted,
            )
            for u in chain.retrieved_unused
        ],
        injected=_injected(receipt, activations, titles, cited_refs),
        model_saw=receipt_exchange(namespace, receipt, activations),
    )
