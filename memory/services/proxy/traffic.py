"""Proxy traffic counters: each web process counts in memory (proxy.stats) and adds its counts
here every few seconds, so counting costs a request nothing and still works while the database
is away (the counts wait in the process)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from django.db import connection

from memory.models import ProxyCounter
from memory.services.db import write_transaction

_TABLE = ProxyCounter._meta.db_table
# One statement per row, on both databases: add to the day's count, or start it.
_UPSERT = (
    f"INSERT INTO {_TABLE} (namespace_id, day, name, count) VALUES (%s, %s, %s, %s) "
    "ON CONFLICT (namespace_id, day, name) DO UPDATE SET count = "
    f"{_TABLE}.count + excluded.count"
)


def proxy_counters_add(counts: Mapping[tuple[int, date, str], int]) -> None:
    """Add `counts` ({(namespace id, day, name): n}) in one transaction."""
    rows = [(ns, day.isoformat(), name[:64], n) for (ns, day, name), n in counts.items() if n]
    if not rows:
        return
    with write_transaction(), connection.cursor() as cursor:
        cursor.executemany(_UPSERT, rows)
