"""Store a proxied turn once its final answer has arrived: exactly once, in the session the
request was given, with the session's conversation digest moved on and the agent's system
prompt kept once per session — all in one transaction, so a client that saw the answer's last
byte finds the turn (the proxy commits before it sends that byte).

The receipt is derived from the session, the turn's place in the conversation (the digest of
its history) and its user message: an SDK retry, a resent request or a client resending the
whole history stores the turn once. A retry that got a different answer finds the first one
stored (storage is append-only) and counts as a duplicate.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.utils import timezone

from memory.errors import Conflict
from memory.models import (
    ExchangeState,
    IngestReceipt,
    ProxyExchange,
    ProxySession,
    ProxySystemPrompt,
    Session,
)
from memory.models.rows import read_models, read_rows, update_row
from memory.services.db import write_transaction
from memory.services.ingest import (
    MAX_MESSAGES,
    MAX_TURN_BYTES,
    MessageIn,
    TurnIn,
    namespace_lock,
    turn_ingest,
)
from memory.services.proxy.sessions import (
    ExchangeIn,
    exchange_open,
    new_session_id,
    proxy_session_of,
    proxy_session_touch,
    with_sessions,
)

log = logging.getLogger(__name__)

CUT_MARK = "\n[… {cut} characters left out by StrataGate: a stored turn holds at most 1 MiB …]\n"


@dataclass(frozen=True)
class CaptureIn:
    exchange: ExchangeIn
    exchange_id: int | None  # None when the request could not be recorded on its way in
    messages: list[MessageIn]  # the turn, tool results on their calls (proxy.conversation.fold)
    digest_after: str  # the conversation's digest once this turn is part of it
    system: str
    occurred_at: datetime
    upstream_status: int = 200
    model: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class Captured:
    session_id: str
    turn_ids: list[int]
    duplicate: bool


def proxy_receipt(session_id: str, earlier: str, opener: str) -> str:
    digest = hashlib.sha256(f"{session_id}\n{earlier}\n{opener}".encode()).hexdigest()
    return f"proxy-{digest[:40]}"


def _size(message: MessageIn) -> int:
    size = len(message.content.encode())
    if message.tool_calls:
        size += len(json.dumps(message.tool_calls, default=str).encode())
    return size


def _cut_text(text: str, keep: int) -> str:
    if len(text) <= keep:
        return text
    head = keep * 2 // 3
    tail = keep - head
    return text[:head] + CUT_MARK.format(cut=len(text) - keep) + text[len(text) - tail :]


def _shrunk(message: MessageIn, budget: int) -> MessageIn:
    """The message within `budget` bytes: tool results cut first (head and tail kept, the cut
    marked), then its text. L5 keeps everything else as it was sent."""
    if _size(message) <= budget:
        return message
    calls: list[dict[str, Any]] = []
    share = max(budget // (2 * max(len(message.tool_calls), 1)), 1000)
    for call in message.tool_calls:
        result = call.get("result")
        text = result if isinstance(result, str) else json.dumps(result, default=str)
        calls.append({**call, "result": _cut_text(text, share)} if len(text) > share else call)
    smaller = replace(message, tool_calls=calls)
    over = _size(smaller) - budget
    if over > 0:
        smaller = replace(smaller, content=_cut_text(smaller.content, len(smaller.content) - over))
    return smaller


def turn_parts(messages: list[MessageIn]) -> list[list[MessageIn]]:
    """The turn cut to what `turn_ingest` takes (SPEC §1.6): consecutive parts of at most
    MAX_MESSAGES messages and MAX_TURN_BYTES each, a message too large alone cut down. An
    agent's long tool loop is kept whole, as several stored turns, rather than refused."""
    budget = MAX_TURN_BYTES - 4096  # room for the JSON around tool calls
    parts: list[list[MessageIn]] = [[]]
    used = 0
    for message in messages:
        message = _shrunk(message, budget)
        size = _size(message)
        if parts[-1] and (len(parts[-1]) >= MAX_MESSAGES or used + size > budget):
            parts.append([])
            used = 0
        parts[-1].append(message)
        used += size
    return parts


def _new_session(data: ExchangeIn) -> tuple[Session, ProxySession]:
    session = Session.objects.create(namespace=data.namespace, external_id=new_session_id())
    return session, proxy_session_touch(session, data, named=False)


