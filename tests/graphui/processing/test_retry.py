"""Retrying failed jobs from the Processing page, one or all (SPEC §12): the namespace's admins,
staff included; CSRF; an admin audit row; nothing written on GET or on a refusal (404 without a
grant, 403 `role_required` below admin)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import (
    AdminAction,
    Block,
    BlockStatus,
    JobKind,
    JobStatus,
    Namespace,
    ProcessingJob,
    Role,
)
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.fakes.openai_server import FakeOpenAIServer
from tests.graphui.processing.support import (
    BELOW_ADMIN,
    GOOD,
    job_count_cell,
    make_job,
    member_with,
    page,
)

pytestmark = pytest.mark.django_db


# --- retry one ----------------------------------------------------------------------------------


def test_staff_retries_a_failed_job_with_an_audit_row(
    staff: Client, failed_job: ProcessingJob
) -> None:
    response = staff.post(reverse("graphui:job_retry", args=["proj", failed_job.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("graphui:processing", args=["proj"]) + "#active"
    failed_job.refresh_from_db()
    assert (failed_job.status, failed_job.attempts) == (JobStatus.QUEUED, 0)
    assert Block.objects.get(pk=failed_job.block_id).status == BlockStatus.PENDING
    action = AdminAction.objects.get()
    assert (action.actor, action.action, action.target) == (
        "user:ada",
        "job_retry",
        f"job:{failed_job.pk}",
    )
    assert action.namespace_id == failed_job.namespace_id
    assert action.details["before"] == {"status": "failed", "attempts": 3}
    assert action.details["after"] == {"status": "queued", "attempts": 0}
    followed = staff.get(response["Location"]).content.decode()
    assert f"Job #{failed_job.pk} (Block views (L0–L2)) is queued again" in followed
    assert f'id="active-job-{failed_job.pk}"' in followed


def test_a_retried_job_succeeds_when_the_model_answers_again(
    staff: Client, failed_job: ProcessingJob, model: FakeOpenAIServer
) -> None:
    model.default = GOOD  # the endpoint answers again
    staff.post(reverse("graphui:job_retry", args=["proj", failed_job.pk]))
    jobs_drain()
    failed_job.refresh_from_db()
    assert failed_job.status == JobStatus.SUCCEEDED
    html = page(staff).content.decode()
    assert f'id="job-{failed_job.pk}"' not in html
    assert job_count_cell(html, "block_views", "succeeded") == "1"


@BELOW_ADMIN
def test_anyone_below_admin_is_refused_and_nothing_changes(
    django_user_model: Any, failed_job: ProcessingJob, role: Role | None, status: int, code: str
) -> None:
    client = member_with(django_user_model, role)
    response = client.post(reverse("graphui:job_retry", args=["proj", failed_job.pk]))
    assert response.status_code == status
    assert code in response.content.decode()
    failed_job.refresh_from_db()
    assert failed_job.status == JobStatus.FAILED and AdminAction.objects.count() == 0


def test_a_namespace_admin_retries_a_failed_job(
    django_user_model: Any, failed_job: ProcessingJob
) -> None:
    admin = member_with(django_user_model, Role.ADMIN)
    response = admin.post(reverse("graphui:job_retry", args=["proj", failed_job.pk]))
    assert response.status_code == 302
    failed_job.refresh_from_db()
    assert (failed_job.status, failed_job.attempts) == (JobStatus.QUEUED, 0)
    action = AdminAction.objects.get()
    assert (action.actor, action.action) == ("user:bob", "job_retry")


def test_retry_needs_a_csrf_token(django_user_model: Any, failed_job: ProcessingJob) -> None:
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    response = strict.post(reverse("graphui:job_retry", args=["proj", failed_job.pk]))
    assert response.status_code == 403
    failed_job.refresh_from_db()
    assert failed_job.status == JobStatus.FAILED and AdminAction.objects.count() == 0


def test_get_on_the_retry_url_changes_nothing(staff: Client, failed_job: ProcessingJob) -> None:
    response = staff.get(reverse("graphui:job_retry", args=["proj", failed_job.pk]))
    assert response.status_code == 405
    failed_job.refresh_from_db()
    assert failed_job.status == JobStatus.FAILED and AdminAction.objects.count() == 0


def test_retrying_a_job_that_did_not_fail_is_a_409_that_writes_nothing(
    staff: Client, proj: Namespace
) -> None:
    job = make_job(proj, JobKind.BLOCK_VIEWS, JobStatus.SUCCEEDED, attempts=1)
    response = staff.post(reverse("graphui:job_retry", args=["proj", job.pk]))
    assert response.status_code == 409
    html = response.content.decode()
    assert f"Job #{job.pk} is succeeded: only failed jobs can be retried." in html
    assert "job_not_failed" in html
    job.refresh_from_db()
    assert (job.status, job.attempts) == (JobStatus.SUCCEEDED, 1)
    assert AdminAction.objects.count() == 0


def test_a_job_of_another_namespace_is_not_found(staff: Client, proj: Namespace) -> None:
    job = make_job(namespace_get_or_create(name="other"), JobKind.BLOCK_VIEWS, JobStatus.FAILED)
    response = staff.post(reverse("graphui:job_retry", args=["proj", job.pk]))
    assert response.status_code == 404
    assert "job_not_found" in response.content.decode()
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED


# --- retry all ----------------------------------------------------------------------------------


@pytest.fixture
def three_failed(proj: Namespace) -> list[ProcessingJob]:
    return [
        make_job(proj, JobKind.BLOCK_VIEWS, JobStatus.FAILED, attempts=3),
        make_job(proj, JobKind.BLOCK_VIEWS, JobStatus.FAILED, attempts=3),
        make_job(proj, JobKind.GRAPH_PROJECT, JobStatus.FAILED, attempts=3),
    ]


def test_retry_all_confirmation_names_how_many_of_which_kinds(
    staff: Client, three_failed: list[ProcessingJob]
) -> None:
    response = staff.get(reverse("graphui:jobs_retry_failed", args=["proj"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Retry all 3 failed jobs?" in html
    kinds = re.findall(r'<li data-kind="(\w+)"><strong>(\d+)</strong>', html)
    assert kinds == [("block_views", "2"), ("graph_project", "1")]
    assert f'name="up_to" value="{three_failed[-1].pk}"' in html
    assert "csrfmiddlewaretoken" in html
    # Opening the confirmation writes nothing.
    assert ProcessingJob.objects.filter(status=JobStatus.FAILED).count() == 3
    assert AdminAction.objects.count() == 0


def test_retry_all_retries_every_failed_job_it_named(
    staff: Client, proj: Namespace, three_failed: list[ProcessingJob]
) -> None:
    up_to = three_failed[-1].pk
    late = make_job(proj, JobKind.BLOCK_EXTRACT, JobStatus.FAILED, attempts=3)
    elsewhere = make_job(namespace_get_or_create(name="other"), JobKind.BLOCK_VIEWS, "failed")
    response = staff.post(reverse("graphui:jobs_retry_failed", args=["proj"]), {"up_to": up_to})
    assert response.status_code == 302
    for job in three_failed:
        job.refresh_from_db()
        assert (job.status, job.attempts) == (JobStatus.QUEUED, 0)
    late.refresh_from_db()
    elsewhere.refresh_from_db()
    assert late.status == elsewhere.status == JobStatus.FAILED  # not shown, not retried
    targets = sorted(AdminAction.objects.values_list("target", flat=True))
    assert targets == sorted(f"job:{j.pk}" for j in three_failed)
    assert set(AdminAction.objects.values_list("action", "actor")) == {("job_retry", "user:ada")}
    followed = staff.get(response["Location"]).content.decode()
    assert "3 failed jobs are queued again (2 × Block views (L0–L2), 1 × Graph projection)" in (
        followed
    )


def test_retry_all_with_nothing_failed_says_so(staff: Client, proj: Namespace) -> None:
    html = staff.get(reverse("graphui:jobs_retry_failed", args=["proj"])).content.decode()
    assert "No failed jobs" in html and '<form method="post"' not in html.split("<main")[1]
    response = staff.post(reverse("graphui:jobs_retry_failed", args=["proj"]), follow=True)
    assert "No failed job was left to retry." in response.content.decode()
    assert AdminAction.objects.count() == 0


@BELOW_ADMIN
def test_retry_all_needs_the_admin_role(
    django_user_model: Any,
    three_failed: list[ProcessingJob],
    role: Role | None,
    status: int,
    code: str,
) -> None:
    client = member_with(django_user_model, role)
    url = reverse("graphui:jobs_retry_failed", args=["proj"])
    for response in (client.get(url), client.post(url)):
        assert response.status_code == status and code in response.content.decode()
    assert ProcessingJob.objects.filter(status=JobStatus.FAILED).count() == 3
    assert AdminAction.objects.count() == 0


def test_a_namespace_admin_retries_all(
    django_user_model: Any, three_failed: list[ProcessingJob]
) -> None:
    admin = member_with(django_user_model, Role.ADMIN)
    url = reverse("graphui:jobs_retry_failed", args=["proj"])
    assert admin.get(url).status_code == 200
    assert admin.post(url, {"up_to": three_failed[-1].pk}).status_code == 302
    assert not ProcessingJob.objects.filter(status=JobStatus.FAILED).exists()
    assert set(AdminAction.objects.values_list("action", "actor")) == {("job_retry", "user:bob")}


def test_retry_all_needs_csrf(django_user_model: Any, three_failed: list[ProcessingJob]) -> None:
    url = reverse("graphui:jobs_retry_failed", args=["proj"])
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    assert strict.post(url).status_code == 403
    assert ProcessingJob.objects.filter(status=JobStatus.FAILED).count() == 3
    assert AdminAction.objects.count() == 0
