"""The receipt list: usage receipts newest first, filtered, with a summary of the filtered set,
paged in SQL with every row's answer turn and cited titles in a fixed number of queries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import (
    BigIntegerField,
    Case,
    Count,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Substr, Trim

from memory.engine.gate import VERDICTS
from memory.engine.redact import redact
from memory.models import Message, MessageRole, Namespace, Session, Turn, UsageReceipt
from memory.selectors.audit_view.refs import RefTitleOut, ref_titles, snippet, title_of
from memory.selectors.out import Out
from memory.selectors.paging import Page, paginate

PAGE_SIZE = 50
SESSION_CHOICES = 100  # more sessions with receipts than this: the filter becomes free text
NO_VERDICT = "none"  # a receipt recorded without any assessment of its batch
USED_SOMETHING, USED_NOTHING = "cited", "nothing"


@dataclass(frozen=True)
class ReceiptFilter:
    session_id: str | None = None
    verdict: str | None = None  # one of VERDICTS, or NO_VERDICT
    used: str | None = None  # USED_SOMETHING (≥ 1 ref) | USED_NOTHING (zero-increment)
    created_from: datetime | None = None
    created_to: datetime | None = None


class ReceiptRowOut(Out):
    id: int  # the database id: receipt ids are arbitrary strings, so links use this
    receipt_id: str
    created_at: datetime
    session_id: str | None
    namespace_turn: int
    answer_session_turn: int | None
    answer_namespace_turn: int | None
    verdict: str
    cited: list[RefTitleOut]
    reinforced: int
    zero_increment: bool
    question: str  # the answer turn's user message (redacted snippet), when the turn is known
    tool: str
    query: str
    answer: str  # redacted snippet
    answer_hashed_only: bool  # too long to keep: only its hash is stored


class ReceiptSummaryOut(Out):
    receipts: int
    zero_increment: int
    sufficient: int
    partial: int
    mismatch: int
    none: int


def receipts_filtered(namespace: Namespace, filters: ReceiptFilter) -> QuerySet[UsageReceipt]:
    rows = UsageReceipt.objects.filter(namespace=namespace)
    if filters.session_id is not None:
        rows = rows.filter(session__external_id=filters.session_id)
    if filters.verdict == NO_VERDICT:
        rows = rows.filter(verdict="")
    elif filters.verdict:
        rows = rows.filter(verdict=filters.verdict)
    if filters.used == USED_NOTHING:
        rows = rows.filter(evidence_refs=[])
    elif filters.used == USED_SOMETHING:
        rows = rows.exclude(evidence_refs=[])
    if filters.created_from is not None:
        rows = rows.filter(created_at__gte=filters.created_from)
    if filters.created_to is not None:
        rows = rows.filter(created_at__lte=filters.created_to)
    return rows


def with_answer_turn(rows: QuerySet[UsageReceipt]) -> QuerySet[UsageReceipt]:
    """`audit.answer_turn` in SQL (as `answer_turn_pk`), so a page of receipts finds its answer
    turns in its own query: the stored turn, else the session's turn whose assistant message
    holds the answer, else the session's first turn after the receipt."""
    matched = Message.objects.filter(
        session_id=OuterRef("session_id"),
        role=MessageRole.ASSISTANT,
        content__contains=Substr(OuterRef("answer_trimmed"), 1, 2000),
        turn__namespace_turn__gte=OuterRef("batch__namespace_turn"),
    ).order_by("turn__namespace_turn")
    following = Turn.objects.filter(
        session_id=OuterRef("session_id"), namespace_turn__gt=OuterRef("namespace_turn")
    ).order_by("namespace_turn")
    # An empty answer would match any message (LIKE '%%'): no text match then.
    matched_turn = Case(
        When(answer_trimmed="", then=Value(None, output_field=BigIntegerField())),
        default=Subquery(matched.values("turn_id")[:1]),
        output_field=BigIntegerField(),
    )
    return rows.annotate(answer_trimmed=Trim("answer_text")).annotate(
        answer_turn_pk=Coalesce(
            "answer_turn_id",
            matched_turn,
            Subquery(following.values("pk")[:1]),
            output_field=BigIntegerField(),
        )
    )


