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

import asyncio
import json
import logging
import threading
from collections.abc import Coroutine
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
# How long a send may take before the publisher gives up on it (a layer that cannot reach
# Redis): the write it announces has committed, so the page only misses this update.
SEND_TIMEOUT_SECONDS: Final = 5.0


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
    message = {"type": MESSAGE_TYPE, "payload": payload}
    try:
        if isinstance(layer, InMemoryChannelLayer):
            # Its queues belong to the loop its pages wait on: the ASGI server's, which
            # async_to_sync reaches from a request's thread.
            async_to_sync(layer.group_send)(group, message)
        else:
            layer_run(layer.group_send(group, message))
    except Exception:  # the write already committed; a page may simply miss one update
        log.exception("could not publish %s to namespace %s", payload.get("kind"), namespace_id)


class _Publisher:
    """One event loop on a daemon thread for all of a process's sends to a layer that keeps
    connections (channels_redis). Through `async_to_sync`, a thread with no loop of its own (a
    db_worker's, a management command's) got a new loop per send, and channels_redis a new
    connection for it: 4.0 ms a send, eight sends per processed block. Here the loop and its
    connection live as long as the process; each send is waited for, so sends from one thread
    keep their order and a failure is reported to the caller."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()

    def run(self, coroutine: Coroutine[Any, Any, None]) -> None:
        future = asyncio.run_coroutine_threadsafe(coroutine, self._running_loop())
        try:
            future.result(timeout=SEND_TIMEOUT_SECONDS)
        except TimeoutError:
            future.cancel()
            raise

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._start:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="live-updates", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop


_PUBLISHER = _Publisher()


def layer_run(coroutine: Coroutine[Any, Any, None]) -> None:
    """Run a call of a connected channel layer (`group_send`, `flush`) on the publisher's loop
    and wait for it. channels_redis keeps connections per loop and `flush` closes them all,
    which only works from the loop that opened them."""
    _PUBLISHER.run(coroutine)
