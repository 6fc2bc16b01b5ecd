"""Block processing as durable jobs: model path, malformed output, retries, recovery, ordering."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from memory.models import (
    Block,
    BlockStatus,
    BlockView,
    JobStatus,
    ModelCall,
    Namespace,
    ProcessingJob,
    Turn,
)
from memory.selectors.processing_rows import jobs_failed_page, model_calls_recent
from memory.services.jobs import backoff_seconds, job_run, jobs_recover_stalled
from tests.conftest import turn_body

pytestmark = pytest.mark.django_db

GOOD = json.dumps(
    {
        "title": "Storage layer decision",
        "tags": ["storage", "postgres"],
        "summary": "The user and assistant chose Postgres for storage.",
        "key_points": ["Use Postgres for storage"],
        "should_extract": False,
    }
)


@pytest.fixture
def model(settings, fake_openai):
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    settings.STRATAGATE_LLM_API_KEY = "sk-test"
    return fake_openai


def _seal_one_block(owner) -> Block:
    for n in range(1, 7):
        assert owner.post("/ns/proj/turns", turn_body(n)).status_code == 201
    return Block.objects.get()


def test_model_writes_l0_to_l2_and_logs_the_call(owner, model, drain):
    model.script([GOOD])
    block = _seal_one_block(owner)
    drain()
    block.refresh_from_db()
    assert block.status == BlockStatus.READY
    views = {v.level: v for v in block.views.all()}
    assert views[0].content == "Storage layer decision\nTags: storage, postgres"
    assert views[1].content == "The user and assistant chose Postgres for storage."
    assert views[2].content == "- Use Postgres for storage"
    assert {views[n].produced_by for n in (0, 1, 2)} == {"model"}
    call = ModelCall.objects.get()
    assert (call.ok, call.kind, call.attempts) == (True, "block_views", 1)
    # The model saw the block's L5 source.
    assert "Question 1 about the storage layer?" in json.dumps(model.requests[0])


def test_malformed_model_output_keeps_the_turn_and_fails_the_block_after_three_attempts(
    owner, model
):
    model.default = "this is not json {"
    block = _seal_one_block(owner)
    job = ProcessingJob.objects.get(block=block)

    outcomes = []
    for _ in range(3):
        ProcessingJob.objects.filter(pk=job.pk).update(run_after=None)
        outcomes.append(job_run(job.pk))
        job.refresh_from_db()
        block.refresh_from_db()
        if outcomes[-1] == "retry":
            assert block.status == BlockStatus.PENDING
            waited = (job.run_after - job.updated_at).total_seconds()
            assert waited == pytest.approx(backoff_seconds(job.attempts), abs=0.5)

    assert outcomes == ["retry", "retry", "failed"]
    assert model.calls == 6  # each attempt = one call + one repair retry
    assert block.status == BlockStatus.FAILED
    assert job.status == JobStatus.FAILED and job.attempts == 3
    assert "this is not json {" in job.error_preview
    assert "LLMOutputError" in job.last_error
    assert Turn.objects.count() == 6  # source never lost
    assert BlockView.objects.filter(block=block).count() == 3  # L3–L5 only
    assert ModelCall.objects.filter(ok=False).count() == 3


def test_failed_block_is_retryable_over_the_api(owner, model, drain):
    model.default = "not json"
    block = _seal_one_block(owner)
    drain()
    job = ProcessingJob.objects.get(block=block)
    assert owner.get("/ns/proj/jobs", status="failed").json()["jobs"][0]["id"] == job.pk

    model.default = GOOD
    response = owner.post(f"/ns/proj/jobs/{job.pk}/retry")
    assert response.status_code == 200
    assert response.json()["status"] == "queued"
    block.refresh_from_db()
    assert block.status == BlockStatus.PENDING
    drain()
    block.refresh_from_db()
    assert block.status == BlockStatus.READY
    assert owner.post(f"/ns/proj/jobs/{job.pk}/retry").status_code == 409


def test_permanent_model_errors_fail_at_once(owner, model, drain):
    model.default = 401
    block = _seal_one_block(owner)
    drain()
    job = ProcessingJob.objects.get(block=block)
    assert (job.status, job.attempts) == (JobStatus.FAILED, 1)


def test_backoff_is_one_two_four_seconds():
    assert [backoff_seconds(n) for n in (1, 2, 3)] == [1, 2, 4]


def test_a_job_killed_mid_way_is_picked_up_again(owner, drain):
    block = _seal_one_block(owner)
    job = ProcessingJob.objects.get(block=block)
    # A worker claimed it and died: status running, lease long expired.
    ProcessingJob.objects.filter(pk=job.pk).update(
        status=JobStatus.RUNNING, attempts=1, lease_expires_at=timezone.now() - timedelta(minutes=1)
    )
    assert jobs_recover_stalled() == 1
    assert job_run(job.pk) == "succeeded"
    drain()  # then the extraction job
    job.refresh_from_db()
    block.refresh_from_db()
    assert (job.status, job.attempts, block.status) == (JobStatus.SUCCEEDED, 2, BlockStatus.READY)


def test_a_running_job_with_a_live_lease_is_not_taken_twice(owner):
    block = _seal_one_block(owner)
    job = ProcessingJob.objects.get(block=block)
    ProcessingJob.objects.filter(pk=job.pk).update(
        status=JobStatus.RUNNING, attempts=1, lease_expires_at=timezone.now() + timedelta(minutes=5)
    )
    assert job_run(job.pk) == "not_due"


def test_later_blocks_wait_for_earlier_ones_in_the_same_session(owner, model, drain):
    model.default = "not json"
    for n in range(1, 13):
        owner.post("/ns/proj/turns", turn_body(n))
    drain()
    first, second = Block.objects.order_by("sequence")
    assert first.status == BlockStatus.FAILED
    assert second.status == BlockStatus.PENDING  # never overtakes the failed block
    assert ProcessingJob.objects.get(block=second).attempts == 0

    model.default = GOOD
    owner.post(f"/ns/proj/jobs/{ProcessingJob.objects.get(block=first).pk}/retry")
    drain()
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.ready_position, second.ready_position) == (1, 2)


def test_health_shows_failures_with_previews(owner, model, drain):
    model.default = "garbage answer"
    _seal_one_block(owner)
    drain()
    body = owner.get("/ns/proj/health").json()
    assert body["model_mode"] == "model"
    assert body["counts"]["blocks"] == {"failed": 1}
    assert "garbage answer" in body["failed_jobs"][0]["error_preview"]
    # The rows the health and processing pages show (memory.selectors.processing_rows): the
    # job as jobs_list gives it, plus its block's place; the calls that failed with it.
    namespace = Namespace.objects.get(name="proj")
    (failed,) = jobs_failed_page(namespace, page=1).items
    assert (failed.status, failed.session_label, failed.block_sequence) == ("failed", "s1", 1)
    calls = model_calls_recent(namespace)
    assert calls.recent == [] and calls.failed and not calls.failed[0].ok
    assert sum(calls.by_kind.values()) == len(calls.failed)


def test_draining_a_long_session_asks_each_waiting_block_once_per_pass(owner, admin, monkeypatch):
    """Blocks are processed in order; a pass skips a session's blocks after one that waits,
    instead of asking each of them again (quadratic in the number of blocks)."""
    from memory.services import jobs

    assert admin.put("/settings", {"block_turns": 1}).status_code == 200
    for n in range(1, 21):
        assert owner.post("/ns/proj/turns", turn_body(n)).status_code == 201
    outcomes: list[str] = []
    real = jobs.job_run

    def counted(job_id: int) -> str:
        outcomes.append(real(job_id))
        return outcomes[-1]

    monkeypatch.setattr(jobs, "job_run", counted)
    ran = jobs.jobs_drain()

    assert Block.objects.filter(status=BlockStatus.READY).count() == 20
    assert ran == ProcessingJob.objects.count() == outcomes.count("succeeded")
    assert outcomes.count("waiting") <= 2 * 20  # one per pass at most (was 380)


def test_job_bookkeeping_is_plain_sql_and_claims_only_due_jobs(owner, monkeypatch):
    """Reading, claiming and finishing a job compile no ORM statement (they cost more to compile
    than to run: benchmarks/README.md), and the claim still takes only a due job."""
    from django.db.models.sql.compiler import SQLCompiler, SQLUpdateCompiler

    from memory.models import JobKind
    from memory.services import jobs

    block = _seal_one_block(owner)
    job = ProcessingJob.objects.get(block=block)
    ProcessingJob.objects.filter(pk=job.pk).update(run_after=timezone.now() + timedelta(minutes=1))
    assert job_run(job.pk) == "not_due"  # backing off: not before run_after
    ProcessingJob.objects.filter(pk=job.pk).update(run_after=timezone.now() - timedelta(seconds=1))

    seen = []
    monkeypatch.setitem(jobs.HANDLERS, JobKind.BLOCK_VIEWS, seen.append)
    compiled: list[str] = []
    for compiler in (SQLCompiler, SQLUpdateCompiler):
        real = compiler.as_sql

        def spy(self, *args, real=real, **kwargs):  # type: ignore[no-untyped-def]
            compiled.append(f"{type(self).__name__} {self.query.model.__name__}")
            return real(self, *args, **kwargs)

        monkeypatch.setattr(compiler, "as_sql", spy)
    assert job_run(job.pk) == "succeeded"
    assert job_run(job.pk) == "done"
    assert job_run(10**9) == "missing"
    monkeypatch.undo()
    assert compiled == []

    (claimed,) = seen  # as the handler got it: running, its block and namespace loaded
    assert (claimed.status, claimed.attempts) == (JobStatus.RUNNING, 1)
    assert claimed.lease_expires_at > timezone.now()
    assert claimed.block == block and claimed.block.session_id == block.session_id
    assert claimed.namespace.name == "proj"
    job.refresh_from_db()
    assert (job.status, job.attempts, job.lease_expires_at) == (JobStatus.SUCCEEDED, 1, None)
    assert job.finished_at is not None


def test_rerunning_the_views_job_rewrites_the_same_three_rows(owner):
    """A retried views job (offline processor) upserts L0–L2: no duplicate rows, the first
    created_at kept, the content written again."""
    from memory.services.processing import block_views_produce

    block = _seal_one_block(owner)
    job = ProcessingJob.objects.select_related("block").get(block=block)
    block_views_produce(job)
    first = {v.level: v for v in BlockView.objects.filter(block=block, level__lte=2)}
    assert sorted(first) == [0, 1, 2] and all(v.content and v.tokens for v in first.values())
    BlockView.objects.filter(block=block, level=1).update(content="stale", tokens=1)

    block_views_produce(job)
    again = {v.level: v for v in BlockView.objects.filter(block=block, level__lte=2)}
    assert BlockView.objects.filter(block=block).count() == 6  # L0–L5, one row each
    assert again[1].content == first[1].content and again[1].tokens == first[1].tokens
    assert all(again[n].created_at == first[n].created_at for n in (0, 1, 2))
    assert {v.produced_by for v in again.values()} == {"offline"}
    assert ProcessingJob.objects.filter(block=block, kind="block_extract").count() == 1
