"""A LoCoMo conversation through the normal pipeline: one namespace, each LoCoMo session a
session, utterances paired into turns (first as the user message, second as the assistant's),
each message carrying its speaker's name and the session's date, stored through batch ingest
(in-process, 200 turns a batch); then the job queue is drained.

Receipts are the utterances' ids, so ingesting again stores nothing new (the harness can score a
conversation again without rebuilding it)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Sum

from memory.evaluation.locomo.dataset import Conversation, paired_turns
from memory.models import Block, BlockStatus, IngestReceipt, Message, ModelCall, Namespace
from memory.services.ingest import MessageIn, TurnIn
from memory.services.ingest_batch import turn_batch_ingest, turn_batches
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create

RECEIPT_PREFIX = "locomo"


@dataclass(frozen=True)
class Ingested:
    namespace: Namespace
    turns_stored: int
    turns_total: int
    seconds: float  # ingest and processing, wall clock
    blocks_ready: int
    blocks_failed: int
    model_calls: int
    model_tokens: int
    utterance_of: dict[int, str]  # message id → dia_id
    message_of: dict[str, int]  # dia_id → message id


def namespace_name(prefix: str, conversation: Conversation) -> str:
    return f"{prefix}{conversation.sample_id}"


def _receipt(conversation: Conversation, first_dia_id: str) -> str:
    return f"{RECEIPT_PREFIX}:{conversation.sample_id}:{first_dia_id}"


def conversation_turns(
    conversation: Conversation, *, one_session: str | None = None
) -> Iterator[TurnIn]:
    """The conversation as turns, each LoCoMo session a session (or all in `one_session`)."""
    for session in conversation.sessions:
        for index, pair in enumerate(paired_turns(session)):
            # Order inside a session by seconds: the date is the session's, as the release has it.
            at = session.started_at + timedelta(seconds=2 * index)
            yield TurnIn(
                session_id=one_session or f"session_{session.number}",
                receipt_id=_receipt(conversation, pair[0].dia_id),
                occurred_at=at,
                messages=[
                    MessageIn(
                        role=("user", "assistant")[position],
                        content=utterance.content,
                        name=utterance.speaker,
                        created_at=at + timedelta(seconds=position),
                    )
                    for position, utterance in enumerate(pair)
                ],
            )


def conversation_ingest(
    conversation: Conversation,
    *,
    namespace_prefix: str = "locomo-",
    on_turn: Callable[[], None] | None = None,
) -> Ingested:
    """Ingest every turn in batches (idempotent per receipt), run all processing, and map
    messages back to the utterances they hold."""
    namespace = namespace_get_or_create(name=namespace_name(namespace_prefix, conversation))
    last_call = (
        ModelCall.objects.filter(namespace=namespace)
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )
    started = time.perf_counter()
    stored = total = 0
    for batch in turn_batches(conversation_turns(conversation)):
        stored += turn_batch_ingest(namespace=namespace, turns=batch).stored
        total += len(batch)
        if on_turn is not None:
            for _ in batch:
                on_turn()
    jobs_drain()
    seconds = time.perf_counter() - started
    blocks = dict(
        Block.objects.filter(namespace=namespace)
        .values_list("status")
        .annotate(n=Count("id"))
        .values_list("status", "n")
    )
    calls = ModelCall.objects.filter(namespace=namespace, pk__gt=last_call or 0)
    spent = calls.aggregate(p=Sum("prompt_tokens"), c=Sum("completion_tokens"))
    utterance_of, message_of = _utterance_map(namespace, conversation)
    return Ingested(
        namespace=namespace,
        turns_stored=stored,
        turns_total=total,
        seconds=seconds,
        blocks_ready=blocks.get(BlockStatus.READY, 0),
        blocks_failed=blocks.get(BlockStatus.FAILED, 0),
        model_calls=calls.count(),
        model_tokens=(spent["p"] or 0) + (spent["c"] or 0),
        utterance_of=utterance_of,
        message_of=message_of,
    )


def _utterance_map(
    namespace: Namespace, conversation: Conversation
) -> tuple[dict[int, str], dict[str, int]]:
    turn_of_receipt = dict(
        IngestReceipt.objects.filter(
            namespace=namespace, receipt_id__startswith=f"{RECEIPT_PREFIX}:"
        ).values_list("receipt_id", "turn_id")
    )
    messages = {
        (turn_id, position): pk
        for pk, turn_id, position in Message.objects.filter(namespace=namespace).values_list(
            "pk", "turn_id", "position"
        )
    }
    utterance_of: dict[int, str] = {}
    for session in conversation.sessions:
        for pair in paired_turns(session):
            turn_id = turn_of_receipt.get(_receipt(conversation, pair[0].dia_id))
            for position, utterance in enumerate(pair):
                pk = messages.get((turn_id, position)) if turn_id is not None else None
                if pk is not None:
                    utterance_of[pk] = utterance.dia_id
    return utterance_of, {dia: pk for pk, dia in utterance_of.items()}
