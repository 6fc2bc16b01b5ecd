"""memory_status keeps the API's brief rows (docs/API.md) while the Memory UI reads full ones
(selectors.processing_rows): failed jobs and model calls carry exactly the contract's fields."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from memory.models import JobKind, JobStatus, ModelCall, ProcessingJob
from memory.services.namespaces import namespace_get_or_create
from tests.conftest import ApiClient

pytestmark = pytest.mark.django_db


def test_failed_jobs_and_model_calls_keep_their_brief_fields(owner: ApiClient) -> None:
    namespace = namespace_get_or_create(name="proj")
    now = timezone.now()
    jobs = [
        ProcessingJob.objects.create(
            namespace=namespace,
            kind=JobKind.GRAPH_PROJECT,
            status=JobStatus.FAILED,
            attempts=3,
            error_preview=f"RuntimeError: boom {n}",
            last_error="Traceback (most recent call last):\n" * 50,
            finished_at=now - timedelta(minutes=n),
        )
        for n in range(25)
    ]
    for _ in range(7):
        ModelCall.objects.create(
            namespace=namespace, kind="block_views", model="m", ok=True, preview="x" * 1500
        )
    ModelCall.objects.create(namespace=namespace, kind="block_extract", model="m", ok=False)

    body = owner.get("/ns/proj/health").json()

    failed = body["failed_jobs"]
    assert [job["id"] for job in failed] == sorted((j.pk for j in jobs), reverse=True)[:20]
    assert {frozenset(job) for job in failed} == {
        frozenset({"id", "kind", "block_id", "attempts", "error_preview"})
    }
    assert failed[0]["error_preview"] == "RuntimeError: boom 24"
    calls = body["model_calls"]
    assert set(calls) == {"recent", "by_kind"}
    assert len(calls["recent"]) == 5
    assert set(calls["recent"][0]) == {
        "kind",
        "model",
        "latency_ms",
        "prompt_tokens",
        "completion_tokens",
        "created_at",
    }
    assert calls["by_kind"] == {"block_views": 7, "block_extract": 1}
