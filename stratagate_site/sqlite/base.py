"""Django's SQLite backend, with the write lock handed over within a millisecond.

SQLite lets one writer in at a time. A connection that finds the lock taken waits in SQLite's
busy handler, which sleeps 1, 2, 5, 10, 15, 20, 25 … 100 ms between tries: a web request whose
write meets a worker's 20 ms transaction got the lock after 33 ms, one meeting 40 ms after
78 (the proxy's tail latency, `benchmarks/proxy_overhead.py`). StrataGate's write transactions
last milliseconds, so `BEGIN` is tried again every ≤ 1 ms instead, within the same overall
timeout. Only `BEGIN` waits: in WAL mode a transaction that holds the write lock never waits
again, and readers never wait. Statements outside a transaction keep SQLite's own handler.
"""

from __future__ import annotations

import sqlite3
import time

from django.db.backends.sqlite3 import base

FIRST_PAUSE = 0.0001
LONGEST_PAUSE = 0.001


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def busy_seconds(self) -> float:
        """How long a writer waits for the lock: the `timeout` option (sqlite3's default 5)."""
        return float(self.settings_dict["OPTIONS"].get("timeout", 5.0))

    def _start_transaction_under_autocommit(self) -> None:
        # Django's own (not in its type stubs): set from the OPTIONS when connecting.
        mode: str | None = getattr(self, "transaction_mode", None)
        if mode is None:  # a deferred BEGIN takes no lock: nothing to wait for
            super()._start_transaction_under_autocommit()  # type: ignore[misc]
            return
        with self.wrap_database_errors:
            self._begin_promptly(f"BEGIN {mode}")

    def _begin_promptly(self, begin: str) -> None:
        cursor = self.connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 0")
        try:
            deadline = time.monotonic() + self.busy_seconds
            pause = FIRST_PAUSE
            while True:
                try:
                    cursor.execute(begin)
                    return
                except sqlite3.OperationalError as exc:
                    if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
                        raise
                    if time.monotonic() >= deadline:
                        raise
                time.sleep(pause)
                pause = min(pause * 2, LONGEST_PAUSE)
        finally:
            cursor.execute(f"PRAGMA busy_timeout = {round(self.busy_seconds * 1000)}")
            cursor.close()
