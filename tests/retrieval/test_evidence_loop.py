"""The whole evidence loop through the API with only a token: context → search → expand →
assess → record use, and the receipt rules of SPEC §9–§10."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import Assessment, BatchStatus, Event, RetrievalBatch, UsageItem, UsageReceipt
from tests.retrieval.conftest import the_events

pytestmark = pytest.mark.django_db


def _weights() -> dict[int, tuple[int, int]]:
    return {e.pk: (e.adoptions, e.last_adopted_turn) for e in Event.objects.order_by("pk")}


def _sufficient(owner: Any, batch_id: str, refs: list[str], **extra: Any) -> dict[str, Any]:
    response = owner.post(
        "/ns/proj/assess",
        {
            "batch_id": batch_id,
            "verdict": "sufficient",
            "evidence_refs": refs,
            "fit": "The switch to pnpm answers it.",
            "missing": "",
            "next_strategy": "answer",
            **extra,
        },
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_the_whole_loop_with_only_a_token(project):
    npm, pnpm, _ = the_events(project)
    before = _weights()
    health = project.get("/ns/proj/health").json()["counts"]
    assert (health["receipts"], health["adoptions"]) == (0, 0)

    # 1. Context before the model call, in a new session: other sessions' memory, as background.
    context = project.get("/ns/proj/context", session_id="s2", query="Which package manager?")
    assert context.status_code == 200
    activated = context.json()["activated"]
    assert f"event:{pnpm['id']}" in [e["ref"] for e in activated["events"]]
    assert "not as instructions" in activated["framing"]

    # 2. Search events, the graph and raw messages.
    events = project.post(
        "/ns/proj/search/events", {"query": "package manager", "session_id": "s2"}
    ).json()
    graph = project.post(
        "/ns/proj/search/graph", {"query": "package manager", "session_id": "s2"}
    ).json()
    raw = project.post("/ns/proj/search/raw", {"query": "pnpm"}).json()
    assert events["results"] and graph["results"] and raw["results"]

    # 3. Expand the event found by the search.
    expanded = project.get(
        f"/ns/proj/events/{pnpm['id']}", batch_id=events["batch_id"], session_id="s2"
    ).json()
    batch_id = expanded["batch_id"]

    # 4. Assess with wrong refs: each rejected with its index and reason; downgraded.
    wrong = project.post(
        "/ns/proj/assess",
        {
            "batch_id": batch_id,
            "verdict": "sufficient",
            "evidence_refs": [f"event:{npm['id']}", "", f"event:{pnpm['id']}x"],
            "fit": "npm",
            "missing": "",
            "next_strategy": "answer",
        },
    )
    assert wrong.status_code == 200
    body = wrong.json()
    assert body["verdict"] == "partial" and body["next_strategy"] == "search_events"
    assert [(r["index"], r["reason"]) for r in body["rejected_refs"]] == [
        (0, "not_in_batch"),
        (1, "invalid_ref"),
        (2, "invalid_ref"),
    ]
    assert body["missing"] and "sufficient_without_evidence" in {n["code"] for n in body["notes"]}

    # 5. Assess correctly.
    right = _sufficient(project, batch_id, [f"event:{pnpm['id']}"])
    assert right["verdict"] == "sufficient" and right["accepted_refs"] == [f"event:{pnpm['id']}"]

    # 6. Record use twice with the same receipt: reinforced once.
    use = {
        "batch_id": batch_id,
        "evidence_refs": [f"event:{pnpm['id']}"],
        "receipt_id": "call-1",
        "answer": "We use pnpm.",
    }
    first = project.post("/ns/proj/record-use", use)
    assert first.status_code == 200, first.content
    assert first.json()["duplicate"] is False
    assert first.json()["reinforced_event_ids"] == [pnpm["id"]]
    assert first.json()["batch_closed"] is True
    second = project.post("/ns/proj/record-use", use)
    assert second.status_code == 200 and second.json()["duplicate"] is True

    after = _weights()
    current_turn = project.get("/ns/proj/health").json()["current_turn"]
    assert after[pnpm["id"]] == (2, current_turn)
    assert {k: v for k, v in after.items() if k != pnpm["id"]} == {
        k: v for k, v in before.items() if k != pnpm["id"]
    }
    assert UsageReceipt.objects.count() == 1
    assert RetrievalBatch.objects.get(public_id=batch_id).status == BatchStatus.CLOSED
    counts = project.get("/ns/proj/health").json()["counts"]
    assert (counts["receipts"], counts["zero_increment_receipts"], counts["adoptions"]) == (1, 0, 1)


def test_searches_alone_change_no_adoption_counts(project):
    # "health shows that retrieval alone changed no adoption counts"
    for query in ("pnpm", "npm", "prototype", "package manager"):
        for kind in ("events", "graph", "raw"):
            project.post(f"/ns/proj/search/{kind}", {"query": query})
    project.get("/ns/proj/context", session_id="s2", query="pnpm")
    health = project.get("/ns/proj/health").json()
    assert health["counts"]["adoptions"] == 0
    assert health["counts"]["receipts"] == 0
    assert health["retrieval"]["batches"] == {"open": 12}
    assert health["retrieval"]["activations"] == 1
    assert all(e.adoptions == 1 for e in Event.objects.all())


def _batch_with_sufficient(project: Any, pnpm: dict[str, Any]) -> str:
    batch_id = project.post("/ns/proj/search/events", {"query": "package manager"}).json()[
        "batch_id"
    ]
    _sufficient(project, batch_id, [f"event:{pnpm['id']}"])
    return batch_id


def test_reusing_a_receipt_with_other_content_is_409_and_changes_nothing(project):
    _npm, pnpm, _ = the_events(project)
    batch_id = _batch_with_sufficient(project, pnpm)
    ok = {"batch_id": batch_id, "evidence_refs": [f"event:{pnpm['id']}"], "receipt_id": "r1"}
    assert project.post("/ns/proj/record-use", ok).status_code == 200
    before = _weights()
    for changed in (
        {**ok, "evidence_refs": []},
        {**ok, "answer": "something else"},
        {**ok, "batch_id": _batch_with_sufficient(project, pnpm)},
    ):
        response = project.post("/ns/proj/record-use", changed)
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "receipt_conflict"
    assert _weights() == before
    assert UsageReceipt.objects.count() == 1 and UsageItem.objects.count() == 1


def test_refs_not_accepted_by_a_sufficient_assessment_are_422_and_change_nothing(project):
    npm, pnpm, _ = the_events(project)
    batch_id = project.post("/ns/proj/search/events", {"query": "package manager"}).json()[
        "batch_id"
    ]
    use = {"batch_id": batch_id, "evidence_refs": [f"event:{pnpm['id']}"], "receipt_id": "r1"}
    before = _weights()

    # No assessment at all.
    response = project.post("/ns/proj/record-use", use)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "no_sufficient_assessment"
    # A partial assessment is not enough.
    project.post(
        "/ns/proj/assess",
        {
            "batch_id": batch_id,
            "verdict": "partial",
            "evidence_refs": [f"event:{pnpm['id']}"],
            "fit": "",
            "next_strategy": "search_graph",
        },
    )
    assert project.post("/ns/proj/record-use", use).status_code == 422
    # Sufficient, but for another ref.
    _sufficient(project, batch_id, [f"event:{npm['id']}"])
    response = project.post("/ns/proj/record-use", use)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "refs_not_accepted"
    assert error["details"]["refs"] == [{"index": 0, "ref": f"event:{pnpm['id']}"}]

    assert _weights() == before
    assert UsageReceipt.objects.count() == 0
    assert RetrievalBatch.objects.get(public_id=batch_id).status == BatchStatus.OPEN


def test_an_empty_use_writes_a_zero_increment_receipt_and_closes_the_batch(project):
    batch_id = project.post("/ns/proj/search/events", {"query": "prototype"}).json()["batch_id"]
    before = _weights()
    response = project.post(
        "/ns/proj/record-use", {"batch_id": batch_id, "evidence_refs": [], "receipt_id": "z1"}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["zero_increment"] is True and body["reinforced_event_ids"] == []
    assert body["batch_id"] == batch_id
    receipt = UsageReceipt.objects.get(receipt_id="z1")
    assert receipt.batch.public_id == batch_id and receipt.evidence_refs == []
    assert _weights() == before
    assert RetrievalBatch.objects.get(public_id=batch_id).status == BatchStatus.CLOSED
    counts = project.get("/ns/proj/health").json()["counts"]
    assert (counts["receipts"], counts["zero_increment_receipts"], counts["adoptions"]) == (1, 1, 0)
    # A closed batch cannot be assessed or used again.
    again = project.post(
        "/ns/proj/assess",
        {
            "batch_id": batch_id,
            "verdict": "partial",
            "evidence_refs": [],
            "next_strategy": "search_raw",
        },
    )
    assert again.status_code == 409 and again.json()["error"]["code"] == "batch_closed"
    other = project.post(
        "/ns/proj/record-use", {"batch_id": batch_id, "evidence_refs": [], "receipt_id": "z2"}
    )
    assert other.status_code == 409 and other.json()["error"]["code"] == "batch_closed"


def test_an_event_cited_through_several_refs_is_reinforced_once(project):
    _, pnpm, _ = the_events(project)
    node_id = next(
        r["node"]["id"]
        for r in project.post("/ns/proj/search/graph", {"query": "pnpm"}).json()["results"]
        if r["node"]["name"] == "project"
    )
    node = project.get(f"/ns/proj/graph/nodes/{node_id}").json()
    fact_ref = node["current_facts"][0]["ref"]
    refs = [f"event:{pnpm['id']}", fact_ref]
    _sufficient(project, node["batch_id"], refs)
    response = project.post(
        "/ns/proj/record-use",
        {"batch_id": node["batch_id"], "evidence_refs": refs, "receipt_id": "graph-1"},
    )
    assert response.json()["reinforced_event_ids"] == [pnpm["id"]]
    assert Event.objects.get(pk=pnpm["id"]).adoptions == 2  # once per receipt (SPEC §10.2)
    items = {i.ref: i for i in UsageItem.objects.all()}
    assert items[fact_ref].kind == "fact" and items[fact_ref].expanded is True
    assert list(items[fact_ref].events.values_list("pk", flat=True)) == [pnpm["id"]]


def test_a_cited_block_keeps_its_level_and_reinforces_its_events(project):
    _, pnpm, _ = the_events(project)
    block_id = pnpm["source_block_id"]
    expanded = project.post(
        f"/ns/proj/blocks/{block_id}/expand", {"target": "L2", "session_id": "s5"}
    ).json()
    _sufficient(project, expanded["batch_id"], [expanded["ref"]])
    project.post(
        "/ns/proj/record-use",
        {"evidence_refs": [expanded["ref"]], "receipt_id": "blk", "session_id": "s5"},
    )
    item = UsageItem.objects.get(receipt__receipt_id="blk")
    assert (item.kind, item.block_level, item.expanded) == ("block", 2, True)
    assert Event.objects.get(pk=pnpm["id"]).adoptions == 2


def test_batch_id_may_be_omitted_for_strictly_sequential_use(project):
    # SPEC §9.5: then the session's latest batch is used.
    _, pnpm, _plan = the_events(project)
    project.post("/ns/proj/search/events", {"query": "prototype", "session_id": "s3"})
    latest = project.post("/ns/proj/search/events", {"query": "pnpm", "session_id": "s3"}).json()
    assessed = project.post(
        "/ns/proj/assess",
        {
            "session_id": "s3",
            "verdict": "sufficient",
            "evidence_refs": [f"event:{pnpm['id']}"],
            "fit": "pnpm",
            "next_strategy": "answer",
        },
    ).json()
    assert assessed["batch_id"] == latest["batch_id"] and assessed["verdict"] == "sufficient"
    used = project.post(
        "/ns/proj/record-use",
        {"session_id": "s3", "evidence_refs": [f"event:{pnpm['id']}"], "receipt_id": "seq"},
    ).json()
    assert used["batch_id"] == latest["batch_id"]
    assert UsageReceipt.objects.get(receipt_id="seq").session.external_id == "s3"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({}, 422, "batch_id_required"),
        ({"session_id": "never-searched"}, 404, "batch_not_found"),
        ({"batch_id": "b_unknown"}, 404, "batch_not_found"),
    ],
)
def test_assess_and_use_need_a_batch(project, body, status, code):
    assess = {"verdict": "partial", "evidence_refs": [], "next_strategy": "search_raw", **body}
    use = {"evidence_refs": [], "receipt_id": "x", **body}
    for path, payload in (("/ns/proj/assess", assess), ("/ns/proj/record-use", use)):
        response = project.post(path, payload)
        assert response.status_code == status, response.content
        assert response.json()["error"]["code"] == code
    assert Assessment.objects.count() == 0 and UsageReceipt.objects.count() == 0


def test_a_batch_of_another_session_is_refused(project):
    batch_id = project.post("/ns/proj/search/events", {"query": "pnpm", "session_id": "a"}).json()[
        "batch_id"
    ]
    response = project.post(
        "/ns/proj/assess",
        {
            "batch_id": batch_id,
            "session_id": "b",
            "verdict": "partial",
            "evidence_refs": [],
            "next_strategy": "search_raw",
        },
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "batch_session_mismatch"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"verdict": "great"}, "invalid_verdict"),
        ({"next_strategy": "guess"}, "invalid_next_strategy"),
    ],
)
def test_assess_rejects_values_outside_the_enums_and_stores_nothing(project, body, code):
    batch_id = project.post("/ns/proj/search/events", {"query": "pnpm"}).json()["batch_id"]
    payload = {
        "batch_id": batch_id,
        "verdict": "partial",
        "evidence_refs": [],
        "next_strategy": "search_raw",
        **body,
    }
    response = project.post("/ns/proj/assess", payload)
    assert response.status_code == 422 and response.json()["error"]["code"] == code
    assert Assessment.objects.count() == 0


def test_gate_advice_uses_the_question_and_never_changes_the_verdict(project):
    _, pnpm, plan = the_events(project)
    batch_id = project.post("/ns/proj/search/events", {"query": "pnpm prototype"}).json()[
        "batch_id"
    ]
    body = _sufficient(
        project, batch_id, [f"event:{pnpm['id']}"], question="When did we switch to pnpm?"
    )
    assert body["verdict"] == "sufficient"
    assert [a["code"] for a in body["advice"]] == ["when_without_occurrence_date"]
    # Without `question` the batch's query is used.
    body = _sufficient(project, batch_id, [f"event:{plan['id']}"])
    assert body["advice"] == []
    done = _sufficient(
        project, batch_id, [f"event:{plan['id']}"], question="Did we finish the prototype?"
    )
    assert [a["code"] for a in done["advice"]] == ["plan_is_not_occurrence"]
    assert Assessment.objects.filter(verdict="sufficient").count() == 3


def test_record_use_needs_read_write_scope_and_strangers_get_404(project, reader, stranger):
    batch_id = project.post("/ns/proj/search/events", {"query": "pnpm"}).json()["batch_id"]
    use = {"batch_id": batch_id, "evidence_refs": [], "receipt_id": "r"}
    denied = reader.post("/ns/proj/record-use", use)
    assert denied.status_code == 403 and denied.json()["error"]["code"] == "insufficient_scope"
    for path, payload in (
        ("/ns/proj/record-use", use),
        (
            "/ns/proj/assess",
            {
                "batch_id": batch_id,
                "verdict": "partial",
                "evidence_refs": [],
                "next_strategy": "search_raw",
            },
        ),
    ):
        response = stranger.post(path, payload)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "namespace_not_found"
    assert UsageReceipt.objects.count() == 0 and Assessment.objects.count() == 0


def test_record_use_rejects_malformed_refs_and_receipt_ids(project):
    batch_id = project.post("/ns/proj/search/events", {"query": "pnpm"}).json()["batch_id"]
    bad_ref = project.post(
        "/ns/proj/record-use", {"batch_id": batch_id, "evidence_refs": ["nope"], "receipt_id": "r"}
    )
    assert bad_ref.status_code == 422 and bad_ref.json()["error"]["code"] == "invalid_ref"
    bad_id = project.post(
        "/ns/proj/record-use", {"batch_id": batch_id, "evidence_refs": [], "receipt_id": ""}
    )
    assert bad_id.status_code == 422 and bad_id.json()["error"]["code"] == "invalid_receipt_id"
    assert UsageReceipt.objects.count() == 0


def test_forgotten_events_are_not_reinforced(project, admin):
    _, pnpm, _ = the_events(project)
    batch_id = _batch_with_sufficient(project, pnpm)
    assert admin.post(f"/ns/proj/events/{pnpm['id']}/forget").status_code == 200
    body = project.post(
        "/ns/proj/record-use",
        {"batch_id": batch_id, "evidence_refs": [f"event:{pnpm['id']}"], "receipt_id": "f"},
    ).json()
    assert body["reinforced_event_ids"] == [] and body["zero_increment"] is False
    assert Event.objects.get(pk=pnpm["id"]).adoptions == 1


def test_a_long_answer_is_kept_as_its_hash(project):
    batch_id = project.post("/ns/proj/search/events", {"query": "pnpm"}).json()["batch_id"]
    answer = "x" * 20_001
    project.post(
        "/ns/proj/record-use",
        {"batch_id": batch_id, "evidence_refs": [], "receipt_id": "long", "answer": answer},
    )
    receipt = UsageReceipt.objects.get(receipt_id="long")
    assert receipt.answer_text == "" and len(receipt.answer_hash) == 64
