"""Turns whose capture failed after the answer was sent (the database was away): kept on disk
under the data directory and retried by the web processes until they are stored, so a lost turn
is never silent. The health page counts what waits here and what could never be stored.

Each turn is one JSON file (mode 0600: it holds a conversation), written whole under a temporary
name and renamed into place. A process takes a file by renaming it to its own name, so two web
processes never retry the same turn at once; a file left taken by a process that died is taken
back after STALE_SECONDS.
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

from django.db import DatabaseError, close_old_connections

from memory.models import Namespace
from memory.selectors.proxy import spool_dir
from memory.services.ingest import MessageIn
from memory.services.proxy.capture import CaptureIn, proxy_turn_capture
from memory.services.proxy.sessions import ExchangeIn, TurnKey
from proxy import stats

log = logging.getLogger(__name__)

RETRY_SECONDS = 10.0
STALE_SECONDS = 600.0
BATCH = 50


def lost_dir() -> Path:
    return spool_dir() / "lost"


def _encode(capture: CaptureIn, error: str) -> dict[str, Any]:
    data = capture.exchange
    return {
        "namespace_id": data.namespace.pk,
        "protocol": data.protocol,
        "model": data.model,
        "stream": data.stream,
        "key": {
            "history": list(data.key.history),
            "openers": list(data.key.openers),
            "opener": data.key.opener,
        },
        "named_session": data.named_session,
        "exchange_id": capture.exchange_id,
        "messages": [asdict(m) | {"created_at": None} for m in capture.messages],
        "digest_after": capture.digest_after,
        "system": capture.system,
        "occurred_at": capture.occurred_at.isoformat(),
        "upstream_status": capture.upstream_status,
        "reply_model": capture.model,
        "prompt_tokens": capture.prompt_tokens,
        "completion_tokens": capture.completion_tokens,
        "attempts": 1,
        "error": error[:2000],
    }


def _decode(item: dict[str, Any]) -> CaptureIn:
    namespace = Namespace.objects.get(pk=item["namespace_id"])
    key = item["key"]
    return CaptureIn(
        exchange=ExchangeIn(
            namespace=namespace,
            protocol=item["protocol"],
            model=item["model"],
            stream=item["stream"],
            key=TurnKey(
                history=tuple(key["history"]), openers=tuple(key["openers"]), opener=key["opener"]
            ),
            named_session=item["named_session"],
            capture=True,
        ),
        exchange_id=item["exchange_id"],
        messages=[
            MessageIn(
                role=m["role"], content=m["content"], name=m["name"], tool_calls=m["tool_calls"]
            )
            for m in item["messages"]
        ],
        digest_after=item["digest_after"],
        system=item["system"],
        occurred_at=datetime.fromisoformat(item["occurred_at"]),
        upstream_status=item["upstream_status"],
        model=item["reply_model"],
        prompt_tokens=item["prompt_tokens"],
        completion_tokens=item["completion_tokens"],
    )


def _write(path: Path, item: dict[str, Any]) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(item, handle, ensure_ascii=False)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def spool_put(capture: CaptureIn, error: str) -> Path:
    """Keep a turn that could not be stored; returns its file."""
    path = spool_dir() / f"{time.time_ns()}-{uuid.uuid4().hex[:8]}.json"
    _write(path, _encode(capture, error))
    stats.STATS.add(capture.exchange.namespace.pk, stats.CAPTURE_FAILED)
    log.warning("proxy: a turn could not be stored (%s); kept in %s for a retry", error, path)
    return path


def _take(path: Path) -> Path | None:
    taken = path.with_name(f"{path.name}.taken-{os.getpid()}")
    try:
        os.rename(path, taken)
    except FileNotFoundError:
        return None  # another process took it
    return taken


def _reclaim_stale() -> None:
    now = time.time()
    for path in spool_dir().glob("*.json.taken-*"):
        try:
            if now - path.stat().st_mtime > STALE_SECONDS:
                os.rename(path, path.with_name(path.name.split(".taken-", 1)[0]))
        except FileNotFoundError:
            continue


def spool_retry() -> tuple[int, int]:
    """Try to store every waiting turn once (synchronous; run on a worker thread). Returns
    (stored, still waiting). A turn the database refuses for good (not a connection or lock
    problem) moves to `lost/`, counted and logged."""
    folder = spool_dir()
    if not folder.is_dir():
        return 0, 0
    _reclaim_stale()
    close_old_connections()
    stored = waiting = 0
    for path in sorted(folder.glob("*.json"))[:BATCH]:
        taken = _take(path)
        if taken is None:
            continue
        item = json.loads(taken.read_text(encoding="utf-8"))
        try:
            proxy_turn_capture(_decode(item))
        except DatabaseError as exc:
            item["attempts"] += 1
            item["error"] = repr(exc)[:2000]
            _write(path, item)
            taken.unlink(missing_ok=True)
            waiting += 1
            close_old_connections()
            continue
        except Exception as exc:
            item["error"] = repr(exc)[:2000]
            _write(lost_dir() / path.name, item)
            taken.unlink(missing_ok=True)
            stats.STATS.add(item["namespace_id"], stats.CAPTURE_LOST)
            log.error("proxy: a spooled turn cannot be stored and is kept in lost/: %r", exc)
            continue
        taken.unlink(missing_ok=True)
        stats.STATS.add(item["namespace_id"], stats.CAPTURE_RETRIED)
        stored += 1
    return stored, waiting
