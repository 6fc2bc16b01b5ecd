"""Reads about the model proxy: a namespace's traffic (health), what each proxied answer was
given (the session page), the agent's system prompts, the model its requests used last (memory
processing with the proxy's upstream), and turns waiting in the capture spool."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import Sum
from django.utils import timezone

from memory.engine.redact import redact
from memory.models import (
    ExchangeState,
    Namespace,
    ProxyCounter,
    ProxyExchange,
    ProxySession,
    ProxySystemPrompt,
    Session,
)
from memory.selectors.out import Out

TRAFFIC_DAYS = 7
EXCHANGES_SHOWN = 200
# Exchanges whose model is a model the upstream really answered with.
ANSWERED = (ExchangeState.CAPTURED, ExchangeState.DUPLICATE, ExchangeState.TOOL_STEP)


def spool_dir() -> Path:
    """Where the proxy keeps turns it could not store yet (proxy.spool writes there)."""
    return Path(settings.DATA_DIR) / "proxy-spool"


class SpoolOut(Out):
    waiting: int  # turns to be retried
    oldest: datetime | None
    lost: int  # turns the database refused for good (kept in proxy-spool/lost/)


class TrafficOut(Out):
    days: int
    requests: int
    memory_off: int
    injected: int
    injected_tokens: int
    captured: int
    duplicates: int
    tool_steps: int
    stream_cut: int
    client_disconnected: int
    capture_failed: int
    capture_retried: int
    capture_lost: int
    # Layered history (docs/PROXY.md): requests that sent blocks, and the history's estimated
    # tokens of every prepared request as the agent sent it and as it went upstream.
    history_layered: int
    history_native_tokens: int
    history_sent_tokens: int
    degraded: dict[str, int]  # reason → requests
    upstream_errors: dict[str, int]  # HTTP status → requests
    sessions: int  # sessions that came through the proxy (all time)
    last_request_at: datetime | None
    spool: SpoolOut

    @property
    def history_saved_tokens(self) -> int:
        return max(0, self.history_native_tokens - self.history_sent_tokens)

    @property
    def history_saved_percent(self) -> int:
        native = self.history_native_tokens
        return round(100 * self.history_saved_tokens / native) if native else 0

    @property
    def degraded_total(self) -> int:
        return sum(self.degraded.values())

    @property
    def upstream_errors_total(self) -> int:
        return sum(self.upstream_errors.values())

    @property
    def lost(self) -> int:
        """Turns that will never be stored. A lost turn is both a file in lost/ and a
        `capture_lost` count, so the two are never added: the larger one (files may have been
        cleared since, and counts older than `days` are not read)."""
        return max(self.spool.lost, self.capture_lost)

    @property
    def quiet(self) -> bool:
        """Nothing to show: no request in the period, no proxied session, nothing spooled."""
        return not (self.requests or self.sessions or self.spool.waiting or self.lost)


def _spool_for(namespace_id: int) -> SpoolOut:
    folder = spool_dir()
    waiting: list[float] = []
    lost = 0
    if folder.is_dir():
        for path in folder.glob("*.json*"):
            if _spooled_namespace(path) == namespace_id:
                waiting.append(path.stat().st_mtime)
        for path in (folder / "lost").glob("*.json"):
            lost += _spooled_namespace(path) == namespace_id
    oldest = min(waiting, default=None)
    return SpoolOut.model_construct(
        waiting=len(waiting),
        oldest=datetime.fromtimestamp(oldest, tz=UTC) if oldest else None,
        lost=lost,
    )


def _spooled_namespace(path: Path) -> int | None:
    try:
        return int(json.loads(path.read_text(encoding="utf-8"))["namespace_id"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


COUNTED = (
    "requests",
    "memory_off",
    "injected",
    "injected_tokens",
    "captured",
    "duplicates",
    "tool_steps",
    "stream_cut",
    "client_disconnected",
    "capture_failed",
    "capture_retried",
    "capture_lost",
    "history_layered",
    "history_native_tokens",
    "history_sent_tokens",
)


def proxy_traffic(namespace: Namespace, days: int = TRAFFIC_DAYS) -> TrafficOut:
    """The namespace's proxy traffic over the last `days` days (today included)."""
    since = timezone.now().date() - timedelta(days=days - 1)
    counts = dict(
        ProxyCounter.objects.filter(namespace=namespace, day__gte=since)
        .values("name")
        .annotate(n=Sum("count"))
        .values_list("name", "n")
    )

    def by(prefix: str) -> dict[str, int]:
        found = {k.split(":", 1)[1]: int(v) for k, v in counts.items() if k.startswith(prefix)}
        return dict(sorted(found.items(), key=lambda item: -item[1]))

    last = ProxySession.objects.filter(namespace=namespace).order_by("-last_request_at").first()
    fields: dict[str, Any] = {name: int(counts.get(name, 0)) for name in COUNTED}
    return TrafficOut.model_construct(
        days=days,
        degraded=by("degraded:"),
        upstream_errors=by("upstream_error:"),
        sessions=ProxySession.objects.filter(namespace=namespace).count(),
        last_request_at=last.last_request_at if last else None,
        spool=_spool_for(namespace.pk),
        **fields,
    )


