"""Concurrent duplicate usage receipts reinforce once (the batch row lock plus the unique
receipt id), SPEC §10.1–10.2, and a receipt does not wait for the namespace's ingests."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connection, connections, transaction

from memory.errors import Conflict
from memory.models import Event, Namespace, RetrievalBatch, UsageItem, UsageReceipt
from memory.recall.events import EventSearch
from memory.services.adoption import UseRequest, usage_record
from memory.services.gate import AssessRequest, gate_assess
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.retrieval import events_search
from memory.services.settings import memory_settings_update

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 6


def _run_together(fn: Any, count: int) -> list[Any]:
    barrier = threading.Barrier(count)

    def call(i: int) -> Any:
        barrier.wait()
        try:
            return fn(i)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(call, range(count)))


def _assessed_batches(count: int) -> tuple[Any, str, list[str]]:
    """A namespace with one event and `count` batches whose sufficient assessment accepts it."""
    memory_settings_update(block_turns=1)
    namespace = namespace_get_or_create(name="proj")
    turn_ingest(
        namespace=namespace,
        turn=TurnIn(
            session_id="s1",
            receipt_id="t1",
            messages=[
                MessageIn(role="user", content="Let's switch to pnpm."),
                MessageIn(role="assistant", content="Noted."),
            ],
        ),
    )
    jobs_drain()
    ref = f"event:{Event.objects.get().pk}"
    batches = []
    for _ in range(count):
        found = events_search(namespace=namespace, params=EventSearch(query="pnpm"))
        gate_assess(
            namespace=namespace,
            request=AssessRequest(
                verdict="sufficient",
                evidence_refs=[ref],
                next_strategy="answer",
                batch_id=found.batch.public_id,
            ),
        )
        batches.append(found.batch.public_id)
    return namespace, ref, batches


def test_concurrent_duplicate_receipts_reinforce_once():
    namespace, ref, (batch_id,) = _assessed_batches(1)
    request = UseRequest(receipt_id="same", evidence_refs=[ref], batch_id=batch_id)
    results = _run_together(lambda i: usage_record(namespace=namespace, request=request), THREADS)
    assert sorted(r.duplicate for r in results) == [False] + [True] * (THREADS - 1)
    assert UsageReceipt.objects.count() == 1 and UsageItem.objects.count() == 1
    assert Event.objects.get().adoptions == 2


def test_concurrent_duplicates_naming_different_batches_store_one_receipt():
    """No common batch lock: the unique receipt id decides, and the losers replay or conflict."""
    namespace, ref, batches = _assessed_batches(THREADS)

    def use(i: int) -> Any:
        request = UseRequest(receipt_id="same", evidence_refs=[ref], batch_id=batches[i])
        try:
            return usage_record(namespace=namespace, request=request)
        except Conflict as exc:
            return exc.code

    results = _run_together(use, THREADS)
    stored = [r for r in results if not isinstance(r, str) and not r.duplicate]
    assert len(stored) == 1
    assert UsageReceipt.objects.count() == 1 and UsageItem.objects.count() == 1
    assert Event.objects.get().adoptions == 2  # reinforced once (the extraction adopted it once)
    receipt = UsageReceipt.objects.get()
    assert receipt.batch.status == "closed"
    assert RetrievalBatch.objects.filter(status="closed").count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks (SQLite locks the file)")
def test_a_receipt_does_not_wait_for_an_ingest_holding_the_namespace_row():
    namespace, ref, (batch_id,) = _assessed_batches(1)
    held = threading.Event()
    release = threading.Event()

    def hold_namespace() -> None:
        try:
            with transaction.atomic():
                Namespace.objects.select_for_update(no_key=True).get(pk=namespace.pk)
                held.set()
                release.wait(timeout=30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold_namespace)
    holder.start()
    try:
        assert held.wait(timeout=10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")  # a wait would fail, not hang
        recorded = usage_record(
            namespace=namespace,
            request=UseRequest(receipt_id="r1", evidence_refs=[ref], batch_id=batch_id),
        )
        assert not recorded.duplicate
        assert (
            recorded.receipt.namespace_turn == Namespace.objects.get(pk=namespace.pk).current_turn
        )
    finally:
        release.set()
        holder.join()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
