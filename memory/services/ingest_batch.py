"""Ingest many completed turns at once (backfills, imports, the LoCoMo harness): the same
contract as `turn_ingest` for every turn, in one transaction with bulk inserts.

A batch behaves exactly like posting its turns one by one in order — same rows, same turn
numbers, same blocks sealed — except that it is all-or-nothing: if any turn is invalid, or
reuses a receipt with other content, nothing is written and the error names every bad item's
index. Replayed turns (receipt already stored with the same content) store nothing, so a
replayed batch writes no row and a half-new batch stores only its new turns.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import Any

from django.db import IntegrityError
from django.db.models import Count
from django.utils import timezone

from memory.errors import Conflict, Invalid, StrataGateError
from memory.models import Block, IngestReceipt, Message, Namespace, Session, Turn
from memory.models.rows import insert_rows
from memory.search import index_messages
from memory.selectors.settings import memory_settings_get
from memory.services.db import write_transaction
from memory.services.ingest import TurnIn, message_rows, turn_content_hash, turn_validate
from memory.services.live import publish
from memory.services.sealing import SealRun, blocks_seal

MAX_BATCH_TURNS = 200


@dataclass(frozen=True)
class BatchItem:
    """What happened to one turn of the batch, in input order."""

    turn: Turn
    duplicate: bool
    # As the single endpoint reports it: the last block this turn's ingest sealed (for a new
    # turn), else the block holding the turn (None while it is in the open tail).
    sealed_block_id: int | None


@dataclass(frozen=True)
class BatchResult:
    items: list[BatchItem]
    sealed_blocks: list[Block]

    @property
    def stored(self) -> int:
        return sum(1 for item in self.items if not item.duplicate)

    @property
    def duplicates(self) -> int:
        return len(self.items) - self.stored


@dataclass(frozen=True)
class _Planned:
    index: int
    turn: TurnIn
    content_hash: str


def turn_batches(turns: Iterable[TurnIn], size: int = MAX_BATCH_TURNS) -> Iterator[list[TurnIn]]:
    """Cut a long stream of turns into batches the service accepts, keeping their order."""
    iterator = iter(turns)
    while chunk := list(islice(iterator, size)):
        yield chunk


def _item_error(index: int, error: StrataGateError) -> dict[str, Any]:
    return {"index": index, "code": error.code, "message": error.message, "details": error.details}


def _validated(turns: Sequence[TurnIn]) -> list[_Planned]:
    """Every turn checked as the single endpoint checks it, plus receipts reused inside the
    batch with other content; all failures reported at once (422 `invalid_batch`)."""
    if not turns:
        raise Invalid("a batch needs at least one turn", code="empty_batch")
    if len(turns) > MAX_BATCH_TURNS:
        raise Invalid(
            f"a batch holds at most {MAX_BATCH_TURNS} turns",
            code="too_many_turns",
            details={"turns": len(turns), "limit": MAX_BATCH_TURNS},
        )
    planned: list[_Planned] = []
    errors: list[dict[str, Any]] = []
    first_of: dict[str, _Planned] = {}
    for index, turn in enumerate(turns):
        try:
            turn_validate(turn)
        except Invalid as error:
            errors.append(_item_error(index, error))
            continue
        item = _Planned(index, turn, turn_content_hash(turn))
        earlier = first_of.setdefault(turn.receipt_id, item)
        if earlier.content_hash != item.content_hash:
            errors.append(
                _item_error(
                    index,
                    Invalid(
                        "receipt_id is used earlier in this batch for a turn with other content",
                        code="receipt_reused_in_batch",
                        details={"receipt_id": turn.receipt_id, "first_index": earlier.index},
                    ),
                )
            )
        planned.append(item)
    if errors:
        raise Invalid(
            f"{len(errors)} of {len(turns)} turns are invalid; nothing was stored",
            code="invalid_batch",
            details={"errors": errors},
        )
    return planned


def _stored_receipts(namespace: Namespace, planned: list[_Planned]) -> dict[str, IngestReceipt]:
    """The receipts already stored for these turns; 409 `receipt_conflict` (naming every
    item) when one was stored with other content."""
    receipts = {
        r.receipt_id: r
        for r in IngestReceipt.objects.select_related("turn").filter(
            namespace=namespace, receipt_id__in={p.turn.receipt_id for p in planned}
        )
    }
    conflicts = [
        _item_error(
            p.index,
            Conflict(
                "receipt_id was already used for a turn with different content",
                code="receipt_conflict",
                details={"receipt_id": p.turn.receipt_id, "turn_id": receipt.turn_id},
            ),
        )
        for p in planned
        if (receipt := receipts.get(p.turn.receipt_id)) is not None
        and receipt.content_hash != p.content_hash
    ]
    if conflicts:
        raise Conflict(
            f"{len(conflicts)} receipt(s) were already used with different content; "
            "nothing was stored",
            code="receipt_conflict",
            details={"errors": conflicts},
        )
    return receipts


def turn_batch_ingest(*, namespace: Namespace, turns: Sequence[TurnIn]) -> BatchResult:
    """Store the batch's new turns verbatim, in order, and seal full blocks, all in one
    transaction. Idempotent per receipt, also under concurrent replays (the namespace row lock
    serialises writers and the unique constraint backs it up)."""
    planned = _validated(turns)
    # Fast path without the write lock: a replayed batch only reads.
    receipts = _stored_receipts(namespace, planned)
    if all(p.turn.receipt_id in receipts for p in planned):
        return _replayed(planned, receipts)
    try:
        with write_transaction():
            return _store(namespace.pk, planned)
    except IntegrityError:
        # Another process stored some of these receipts between our check and our lock
        # (possible only across processes on SQLite); the retry sees them as replays.
        with write_transaction():
            return _store(namespace.pk, planned)


def _replayed(planned: list[_Planned], receipts: dict[str, IngestReceipt]) -> BatchResult:
    items = []
    for p in planned:
        turn = receipts[p.turn.receipt_id].turn
        items.append(BatchItem(turn=turn, duplicate=True, sealed_block_id=turn.block_id))
    return BatchResult(items=items, sealed_blocks=[])


def _sessions(namespace: Namespace, external_ids: list[str]) -> dict[str, Session]:
    """The batch's sessions by external id, creating the missing ones (a concurrent
    `caller_session` may create one too: the unique constraint keeps one row)."""
    found = {
        s.external_id: s
        for s in Session.objects.filter(namespace=namespace, external_id__in=external_ids)
    }
    missing = [e for e in external_ids if e not in found]
    if missing:
        Session.objects.bulk_create(
            [Session(namespace=namespace, external_id=e) for e in missing], ignore_conflicts=True
        )
        found.update(
            (s.external_id, s)
            for s in Session.objects.filter(namespace=namespace, external_id__in=missing)
        )
    return found


def _store(namespace_id: int, planned: list[_Planned]) -> BatchResult:
    namespace = Namespace.objects.select_for_update(no_key=True).get(pk=namespace_id)
    receipts = _stored_receipts(namespace, planned)
    # A receipt seen earlier in the batch is a replay of that item, as it would be one by one.
    new: list[_Planned] = []
    seen: set[str] = set(receipts)
    for p in planned:
        if p.turn.receipt_id not in seen:
            seen.add(p.turn.receipt_id)
            new.append(p)
    if not new:  # a concurrent writer stored them all since the check outside the lock
        return _replayed(planned, receipts)
    now = timezone.now()
    order = list(dict.fromkeys(p.turn.session_id for p in new))
    sessions = _sessions(namespace, order)
    open_tails = _open_tails(list(sessions.values()))
    turns, messages = _insert(namespace, sessions, new, now)
    for message in messages:
        open_tails[message.session_id].messages.setdefault(message.turn_id, []).append(message)
    namespace.last_activity_at = now
    namespace.save(update_fields=["current_turn", "last_activity_at"])
    touched = [sessions[e] for e in order]
    for session in touched:
        session.last_activity_at = now
    Session.objects.bulk_update(touched, ["turn_count", "last_activity_at"])
    sealed, sealed_by = _seal_as_they_come(turns, open_tails)
    for session in touched:
        last = [t for t in turns if t.session_id == session.pk][-1]
        publish(
            namespace.pk,
            "turn.created",
            session_id=session.external_id,
            session_turn=last.session_turn,
            namespace_turn=last.namespace_turn,
            sealed_block_ids=[b.pk for b in sealed if b.session_id == session.pk],
        )
    return BatchResult(items=_items(planned, receipts, new, turns, sealed_by), sealed_blocks=sealed)


def _insert(
    namespace: Namespace, sessions: dict[str, Session], new: list[_Planned], now: datetime
) -> tuple[list[Turn], list[Message]]:
    """Turns, messages (indexed) and receipts in three bulk inserts; advances the namespace's
    and the sessions' counters in memory (the caller saves them)."""
    turns: list[Turn] = []
    for p in new:
        session = sessions[p.turn.session_id]
        session.turn_count += 1
        namespace.current_turn += 1
        turns.append(
            Turn(
                namespace=namespace,
                session=session,
                session_turn=session.turn_count,
                namespace_turn=namespace.current_turn,
                occurred_at=p.turn.occurred_at or now,
            )
        )
    insert_rows(turns)
    # Ids follow the input order, so each session's messages stay in conversation order.
    messages = insert_rows(
        [
            row
            for p, turn in zip(new, turns, strict=True)
            for row in message_rows(turn=turn, messages=p.turn.messages)
        ]
    )
    index_messages(messages)  # same transaction as the turns (SPEC §8)
    insert_rows(
        [
            IngestReceipt(
                namespace=namespace,
                receipt_id=p.turn.receipt_id,
                content_hash=p.content_hash,
                turn=turn,
            )
            for p, turn in zip(new, turns, strict=True)
        ]
    )
    return turns, messages


