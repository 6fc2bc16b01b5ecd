"""Import pages (SPEC §13.7, §11): paste or upload, the preview with its progress, choices for
low-confidence rows, commit, and undo after a confirmation — each write audited, refused writes
leaving nothing behind, every memory string escaped."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

import memory.services.imports.preview as preview_module
from memory.models import (
    Event,
    ImportBatch,
    ImportCandidate,
    Namespace,
    ProcessingJob,
)
from memory.services.imports import import_create
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.browser.hostile import PROBES, hostile_namespace_create
from tests.graphui.imports.support import (
    CAT,
    IMG,
    SCRIPT,
    SECRET,
    TEA,
    cand,
    counts,
    html_of,
    previewed,
    sample,
    url,
    v2,
)
from tests.graphui.partials_support import assert_fragments_are_in_the_page

pytestmark = pytest.mark.django_db


# --- access ------------------------------------------------------------------------------------


def test_anonymous_visitor_is_sent_to_log_in(client: Client, proj: Namespace) -> None:
    batch = previewed(proj, v2(CAT))
    for path in (
        url("imports"),
        url("import", batch.pk),
        url("import_status", batch.pk),
        url("import_undo", batch.pk),
    ):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/?next=")
    before = counts()
    assert client.post(url("import_commit", batch.pk)).status_code == 302
    assert counts() == before


def test_another_namespaces_import_and_unknown_ids_are_404_pages(
    ada: Client, proj: Namespace
) -> None:
    batch = previewed(proj, v2(CAT))
    namespace_get_or_create(name="other")
    for path in (
        url("import", batch.pk, ns="other"),
        url("import_status", batch.pk, ns="other"),
        url("import_undo", batch.pk, ns="other"),
        url("import", 999999),
    ):
        response = ada.get(path)
        assert response.status_code == 404
        assert "import_not_found" in html_of(response)
    before = counts()
    assert ada.post(url("import_commit", batch.pk, ns="other")).status_code == 404
    assert ada.post(url("import_undo", batch.pk, ns="other")).status_code == 404
    assert counts() == before
    assert ada.get(url("imports", ns="nowhere")).status_code == 404


# --- the list and new imports ------------------------------------------------------------------


def test_the_list_explains_the_three_steps_with_both_prompts_and_a_copy_button(
    ada: Client, proj: Namespace
) -> None:
    response = ada.get(url("imports"))
    assert response.status_code == 200
    html = html_of(response)
    assert "Copy this prompt into the other AI" in html
    assert "Paste its JSON answer here" in html
    assert "Check the preview and commit" in html
    assert 'id="prompt-en"' in html and 'id="prompt-zh"' in html and "readonly" in html
    assert "stratagate.external-memory.v2" in html and "请" in html
    assert html.count('data-copy-target="prompt-') == 2
    assert 'enctype="multipart/form-data"' in html and 'type="file"' in html
    for value in ("auto", "v2", "chatgpt", "claude", "mem0"):
        assert f'<option value="{value}"' in html
    assert "No imports yet." in html
    assert "graphui/js/imports.js" in html


def test_a_pasted_v2_export_is_stored_and_opens_its_preview(ada: Client, proj: Namespace) -> None:
    response = ada.post(url("imports"), {"text": sample("v2_export.json"), "format": "auto"})
    batch = ImportBatch.objects.get()
    assert response.status_code == 302 and response["Location"] == url("import", batch.pk)
    assert (batch.format, batch.total, batch.dropped, batch.top_k) == ("v2", 7, 1, 5)
    assert batch.created_by == "user:ada" and batch.source_text == sample("v2_export.json")
    assert ImportCandidate.objects.count() == 7 and ProcessingJob.objects.count() == 1
    page = ada.get(response["Location"])
    assert page.status_code == 200
    assert "is being previewed" in html_of(page)  # the success message
    assert "processing" in html_of(page) and "0 of 7 decided" in html_of(page)


def test_an_uploaded_chatgpt_export_becomes_a_conversation_import(
    ada: Client, proj: Namespace
) -> None:
    upload = SimpleUploadedFile(
        "conversations.json",
        sample("chatgpt_conversations.json").encode("utf-8"),
        content_type="application/json",
    )
    response = ada.post(url("imports"), {"file": upload, "format": "chatgpt", "top_k": "3"})
    batch = ImportBatch.objects.get()
    assert response.status_code == 302 and response["Location"] == url("import", batch.pk)
    assert (batch.format, batch.meta["kind"], batch.top_k) == ("chatgpt", "conversations", 3)
    jobs_drain()
    html = html_of(ada.get(url("import", batch.pk)))
    assert "Choosing a package manager" in html and "conversation" in html
    assert "chatgpt:" in html and "add" in html


def test_invalid_json_shows_the_code_line_and_column_keeps_the_text_and_writes_nothing(
    ada: Client, proj: Namespace
) -> None:
    text = '{\n  "candidates": [\n    {"title": "x",, "summary": "y"}\n  ]\n}'
    before = counts()
    response = ada.post(url("imports"), {"text": text, "format": "auto"})
    assert response.status_code == 422
    assert counts() == before
    html = html_of(response)
    assert "invalid_import_json" in html and 'role="alert"' in html
    assert re.search(r"<dt>Line</dt><dd>3</dd>", html)
    assert re.search(r"<dt>Column</dt><dd>19</dd>", html)
    assert "&quot;title&quot;: &quot;x&quot;,, &quot;summary&quot;" in html  # kept, escaped


def test_a_hostile_paste_that_is_not_json_is_echoed_as_text(ada: Client, proj: Namespace) -> None:
    text = f"</textarea>{SCRIPT}{IMG}"
    response = ada.post(url("imports"), {"text": text})
    assert response.status_code == 422
    html = html_of(response)
    assert SCRIPT not in html and IMG not in html and "</textarea><script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_an_oversized_paste_or_file_is_413_and_writes_nothing(ada: Client, proj: Namespace) -> None:
    before = counts()
    big = "x" * (4 * 1024 * 1024 + 1)
    response = ada.post(url("imports"), {"text": big})
    assert response.status_code == 413 and "import_too_large" in html_of(response)
    assert "at most 4 MiB" in html_of(response)
    upload = SimpleUploadedFile("big.json", big.encode(), content_type="application/json")
    response = ada.post(url("imports"), {"file": upload})
    assert response.status_code == 413 and "import_too_large" in html_of(response)
    assert counts() == before


def test_an_unknown_format_a_bad_file_and_text_plus_file_are_refused_by_name(
    ada: Client, proj: Namespace
) -> None:
    before = counts()
    response = ada.post(url("imports"), {"text": v2(CAT), "format": "yaml"})
    assert response.status_code == 422 and "invalid_format" in html_of(response)
    latin1 = SimpleUploadedFile("x.json", '{"title": "café"}'.encode("latin-1"))
    response = ada.post(url("imports"), {"file": latin1})
    assert response.status_code == 422 and "invalid_utf8" in html_of(response)
    upload = SimpleUploadedFile("x.json", v2(CAT).encode())
    response = ada.post(url("imports"), {"file": upload, "text": v2(CAT)})
    assert response.status_code == 422 and "text_and_file" in html_of(response)
    response = ada.post(url("imports"), {"text": "   "})
    assert response.status_code == 422 and "empty_import" in html_of(response)
    response = ada.post(url("imports"), {"text": '{"hello": 1}'})
    assert response.status_code == 422 and "unrecognized_format" in html_of(response)
    response = ada.post(url("imports"), {"text": v2(CAT), "top_k": "50"})
    assert response.status_code == 422 and "errorlist" in html_of(response)
    assert counts() == before


# --- the preview -------------------------------------------------------------------------------


def test_preview_rows_show_actions_confidences_matches_and_the_threshold(
    ada: Client, proj: Namespace, coffee: Event
) -> None:
    batch = previewed(proj, v2(TEA, CAT))
    assert batch.status == "awaiting_confirmation"
    html = html_of(ada.get(url("import", batch.pk)))
    assert "awaiting your choices" in html and "1 row needs your choice" in html
    assert 'id="threshold">0.85<' in html
    row0 = html[html.index('id="row-0"') : html.index('id="row-1"')]
    row1 = html[html.index('id="row-1"') :]
    assert "≠ conflict" in row0 and "0.60" in row0 and "needs your choice" in row0
    assert f'href="{url("event", coffee.pk)}"' in row0 and coffee.title in row0
    assert '<select name="action-0" id="action-0"' in row0
    assert '<option value="ignore" selected>' in row0  # the default, SPEC §11.3
    assert f'name="targets-0" value="{coffee.pk}" checked' in row0
    assert "+ add" in row1 and "0.90" in row1 and "auto-applied" in row1
    assert "action-1" not in row1 and 'class="reason' in row1
    assert f'action="{url("import_commit", batch.pk)}"' in html
    assert 'data-live-refresh="import.progress"' in html
    assert f'data-live-match="import_id:{batch.pk}"' in html


def test_a_row_without_matches_offers_only_add_or_ignore(ada: Client, proj: Namespace) -> None:
    batch = previewed(proj, v2(CAT))
    ImportCandidate.objects.filter(batch=batch).update(confidence=0.5)  # low, no matches
    html = html_of(ada.get(url("import", batch.pk)))
    options = re.findall(r'<option value="(\w+)"', html[html.index('name="action-0"') :])
    assert options[:2] == ["add", "ignore"] and "merge" not in options[:2]


def test_status_json_and_partials_follow_the_preview(ada: Client, proj: Namespace) -> None:
    batch = import_create(namespace=proj, text=v2(TEA, CAT))
    body = ada.get(url("import_status", batch.pk)).json()
    assert body["status"] == "processing" and (body["processed"], body["total"]) == (0, 2)
    assert body["job"]["status"] == "queued" and body["requires_confirmation_count"] == 0
    jobs_drain()
    body = ada.get(url("import_status", batch.pk)).json()
    assert body == {
        "status": "ready",
        "processed": 2,
        "total": 2,
        "requires_confirmation_count": 0,
        "job": {"id": body["job"]["id"], "status": "succeeded", "attempts": 1, "error": None},
    }
    progress = html_of(ada.get(url("import", batch.pk) + "?partial=progress"))
    assert "<html" not in progress and 'data-import-status="ready"' in progress
    rows = html_of(ada.get(url("import", batch.pk) + "?partial=rows"))
    assert "<html" not in rows and 'id="row-1"' in rows and "csrfmiddlewaretoken" in rows
    assert_fragments_are_in_the_page(ada, url("import", batch.pk), ("progress", "rows"))
    # Any other name is a 404, never the whole page inside the page.
    for unknown in ("summary", "1", ""):
        refused = ada.get(url("import", batch.pk), {"partial": unknown})
        assert refused.status_code == 404 and "partial_not_found" in html_of(refused)


def test_a_failed_preview_job_shows_its_redacted_error_and_the_processing_page(
    ada: Client, proj: Namespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError(f"search backend is down {SECRET}")

    monkeypatch.setattr(preview_module, "decide_memory", broken)
    batch = import_create(namespace=proj, text=v2(CAT))
    jobs_drain()
    html = html_of(ada.get(url("import", batch.pk)))
    assert "✕ failed" in html and "The preview job failed" in html
    assert "search backend is down" in html and "[REDACTED]" in html and SECRET not in html
    assert f'href="{url("processing")}"' in html
    assert ada.get(url("import_status", batch.pk)).json()["status"] == "failed"


def test_candidate_text_reasons_and_source_system_are_escaped_and_redacted(
    ada: Client, proj: Namespace
) -> None:
    batch = previewed(
        proj, v2(cand(SCRIPT, IMG), cand("Key", f"Staging uses {SECRET}."), source=SCRIPT)
    )
    for path in (url("import", batch.pk), url("imports")):
        html = html_of(ada.get(path))
        assert SCRIPT not in html and IMG not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
        assert SECRET not in html
    html = html_of(ada.get(url("import", batch.pk)))
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "[REDACTED]" in html


def test_hostile_matched_events_stay_text_on_every_import_page(ada: Client) -> None:
    hostile = hostile_namespace_create()
    event = Event.objects.get(namespace=hostile)
    batch = previewed(hostile, v2(cand("Decision about scripts", "We decided to use a link.")))
    assert event.pk in ImportCandidate.objects.get(batch=batch).match_event_ids
    ada.post(url("import_commit", batch.pk, ns="hostile"), {"action-0": "ignore"})
    for path in (
        url("imports", ns="hostile"),
        url("import", batch.pk, ns="hostile"),
        url("import_undo", batch.pk, ns="hostile"),
    ):
        html = html_of(ada.get(path))
        for probe in PROBES[:2]:
            assert probe not in html
        assert 'href="javascript:' not in html
    page = html_of(ada.get(url("import", batch.pk, ns="hostile")))
    assert "Decision &lt;script&gt;alert(&quot;xss-script&quot;)&lt;/script&gt;" in page
