"""Import pages, part two: commit with choices, stale previews, undo after a confirmation, CSRF,
no write on a GET, and query counts."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from memory.models import (
    AdminAction,
    Event,
    EventStatus,
    ImportBatch,
    ImportCandidate,
    Namespace,
    NamespaceGrant,
    Role,
    Session,
)
from memory.services.events import event_lifecycle
from memory.services.imports import import_create
from memory.services.jobs import jobs_drain
from tests.graphui.imports.support import (
    CAT,
    TEA,
    cand,
    counts,
    html_of,
    previewed,
    sample,
    url,
    v2,
)

pytestmark = pytest.mark.django_db


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
    response = ada.post(url("import_commit", batch.pk), {"action-0": "merge", "targets-0": "999"})
    assert response.status_code == 422 and "among this row" in html_of(response)
    assert counts() == before
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
    eve = django_user_model.objects.create_user("eve")
    NamespaceGrant.objects.create(user=eve, namespace=proj, role=Role.EDITOR)  # may write here
    strict.force_login(eve)
    before = counts()
    assert strict.post(url("imports"), {"text": v2(TEA)}).status_code == 403
    assert strict.post(url("import_commit", batch.pk)).status_code == 403
    assert counts() == before
    ada = Client()
    ada.force_login(eve)
    assert ada.post(url("import_commit", batch.pk)).status_code == 302
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
