"""A proxied request's memory: the activated memory built for it (SPEC §8.7, the same service as
`GET /ns/{ns}/context`), recorded as an Activation once it was really injected together with the
blocks sent in place of earlier turns (docs/PROXY.md, "What the model saw"), and how the
exchange ended when no turn was stored."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, TypedDict

from django.utils import timezone

from memory.models import ExchangeState, Namespace, ProxyExchange, Session
from memory.services.activation import Activated, activation_build, activation_record
from memory.services.db import write_transaction
from memory.services.proxy.sessions import Found, Opened


@dataclass(frozen=True)
class Injection:
    text: str
    tokens: int
    refs: list[str]
    activated: Activated | None  # None when reused from an earlier request of the same turn
    activation_id: int | None = None


class SentBlock(TypedDict):
    """A block sent in place of earlier turns, as `ProxyExchange.history_blocks` keeps it."""

    block_id: int
    level: int
    first_turn: int
    last_turn: int
    tokens: int  # its message as sent (label included)


@dataclass(frozen=True)
class HistorySent:
    """The history a layered request sent: its blocks, oldest first, and the request's system
    prompt and messages as sent upstream and as the agent sent them (token estimates)."""

    blocks: list[SentBlock]
    sent_tokens: int
    native_tokens: int


def injection_build(
    namespace: Namespace, found: Found | Opened, query: str, pool: Executor | None = None
) -> Injection:
    """The memory to inject for the request's session (`found`, a new one when None). A later
    request of the same turn (a tool loop's next step, a retry) gets exactly what the first
    one got: same text, same activation. `pool`: threads the activation may spread its
    searches over (`activation_build`)."""
    earlier = found.earlier
    if (
        earlier is not None
        and earlier.injected_text
        and found.session is not None
        and earlier.session_id == found.session.pk
    ):
        return Injection(
            text=earlier.injected_text,
            tokens=earlier.injected_tokens,
            refs=list(earlier.injected_refs),
            activated=None,
            activation_id=earlier.activation_id,
        )
    activated = activation_build(
        namespace=namespace, session=found.session, query=query, record=False, pool=pool
    )
    return Injection(
        text=activated.text, tokens=activated.tokens, refs=activated.refs, activated=activated
    )


def injection_record(
    namespace: Namespace,
    session: Session | None,
    exchange_id: int,
    injection: Injection | None,
    history: HistorySent | None = None,
) -> int | None:
    """Record what the model was sent besides the agent's messages, in one write: what was
    injected (the Activation — the event pages' "injected" count and the usage audit — and the
    exchange's copy of the text) and the blocks that stood for earlier turns with the history's
    token figures (the session page's "What the model saw")."""
    changes: dict[str, object] = {}
    if history is not None:
        changes |= {
            "history_blocks": history.blocks,
            "history_sent_tokens": history.sent_tokens,
            "history_native_tokens": history.native_tokens,
        }
    with write_transaction():
        activation_id = None
        if injection is not None:
            activation_id = injection.activation_id
            if injection.activated is not None:
                activation_id = activation_record(namespace, session, injection.activated)
            changes |= {
                "injected_text": injection.text,
                "injected_tokens": injection.tokens,
                "injected_refs": injection.refs,
                "activation_id": activation_id,
            }
        if changes:
            ProxyExchange.objects.filter(pk=exchange_id).update(**changes)
    return activation_id


def exchange_rounds_record(exchange_id: int, rounds: list[dict[str, Any]]) -> None:
    """The memory rounds the proxy ran for this exchange (docs/PROXY.md, "The evidence loop in
    the proxy"): shown with its turn, never stored as conversation messages."""
    ProxyExchange.objects.filter(pk=exchange_id).update(memory_rounds=rounds)


def exchange_degraded(exchange_id: int, reason: str) -> None:
    ProxyExchange.objects.filter(pk=exchange_id).update(degraded_reason=reason[:40])


def exchange_finish(
    exchange_id: int,
    state: str,
    *,
    upstream_status: int | None = None,
    model: str = "",
    prompt_tokens: int | None = None,
    completion_tokens: int | None = None,
) -> None:
    """How an exchange ended when it stored no turn (a tool step, an upstream error, a cut
    stream, capture off). Only an open exchange changes: one whose turn was stored meanwhile
    (a client that left while its turn was being stored) keeps saying so."""
    if state not in ExchangeState.values:
        raise ValueError(f"unknown exchange state {state!r}")
    changes: dict[str, object] = {
        "state": state,
        "upstream_status": upstream_status,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "finished_at": timezone.now(),
    }
    if model:
        changes["model"] = model[:200]
    ProxyExchange.objects.filter(pk=exchange_id, state=ExchangeState.OPEN).update(**changes)
