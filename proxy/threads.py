"""The proxy's threads: memory work runs here, never on the event loop. Each thread keeps its
database connection between calls, replaced when too old or broken (`close_old_connections`,
as Django does around a request).

`run_sync` runs a call on the memory pool. `parts()` is a second, small pool that activated
memory spreads its independent searches over (memory.services.activation: the message ranking
and the graph beside the events), so a request's injection takes the longest of them instead of
their sum; SQLite and PostgreSQL run the statements in parallel, the GIL is released while they
run. Both need committed data (other connections): the proxy reads outside any transaction.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections

PARTS_THREADS = 4


def _tidy[T](work: Callable[[], T]) -> Callable[[], T]:
    def call() -> T:
        close_old_connections()
        try:
            return work()
        finally:
            close_old_connections()

    return call


class _Pool(ThreadPoolExecutor):
    """A thread pool whose every task runs between two `close_old_connections`."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return super().submit(_tidy(lambda: fn(*args, **kwargs)))


_pools: dict[str, _Pool] = {}
_lock = threading.Lock()


def _pool(name: str) -> _Pool:
    with _lock:
        found = _pools.get(name)
        if found is None:
            size = settings.STRATAGATE_HTTP_THREADS if name == "memory" else PARTS_THREADS
            found = _pools[name] = _Pool(max_workers=size, thread_name_prefix=f"proxy-{name}")
        return found


def parts() -> ThreadPoolExecutor:
    return _pool("parts")


async def run_sync[T](fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` on one of the proxy's memory threads."""
    call = _tidy(lambda: fn(*args, **kwargs))
    return await sync_to_async(call, thread_sensitive=False, executor=_pool("memory"))()
