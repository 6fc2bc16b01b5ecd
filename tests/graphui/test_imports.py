"""Import pages (SPEC §13.7, §11): paste or upload, the preview with its progress, choices for
low-confidence rows, commit, and undo after a confirmation — each write audited, refused writes
leaving nothing behind, every memory string escaped."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import memory.services.imports.preview as preview_module
from memory.models import (
    AdminAction,
    Event,
    EventStatus,
    ImportBatch,
    ImportCandidate,
    Namespace,
    ProcessingJob,
    Session,
)
from memory.services.events import event_lifecycle
from memory.services.imports import import_create
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.browser.hostile import PROBES, hostile_namespace_create

pytestmark = pytest.mark.django_db

SAMPLES = Path(__file__).resolve().parents[1] / "imports" / "samples"
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
SECRET = "api_key=sk-abcdefghijklmnop1234"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


def v2(*candidates: dict[str, Any], source: str = "TestAI") -> str:
    return json.dumps(
        {
            "schemaVersion": "stratagate.external-memory.v2",
            "sourceType": "external_ai_memory_export",
            "sourceSystem": source,
            "candidates": list(candidates),
        }
    )


def cand(title: str, summary: str, **extra: Any) -> dict[str, Any]:
    return {"memoryKind": "fact", "title": title, "summary": summary, **extra}


TEA = cand("Prefers tea", "I prefer tea in the morning.")
CAT = cand("Owns a cat", "The user has a cat called Miso.")


@pytest.fixture
def ada(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada"))
    return client


@pytest.fixture
def proj(settings: Any) -> Namespace:
    settings.STRATAGATE_BLOCK_TURNS = 1  # each statement its own block, so events come at once
    return namespace_get_or_create(name="proj")


@pytest.fixture
def say(proj: Namespace) -> Callable[[str], None]:
    counter = {"n": 0}

    def post(text: str) -> None:
        counter["n"] += 1
        turn_ingest(
            namespace=proj,
            turn=TurnIn(
                session_id="s1",
                receipt_id=f"r{counter['n']}",
                messages=[
                    MessageIn(role="user", content=text),
                    MessageIn(role="assistant", content="Noted."),
                ],
            ),
        )
        jobs_drain()

    return post


@pytest.fixture
def coffee(say: Callable[[str], None]) -> Event:
    say("I prefer coffee in the morning.")
    return Event.objects.get()


def url(name: str, *args: Any, ns: str = "proj") -> str:
    return reverse(f"graphui:{name}", args=[ns, *args])


def previewed(namespace: Namespace, text: str, **kwargs: Any) -> ImportBatch:
    batch = import_create(namespace=namespace, text=text, created_by="user:ada", **kwargs)
    jobs_drain()
    batch.refresh_from_db()
    return batch


def counts() -> tuple[int, ...]:
    return (
        ImportBatch.objects.count(),
        ImportCandidate.objects.count(),
        ProcessingJob.objects.count(),
        Event.objects.count(),
        AdminAction.objects.count(),
        Session.objects.count(),
    )


def html_of(response: Any) -> str:
    return response.content.decode()


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


# --- commit ------------------------------------------------------------------------------------


def test_commit_with_a_choice_creates_events_records_the_choice_and_audits(
    ada: Client, proj: Namespace, coffee: Event
) -> None:
    batch = previewed(proj, v2(TEA, CAT))
    response = ada.post(
        url("import_commit", batch.pk), {"action-0": "supersede", "targets-0": str(coffee.pk)}
    )
    assert response.status_code == 302 and response["Location"] == url("import", batch.pk)
    batch.refresh_from_db()
    assert batch.status == "committed"
    tea, cat = ImportCandidate.objects.filter(batch=batch).order_by("index")
    assert (tea.chosen_action, tea.chosen_target_event_ids) == ("supersede", [coffee.pk])
    assert cat.chosen_action == "add"
    assert Event.objects.filter(origin="import").count() == 2
    coffee.refresh_from_db()
    assert coffee.status == EventStatus.SUPERSEDED
    audit = AdminAction.objects.get(action="import_commit")
    assert (audit.actor, audit.target) == ("user:ada", f"import:{batch.pk}")
    assert audit.details == {"created": 2, "changed": 1, "sessions": 0, "choices": {"supersede": 1}}
    html = html_of(ada.get(url("import", batch.pk)))
    assert "committed: 2 events created, 1 changed" in html
    assert "2 events created" in html and 'id="created-events"' in html
    for event in Event.objects.filter(origin="import"):
        assert f'href="{url("event", event.pk)}"' in html
    assert f'href="{url("timeline")}"' in html and f'href="{url("import_undo", batch.pk)}"' in html
    assert "action-0" not in html  # nothing left to choose


def test_rows_left_on_ignore_are_ignored_and_recorded(
    ada: Client, proj: Namespace, coffee: Event
) -> None:
    batch = previewed(proj, v2(TEA, CAT))
    assert ada.post(url("import_commit", batch.pk), {"action-0": "ignore"}).status_code == 302
    tea = ImportCandidate.objects.get(batch=batch, index=0)
    assert (tea.chosen_action, tea.reason) == ("ignore", "chosen: ignore")
    assert list(Event.objects.filter(origin="import").values_list("title", flat=True)) == [
        "Owns a cat"
    ]


def test_a_targeted_choice_without_a_target_is_refused_with_choices_kept(
    ada: Client, proj: Namespace, coffee: Event
) -> None:
    batch = previewed(proj, v2(TEA, CAT))
    before = counts()
    response = ada.post(url("import_commit", batch.pk), {"action-0": "merge"})
    assert response.status_code == 422 and counts() == before
    html = html_of(response)
    assert "Tick the matched memory this row should merge" in html
    assert '<option value="merge" selected>' in html
    response = ada.post(url("import_commit", batch.pk), {"action-0": "add", "targets-0": "999"})
    assert response.status_code == 422 and "among this row" in html_of(response)
    response = ada.post(url("import_commit", batch.pk), {"action-0": "explode"})
    assert response.status_code == 422 and counts() == before


def test_a_stale_preview_is_refused_nothing_written_and_can_be_previewed_again(
    ada: Client, proj: Namespace, coffee: Event
) -> None:
    batch = previewed(proj, v2(TEA, CAT))
    event_lifecycle(event=coffee, action="pin", actor="user:bob")  # memory changed since
    before = counts()
    response = ada.post(
        url("import_commit", batch.pk), {"action-0": "conflict", "targets-0": str(coffee.pk)}
    )
    assert response.status_code == 409 and counts() == before
    html = html_of(response)
    assert "import_stale" in html and "Memory changed since this preview" in html
    assert "preview it again" in html and '<option value="conflict" selected>' in html
    batch.refresh_from_db()
    assert batch.status == "awaiting_confirmation"
    again = ada.post(url("imports"), {"again": str(batch.pk)})
    fresh = ImportBatch.objects.latest("pk")
    assert again.status_code == 302 and again["Location"] == url("import", fresh.pk)
    assert fresh.source_text == batch.source_text and fresh.pk != batch.pk


def test_committing_twice_shows_the_409_message(ada: Client, proj: Namespace) -> None:
    batch = previewed(proj, v2(CAT))
    assert ada.post(url("import_commit", batch.pk)).status_code == 302
    before = counts()
    response = ada.post(url("import_commit", batch.pk))
    assert response.status_code == 409 and counts() == before
    assert "import_already_committed" in html_of(response)
    assert "This import was already committed." in html_of(response)


def test_commit_before_the_preview_finished_is_409(ada: Client, proj: Namespace) -> None:
    batch = import_create(namespace=proj, text=v2(CAT))
    response = ada.post(url("import_commit", batch.pk))
    assert response.status_code == 409 and "import_not_ready" in html_of(response)
    assert Event.objects.count() == 0 and not AdminAction.objects.exists()


# --- undo --------------------------------------------------------------------------------------


def test_the_undo_confirmation_names_what_goes_and_what_comes_back(
    ada: Client, proj: Namespace, coffee: Event
) -> None:
    batch = previewed(proj, v2(TEA, CAT))
    ada.post(url("import_commit", batch.pk), {"action-0": "supersede", "targets-0": coffee.pk})
    before = counts()
    response = ada.get(url("import_undo", batch.pk))
    assert response.status_code == 200 and counts() == before
    html = html_of(response)
    assert "Remove 2 events the import created" in html
    removed = html[html.index('id="undo-removed-events"') : html.index('id="undo-restored"')]
    assert "Prefers tea" in removed and "Owns a cat" in removed
    restored = html[html.index('id="undo-restored-events"') :]
    assert coffee.title in restored.split("</ul>")[0]
    assert f"import:{batch.pk}" in html and "Delete the imported source" in html
    assert f'action="{url("import_undo", batch.pk)}"' in html and "csrfmiddlewaretoken" in html


def test_undo_removes_the_events_restores_memory_audits_and_refuses_twice(
    ada: Client, proj: Namespace, coffee: Event
) -> None:
    batch = previewed(proj, v2(TEA, CAT))
    ada.post(url("import_commit", batch.pk), {"action-0": "supersede", "targets-0": coffee.pk})
    response = ada.post(url("import_undo", batch.pk))
    assert response.status_code == 302 and response["Location"] == url("import", batch.pk)
    batch.refresh_from_db()
    assert batch.status == "undone"
    assert list(Event.objects.values_list("pk", flat=True)) == [coffee.pk]
    coffee.refresh_from_db()
    assert coffee.status == EventStatus.ACTIVE
    audit = AdminAction.objects.get(action="import_undo")
    assert (audit.actor, audit.target) == ("user:ada", f"import:{batch.pk}")
    assert audit.details == {"removed": 2, "restored": 1}
    html = html_of(ada.get(url("import", batch.pk)))
    assert "2 events removed, 1 restored" in html and "↶ Undone" in html
    assert html.count("↶ undone") >= 2  # the rows that had been applied
    listed = html_of(ada.get(url("imports")))
    assert "↶ undone" in listed and f'href="{url("import_undo", batch.pk)}"' not in listed

    before = counts()
    again = ada.post(url("import_undo", batch.pk))
    assert again.status_code == 409 and counts() == before
    assert "import_already_undone" in html_of(again)
    assert "already undone" in html_of(ada.get(url("import_undo", batch.pk)))


def test_a_conversation_import_is_committed_and_undone_by_session(
    ada: Client, proj: Namespace
) -> None:
    batch = previewed(proj, sample("chatgpt_conversations.json"), fmt="chatgpt")
    assert ada.post(url("import_commit", batch.pk)).status_code == 302
    sessions = list(Session.objects.values_list("external_id", flat=True))
    assert sessions and all(s.startswith("chatgpt:") for s in sessions)
    html = html_of(ada.get(url("import", batch.pk)))
    assert f"{len(sessions)} conversations were imported" in html
    undo_page = html_of(ada.get(url("import_undo", batch.pk)))
    assert "imported conversations" in undo_page and sessions[0] in undo_page
    assert ada.post(url("import_undo", batch.pk)).status_code == 302
    assert not Session.objects.exists()


def test_undo_of_an_uncommitted_import_says_so(ada: Client, proj: Namespace) -> None:
    batch = previewed(proj, v2(CAT))
    html = html_of(ada.get(url("import_undo", batch.pk)))
    assert "Only a committed import can be undone" in html and "undo-button" not in html
    response = ada.post(url("import_undo", batch.pk))
    assert response.status_code == 409 and "import_not_committed" in html_of(response)


# --- writes: CSRF, GET -------------------------------------------------------------------------


def test_csrf_is_enforced_on_every_write(django_user_model: Any, proj: Namespace) -> None:
    batch = previewed(proj, v2(CAT))
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(django_user_model.objects.create_user("eve"))
    before = counts()
    assert strict.post(url("imports"), {"text": v2(TEA)}).status_code == 403
    assert strict.post(url("import_commit", batch.pk)).status_code == 403
    assert counts() == before
    ada = Client()
    ada.force_login(django_user_model.objects.get(username="eve"))
    ada.post(url("import_commit", batch.pk))
    before = counts()
    assert strict.post(url("import_undo", batch.pk)).status_code == 403
    assert counts() == before


def test_get_never_writes(ada: Client, proj: Namespace, coffee: Event) -> None:
    batch = previewed(proj, v2(TEA, CAT))
    before = counts()
    for path in (
        url("imports"),
        url("import", batch.pk),
        url("import", batch.pk) + "?partial=rows",
        url("import_status", batch.pk),
        url("import_undo", batch.pk),
    ):
        assert ada.get(path).status_code == 200
    assert ada.get(url("import_commit", batch.pk)).status_code == 405
    assert counts() == before
    batch.refresh_from_db()
    assert batch.status == "awaiting_confirmation"


# --- query counts ------------------------------------------------------------------------------


def _queries(client: Client, path: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


def test_the_list_costs_the_same_queries_for_3_or_30_imports(
    ada: Client, proj: Namespace, django_assert_max_num_queries: Any
) -> None:
    for n in range(3):
        import_create(namespace=proj, text=v2(cand(f"Fact {n}", f"Fact number {n}.")))
    few = _queries(ada, url("imports"))
    for n in range(3, 30):
        import_create(namespace=proj, text=v2(cand(f"Fact {n}", f"Fact number {n}.")))
    jobs_drain()
    assert _queries(ada, url("imports")) == few
    with django_assert_max_num_queries(12):
        ada.get(url("imports"))


def test_the_import_page_costs_the_same_queries_for_3_or_30_candidates(
    ada: Client, proj: Namespace, coffee: Event, django_assert_max_num_queries: Any
) -> None:
    few = previewed(proj, v2(TEA, CAT, cand("Owns a dog", "The user has a dog.")))
    many = previewed(
        proj,
        v2(
            TEA,
            *(cand(f"Fact {n}", f"The user collects stamps from country {n}.") for n in range(29)),
        ),
    )
    assert _queries(ada, url("import", few.pk)) == _queries(ada, url("import", many.pk))
    with django_assert_max_num_queries(12):
        ada.get(url("import", many.pk))
    for batch in (few, many):
        ada.post(url("import_commit", batch.pk))
    few_undo, many_undo = (
        _queries(ada, url("import_undo", few.pk)),
        _queries(ada, url("import_undo", many.pk)),
    )
    assert few_undo == many_undo
