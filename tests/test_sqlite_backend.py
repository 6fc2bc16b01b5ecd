"""The SQLite backend's prompt hand-over of the write lock (`stratagate_site.sqlite`)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import OperationalError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.utils import ConnectionHandler

from stratagate_site.sqlite import base as backend

ALIAS = "lock_handover"


@pytest.fixture
def database(tmp_path: Path, django_db_blocker) -> Iterator[tuple[BaseDatabaseWrapper, Path]]:
    """A file database of its own, opened through the backend as the alias ALIAS."""
    path = tmp_path / "lock.sqlite3"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE t (x INTEGER)")
    handler = ConnectionHandler(
        {
            "default": {
                "ENGINE": "stratagate_site.sqlite",
                "NAME": str(path),
                "OPTIONS": {"transaction_mode": "IMMEDIATE", "timeout": 2},
            }
        }
    )
    connections[ALIAS] = handler["default"]
    with django_db_blocker.unblock():
        yield handler["default"], path
        handler.close_all()
    del connections[ALIAS]


def _holder(path: Path) -> sqlite3.Connection:
    """Another writer, as a worker process would be, holding the write lock."""
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t VALUES (1)")
    return other


def _busy_timeout(connection: object) -> int:
    with connection.cursor() as cursor:  # type: ignore[attr-defined]
        cursor.execute("PRAGMA busy_timeout")
        return int(cursor.fetchone()[0])


def test_a_transaction_begins_once_the_other_writer_commits(database, monkeypatch) -> None:
    connection, path = database
    pauses: list[float] = []
    real_sleep = time.sleep
    monkeypatch.setattr(backend.time, "sleep", lambda s: (pauses.append(s), real_sleep(s)))
    other = _holder(path)
    threading.Timer(0.05, other.commit).start()
    with transaction.atomic(using=ALIAS):
        connection.cursor().execute("INSERT INTO t VALUES (2)")
    other.close()
    with connection.cursor() as cursor:
        cursor.execute("SELECT x FROM t ORDER BY x")
        assert [row[0] for row in cursor.fetchall()] == [1, 2]
    # Tried again in pauses growing from 0.1 ms to at most 1 ms, SQLite's own handler not used.
    assert len(pauses) >= 10
    assert pauses[0] == backend.FIRST_PAUSE
    assert max(pauses) == backend.LONGEST_PAUSE
    assert _busy_timeout(connection) == 2000


def test_a_lock_held_past_the_timeout_fails_as_django_reports_it(database, monkeypatch) -> None:
    connection, path = database
    connection.ensure_connection()
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "timeout", 0.05)
    other = _holder(path)
    try:
        started = time.monotonic()
        with pytest.raises(OperationalError, match="locked"), transaction.atomic(using=ALIAS):
            pass
        assert 0.05 <= time.monotonic() - started < 1.0
    finally:
        other.rollback()
        other.close()
    assert not connection.in_atomic_block
    # The connection is usable and keeps its busy timeout for statements outside transactions.
    assert _busy_timeout(connection) == 50
    with transaction.atomic(using=ALIAS):
        connection.cursor().execute("INSERT INTO t VALUES (3)")


def test_statements_outside_a_transaction_keep_sqlites_own_wait(database) -> None:
    connection, path = database
    other = _holder(path)
    threading.Timer(0.05, other.commit).start()
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO t VALUES (4)")  # waits in SQLite's busy handler
    other.close()
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM t")
        assert cursor.fetchone()[0] == 2
