"""Live updates for the Memory UI: services announce what changed in a namespace, and the
announcement leaves only after their transaction commits (`transaction.on_commit`), so a page
never shows what a rollback undid. Workers and web processes publish alike; with `REDIS_URL`
the channel layer reaches every process, without it only pages served by the publishing process
hear it (the UI says so).

Payloads are small, JSON-plain dicts (ids, counts, states — never memory text): a page that
hears one re-reads what it shows through its own view, with the viewer's permissions. A broken
channel layer never fails the write that published.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Final

from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer, get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)

MESSAGE_TYPE: Final = "memory.update"  # handled by NamespaceConsumer.memory_update
KINDS: Final = (
    "turn.created",
    "block.ready",
    "block.failed",
    "block.changed",  # a block was expanded: it shows another level now
    "job.changed",
    "import.progress",
    "event.changed",
)


def namespace_group(namespace_id: int) -> str:
    """The channel group of one namespace (group names allow only [A-Za-z0-9._-])."""
    return f"ns.{namespace_id}"


def publish(namespace_id: int, kind: str, **data: Any) -> None:
    """Announce `kind` in the namespace once the current transaction commits (at once when
    there is none). Raises ValueError for unknown kinds or non-JSON data: a bad payload fails
    where it is made, in tests, not in a browser."""
    if kind not in KINDS:
        raise ValueError(f"unknown live update kind {kind!r}")
    payload = json.loads(json.dumps({"kind": kind, **data}, allow_nan=False))
    transaction.on_commit(lambda: _send(namespace_id, payload))


def _send(namespace_id: int, payload: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    group = namespace_group(namespace_id)
    if isinstance(layer, InMemoryChannelLayer) and not layer.groups.get(group):
        # No page of this process listens (a db_worker's always): sending would do nothing,
        # after async_to_sync started a thread and an event loop for it (~1 ms, eight times
        # per processed block).
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": MESSAGE_TYPE, "payload": payload})
    except Exception:  # the write already committed; a page may simply miss one update
        log.exception("could not publish %s to namespace %s", payload.get("kind"), namespace_id)
