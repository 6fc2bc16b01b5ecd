"""Stop the proxy's thread pools as a test server stops (the product's pools live as long as
their process)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from django.db import connections

from proxy import threads


def threads_stop() -> None:
    """Close every proxy thread's database connection and stop the threads (PostgreSQL cannot
    drop a database with connections open)."""
    with threads._lock:
        stopping = list(threads._pools.values())
        threads._pools.clear()
    for pool in stopping:
        size = pool._max_workers
        barrier = threading.Barrier(size)

        def close(barrier: threading.Barrier = barrier) -> None:
            connections.close_all()
            barrier.wait(timeout=10)  # every thread takes exactly one of these

        for future in [ThreadPoolExecutor.submit(pool, close) for _ in range(size)]:
            future.result(timeout=30)
        pool.shutdown(wait=True)
