"""One audited path per action (issue 26 §2–4): the API's settings, job retries and import
commit/undo go through the same services as the Memory UI and write the same admin-log row,
naming the token; installation settings need an installation token; a dump needs an admin
token and cannot put words in anyone's mouth."""

from __future__ import annotations

import pytest

from memory.models import AdminAction, JobKind, JobStatus, MemorySettings, Namespace, ProcessingJob
from memory.services.namespaces import namespace_get_or_create
from tests.conftest import ApiClient, make_api, turn_body

pytestmark = pytest.mark.django_db


def prefix(api: ApiClient) -> str:
    return f"token:{api.token.split('_')[1]}"


def test_an_installation_token_changes_settings_and_is_audited(admin: ApiClient) -> None:
    response = admin.put("/settings", {"block_lambda": 0.45})
    assert response.status_code == 200
    (row,) = AdminAction.objects.filter(action="settings")
    assert (row.namespace_id, row.actor) == (None, prefix(admin))
    assert row.details["after"]["block_lambda"] == 0.45


def test_a_namespace_admin_token_cannot_change_installation_settings(
    namespace_admin: ApiClient, owner: ApiClient
) -> None:
    before = list(MemorySettings.objects.values())
    response = namespace_admin.put("/settings", {"block_lambda": 0.45})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "installation_scope_required"
    assert owner.put("/settings", {"block_lambda": 0.45}).status_code == 403  # scope first
    assert list(MemorySettings.objects.values()) == before
    assert not AdminAction.objects.exists()


def failed_jobs(count: int) -> list[ProcessingJob]:
    namespace = namespace_get_or_create(name="proj")
    return [
        ProcessingJob.objects.create(
            namespace=namespace, kind=JobKind.GRAPH_PROJECT, status=JobStatus.FAILED, attempts=3
        )
        for _ in range(count)
    ]


def test_retrying_jobs_through_the_api_writes_the_admin_log_like_the_ui(owner: ApiClient) -> None:
    one, two, three = failed_jobs(3)
    assert owner.post(f"/ns/proj/jobs/{one.pk}/retry").status_code == 200
    retried = owner.post("/ns/proj/jobs/retry-failed").json()["jobs"]
    assert sorted(j["id"] for j in retried) == [two.pk, three.pk]
    rows = AdminAction.objects.filter(action="job_retry").order_by("id")
    assert [r.target for r in rows] == [f"job:{j.pk}" for j in (one, two, three)]
    assert {r.actor for r in rows} == {prefix(owner)}
    assert rows[0].details["before"] == {"status": "failed", "attempts": 3}
    # A refused retry writes nothing.
    again = owner.post(f"/ns/proj/jobs/{one.pk}/retry")
    assert (again.status_code, again.json()["error"]["code"]) == (409, "job_not_failed")
    assert AdminAction.objects.filter(action="job_retry").count() == 3


V2 = """{"schemaVersion": "stratagate.external-memory.v2",
  "sourceType": "external_ai_memory_export", "sourceSystem": "test",
  "candidates": [{"memoryKind": "preference", "category": "preference",
                  "title": "Prefers tea",
                  "summary": "The user prefers green tea in the morning."}]}"""


def test_import_commit_and_undo_through_the_api_are_audited(
    owner: ApiClient, drain: object
) -> None:
    import_id = owner.post("/ns/proj/imports", {"text": V2}).json()["import_id"]
    drain()  # type: ignore[operator]
    assert owner.post(f"/ns/proj/imports/{import_id}/commit", {}).status_code == 200
    assert owner.post(f"/ns/proj/imports/{import_id}/undo").status_code == 200
    rows = list(AdminAction.objects.order_by("id").values_list("action", "actor", "target"))
    target = f"import:{import_id}"
    assert rows == [
        ("import_commit", prefix(owner), target),
        ("import_undo", prefix(owner), target),
    ]


def test_a_targeted_choice_without_a_target_is_refused_and_writes_nothing(
    owner: ApiClient, drain: object
) -> None:
    import_id = owner.post("/ns/proj/imports", {"text": V2}).json()["import_id"]
    drain()  # type: ignore[operator]
    response = owner.post(
        f"/ns/proj/imports/{import_id}/commit",
        {"choices": [{"index": 0, "action": "merge", "target_event_ids": []}]},
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "choice_target_required"
    assert not AdminAction.objects.exists()
    assert owner.get(f"/ns/proj/imports/{import_id}").json()["status"] != "committed"


def test_a_stray_target_is_refused_whatever_the_action(owner: ApiClient, drain: object) -> None:
    import_id = owner.post("/ns/proj/imports", {"text": V2}).json()["import_id"]
    drain()  # type: ignore[operator]
    for action in ("add", "ignore", "merge"):
        response = owner.post(
            f"/ns/proj/imports/{import_id}/commit",
            {"choices": [{"index": 0, "action": action, "target_event_ids": [999]}]},
        )
        assert (response.status_code, response.json()["error"]["code"]) == (
            422,
            "invalid_choice_target",
        ), action
    assert owner.get(f"/ns/proj/imports/{import_id}").json()["status"] != "committed"
    assert not AdminAction.objects.exists()


def test_restored_admin_log_entries_name_the_restorer_not_the_dump(admin: ApiClient) -> None:
    assert admin.post("/ns/proj/turns", turn_body(1)).status_code == 201
    AdminAction.objects.create(
        namespace=Namespace.objects.get(name="proj"),
        actor="user:ceo",
        action="forget",
        target="event:1",
    )
    text = b"".join(admin.get("/ns/proj/export", format="jsonl").streaming_content).decode()
    forged = text.replace("user:ceo", "user:someone-else")
    restorer = make_api("admin", namespaces=("copy",))
    created = restorer.post("/ns/copy/imports", {"text": forged})
    assert created.status_code == 202
    from memory.services.jobs import jobs_drain

    jobs_drain()
    assert (
        restorer.post(f"/ns/copy/imports/{created.json()['import_id']}/commit", {}).status_code
        == 200
    )
    rows = AdminAction.objects.filter(namespace__name="copy").order_by("id")
    restored = [r for r in rows if r.action.startswith("restored:")]
    assert [r.action for r in restored] == ["restored:forget"]
    assert restored[0].actor == prefix(restorer)
    assert restored[0].details["restored"]["actor"] == "user:someone-else"
    assert not rows.filter(actor__in=["user:ceo", "user:someone-else"]).exists()