def _session_for(exchange: ProxyExchange, data: ExchangeIn) -> tuple[Session, ProxySession]:
    """The exchange's session, unless another conversation with the same history moved it on
    meanwhile (possible only once a claim has lapsed): then the turn begins a session of its
    own. A session that already holds this turn (a retry) is the right one."""
    session = exchange.session
    if session is None:
        return _new_session(data)
    proxy = proxy_session_of(session.pk)
    if proxy is None:
        return session, proxy_session_touch(session, data, named=data.named_session is not None)
    receipt = proxy_receipt(session.external_id, data.key.earlier, data.key.opener)
    if (
        proxy.named
        or proxy.digest in data.key.history
        or read_rows(
            f"SELECT 1 FROM {_RECEIPTS} WHERE namespace_id = %s AND receipt_id = %s",
            [data.namespace.pk, receipt],
        )
    ):
        return session, proxy
    log.info("proxy: session %s moved on meanwhile; the turn begins a new session", session)
    return _new_session(data)


def _store(session: Session, receipt: str, capture: CaptureIn) -> tuple[list[int], bool]:
    turn_ids: list[int] = []
    for index, part in enumerate(turn_parts(capture.messages), start=1):
        turn = TurnIn(
            session_id=session.external_id,
            receipt_id=receipt if index == 1 else f"{receipt}#{index}",
            messages=part,
            occurred_at=capture.occurred_at,
        )
        try:
            result = turn_ingest(namespace=capture.exchange.namespace, turn=turn)
        except Conflict:
            return [], True  # stored before, with another answer: the first one stays
        if result.duplicate:
            return [result.turn.pk], True
        turn_ids.append(result.turn.pk)
    return turn_ids, False


def _keep_system_prompt(session: Session, text: str, turn_id: int | None) -> None:
    if not text.strip():
        return
    digest = hashlib.sha256(text.encode()).hexdigest()
    kept = f"SELECT 1 FROM {_PROMPTS} WHERE session_id = %s AND digest = %s"
    if not read_rows(kept, [session.pk, digest]):  # once per session and prompt
        ProxySystemPrompt.objects.get_or_create(
            session=session, digest=digest, defaults={"text": text, "first_turn_id": turn_id}
        )


# The capture's reads and writes besides the ingest are plain SQL too: it runs before the last
# byte of every proxied answer (memory.services.proxy.sessions).
_RECEIPTS, _PROMPTS = IngestReceipt._meta.db_table, ProxySystemPrompt._meta.db_table


def proxy_turn_capture(capture: CaptureIn) -> Captured:
    """Store the turn (see the module's docstring). Raises what the database raises: the
    caller keeps the turn and retries."""
    data = capture.exchange
    with write_transaction():
        namespace_lock(data.namespace.pk)
        if capture.exchange_id is not None:
            rows = read_models(ProxyExchange, "x", "WHERE x.id = %s", [capture.exchange_id])
            if not rows:
                raise ProxyExchange.DoesNotExist(f"exchange {capture.exchange_id}")
            (exchange,) = with_sessions(rows)
        else:
            exchange = exchange_open(data).exchange
        session, proxy = _session_for(exchange, data)
        receipt = proxy_receipt(session.external_id, data.key.earlier, data.key.opener)
        turn_ids, duplicate = _store(session, receipt, capture)
        now = timezone.now()
        if not duplicate:
            update_row(
                ProxySession,
                proxy.pk,
                digest=capture.digest_after,
                captured_turns=proxy.captured_turns + len(turn_ids),
                last_request_at=now,
            )
        _keep_system_prompt(session, capture.system, turn_ids[0] if turn_ids else None)
        update_row(
            ProxyExchange,
            exchange.pk,
            session_id=session.pk,
            state=ExchangeState.DUPLICATE if duplicate else ExchangeState.CAPTURED,
            receipt_id=receipt,
            turn_id=turn_ids[0] if turn_ids else None,
            digest_after="" if duplicate else capture.digest_after,
            turns_stored=0 if duplicate else len(turn_ids),
            upstream_status=capture.upstream_status,
            model=(capture.model or exchange.model)[:200],
            prompt_tokens=capture.prompt_tokens,
            completion_tokens=capture.completion_tokens,
            finished_at=now,
        )
    return Captured(session_id=session.external_id, turn_ids=turn_ids, duplicate=duplicate)
