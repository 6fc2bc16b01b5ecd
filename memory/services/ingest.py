"""Ingest one completed turn: idempotent on receipt_id, source committed before any derivation."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection
from django.utils import timezone

from memory.errors import Conflict, Invalid
from memory.models import Block, IngestReceipt, Message, MessageRole, Namespace, Session, Turn
from memory.models.rows import insert_rows, read_models
from memory.search import index_messages
from memory.selectors.settings import memory_settings_get
from memory.services.db import write_transaction
from memory.services.live import publish
from memory.services.sealing import block_seal_ready_runs

MAX_TURN_BYTES = 1024 * 1024
MAX_MESSAGES = 500
# StrataGate's own tools: recalled memory must never be re-ingested as new evidence (SPEC §1.5).
OWN_TOOL_PREFIX = "memory_"


@dataclass(frozen=True)
class MessageIn:
    role: str
    content: str
    name: str = ""
    created_at: datetime | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class TurnIn:
    session_id: str
    receipt_id: str
    messages: list[MessageIn]
    occurred_at: datetime | None = None


@dataclass(frozen=True)
class IngestResult:
    turn: Turn
    duplicate: bool
    sealed_blocks: list[Block]


def turn_content_hash(turn: TurnIn) -> str:
    canonical = {
        "session_id": turn.session_id,
        "occurred_at": turn.occurred_at.isoformat() if turn.occurred_at else None,
        "messages": [
            {
                "role": m.role,
                "content": m.content,
                "name": m.name,
                "created_at": m.created_at.isoformat() if m.created_at else None,
                "tool_calls": m.tool_calls,
            }
            for m in turn.messages
        ],
    }
    encoded = json.dumps(canonical, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()


def turn_validate(turn: TurnIn) -> None:
    """Raise `Invalid` (422) for a turn SPEC §1.6 refuses; nothing is read or written."""
    if not turn.session_id or len(turn.session_id) > 200:
        raise Invalid("session_id must be 1–200 characters", code="invalid_session_id")
    if not turn.receipt_id or len(turn.receipt_id) > 200:
        raise Invalid("receipt_id must be 1–200 characters", code="invalid_receipt_id")
    if not turn.messages:
        raise Invalid("a turn needs at least one message", code="empty_turn")
    if len(turn.messages) > MAX_MESSAGES:
        raise Invalid(
            f"a turn holds at most {MAX_MESSAGES} messages",
            code="too_many_messages",
            details={"messages": len(turn.messages), "limit": MAX_MESSAGES},
        )
    size = 0
    for index, message in enumerate(turn.messages):
        if message.role not in MessageRole.values:
            raise Invalid(
                f"message {index} has unknown role {message.role!r}",
                code="unknown_role",
                details={"index": index, "allowed": list(MessageRole.values)},
            )
        if message.role == MessageRole.USER and not message.content.strip():
            raise Invalid(
                f"message {index} is an empty user message",
                code="empty_user_message",
                details={"index": index},
            )
        size += len(message.content.encode())
        if message.tool_calls:
            size += len(json.dumps(message.tool_calls, default=str).encode())
    if size > MAX_TURN_BYTES:
        raise Invalid(
            "a turn holds at most 1 MiB of text",
            code="turn_too_large",
            details={"bytes": size, "limit": MAX_TURN_BYTES},
        )


def _without_own_tools(messages: list[MessageIn]) -> list[MessageIn]:
    kept: list[MessageIn] = []
    for message in messages:
        if message.role == MessageRole.TOOL and message.name.startswith(OWN_TOOL_PREFIX):
            continue
        calls = [
            call
            for call in message.tool_calls
            if not str(call.get("name", "")).startswith(OWN_TOOL_PREFIX)
        ]
        only_own_calls = bool(message.tool_calls) and not calls
        if message.role == MessageRole.ASSISTANT and not message.content.strip() and only_own_calls:
            continue
        kept.append(
            MessageIn(
                role=message.role,
                content=message.content,
                name=message.name,
                created_at=message.created_at,
                tool_calls=calls,
            )
        )
    return kept


def message_rows(*, turn: Turn, messages: list[MessageIn]) -> list[Message]:
    """The Message rows of a stored turn (not saved): StrataGate's own tool traffic dropped,
    positions counted after that, timestamps defaulting to the turn's."""
    return [
        Message(
            namespace_id=turn.namespace_id,
            session=turn.session,
            turn=turn,
            position=position,
            role=message.role,
            name=message.name[:200],
            content=message.content,
            tool_calls=message.tool_calls,
            created_at=message.created_at or turn.occurred_at,
        )
        for position, message in enumerate(_without_own_tools(messages))
    ]


