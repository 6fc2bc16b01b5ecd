"""Usage receipts (SPEC §10): the only way memory is reinforced.

An answer cites the refs it used; each event behind them gets n += 1 and last_adopted_turn =
current_turn, once per receipt however many refs point at it. Events behind a ref are those the
batch recorded when the ref was shown: the event itself, a fact's source events, a node's
provenance events, the events extracted from a raw message or from a block. Forgotten or archived
events are never reinforced. Idempotent on receipt_id: the same content again changes nothing
(`duplicate`), other content is a 409. Either way the batch is closed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from memory.engine.gate import canonical_ref, parse_ref
from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.errors import Conflict, Invalid
from memory.models import (
    Assessment,
    BatchStatus,
    Event,
    Namespace,
    RetrievalBatch,
    UsageItem,
    UsageReceipt,
)
from memory.services.batches import batch_behind, batch_items, batch_resolve, caller_session

MAX_RECEIPT_ID = 200
MAX_REFS = 8
# Longer answers are kept as their SHA-256 only ("the answer text or its hash", SPEC §10.4).
MAX_ANSWER_TEXT = 20_000


@dataclass(frozen=True)
class UseRequest:
    receipt_id: str
    evidence_refs: object
    batch_id: str | None = None
    session_id: str | None = None
    answer: str | None = None


@dataclass(frozen=True)
class UseRecorded:
    receipt: UsageReceipt
    duplicate: bool


def _refs(raw: object) -> list[str]:
    if not isinstance(raw, list):
        raise Invalid("evidence_refs must be a list", code="invalid_evidence_refs")
    refs: list[str] = []
    for index, item in enumerate(raw):
        ref = canonical_ref(item)
        if ref is None:
            raise Invalid(
                f"evidence_refs[{index}] is not a valid ref",
                code="invalid_ref",
                details={"index": index, "ref": item if isinstance(item, str) else None},
            )
        if ref not in refs:
            refs.append(ref)
    if len(refs) > MAX_REFS:
        raise Invalid(
            f"at most {MAX_REFS} refs can be used",
            code="too_many_refs",
            details={"limit": MAX_REFS},
        )
    return refs


def _answer_hash(answer: str | None) -> str:
    return hashlib.sha256(answer.encode()).hexdigest() if answer else ""


def _content_hash(refs: list[str], answer: str | None) -> str:
    canonical = {"refs": sorted(refs), "answer": _answer_hash(answer)}
    return hashlib.sha256(json.dumps(canonical, sort_keys=True).encode()).hexdigest()


def _replay(namespace: Namespace, request: UseRequest, content_hash: str) -> UseRecorded | None:
    receipt = (
        UsageReceipt.objects.select_related("batch")
        .filter(namespace=namespace, receipt_id=request.receipt_id)
        .first()
    )
    if receipt is None:
        return None
    same_batch = not request.batch_id or request.batch_id == receipt.batch.public_id
    if receipt.content_hash != content_hash or not same_batch:
        raise Conflict(
            "receipt_id was already used with different content",
            code="receipt_conflict",
            details={"receipt_id": request.receipt_id, "batch_id": receipt.batch.public_id},
        )
    return UseRecorded(receipt=receipt, duplicate=True)


def _governing_assessment(batch: RetrievalBatch, refs: list[str]) -> Assessment | None:
    """The batch's latest assessment; non-empty refs need it sufficient and accepting them."""
    latest = Assessment.objects.filter(batch=batch).order_by("-id").first()
    if not refs:
        return latest
    if latest is None or latest.verdict != "sufficient":
        raise Invalid(
            "non-empty evidence_refs need a sufficient assessment of the batch",
            code="no_sufficient_assessment",
            details={
                "batch_id": batch.public_id,
                "latest_verdict": latest.verdict if latest else None,
            },
        )
    accepted = set(latest.accepted_refs)
    missing = [{"index": i, "ref": r} for i, r in enumerate(refs) if r not in accepted]
    if missing:
        raise Invalid(
            "every used ref must have been accepted by the sufficient assessment",
            code="refs_not_accepted",
            details={"batch_id": batch.public_id, "refs": missing},
        )
    return latest


