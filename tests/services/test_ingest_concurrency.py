"""Concurrent duplicate submissions store one turn (the namespace lock plus the unique receipt)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections

from memory.models import IngestReceipt, Message, Namespace, Turn
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 8


def _turn(receipt: str, text: str = "Shall we use Postgres?") -> TurnIn:
    return TurnIn(
        session_id="s1",
        receipt_id=receipt,
        messages=[
            MessageIn(role="user", content=text),
            MessageIn(role="assistant", content="Yes."),
        ],
    )


def _run_together(fn, count: int) -> list:
    barrier = threading.Barrier(count)

    def call(i: int):
        barrier.wait()
        try:
            return fn(i)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(call, range(count)))


def test_concurrent_duplicates_store_one_turn():
    namespace = namespace_get_or_create(name="proj")
    results = _run_together(lambda i: turn_ingest(namespace=namespace, turn=_turn("same")), THREADS)
    assert Turn.objects.count() == 1
    assert Message.objects.count() == 2
    assert IngestReceipt.objects.count() == 1
    assert sorted(r.duplicate for r in results) == [False] + [True] * (THREADS - 1)
    assert {r.turn.pk for r in results} == {Turn.objects.get().pk}
    assert Namespace.objects.get().current_turn == 1


def test_concurrent_distinct_turns_get_distinct_consecutive_numbers():
    namespace = namespace_get_or_create(name="proj")
    _run_together(lambda i: turn_ingest(namespace=namespace, turn=_turn(f"r{i}", f"q{i}")), THREADS)
    assert sorted(Turn.objects.values_list("namespace_turn", flat=True)) == list(
        range(1, THREADS + 1)
    )
    assert sorted(Turn.objects.values_list("session_turn", flat=True)) == list(
        range(1, THREADS + 1)
    )
    assert Namespace.objects.get().current_turn == THREADS


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks are a PostgreSQL matter")
def test_postgres_runs_the_duplicates_truly_in_parallel():
    # On PostgreSQL each thread has its own connection and transaction; the unique receipt and
    # the namespace row lock must still agree on one winner across 3 rounds.
    namespace = namespace_get_or_create(name="proj")
    for round_ in range(3):
        receipt = f"x{round_}"
        _run_together(
            lambda i, receipt=receipt: turn_ingest(namespace=namespace, turn=_turn(receipt)),
            THREADS,
        )
    assert Turn.objects.count() == 3
