"""The Processing page (SPEC §12, §13.9): jobs by kind and state, failed jobs with their complete
redacted error, retrying one or all failed jobs (the namespace's admins, staff included; CSRF,
admin audit row, nothing written on GET or on a refusal: 404 without a grant, 403
`role_required` below admin), the last model responses, and the admin audit log paged in SQL."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from memory.models import (
    AdminAction,
    Block,
    BlockStatus,
    Event,
    JobKind,
    JobStatus,
    ModelCall,
    Namespace,
    NamespaceGrant,
    ProcessingJob,
    Role,
)
from memory.services.blocks import block_expand_by_user
from memory.services.events import event_lifecycle
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.settings import settings_update
from tests.browser.hostile import PROBES, SCRIPT, hostile_namespace_create
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply
from tests.graphui.partials_support import assert_fragments_are_in_the_page

pytestmark = pytest.mark.django_db

SECRET = "api_key=sk-abcdefghijklmnop1234"
RAW_KEY = "sk-abcdefghijklmnop1234"
GOOD = json.dumps(
    {
        "title": "Storage layer decision",
        "tags": ["storage", "postgres"],
        "summary": "The user and assistant chose PostgreSQL for storage.",
        "key_points": ["Use PostgreSQL for storage"],
        "should_extract": False,
    }
)


# --- fixtures -----------------------------------------------------------------------------------


@pytest.fixture
def staff(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


def member_with(django_user_model: Any, role: Role | None, name: str = "bob") -> Client:
    """A logged-in user who is not staff, with `role` in namespace proj (None: no grant)."""
    user = django_user_model.objects.create_user(name)
    if role is not None:
        namespace = Namespace.objects.get(name="proj")
        NamespaceGrant.objects.create(user=user, namespace=namespace, role=role)
    other = Client()
    other.force_login(user)
    return other


@pytest.fixture
def member(django_user_model: Any, proj: Namespace) -> Client:
    """An editor of proj: reads the errors, may not retry (that needs the admin role)."""
    return member_with(django_user_model, Role.EDITOR)


# Who is refused an admin action in proj, and how.
BELOW_ADMIN = pytest.mark.parametrize(
    ("role", "status", "code"),
    [
        (None, 404, "namespace_not_found"),
        (Role.VIEWER, 403, "role_required"),
        (Role.EDITOR, 403, "role_required"),
    ],
)


@pytest.fixture
def proj() -> Namespace:
    return namespace_get_or_create(name="proj")


@pytest.fixture
def model(settings: Any, fake_openai: FakeOpenAIServer) -> FakeOpenAIServer:
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    settings.STRATAGATE_LLM_API_KEY = "sk-test"
    return fake_openai


def ingest(namespace: Namespace, turns: int = 6, *, session: str = "s1", start: int = 1) -> None:
    for n in range(start, start + turns):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=session,
                receipt_id=f"{session}-r{n}",
                messages=[
                    MessageIn(role="user", content=f"Question {n} about the storage layer?"),
                    MessageIn(role="assistant", content=f"Answer {n}: we keep PostgreSQL."),
                ],
            ),
        )


def server_error() -> FakeReply:
    """A 500 whose body leaks a key: the stored error keeps it, every page must redact it."""
    body = {"error": {"message": f"upstream broke, {SECRET}", "type": "server_error"}}
    return FakeReply(status=500, body=body)


@pytest.fixture
def failed_job(proj: Namespace, model: FakeOpenAIServer) -> ProcessingJob:
    """One block whose L0–L2 job failed three times against the fake model endpoint."""
    model.default = lambda request: server_error()
    ingest(proj)
    jobs_drain()
    job = ProcessingJob.objects.get(namespace=proj, kind=JobKind.BLOCK_VIEWS)
    assert (job.status, job.attempts) == (JobStatus.FAILED, 3)
    assert RAW_KEY in job.last_error  # stored as it came; redaction happens on the way out
    return job


def page(client: Client, ns: str = "proj", **params: Any) -> Any:
    return client.get(reverse("graphui:processing", args=[ns]), params)


def job_count_cell(html: str, kind: str, status: str) -> str:
    row = re.search(rf'<tr data-kind="{kind}">(.*?)</tr>', html, re.S)
    assert row, kind
    cell = re.search(rf'<td class="num" data-status="{status}">(.*?)</td>', row.group(1), re.S)
    assert cell, status
    return re.sub(r"<[^>]+>|[⚠⟳]", "", cell.group(1)).strip()


def make_job(namespace: Namespace, kind: str, status: str, **fields: Any) -> ProcessingJob:
    return ProcessingJob.objects.create(namespace=namespace, kind=kind, status=status, **fields)


# --- reading ------------------------------------------------------------------------------------


def test_anonymous_visitor_is_sent_to_login(client: Client, proj: Namespace) -> None:
    url = reverse("graphui:processing", args=["proj"])
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={url}"


def test_unknown_namespace_is_a_404_page(staff: Client) -> None:
    response = page(staff, "nowhere")
    assert response.status_code == 404
    assert "namespace_not_found" in response.content.decode()


def test_jobs_are_counted_by_kind_and_state_in_words(staff: Client, proj: Namespace) -> None:
    for _ in range(2):
        make_job(proj, JobKind.BLOCK_VIEWS, JobStatus.SUCCEEDED)
    make_job(proj, JobKind.BLOCK_VIEWS, JobStatus.FAILED, attempts=3)
    make_job(proj, JobKind.GRAPH_PROJECT, JobStatus.QUEUED)
    make_job(proj, JobKind.IMPORT_PREVIEW, JobStatus.RUNNING, attempts=1)
    make_job(namespace_get_or_create(name="other"), JobKind.BLOCK_VIEWS, JobStatus.FAILED)

    html = page(staff).content.decode()
    assert job_count_cell(html, "block_views", "succeeded") == "2"
    assert job_count_cell(html, "block_views", "failed") == "1"
    assert job_count_cell(html, "graph_project", "queued") == "1"
    assert job_count_cell(html, "import_preview", "running") == "1"
    assert job_count_cell(html, "block_extract", "failed") == "0"  # every kind, zeros too
    for words in ("Block views (L0–L2)", "Event extraction", "Graph projection", "Import preview"):
        assert words in html
    assert "2 jobs in progress" in html and "1 failed" in html


def test_failed_job_shows_its_complete_error_redacted_with_block_attempts_and_time(
    staff: Client, failed_job: ProcessingJob
) -> None:
    html = page(staff).content.decode()
    card = html[html.index(f'id="job-{failed_job.pk}"') :].split("</li>")[0]
    assert "Traceback (most recent call last)" in card  # the complete text, not a preview
    assert "model endpoint returned HTTP 500" in card
    assert "[REDACTED]" in card and RAW_KEY not in html
    assert f'<pre class="error-text" id="job-{failed_job.pk}-error"' in card
    assert f'data-copy="job-{failed_job.pk}-error"' in card
    assert reverse("graphui:block", args=["proj", failed_job.block_id]) in card
    assert "3 of 3" in card
    assert "<time" in card.split("Failed</dt>")[1].split("</dd>")[0]
    assert "Event extraction" not in card and "Block views (L0–L2)" in card


def test_admins_see_retry_buttons_and_others_only_the_errors(
    staff: Client, member: Client, django_user_model: Any, failed_job: ProcessingJob
) -> None:
    retry_url = reverse("graphui:job_retry", args=["proj", failed_job.pk])
    admin = member_with(django_user_model, Role.ADMIN, "grace")
    for client in (staff, admin):
        admin_html = page(client).content.decode()
        assert f'action="{retry_url}"' in admin_html
        assert reverse("graphui:jobs_retry_failed", args=["proj"]) in admin_html
    viewer = member_with(django_user_model, Role.VIEWER, "carol")
    for client in (member, viewer):
        response = page(client)
        assert response.status_code == 200
        member_html = response.content.decode()
        assert retry_url not in member_html
        assert reverse("graphui:jobs_retry_failed", args=["proj"]) not in member_html
        assert "Retrying needs the admin role in this namespace." in member_html
        assert f'id="job-{failed_job.pk}-error"' in member_html


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


# --- in progress, model calls -------------------------------------------------------------------


def test_jobs_in_progress_show_attempts_and_next_run(staff: Client, proj: Namespace) -> None:
    later = timezone.now() + timedelta(minutes=5)
    waiting = make_job(
        proj,
        JobKind.BLOCK_EXTRACT,
        JobStatus.QUEUED,
        attempts=1,
        run_after=later,
        error_preview=f"timeout {SECRET}",
    )
    running = make_job(proj, JobKind.GRAPH_PROJECT, JobStatus.RUNNING, attempts=2)
    html = page(staff).content.decode()
    table = html[html.index('id="active-jobs"') :].split("</table>")[0]
    assert table.index(f'id="active-job-{running.pk}"') < table.index(
        f'id="active-job-{waiting.pk}"'
    )
    row = table[table.index(f'id="active-job-{waiting.pk}"') :].split("</tr>")[0]
    assert "1 of 3" in row and "waiting before the next attempt" in row
    assert later.isoformat() in row
    assert "[REDACTED]" in row and RAW_KEY not in html
    assert "running since" in table[table.index(f'id="active-job-{running.pk}"') :]


def test_model_calls_show_the_newest_ten_of_each_with_redacted_previews(
    staff: Client, proj: Namespace
) -> None:
    for n in range(12):
        ModelCall.objects.create(
            namespace=proj,
            kind="block_views",
            model="fake-model",
            ok=True,
            latency_ms=100 + n,
            prompt_tokens=50,
            completion_tokens=7,
            preview=f'{{"title": "ok {n}", "{SECRET}"}}',
        )
    ModelCall.objects.create(
        namespace=proj,
        kind="extract_events",
        model="fake-model",
        ok=False,
        latency_ms=3,
        error_text=f"model endpoint returned HTTP 500: {SECRET}",
        preview=f"half an answer {SECRET}",
    )
    html = page(staff).content.decode()
    ok = html[html.index('id="calls-ok"') :].split("</table>")[0]
    failed = html[html.index('id="calls-failed"') :].split("</table>")[0]
    assert ok.count('<tr id="call-') == 10
    assert "111 ms" in ok and "100 ms" not in ok and "101 ms" not in ok  # newest first
    assert "50 / 7" in ok
    assert failed.count('<tr id="call-') == 1 and "Event extraction" in failed
    assert "model endpoint returned HTTP 500: api_key=[REDACTED]" in failed
    assert "half an answer" in failed
    assert RAW_KEY not in html


def test_offline_namespace_explains_why_there_are_no_model_calls(
    staff: Client, proj: Namespace
) -> None:
    html = page(staff).content.decode()
    assert "The offline processor writes views and events without a language model" in html


# --- the admin audit log ------------------------------------------------------------------------


def test_admin_log_lists_expand_settings_pin_and_retry_with_links(
    staff: Client, proj: Namespace
) -> None:
    ingest(proj)
    jobs_drain()
    block = Block.objects.get(namespace=proj)
    block_expand_by_user(block=block, target="L5", actor="user:ada")
    settings_update(block_lambda=Decimal("0.35"), block_turns=6, actor="user:grace")
    event = _event(proj, block)
    event_lifecycle(event=event, action="pin", actor="user:ada")
    other = namespace_get_or_create(name="other")
    AdminAction.objects.create(namespace=other, actor="user:eve", action="forget", target="event:1")

    html = page(staff).content.decode()
    log = html[html.index('id="admin-log-table"') :].split("</table>")[0]
    actions = re.findall(r'data-action="(\w+)"', log)
    assert actions == ["pin", "settings", "expand_block"]  # newest first, other ns left out
    assert "user:eve" not in log
    assert reverse("graphui:event", args=["proj", event.pk]) in log
    assert reverse("graphui:block", args=["proj", block.pk]) in log
    assert reverse("graphui:settings") in log
    assert "Pinned an event" in log and "Changed λ / block size" in log
    assert "Expanded a block" in log and "all namespaces" in log
    assert '<code>pinned</code>: false <span aria-hidden="true">→</span>' in log
    assert "<strong>true</strong>" in log
    assert "<code>block_lambda</code>: 0.3 " in log and "<strong>0.35</strong>" in log


def _event(namespace: Namespace, block: Block) -> Event:
    from django.db import transaction

    from memory.engine.prompts.extraction import ExtractedEvent
    from memory.models import Message
    from memory.services.events import EventContext, event_create

    messages = {m.pk: m for m in Message.objects.filter(turn__block=block)}
    with transaction.atomic():
        return event_create(
            extracted=ExtractedEvent(
                title="Use PostgreSQL",
                summary="We keep PostgreSQL.",
                source_message_ids=list(messages)[:1],
            ),
            context=EventContext(block=block, formed_turn=6, messages=messages),
        )


def test_admin_log_and_failed_jobs_page_in_sql_with_a_fixed_query_count(
    staff: Client, proj: Namespace, django_assert_max_num_queries: Any
) -> None:
    def grow(n: int) -> None:
        for i in range(n):
            AdminAction.objects.create(
                namespace=proj,
                actor="user:ada",
                action="job_retry",
                target=f"job:{i}",
                details={"before": {"status": "failed"}},
            )
            make_job(proj, JobKind.BLOCK_VIEWS, JobStatus.FAILED, last_error=f"boom {i}")
            make_job(proj, JobKind.BLOCK_EXTRACT, JobStatus.QUEUED)
            ModelCall.objects.create(namespace=proj, kind="block_views", model="m", ok=bool(i % 2))

    grow(3)
    with django_assert_max_num_queries(16) as few:
        assert page(staff).status_code == 200
    grow(60)
    with django_assert_max_num_queries(len(few.captured_queries)):
        html = page(staff).content.decode()
    assert len(re.findall(r'<tr id="admin-action-\d+"', html)) == 50
    assert len(re.findall(r'<li class="card failed-job"', html)) == 20
    assert len(re.findall(r'<tr id="active-job-\d+"', html)) == 50
    assert "… and 13 more jobs waiting in the queue." in html
    second = page(staff, page=2).content.decode()
    assert len(re.findall(r'<tr id="admin-action-\d+"', second)) == 13
    assert 'href="?page=1#admin-log"' in second
    failed_2 = page(staff, failed_page=4).content.decode()
    assert len(re.findall(r'<li class="card failed-job"', failed_2)) == 3


# --- live fragments -----------------------------------------------------------------------------


def test_live_regions_are_served_alone_from_the_same_partials(
    staff: Client, failed_job: ProcessingJob
) -> None:
    html = page(staff).content.decode()
    assert html.count('data-live-refresh="job.changed block.ready block.failed"') == 4
    assert 'data-live-src="/ns/proj/processing/?partial=counts"' in html
    fragment = page(staff, partial="failed").content.decode()
    assert "<html" not in fragment and '<nav class="tabs"' not in fragment
    assert f'id="job-{failed_job.pk}"' in fragment and RAW_KEY not in fragment
    counts = page(staff, partial="counts").content.decode()
    assert counts.strip().startswith('<div class="table-wrap">')
    assert job_count_cell(counts, "block_views", "failed") == "1"
    assert page(staff, partial="nope").status_code == 404


def test_each_live_region_alone_is_what_the_page_shows_in_its_place(
    staff: Client, failed_job: ProcessingJob
) -> None:
    make_job(failed_job.namespace, JobKind.BLOCK_EXTRACT, JobStatus.QUEUED)
    ModelCall.objects.create(namespace=failed_job.namespace, kind="block_views", model="m", ok=True)
    url = reverse("graphui:processing", args=["proj"])
    assert_fragments_are_in_the_page(staff, url, ("counts", "active", "failed", "calls"))
    assert page(staff, partial="log").status_code == 404  # the admin log is not a live region


def test_failed_fragment_page_links_lead_to_the_whole_page(staff: Client, proj: Namespace) -> None:
    for i in range(25):
        make_job(proj, JobKind.BLOCK_VIEWS, JobStatus.FAILED, last_error=f"boom {i}")
    fragment = page(staff, partial="failed").content.decode()
    assert 'href="/ns/proj/processing/?failed_page=2#failed"' in fragment
    assert "partial=" not in fragment


# --- hostile memory -----------------------------------------------------------------------------


def test_hostile_errors_and_log_entries_are_escaped(staff: Client, db: None) -> None:
    hostile = hostile_namespace_create()
    make_job(
        hostile,
        JobKind.BLOCK_EXTRACT,
        JobStatus.FAILED,
        attempts=3,
        last_error=f"Traceback {SCRIPT} {PROBES[1]}",
        error_preview=SCRIPT,
    )
    # kind and action are short columns (32 characters; PostgreSQL enforces it): short probes.
    short_script, short_img = "<script>alert(1)</script>", "<img src=x onerror=alert(1)>"
    ModelCall.objects.create(
        namespace=hostile,
        kind=short_script,
        model=PROBES[1],
        ok=False,
        error_text=SCRIPT,
        preview=PROBES[2],
    )
    AdminAction.objects.create(
        namespace=hostile,
        actor=SCRIPT,
        action=short_img,
        target=PROBES[2],
        details={"before": {SCRIPT: PROBES[1]}},
    )
    html = page(staff, "hostile").content.decode()
    for probe in (*PROBES, short_script, short_img):
        if probe.startswith("javascript:"):
            assert f'href="{probe}' not in html
        else:
            assert probe not in html
    assert "&lt;script&gt;" in html
