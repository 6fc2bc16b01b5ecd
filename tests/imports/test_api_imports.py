"""Importing another AI's memories through the API: preview, commit, undo, and every refusal."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from memory.models import (
    Block,
    BlockView,
    Event,
    EventRelation,
    EventStatus,
    ImportBatch,
    ImportCandidate,
    Message,
    Namespace,
    ProcessingJob,
    Session,
    Turn,
)
from tests.dumps import memory_dump
from tests.imports.conftest import candidate, run_import, sample, v2

pytestmark = pytest.mark.django_db


def _commit(owner, import_id: int, choices=None):
    body = {"choices": choices} if choices is not None else {}
    return owner.post(f"/ns/proj/imports/{import_id}/commit", body)


def test_sample_export_is_previewed_committed_and_undone(owner, drain):
    created = owner.post("/ns/proj/imports", {"text": sample("v2_export.json")})
    assert created.status_code == 202
    assert created.json()["status"] == "processing"
    import_id = created.json()["import_id"]
    assert Event.objects.count() == 0 and ImportCandidate.objects.count() == 7
    drain()
    preview = owner.get(f"/ns/proj/imports/{import_id}").json()
    assert preview["status"] == "ready"
    assert (preview["processed"], preview["total"], preview["dropped"]) == (7, 7, 1)
    assert [d["action"] for d in preview["decisions"]] == ["add"] * 7
    assert Event.objects.count() == 0  # the preview writes no memory

    response = _commit(owner, import_id)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "committed" and len(body["created_event_ids"]) == 7
    block = Block.objects.get(pk=body["source_block_id"])
    assert block.status == "ready" and block.anchor_level == 5 and block.anchor_position == 1
    assert sorted(BlockView.objects.filter(block=block).values_list("level", flat=True)) == [
        0,
        1,
        2,
        3,
        4,
        5,
    ]
    turn = Turn.objects.get(block=block)
    assert turn.synthetic and turn.namespace_turn == 0
    assert Namespace.objects.get(name="proj").current_turn == 0
    assert block.session.external_id == f"import:{import_id}"
    assert Message.objects.get(turn=turn).content == sample("v2_export.json")
    events = {e.title: e for e in Event.objects.all()}
    assert {e.origin for e in events.values()} == {"import"}
    assert {e.source_block_id for e in events.values()} == {block.pk}
    postgres = events["Atlas switched to PostgreSQL"]
    assert postgres.event_type == "decision" and postgres.temporal_status == "occurred"
    assert postgres.happened_start == datetime(2024, 3, 1, tzinfo=UTC)
    assert postgres.happened_end == datetime(2024, 3, 31, 23, 59, 59, 999999, tzinfo=UTC)
    assert (postgres.temporal_precision, postgres.temporal_basis) == ("month", "explicit")
    assert postgres.mentioned_at == datetime(2024, 3, 4, tzinfo=UTC)
    assert postgres.scope == "project"
    beta = events["Atlas beta planned"]
    assert beta.happened_start is None and beta.temporal_text == "next month"
    assert beta.event_type == "plan" and beta.temporal_status == "planned"
    assert events["Answer in British English"].criticality == "preference"
    assert events["User is a backend engineer"].criticality == "identity"
    chess = events["Plays chess on Sundays"]
    assert (chess.scope, chess.criticality) == ("user", "routine")  # bad enums dropped
    assert ProcessingJob.objects.filter(kind="graph_project").count() == 1

    undone = owner.post(f"/ns/proj/imports/{import_id}/undo")
    assert undone.status_code == 200
    assert sorted(undone.json()["removed_event_ids"]) == sorted(body["created_event_ids"])
    assert Event.objects.count() == 0
    assert not Block.objects.exists() and not Turn.objects.exists()
    assert not Session.objects.exists() and not Message.objects.exists()
    assert not ProcessingJob.objects.filter(kind="graph_project").exists()
    assert ImportBatch.objects.get().status == "undone"

    again = owner.post(f"/ns/proj/imports/{import_id}/undo")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "import_already_undone"
    assert _commit(owner, import_id).json()["error"]["code"] == "import_undone"


@pytest.mark.parametrize(
    ("text", "params", "status", "code"),
    [
        ('{"candidates": [\n  {"title": "x",}\n]}', {}, 422, "invalid_import_json"),
        ("[1, 2]", {"format": "v2"}, 422, "invalid_import_root"),
        (
            '{"schemaVersion": "stratagate.external-memory.v3"}',
            {},
            422,
            "unsupported_schema_version",
        ),
        ('{"sourceType": "chat_log", "candidates": []}', {}, 422, "invalid_source_type"),
        ('{"candidates": {"title": "x"}}', {}, 422, "invalid_candidates"),
        ('"just a string"', {}, 422, "unrecognized_format"),
        ("   ", {}, 422, "empty_import"),
        ("{}", {"format": "yaml"}, 422, "invalid_format"),
        ("{}", {"top_k": 0}, 422, "invalid_top_k"),
        ("{}", {"top_k": 21}, 422, "invalid_top_k"),
    ],
)
def test_a_bad_import_is_refused_with_a_named_problem_and_nothing_written(
    owner, text, params, status, code
):
    response = owner.post("/ns/proj/imports", {"text": text, **params})
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    assert not ImportBatch.objects.exists() and not ProcessingJob.objects.exists()


def test_invalid_json_error_names_line_and_column(owner):
    response = owner.post("/ns/proj/imports", {"text": '{\n  "candidates": [\n    {"title": }\n'})
    error = response.json()["error"]
    assert error["details"]["line"] == 3 and error["details"]["column"] == 15
    assert "line 3, column 15" in error["message"]


def test_more_than_200_candidates_is_413_and_nothing_written(owner):
    text = v2(*[candidate(f"Fact {i}", f"Summary {i}") for i in range(201)])
    response = owner.post("/ns/proj/imports", {"text": text})
    assert response.status_code == 413
    assert response.json()["error"]["details"] == {"count": 201, "limit": 200}
    assert not ImportBatch.objects.exists()


def test_more_than_4_mib_is_413_and_nothing_written(owner):
    text = v2(candidate("Big", "x" * (4 * 1024 * 1024)))
    response = owner.post("/ns/proj/imports", {"text": text})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "import_too_large"
    assert not ImportBatch.objects.exists()


def test_a_fenced_answer_is_unwrapped(owner, drain):
    text = "```json\n" + v2(candidate("Likes hiking", "The user hikes on weekends.")) + "\n```"
    preview = run_import(owner, drain, text)
    assert preview["total"] == 1 and preview["decisions"][0]["candidate"]["title"] == "Likes hiking"


def test_exact_duplicates_are_ignored_with_full_confidence(owner, drain, one_turn_blocks, say):
    say("I work at Acme Corp.")
    drain()
    existing = Event.objects.get()
    text = v2(
        candidate(existing.title, f"  {existing.summary.upper()} "),
        candidate("Lives in Oslo", "The user lives in Oslo."),
        candidate("lives in oslo", "the user lives in  Oslo."),
    )
    decisions = run_import(owner, drain, text)["decisions"]
    assert decisions[0]["action"] == "ignore" and decisions[0]["confidence"] == 1.0
    assert decisions[0]["target_event_ids"] == [existing.pk]
    assert decisions[2]["action"] == "ignore" and decisions[2]["target_event_ids"] == []
    assert decisions[2]["reason"] == "duplicate of an earlier candidate in this import"


def test_low_confidence_rows_wait_and_default_to_ignore(owner, drain, one_turn_blocks, say):
    say("I prefer coffee in the morning.")
    drain()
    coffee = Event.objects.get()
    text = v2(
        candidate("Prefers tea", "I prefer tea in the morning."),
        candidate("Owns a cat", "The user has a cat called Miso."),
    )
    preview = run_import(owner, drain, text)
    assert preview["status"] == "awaiting_confirmation"
    assert preview["requires_confirmation_count"] == 1
    tea = preview["decisions"][0]
    assert (tea["action"], tea["target_event_ids"]) == ("conflict", [coffee.pk])
    assert tea["requires_confirmation"] and tea["confidence"] < 0.85

    body = _commit(owner, preview["import_id"]).json()
    assert len(body["created_event_ids"]) == 1  # only the cat
    assert Event.objects.get(pk=body["created_event_ids"][0]).title == "Owns a cat"
    assert not EventRelation.objects.exists()
    row = ImportCandidate.objects.get(index=0)
    assert (row.chosen_action, row.reason) == ("ignore", "not confirmed; ignored")


def test_a_chosen_supersede_is_applied_and_undo_restores_the_old_event(
    owner, drain, one_turn_blocks, say
):
    say("I prefer coffee in the morning.")
    drain()
    coffee = Event.objects.get()
    preview = run_import(owner, drain, v2(candidate("Prefers tea", "I prefer tea in the morning.")))
    body = _commit(owner, preview["import_id"], [{"index": 0, "action": "supersede"}]).json()
    coffee.refresh_from_db()
    assert coffee.status == "superseded" and coffee.superseded_by_id == body["created_event_ids"][0]
    assert body["changed_event_ids"] == [coffee.pk]

    undone = owner.post(f"/ns/proj/imports/{preview['import_id']}/undo").json()
    assert undone["restored_event_ids"] == [coffee.pk]
    coffee.refresh_from_db()
    assert (coffee.status, coffee.superseded_by_id) == ("active", None)
    assert not EventRelation.objects.exists()


def test_conflict_links_both_ways_and_undo_removes_them(owner, drain, one_turn_blocks, say):
    say("I prefer coffee in the morning.")
    drain()
    coffee = Event.objects.get()
    preview = run_import(owner, drain, v2(candidate("Prefers tea", "I prefer tea in the morning.")))
    body = _commit(owner, preview["import_id"], [{"index": 0, "action": "CONFLICT"}]).json()
    tea = body["created_event_ids"][0]
    links = set(EventRelation.objects.values_list("from_event_id", "to_event_id", "kind"))
    assert links == {(tea, coffee.pk, "conflicts_with"), (coffee.pk, tea, "conflicts_with")}
    coffee.refresh_from_db()
    assert coffee.status == "active"
    owner.post(f"/ns/proj/imports/{preview['import_id']}/undo")
    assert not EventRelation.objects.exists() and Event.objects.count() == 1


def test_a_choice_targeting_an_unmatched_event_is_422_and_nothing_written(
    owner, drain, one_turn_blocks, say
):
    say("I prefer coffee in the morning.")
    say("I live in Berlin.")
    drain()
    berlin = Event.objects.get(summary__contains="Berlin")
    preview = run_import(owner, drain, v2(candidate("Prefers tea", "I prefer tea in the morning.")))
    assert berlin.pk not in preview["decisions"][0]["match_event_ids"]
    choice = {"index": 0, "action": "supersede", "target_event_ids": [berlin.pk]}
    response = _commit(owner, preview["import_id"], [choice])
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_choice_target"
    assert (
        Event.objects.count() == 2 and ImportBatch.objects.get().status == "awaiting_confirmation"
    )
    bad_index = _commit(owner, preview["import_id"], [{"index": 7, "action": "add"}])
    assert bad_index.json()["error"]["code"] == "invalid_choice"


def test_commit_is_refused_when_the_matched_memory_changed_since_the_preview(
    owner, admin, drain, one_turn_blocks, say
):
    say("I prefer coffee in the morning.")
    drain()
    coffee = Event.objects.get()
    preview = run_import(owner, drain, v2(candidate("Prefers tea", "I prefer tea in the morning.")))
    assert admin.post(f"/ns/proj/events/{coffee.pk}/pin").status_code == 200
    before = memory_dump(Namespace.objects.get(name="proj"))
    response = _commit(owner, preview["import_id"], [{"index": 0, "action": "supersede"}])
    assert response.status_code == 409 and response.json()["error"]["code"] == "import_stale"
    assert memory_dump(Namespace.objects.get(name="proj")) == before
    assert ImportBatch.objects.get().status == "awaiting_confirmation"


def test_commit_before_the_preview_finished_is_409(owner):
    created = owner.post("/ns/proj/imports", {"text": sample("v2_export.json")}).json()
    response = _commit(owner, created["import_id"])
    assert response.status_code == 409 and response.json()["error"]["code"] == "import_not_ready"
    assert Event.objects.count() == 0


def test_committing_twice_is_409(owner, drain):
    preview = run_import(owner, drain, v2(candidate("Owns a cat", "The user has a cat.")))
    assert _commit(owner, preview["import_id"]).status_code == 200
    second = _commit(owner, preview["import_id"])
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "import_already_committed"
    assert Event.objects.count() == 1


def test_undo_of_an_uncommitted_import_is_409(owner, drain):
    preview = run_import(owner, drain, v2(candidate("Owns a cat", "The user has a cat.")))
    response = owner.post(f"/ns/proj/imports/{preview['import_id']}/undo")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "import_not_committed"


def test_a_read_token_cannot_import_and_a_stranger_sees_nothing(owner, reader, stranger, drain):
    preview = run_import(owner, drain, v2(candidate("Owns a cat", "The user has a cat.")))
    assert reader.post("/ns/proj/imports", {"text": "{}"}).status_code == 403
    assert reader.get(f"/ns/proj/imports/{preview['import_id']}").status_code == 403
    assert stranger.get(f"/ns/proj/imports/{preview['import_id']}").status_code == 404
    assert stranger.post(f"/ns/proj/imports/{preview['import_id']}/commit", {}).status_code == 404
    assert stranger.get("/ns/proj/export").status_code == 404
    assert reader.get("/ns/proj/export").status_code == 200
    assert reader.get("/import-prompt").status_code == 200
    assert owner.get("/ns/proj/imports/999999").json()["error"]["code"] == "import_not_found"
    assert ImportBatch.objects.count() == 1


def test_imports_are_listed_newest_first(owner, drain):
    first = run_import(owner, drain, v2(candidate("One", "First fact.")))
    second = run_import(owner, drain, v2(candidate("Two", "Second fact.")))
    listed = owner.get("/ns/proj/imports").json()["imports"]
    assert [i["import_id"] for i in listed] == [second["import_id"], first["import_id"]]
    assert {i["status"] for i in listed} == {"ready"}


def test_the_export_prompt_is_served_in_english_and_chinese(reader):
    english = reader.get("/import-prompt", lang="en").json()
    chinese = reader.get("/import-prompt", lang="zh").json()
    for body in (english, chinese):
        assert body["schema_version"] == "stratagate.external-memory.v2"
        assert "external_ai_memory_export" in body["prompt"]
        assert '"candidates": []' in body["prompt"]
    assert "Never output null" in english["prompt"]
    assert "绝不输出 null" in chinese["prompt"]
    response = reader.get("/import-prompt", lang="fr")
    assert response.status_code == 422 and response.json()["error"]["code"] == "invalid_lang"


def test_v2_export_carries_lifecycle_and_reimports_only_active_events(
    owner, drain, one_turn_blocks, say
):
    say("Use npm for the Atlas project.")
    say("Let's switch to pnpm for Atlas. My token is sk-abcdefghijklmnopqrstuvwx")
    drain()
    document = owner.get("/ns/proj/export", format="v2").json()
    assert document["schemaVersion"] == "stratagate.external-memory.v2"
    states = {c["stratagate"]["status"] for c in document["candidates"]}
    assert states == {"active", "superseded"}
    assert "sk-abcdefghijklmnopqrstuvwx" not in json.dumps(document)
    superseded = next(
        c for c in document["candidates"] if c["stratagate"]["status"] == "superseded"
    )
    assert superseded["stratagate"]["supersededBy"] is not None
    assert owner.get("/ns/proj/export", format="xml").status_code == 422

    from tests.conftest import make_api

    other = make_api("read-write", namespaces=("copy",))
    created = other.post("/ns/copy/imports", {"text": json.dumps(document)}).json()
    drain()
    preview = other.get(f"/ns/copy/imports/{created['import_id']}").json()
    assert preview["total"] == 1 and preview["meta"]["skipped_inactive"] == 1


def test_graph_projection_of_imported_events_is_undone(owner, drain, one_turn_blocks, say):
    say("Use npm for the Atlas project.")
    drain()
    before = memory_dump(Namespace.objects.get(name="proj"))
    text = v2(
        candidate(
            "Atlas uses pnpm",
            "Let's switch to pnpm for the Atlas project.",
            temporal={"eventType": "decision", "mentionedAt": "2030-01-01"},
        )
    )
    preview = run_import(owner, drain, text)
    assert preview["decisions"][0]["action"] == "supersede"
    assert preview["decisions"][0]["requires_confirmation"]
    _commit(owner, preview["import_id"], [{"index": 0, "action": "supersede"}])
    drain()
    project = next(n for n in owner.get("/ns/proj/graph").json()["nodes"] if n["type"] == "project")
    assert project["current_state"]["package_manager"] == "pnpm"

    owner.post(f"/ns/proj/imports/{preview['import_id']}/undo")
    project = next(n for n in owner.get("/ns/proj/graph").json()["nodes"] if n["type"] == "project")
    assert project["current_state"]["package_manager"] == "npm"
    assert memory_dump(Namespace.objects.get(name="proj")) == before
    assert EventStatus.SUPERSEDED not in set(Event.objects.values_list("status", flat=True))