def receipt_summary(namespace: Namespace, filters: ReceiptFilter) -> ReceiptSummaryOut:
    """Counts over the filtered receipts (all pages), one query."""
    counts = receipts_filtered(namespace, filters).aggregate(
        receipts=Count("pk"),
        zero_increment=Count("pk", filter=Q(evidence_refs=[])),
        none=Count("pk", filter=Q(verdict="")),
        **{verdict: Count("pk", filter=Q(verdict=verdict)) for verdict in VERDICTS},
    )
    return ReceiptSummaryOut.model_construct(**counts)


def _rows(namespace: Namespace, receipts: Sequence[UsageReceipt]) -> list[ReceiptRowOut]:
    """For the page: the answer turns' numbers, their questions and the cited refs' titles (one
    query per ref kind)."""
    turn_pks = {pk for r in receipts if (pk := getattr(r, "answer_turn_pk", None))}
    turns = {
        pk: (session_turn, namespace_turn)
        for pk, session_turn, namespace_turn in Turn.objects.filter(pk__in=turn_pks).values_list(
            "pk", "session_turn", "namespace_turn"
        )
    }
    questions: dict[int, str] = {}
    for turn_id, content in (
        Message.objects.filter(turn_id__in=turn_pks, role=MessageRole.USER)
        .order_by("turn_id", "-position")
        .values_list("turn_id", "content")
    ):
        questions[turn_id] = content  # the turn's first user message wins (read last)
    titles = ref_titles(namespace, (ref for r in receipts for ref in r.evidence_refs))
    rows = []
    for r in receipts:
        turn_pk = getattr(r, "answer_turn_pk", None) or 0
        turn = turns.get(turn_pk)
        rows.append(
            ReceiptRowOut.model_construct(
                id=r.pk,
                receipt_id=redact(r.receipt_id),
                created_at=r.created_at,
                session_id=redact(r.session.external_id) if r.session else None,
                namespace_turn=r.namespace_turn,
                answer_session_turn=turn[0] if turn else None,
                answer_namespace_turn=turn[1] if turn else None,
                verdict=r.verdict,
                cited=[title_of(titles, ref) for ref in r.evidence_refs],
                reinforced=len(r.reinforced_event_ids),
                zero_increment=not r.evidence_refs,
                question=snippet(questions.get(turn_pk, ""), 240),
                tool=r.batch.tool,
                query=snippet(r.batch.query, 200),
                answer=snippet(r.answer_text),
                answer_hashed_only=bool(r.answer_hash) and not r.answer_text,
            )
        )
    return rows


def receipt_page(
    *,
    namespace: Namespace,
    filters: ReceiptFilter,
    page: int | str | None,
    per_page: int = PAGE_SIZE,
) -> Page[ReceiptRowOut]:
    """Receipts newest first, paged in SQL: a count, the page (with its session, batch and
    answer turn), the answer turns' numbers, their questions and the cited refs' titles (one
    query per ref kind) — at most nine queries for any page size."""
    rows = with_answer_turn(
        receipts_filtered(namespace, filters)
        .select_related("session", "batch")
        .order_by("-created_at", "-pk")
    )
    return paginate(
        rows, page=page, per_page=per_page, convert=lambda found: _rows(namespace, found)
    )


def receipt_sessions(namespace: Namespace) -> list[str] | None:
    """Sessions that have receipts, for the filter's select; None when there are too many to
    list (the filter is then a text field). One query."""
    ids = list(
        Session.objects.filter(namespace=namespace, receipts__isnull=False)
        .distinct()
        .order_by("external_id")
        .values_list("external_id", flat=True)[: SESSION_CHOICES + 1]
    )
    # Redacted like every way out; an id that carried a secret then filters to nothing.
    return None if len(ids) > SESSION_CHOICES else [redact(i) for i in ids]
