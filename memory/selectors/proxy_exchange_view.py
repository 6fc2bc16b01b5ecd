"""What the model saw (docs/PROXY.md, "What the model saw"): for each proxied answer on the
session page, the request as the upstream model received it — the agent's system prompt in force,
the blocks sent in place of earlier turns with their levels, the injected memory, the memory
rounds the proxy ran itself, the agent's messages of the turn and the history's tokens as sent
against native — and, from the usage audit, which proxied answer a receipt belongs to.

Everything shown is redacted here, once (SPEC §15.3). Long arguments and results are cut to a
preview; the stored rows keep them whole."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import Q

from memory.engine.redact import redact
from memory.engine.tools_mode import proxy_receipt_turn
from memory.models import Activation, Message, Namespace, ProxyExchange, Session, UsageReceipt
from memory.selectors.messages import MessageOut, message_out
from memory.selectors.out import Out

PREVIEW_CHARS = 240  # a memory call's arguments and result, as previewed on the page
EXCHANGES_MATCHED = 20  # a receipt's candidate exchanges read (a tool loop shares activations)


class SentBlockOut(Out):
    """A block the model received in place of its turns, at `level`."""

    block_id: int
    level: int
    first_turn: int
    last_turn: int
    tokens: int


class MemoryCallOut(Out):
    id: str
    name: str
    arguments: str  # compact JSON, redacted, cut to PREVIEW_CHARS
    status: str  # the tool's HTTP-like status as the proxy recorded it ("" when unknown)
    ok: bool | None
    result: str  # the tool's result, redacted, cut to PREVIEW_CHARS
    truncated: bool  # the proxy stored the result cut, or the preview cuts it


class MemoryRoundOut(Out):
    number: int  # 1-based
    calls: list[MemoryCallOut]
    prompt_tokens: int | None
    completion_tokens: int | None


class SystemPromptNote(Out):
    """The agent's system prompt in force at this turn: its place among the session's stored
    prompts (kept once per session and version), or none."""

    number: int | None  # 1-based; None: no system prompt stored up to this turn


class ModelSawOut(Out):
    exchange_id: int
    system_prompt: SystemPromptNote
    blocks: list[SentBlockOut]
    injected_text: str
    injected_tokens: int
    rounds: list[MemoryRoundOut]
    messages: list[MessageOut]  # the stored turn(s): the agent's messages and the answer
    native_tokens: int | None  # the history as the agent sent it (None: not recorded)
    sent_tokens: int | None  # … as it went upstream

    @property
    def saved_tokens(self) -> int | None:
        if self.native_tokens is None or self.sent_tokens is None:
            return None
        return self.native_tokens - self.sent_tokens

    @property
    def saved_percent(self) -> int | None:
        saved = self.saved_tokens
        if saved is None or not self.native_tokens:
            return None
        return round(100 * saved / self.native_tokens)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _preview(value: object) -> tuple[str, bool]:
    """A JSON value as redacted compact text, cut to PREVIEW_CHARS (and whether it was)."""
    if isinstance(value, str):
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    text = redact(text)
    if len(text) <= PREVIEW_CHARS:
        return text, False
    return text[: PREVIEW_CHARS - 1] + "…", True


def _call(raw: object) -> MemoryCallOut:
    call: dict[str, Any] = raw if isinstance(raw, dict) else {}
    arguments, _ = _preview(call.get("arguments", {}))
    stored = call.get("result")
    cut_before = isinstance(stored, dict) and stored.get("truncated") is True
    result, cut_now = _preview(stored if stored is not None else "")
    ok = call.get("ok")
    return MemoryCallOut.model_construct(
        id=str(call.get("id", ""))[:200],
        name=str(call.get("name", ""))[:200],
        arguments=arguments,
        status=str(call.get("status", ""))[:40],
        ok=ok if isinstance(ok, bool) else None,
        result=result,
        truncated=cut_before or cut_now,
    )


def memory_rounds_out(rounds: object) -> list[MemoryRoundOut]:
    """`ProxyExchange.memory_rounds` in the page's form; anything malformed reads as empty."""
    if not isinstance(rounds, list):
        return []
    out = []
    for number, raw in enumerate(rounds, start=1):
        entry: dict[str, Any] = raw if isinstance(raw, dict) else {}
        calls = entry.get("calls")
        out.append(
            MemoryRoundOut.model_construct(
                number=number,
                calls=[_call(c) for c in calls] if isinstance(calls, list) else [],
                prompt_tokens=_int(entry.get("prompt_tokens")),
                completion_tokens=_int(entry.get("completion_tokens")),
            )
        )
    return out


def sent_blocks_out(blocks: object) -> list[SentBlockOut]:
    """`ProxyExchange.history_blocks` in the page's form; malformed entries are skipped."""
    if not isinstance(blocks, list):
        return []
    out = []
    for raw in blocks:
        entry: dict[str, Any] = raw if isinstance(raw, dict) else {}
        values = [_int(entry.get(k)) for k in ("block_id", "level", "first_turn", "last_turn")]
        block_id, level, first, last = values
        if block_id is None or level is None or first is None or last is None:
            continue
        out.append(
            SentBlockOut.model_construct(
                block_id=block_id,
                level=level,
                first_turn=first,
                last_turn=last,
                tokens=_int(entry.get("tokens")) or 0,
            )
        )
    return out