@dataclass
class _OpenTail:
    """A session's unsealed turns, with their messages, while the batch is planned."""

    next_sequence: int
    turns: list[Turn]
    messages: dict[int, list[Message]]  # turn pk → its messages by position


def _open_tails(sessions: list[Session]) -> dict[int, _OpenTail]:
    """Each session's open tail before the batch (a few turns at most: earlier ingests sealed
    every full run) and the sequence its next block gets; three queries for all sessions."""
    sequences = dict(
        Block.objects.filter(session__in=sessions)
        .values("session")
        .annotate(n=Count("pk"))
        .values_list("session", "n")
    )
    tails = {s.pk: _OpenTail(sequences.get(s.pk, 0) + 1, [], {}) for s in sessions}
    turns = list(
        Turn.objects.filter(session__in=sessions, block__isnull=True).order_by(
            "session_id", "session_turn"
        )
    )
    for turn in turns:
        tails[turn.session_id].turns.append(turn)
        tails[turn.session_id].messages[turn.pk] = []
    for message in Message.objects.filter(turn__in=turns).order_by("turn_id", "position"):
        tails[message.session_id].messages[message.turn_id].append(message)
    return tails


def _seal_as_they_come(
    turns: list[Turn], tails: dict[int, _OpenTail]
) -> tuple[list[Block], dict[int, int]]:
    """Seal the runs one-by-one ingest would seal, in the order it would seal them: each turn
    that fills its session's open tail to `block_turns` seals it. Returns the blocks and, per
    turn pk, the last block its arrival sealed."""
    block_turns = memory_settings_get().block_turns
    runs: list[SealRun] = []
    closers: list[int] = []
    for turn in turns:
        tail = tails[turn.session_id]
        tail.turns.append(turn)
        while len(tail.turns) >= block_turns:
            run, tail.turns = tail.turns[:block_turns], tail.turns[block_turns:]
            messages = [m for t in run for m in tail.messages.get(t.pk, [])]
            runs.append(SealRun(turn.session, tail.next_sequence, run, messages))
            closers.append(turn.pk)
            tail.next_sequence += 1
    blocks = blocks_seal(runs)
    return blocks, {closer: block.pk for closer, block in zip(closers, blocks, strict=True)}


def _items(
    planned: list[_Planned],
    receipts: dict[str, IngestReceipt],
    new: list[_Planned],
    turns: list[Turn],
    sealed_by: dict[int, int],
) -> list[BatchItem]:
    stored = {p.index: t for p, t in zip(new, turns, strict=True)}
    by_receipt = {p.turn.receipt_id: t for p, t in zip(new, turns, strict=True)}
    items: list[BatchItem] = []
    for p in planned:
        if p.index in stored:
            turn = stored[p.index]
            items.append(BatchItem(turn, duplicate=False, sealed_block_id=sealed_by.get(turn.pk)))
            continue
        earlier = by_receipt.get(p.turn.receipt_id)
        turn = earlier if earlier is not None else receipts[p.turn.receipt_id].turn
        items.append(BatchItem(turn, duplicate=True, sealed_block_id=turn.block_id))
    return items
