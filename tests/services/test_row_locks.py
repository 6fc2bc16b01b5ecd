"""Writers lock the namespace row FOR NO KEY UPDATE on PostgreSQL: they serialise among
themselves, but a plain FOR UPDATE would also block the KEY SHARE lock that every other
transaction's foreign-key checks take on that row at commit (a worker sealing a block, a search
saving its batch), and under load those waits closed into deadlocks answered as 500s
(benchmarks/load.py: 15 errors a minute with 32 agents before, 0 after)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are PostgreSQL's"),
]


def test_ingest_locks_the_namespace_without_blocking_foreign_key_checks() -> None:
    namespace = namespace_get_or_create(name="locks")
    with CaptureQueriesContext(connection) as queries:
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="s1",
                receipt_id="r1",
                occurred_at=datetime(2026, 1, 1, tzinfo=UTC),
                messages=[MessageIn(role="user", content="hello")],
            ),
        )
    locks = [q["sql"] for q in queries.captured_queries if "memory_namespace" in q["sql"]]
    assert any("FOR NO KEY UPDATE" in sql for sql in locks)
    assert not any("FOR UPDATE" in sql.replace("FOR NO KEY UPDATE", "") for sql in locks)