def _turn_messages(session: Session, spans: Iterable[tuple[int, int]]) -> dict[int, list[Message]]:
    """The messages of each span of session turns [first, last], keyed by session turn, in one
    query."""
    numbers = {n for first, last in spans for n in range(first, last + 1)}
    found: dict[int, list[Message]] = defaultdict(list)
    if not numbers:
        return found
    rows = (
        Message.objects.filter(session=session, turn__session_turn__in=numbers)
        .select_related("session", "turn")
        .order_by("turn__session_turn", "position")
    )
    for message in rows:
        found[message.turn.session_turn].append(message)
    return found


class ExchangeTurn(Out):
    """What the panel needs of one proxied answer: its exchange row's fields and its turn."""

    exchange_id: int
    session_turn: int
    turns_stored: int
    injected_text: str  # redacted
    injected_tokens: int
    history_blocks: list[Any]
    history_native_tokens: int | None
    history_sent_tokens: int | None
    memory_rounds: list[Any]


def model_saw(
    session: Session,
    answers: Sequence[ExchangeTurn],
    prompt_turns: Sequence[int | None],
) -> dict[int, ModelSawOut]:
    """For each proxied answer (an exchange with its stored turn), what the model saw, by
    exchange id; one query for every answer's messages. `prompt_turns`: the session turn each
    stored system prompt was first stored with, in the order they were stored (None: not known,
    e.g. a prompt first seen on a retried turn)."""
    messages = _turn_messages(
        session,
        ((a.session_turn, a.session_turn + max(a.turns_stored, 1) - 1) for a in answers),
    )
    out: dict[int, ModelSawOut] = {}
    for answer in answers:
        in_force = [
            number
            for number, first in enumerate(prompt_turns, start=1)
            if first is not None and first <= answer.session_turn
        ]
        last = answer.session_turn + max(answer.turns_stored, 1) - 1
        out[answer.exchange_id] = ModelSawOut.model_construct(
            exchange_id=answer.exchange_id,
            system_prompt=SystemPromptNote.model_construct(
                number=in_force[-1] if in_force else None
            ),
            blocks=sent_blocks_out(answer.history_blocks),
            injected_text=answer.injected_text,
            injected_tokens=answer.injected_tokens,
            rounds=memory_rounds_out(answer.memory_rounds),
            messages=[
                message_out(m)
                for n in range(answer.session_turn, last + 1)
                for m in messages.get(n, [])
            ],
            native_tokens=answer.history_native_tokens,
            sent_tokens=answer.history_sent_tokens,
        )
    return out


# --- from the usage audit ---------------------------------------------------------------------


class ExchangeLinkOut(Out):
    """Where a proxied answer's "What the model saw" is: its session and exchange."""

    session_id: str
    exchange_id: int


def _link(row: ProxyExchange | None) -> ExchangeLinkOut | None:
    if row is None or row.session is None:
        return None
    return ExchangeLinkOut.model_construct(session_id=row.session.external_id, exchange_id=row.pk)


def receipt_exchange(
    namespace: Namespace, receipt: UsageReceipt, activations: Sequence[Activation]
) -> ExchangeLinkOut | None:
    """The proxied answer a usage receipt belongs to, when it came through the proxy: the
    exchange whose turn the proxy's evidence loop named the receipt after, else the exchange
    recorded with the receipt's id, else the one that stored its answer turn, else the
    newest proxied answer given one of the activations shown with the receipt. One query."""
    if receipt.session_id is None:
        return None
    matches = Q(receipt_id=receipt.receipt_id) if receipt.receipt_id else Q(pk__in=[])
    looped = proxy_receipt_turn(receipt.receipt_id)
    if looped is not None:  # recorded by the proxy's evidence loop: named after its turn
        matches |= Q(opener_digest__startswith=looped[0], earlier_digest__startswith=looped[1])
    if receipt.answer_turn_id is not None:
        matches |= Q(turn_id=receipt.answer_turn_id)
    shown = [a.pk for a in activations]
    if shown:
        matches |= Q(activation_id__in=shown)
    rows = list(
        ProxyExchange.objects.filter(matches, namespace=namespace, session_id=receipt.session_id)
        .exclude(turn=None)
        .select_related("session")
        .order_by("-pk")[:EXCHANGES_MATCHED]
    )
    for wanted in (
        lambda r: (
            looped is not None
            and r.opener_digest.startswith(looped[0])
            and r.earlier_digest.startswith(looped[1])
        ),
        lambda r: bool(receipt.receipt_id) and r.receipt_id == receipt.receipt_id,
        lambda r: receipt.answer_turn_id is not None and r.turn_id == receipt.answer_turn_id,
        lambda r: r.activation_id in shown,
    ):
        found = next((r for r in rows if wanted(r)), None)
        if found is not None:
            return _link(found)
    return None