# Looked up twice per ingest (before the transaction and under the lock): plain SQL, so the
# common case (a new receipt) costs one indexed read and no query compilation.
_RECEIPT_SQL = (
    f"SELECT content_hash, turn_id FROM {IngestReceipt._meta.db_table} "
    "WHERE namespace_id = %s AND receipt_id = %s"
)


# The rest of an ingest's reads and counter updates, also plain SQL (one turn = one statement
# each). The counters are advanced in SQL, under the namespace lock, and read back.
_NAMESPACE_TURN_SQL = (
    f"UPDATE {Namespace._meta.db_table} SET current_turn = current_turn + 1, "
    "last_activity_at = %s WHERE id = %s RETURNING current_turn"
)
_SESSION_TURN_SQL = (
    f"UPDATE {Session._meta.db_table} SET turn_count = turn_count + 1, "
    "last_activity_at = %s WHERE id = %s RETURNING turn_count"
)


def namespace_lock(namespace_id: int) -> None:
    """Writers of one namespace queue here until the transaction ends: PostgreSQL locks the row
    (as `select_for_update(no_key=True)`); on SQLite the write transaction already holds the
    database's one write lock."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM {Namespace._meta.db_table} WHERE id = %s FOR NO KEY UPDATE",
                [namespace_id],
            )


def _session(namespace_id: int, external_id: str) -> Session:
    """The namespace's session of that id, created on its first turn."""
    for session in read_models(
        Session,
        "s",
        "WHERE s.namespace_id = %s AND s.external_id = %s",
        [namespace_id, external_id],
    ):
        return session
    session, _ = Session.objects.get_or_create(namespace_id=namespace_id, external_id=external_id)
    return session


def _existing(namespace_id: int, receipt_id: str, content_hash: str) -> IngestResult | None:
    with connection.cursor() as cursor:
        cursor.execute(_RECEIPT_SQL, [namespace_id, receipt_id])
        row = cursor.fetchone()
    if row is None:
        return None
    stored_hash, turn_id = row
    if stored_hash != content_hash:
        raise Conflict(
            "receipt_id was already used for a turn with different content",
            code="receipt_conflict",
            details={"receipt_id": receipt_id, "turn_id": turn_id},
        )
    return IngestResult(turn=Turn.objects.get(pk=turn_id), duplicate=True, sealed_blocks=[])


def turn_ingest(*, namespace: Namespace, turn: TurnIn) -> IngestResult:
    """Store the turn verbatim and seal full blocks in the same transaction.

    Idempotent on (namespace, receipt_id), also under concurrent duplicates: the namespace row
    lock serialises writers and the unique constraint backs it up.
    """
    turn_validate(turn)
    content_hash = turn_content_hash(turn)
    found = _existing(namespace.pk, turn.receipt_id, content_hash)
    if found is not None:
        return found
    try:
        with write_transaction():
            return _store(namespace.pk, turn, content_hash)
    except IntegrityError:
        found = _existing(namespace.pk, turn.receipt_id, content_hash)
        if found is None:
            raise
        return found


def _store(namespace_id: int, turn: TurnIn, content_hash: str) -> IngestResult:
    namespace_lock(namespace_id)
    found = _existing(namespace_id, turn.receipt_id, content_hash)
    if found is not None:
        return found
    now = timezone.now()
    occurred_at = turn.occurred_at or now
    session = _session(namespace_id, turn.session_id)
    at = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        cursor.execute(_NAMESPACE_TURN_SQL, [at, namespace_id])
        (namespace_turn,) = cursor.fetchone()
        cursor.execute(_SESSION_TURN_SQL, [at, session.pk])
        (session.turn_count,) = cursor.fetchone()
    session.last_activity_at = now
    (stored,) = insert_rows(
        [
            Turn(
                namespace_id=namespace_id,
                session=session,
                session_turn=session.turn_count,
                namespace_turn=namespace_turn,
                occurred_at=occurred_at,
            )
        ]
    )
    messages = insert_rows(message_rows(turn=stored, messages=turn.messages))
    index_messages(messages)  # same transaction as the turn (SPEC §8)
    insert_rows(
        [
            IngestReceipt(
                namespace_id=namespace_id,
                receipt_id=turn.receipt_id,
                content_hash=content_hash,
                turn=stored,
            )
        ]
    )
    sealed = block_seal_ready_runs(session=session, block_turns=memory_settings_get().block_turns)
    publish(
        namespace_id,
        "turn.created",
        session_id=session.external_id,
        session_turn=stored.session_turn,
        namespace_turn=stored.namespace_turn,
        sealed_block_ids=[b.pk for b in sealed],
    )
    return IngestResult(turn=stored, duplicate=False, sealed_blocks=sealed)
