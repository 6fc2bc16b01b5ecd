"""Concurrent duplicate usage receipts reinforce once (the namespace lock plus the unique
receipt id), SPEC §10.1–10.2."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connections

from memory.models import Event, UsageItem, UsageReceipt
from memory.services.adoption import UseRequest, usage_record
from memory.services.gate import AssessRequest, gate_assess
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.retrieval import EventSearch, events_search
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


def test_concurrent_duplicate_receipts_reinforce_once():
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
    event = Event.objects.get()
    found = events_search(namespace=namespace, params=EventSearch(query="pnpm"))
    ref = f"event:{event.pk}"
    gate_assess(
        namespace=namespace,
        request=AssessRequest(
            verdict="sufficient",
            evidence_refs=[ref],
            next_strategy="answer",
            batch_id=found.batch.public_id,
        ),
    )
    request = UseRequest(receipt_id="same", evidence_refs=[ref], batch_id=found.batch.public_id)
    results = _run_together(lambda i: usage_record(namespace=namespace, request=request), THREADS)
    assert sorted(r.duplicate for r in results) == [False] + [True] * (THREADS - 1)
    assert UsageReceipt.objects.count() == 1 and UsageItem.objects.count() == 1
    assert Event.objects.get().adoptions == 2
