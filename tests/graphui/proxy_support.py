"""Model-proxy rows for UI tests, written directly (the proxy's own tests drive the real flow):
a proxied session with its system prompts and exchanges, traffic counters, and spool files."""

from __future__ import annotations

import json
import os
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from memory.models import (
    Namespace,
    ProxyCounter,
    ProxyExchange,
    ProxySession,
    ProxySystemPrompt,
    Session,
    Turn,
)


def proxied_session_create(
    namespace: Namespace,
    session_id: str,
    *,
    system: tuple[str, ...] = ("You are a careful assistant.",),
    exchanges: tuple[dict[str, Any], ...] = (),
    protocol: str = "openai",
) -> Session:
    """Mark an existing session as proxied, with these system prompts (the first stored with
    the session's first turn) and exchanges (fields of ProxyExchange; `turn` is a session turn
    number, looked up)."""
    session = Session.objects.get(namespace=namespace, external_id=session_id)
    turns = {t.session_turn: t for t in Turn.objects.filter(session=session)}
    ProxySession.objects.create(
        session=session,
        namespace=namespace,
        protocol=protocol,
        named=True,
        base_digest="0" * 64,
        digest="1" * 64,
        captured_turns=len(turns),
        last_request_at=timezone.now(),
    )
    for n, text in enumerate(system):
        ProxySystemPrompt.objects.create(
            session=session, digest=f"{n:064d}", text=text, first_turn=turns.get(1 + n)
        )
    for n, fields in enumerate(exchanges):
        values = {
            "protocol": protocol,
            "model": "gpt-4o-mini",
            "earlier_digest": f"{n:064d}",
            "state": "captured",
            **fields,
        }
        number = values.pop("turn", None)
        ProxyExchange.objects.create(
            namespace=namespace,
            session=session,
            turn=turns[number] if number is not None else None,
            **values,
        )
    return session


def counters_add(namespace: Namespace, counts: dict[str, int], *, days_ago: int = 0) -> None:
    day = timezone.now().date() - timedelta(days=days_ago)
    for name, count in counts.items():
        ProxyCounter.objects.create(namespace=namespace, day=day, name=name, count=count)


def spool_write(namespace: Namespace, name: str, *, lost: bool = False, age: float = 0) -> Path:
    """A turn waiting in the proxy's spool (or kept in lost/), as proxy.spool writes it."""
    folder = Path(settings.DATA_DIR) / "proxy-spool"
    if lost:
        folder = folder / "lost"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"namespace_id": namespace.pk, "messages": []}), encoding="utf-8")
    if age:
        then = time.time() - age
        os.utime(path, (then, then))
    return path
