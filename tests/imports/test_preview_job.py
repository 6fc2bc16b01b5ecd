"""The preview is a durable job: progress is persisted per candidate, a crashed run resumes
where it stopped, and it never blocks concurrent ingestion."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connections
from django.utils import timezone

from memory.models import (
    Event,
    ImportBatch,
    ImportCandidate,
    JobStatus,
    Namespace,
    ProcessingJob,
    Turn,
)
from memory.services.imports import import_create
from memory.services.imports import preview as preview_module
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import job_run, jobs_drain
from memory.services.settings import memory_settings_update
from tests.imports.conftest import candidate, v2

THREE = v2(
    candidate("Owns a cat", "The user has a cat called Miso."),
    candidate("Plays chess", "The user plays chess on Sundays."),
    candidate("Learns Portuguese", "The user is learning Portuguese."),
)


def _job(batch: ImportBatch) -> ProcessingJob:
    return ProcessingJob.objects.get(pk=batch.meta["job_id"])


@pytest.mark.django_db
def test_a_failed_candidate_is_retried_without_deciding_the_earlier_ones_again(monkeypatch):
    batch = import_create(namespace=Namespace.objects.create(name="proj"), text=THREE)
    calls: list[int] = []
    real = preview_module.decide_memory

    def flaky(job, candidate, **kwargs):
        calls.append(candidate.index)
        if candidate.index == 1 and calls.count(1) == 1:
            assert ImportBatch.objects.get(pk=batch.pk).processed == 1  # progress is saved
            raise RuntimeError("the worker stumbled")
        return real(job, candidate, **kwargs)

    monkeypatch.setattr(preview_module, "decide_memory", flaky)
    assert job_run(_job(batch).pk) == "retry"
    assert ImportCandidate.objects.filter(batch=batch, processed=True).count() == 1
    jobs_drain()
    assert calls == [0, 1, 1, 2]
    batch.refresh_from_db()
    assert (batch.status, batch.processed) == ("ready", 3)


@pytest.mark.django_db
def test_a_preview_interrupted_by_a_dead_worker_resumes_after_its_lease(monkeypatch):
    batch = import_create(namespace=Namespace.objects.create(name="proj"), text=THREE)
    job = _job(batch)
    # A worker decided candidate 0 and died: the job is still "running" with an old lease.
    ImportCandidate.objects.filter(batch=batch, index=0).update(
        processed=True, action="add", confidence=0.9, reason="decided before the crash"
    )
    ImportBatch.objects.filter(pk=batch.pk).update(processed=1)
    ProcessingJob.objects.filter(pk=job.pk).update(
        status=JobStatus.RUNNING, attempts=1, lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    decided: list[int] = []
    real = preview_module.decide_memory
    monkeypatch.setattr(
        preview_module,
        "decide_memory",
        lambda job, candidate, **kw: decided.append(candidate.index) or real(job, candidate, **kw),
    )
    assert job_run(job.pk) == "succeeded"
    assert decided == [1, 2]
    first = ImportCandidate.objects.get(batch=batch, index=0)
    assert first.reason == "decided before the crash"
    batch.refresh_from_db()
    assert (batch.status, batch.processed) == ("ready", 3)


def _ingest_elsewhere(namespace_id: int, receipt: str) -> float:
    """Ingest one turn from another thread (its own connection); returns the seconds it took."""
    took: list[float] = []

    def ingest() -> None:
        started = time.monotonic()
        try:
            turn_ingest(
                namespace=Namespace.objects.get(pk=namespace_id),
                turn=TurnIn(
                    session_id="chat",
                    receipt_id=receipt,
                    messages=[MessageIn(role="user", content="Meanwhile: we deploy on Fridays.")],
                ),
            )
            took.append(time.monotonic() - started)
        finally:
            connections.close_all()

    thread = threading.Thread(target=ingest)
    thread.start()
    thread.join(30)
    assert took, "the concurrent ingest did not finish"
    return took[0]


@pytest.mark.django_db(transaction=True)
def test_ingest_succeeds_while_the_offline_preview_is_deciding(monkeypatch):
    namespace = Namespace.objects.create(name="proj")
    batch = import_create(namespace=namespace, text=THREE)
    timings: list[float] = []
    real = preview_module._matches

    def matches_then_ingest(namespace_id, payload, top_k):
        found = real(namespace_id, payload, top_k)
        timings.append(_ingest_elsewhere(namespace_id, f"r{len(timings)}"))
        return found

    monkeypatch.setattr(preview_module, "_matches", matches_then_ingest)
    assert job_run(_job(batch).pk) == "succeeded"
    assert len(timings) == 3 and max(timings) < 2.0
    assert Turn.objects.filter(namespace=namespace).count() == 3
    assert Namespace.objects.get(pk=namespace.pk).current_turn == 3


@pytest.mark.django_db(transaction=True)
def test_ingest_succeeds_while_the_model_is_deciding(settings, fake_openai):
    memory_settings_update(block_turns=1)
    namespace = Namespace.objects.create(name="proj")
    turn_ingest(
        namespace=namespace,
        turn=TurnIn(
            session_id="chat",
            receipt_id="seed",
            messages=[MessageIn(role="user", content="I work at Acme Corp.")],
        ),
    )
    jobs_drain()  # offline: the seed becomes an event the import will match
    assert Event.objects.filter(namespace=namespace).exists()
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    timings: list[float] = []

    def answer_after_an_ingest(request):
        # Runs in the fake server's thread while the preview job waits for this reply.
        timings.append(_ingest_elsewhere(namespace.pk, f"during-{len(timings)}"))
        return '{"action": "add", "target_event_ids": [], "confidence": 0.9, "reason": "new"}'

    fake_openai.default = answer_after_an_ingest
    text = v2(candidate("Employer", "The user works at Acme Corp as an engineer."))
    batch = import_create(namespace=namespace, text=text)
    assert job_run(_job(batch).pk) == "succeeded"
    assert fake_openai.calls == 1 and timings and timings[0] < 2.0
    assert Turn.objects.filter(namespace=namespace).count() == 2
    assert ImportBatch.objects.get(pk=batch.pk).status == "ready"


@pytest.mark.django_db
def test_a_preview_whose_job_failed_reads_as_failed_until_the_job_is_retried(owner, monkeypatch):
    created = owner.post("/ns/proj/imports", {"text": THREE}).json()
    real = preview_module.decide_memory

    def broken(job, candidate, **kwargs):
        raise RuntimeError("search backend is down")

    monkeypatch.setattr(preview_module, "decide_memory", broken)
    jobs_drain()
    preview = owner.get(f"/ns/proj/imports/{created['import_id']}").json()
    assert preview["status"] == "failed" and preview["processed"] == 0
    assert "search backend is down" in preview["job"]["error"]
    assert owner.post(f"/ns/proj/imports/{created['import_id']}/commit", {}).status_code == 409

    monkeypatch.setattr(preview_module, "decide_memory", real)
    assert owner.post(f"/ns/proj/jobs/{preview['job']['id']}/retry").status_code == 200
    assert owner.get(f"/ns/proj/imports/{created['import_id']}").json()["status"] == "processing"
    jobs_drain()
    assert owner.get(f"/ns/proj/imports/{created['import_id']}").json()["status"] == "ready"


@pytest.mark.django_db
def test_the_preview_shows_candidates_redacted(owner):
    text = v2(candidate("API key", "The key is sk-abcdefghijklmnopqrstuvwx for staging."))
    created = owner.post("/ns/proj/imports", {"text": text}).json()
    jobs_drain()
    body = owner.get(f"/ns/proj/imports/{created['import_id']}").content.decode()
    assert "sk-abcdefghijklmnopqrstuvwx" not in body and "[REDACTED]" in body
