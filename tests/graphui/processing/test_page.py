"""The Processing page (SPEC §12, §13.9): jobs by kind and state, failed jobs with their complete
redacted error, the last model responses, and the admin audit log paged in SQL."""

from __future__ import annotations

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
    Event,
    JobKind,
    JobStatus,
    ModelCall,
    Namespace,
    ProcessingJob,
    Role,
)
from memory.services.blocks import block_expand_by_user
from memory.services.events import event_lifecycle
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.settings import settings_update
from tests.browser.hostile import PROBES, SCRIPT, hostile_namespace_create
from tests.graphui.partials_support import assert_fragments_are_in_the_page
from tests.graphui.processing.support import (
    RAW_KEY,
    SECRET,
    ingest,
    job_count_cell,
    make_job,
    member_with,
    page,
)

pytestmark = pytest.mark.django_db


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