class ExchangeOut(Out):
    """One proxied request as the session page shows it: what memory it was given."""

    id: int
    created_at: datetime
    protocol: str
    model: str
    stream: bool
    state: str
    degraded_reason: str
    injected_text: str
    injected_tokens: int
    injected_refs: list[str]
    upstream_status: int | None
    prompt_tokens: int | None
    completion_tokens: int | None
    turn_id: int | None
    turns_stored: int
    # What the model saw besides the injected memory (docs/PROXY.md, "What the model saw").
    history_blocks: list[Any]
    history_native_tokens: int | None
    history_sent_tokens: int | None
    memory_rounds: list[Any]


class SystemPromptOut(Out):
    text: str
    first_turn_id: int | None
    created_at: datetime


class SessionProxyOut(Out):
    named: bool  # the agent named the session (X-StrataGate-Session)
    protocol: str
    created_at: datetime
    last_request_at: datetime
    captured_turns: int
    system_prompts: list[SystemPromptOut]
    exchanges: list[ExchangeOut]  # newest EXCHANGES_SHOWN, oldest first


def session_proxy(session: Session) -> SessionProxyOut | None:
    """How the session came through the proxy, or None when it did not."""
    proxy = ProxySession.objects.filter(session=session).first()
    if proxy is None:
        return None
    rows = list(ProxyExchange.objects.filter(session=session).order_by("-id")[:EXCHANGES_SHOWN])
    return SessionProxyOut.model_construct(
        named=proxy.named,
        protocol=proxy.protocol,
        created_at=proxy.created_at,
        last_request_at=proxy.last_request_at,
        captured_turns=proxy.captured_turns,
        system_prompts=[
            SystemPromptOut.model_construct(
                text=redact(p.text), first_turn_id=p.first_turn_id, created_at=p.created_at
            )
            for p in ProxySystemPrompt.objects.filter(session=session).order_by("id")
        ],
        exchanges=[
            ExchangeOut.model_construct(
                id=e.pk,
                created_at=e.created_at,
                protocol=e.protocol,
                model=e.model,
                stream=e.stream,
                state=e.state,
                degraded_reason=e.degraded_reason,
                injected_text=redact(e.injected_text),
                injected_tokens=e.injected_tokens,
                injected_refs=list(e.injected_refs),
                upstream_status=e.upstream_status,
                prompt_tokens=e.prompt_tokens,
                completion_tokens=e.completion_tokens,
                turn_id=e.turn_id,
                turns_stored=e.turns_stored,
                history_blocks=list(e.history_blocks or []),
                history_native_tokens=e.history_native_tokens,
                history_sent_tokens=e.history_sent_tokens,
                memory_rounds=list(e.memory_rounds or []),
            )
            for e in reversed(rows)
        ],
    )


def latest_proxied_model(namespace_id: int) -> tuple[str, str] | None:
    """(protocol, model) of the namespace's latest proxied request the upstream answered."""
    row = (
        ProxyExchange.objects.filter(namespace_id=namespace_id, state__in=ANSWERED)
        .exclude(model="")
        .order_by("-id")
        .values_list("protocol", "model")
        .first()
    )
    return (row[0], row[1]) if row else None
