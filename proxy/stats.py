"""Traffic counts of this process, added to the database every few seconds
(memory.services.proxy.traffic): counting never costs a request a write, and counts made while
the database is away wait here until it is back."""

from __future__ import annotations

import logging
import threading
from collections import Counter
from datetime import date

from django.utils import timezone

from memory.services.proxy.traffic import proxy_counters_add

log = logging.getLogger(__name__)

FLUSH_SECONDS = 2.0

# Counter names (docs/PROXY.md, "Traffic"); `degraded:<reason>` and `upstream_error:<status>`
# carry their detail after the colon.
REQUESTS = "requests"
MEMORY_OFF = "memory_off"
INJECTED = "injected"
INJECTED_TOKENS = "injected_tokens"
CAPTURED = "captured"
DUPLICATES = "duplicates"
TOOL_STEPS = "tool_steps"
STREAM_CUT = "stream_cut"
CLIENT_GONE = "client_disconnected"
CAPTURE_FAILED = "capture_failed"
CAPTURE_RETRIED = "capture_retried"
CAPTURE_LOST = "capture_lost"
# Layered history: requests that sent at least one block in place of its turns, and the
# estimated tokens of every prepared request's history as the agent sent it and as sent.
HISTORY_LAYERED = "history_layered"
HISTORY_NATIVE_TOKENS = "history_native_tokens"
HISTORY_SENT_TOKENS = "history_sent_tokens"
# The evidence loop: memory rounds the proxy ran, and answers it took memory calls out of.
MEMORY_ROUNDS = "memory_rounds"
MEMORY_CALLS_DROPPED = "memory_calls_dropped"


def degraded(reason: str) -> str:
    return f"degraded:{reason}"


def upstream_error(status: int) -> str:
    return f"upstream_error:{status}"


class Stats:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[tuple[int, date, str]] = Counter()

    def add(self, namespace_id: int, name: str, n: int = 1) -> None:
        day = timezone.now().date()
        with self._lock:
            self._counts[(namespace_id, day, name)] += n

    def flush(self) -> bool:
        """Add the counts to the database; on failure they are kept for the next flush."""
        with self._lock:
            taken, self._counts = self._counts, Counter()
        if not taken:
            return True
        try:
            proxy_counters_add(taken)
        except Exception:
            log.warning("proxy: could not store traffic counts; keeping them", exc_info=True)
            with self._lock:
                self._counts.update(taken)
            return False
        return True


STATS = Stats()