def usage_record(*, namespace: Namespace, request: UseRequest) -> UseRecorded:
    """Record what an answer used and reinforce the events behind it (SPEC §10.1–10.4)."""
    if not request.receipt_id or len(request.receipt_id) > MAX_RECEIPT_ID:
        raise Invalid("receipt_id must be 1–200 characters", code="invalid_receipt_id")
    refs = _refs(request.evidence_refs)
    content_hash = _content_hash(refs, request.answer)
    replay = _replay(namespace, request, content_hash)
    if replay is not None:
        return replay
    batch = batch_resolve(
        namespace=namespace, batch_id=request.batch_id, session_id=request.session_id
    )
    try:
        return _record(namespace, request, batch, refs, content_hash)
    except IntegrityError:
        # A concurrent duplicate won the unique (namespace, receipt_id) race.
        replay = _replay(namespace, request, content_hash)
        if replay is None:
            raise
        return replay


def _record(
    namespace: Namespace,
    request: UseRequest,
    batch: RetrievalBatch,
    refs: list[str],
    content_hash: str,
) -> UseRecorded:
    with transaction.atomic():
        # The batch row lock serialises the receipts of one batch: a concurrent duplicate waits
        # here, then finds the first one committed. A duplicate naming another batch meets the
        # unique receipt id (usage_record replays it). The namespace row is not locked: ingest
        # holds it for its whole transaction, and a receipt has no reason to wait for turns.
        batch = RetrievalBatch.objects.select_for_update().get(pk=batch.pk)
        replay = _replay(namespace, request, content_hash)
        if replay is not None:
            return replay
        if batch.status == BatchStatus.CLOSED:
            raise Conflict(
                f"batch {batch.public_id} is already closed by another receipt",
                code="batch_closed",
                details={"batch_id": batch.public_id},
            )
        assessment = _governing_assessment(batch, refs)
        session = (
            caller_session(namespace, request.session_id) if request.session_id else batch.session
        )
        # The adoption anchor: the namespace's turn as committed now.
        current_turn = Namespace.objects.values_list("current_turn", flat=True).get(pk=namespace.pk)
        items = batch_items(batch)
        behind = batch_behind(batch)
        wanted = sorted({i for ref in refs for i in behind.get(ref, [])})
        existing = set(
            Event.objects.filter(namespace=namespace, pk__in=wanted).values_list("pk", flat=True)
        )
        reinforced = sorted(
            Event.objects.filter(pk__in=existing, status__in=VISIBLE_STATUSES).values_list(
                "pk", flat=True
            )
        )
        if reinforced:
            Event.objects.filter(pk__in=reinforced).update(
                adoptions=F("adoptions") + 1, last_adopted_turn=current_turn
            )
        answer = request.answer or ""
        receipt = UsageReceipt.objects.create(
            namespace=namespace,
            receipt_id=request.receipt_id,
            content_hash=content_hash,
            batch=batch,
            assessment=assessment,
            session=session,
            namespace_turn=current_turn,
            evidence_refs=refs,
            verdict=assessment.verdict if assessment else "",
            fit=assessment.fit if assessment else "",
            missing=assessment.missing if assessment else "",
            next_strategy=assessment.next_strategy if assessment else "",
            answer_text=answer if len(answer) <= MAX_ANSWER_TEXT else "",
            answer_hash=_answer_hash(request.answer),
            reinforced_event_ids=reinforced,
        )
        for ref in refs:
            parsed = parse_ref(ref)
            assert parsed is not None
            shown = items.get(ref)
            usage = UsageItem.objects.create(
                receipt=receipt,
                ref=ref,
                kind=parsed.kind,
                object_id=parsed.object_id,
                block_level=parsed.level if shown is None else shown.block_level,
                expanded=bool(shown and shown.expanded),
            )
            usage.events.set([i for i in behind.get(ref, []) if i in existing])
        batch.status = BatchStatus.CLOSED
        batch.closed_at = timezone.now()
        batch.save(update_fields=["status", "closed_at"])
    return UseRecorded(receipt=receipt, duplicate=False)
