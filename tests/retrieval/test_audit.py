"""The usage audit (SPEC §10.4–10.5): receipt → answer turn → verdict → memories → sources, and
back from a memory to every answer; injected, retrieved-but-unused and cited kept apart."""

from __future__ import annotations

import pytest

from memory.models import Event, UsageReceipt
from memory.selectors.audit import audit_chain, memory_usage
from tests.retrieval.conftest import say, the_events

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(project):
    """In session s2: context, search, sufficient assessment, use of pnpm, then the turn."""
    npm, pnpm, _ = the_events(project)
    project.get("/ns/proj/context", session_id="s2", query="Which package manager do we use?")
    found = project.post(
        "/ns/proj/search/events", {"query": "package manager", "session_id": "s2"}
    ).json()
    project.post(
        "/ns/proj/assess",
        {
            "session_id": "s2",
            "verdict": "sufficient",
            "evidence_refs": [f"event:{pnpm['id']}", f"event:{npm['id']}", "event:999999"],
            "fit": "pnpm replaced npm",
            "next_strategy": "answer",
            "question": "Which package manager do we use?",
        },
    )
    used = project.post(
        "/ns/proj/record-use",
        {
            "session_id": "s2",
            "evidence_refs": [f"event:{pnpm['id']}"],
            "receipt_id": "answer-1",
            "answer": "We use pnpm now.",
        },
    )
    assert used.status_code == 200, used.content
    say(project, 7, "Which package manager do we use?", session="s2", reply="We use pnpm now.")
    return {"npm": npm, "pnpm": pnpm, "batch_id": found["batch_id"]}


def test_audit_chain_runs_from_the_answer_turn_to_the_source_messages(project, answered):
    response = project.get("/ns/proj/audit", receipt_id="answer-1")
    assert response.status_code == 200, response.content
    chain = response.json()
    assert chain["receipt"]["session_id"] == "s2"
    assert chain["receipt"]["answer_text"] == "We use pnpm now."
    assert [m["content"] for m in chain["answer_turn"]["messages"]] == [
        "Which package manager do we use?",
        "We use pnpm now.",
    ]
    verdict = chain["verdict"]
    assert verdict["verdict"] == "sufficient"
    assert [(r["index"], r["reason"]) for r in verdict["rejected_refs"]] == [(2, "not_in_batch")]
    (memory,) = chain["memories"]
    assert memory["ref"] == f"event:{answered['pnpm']['id']}"
    assert memory["kind"] == "event" and memory["expanded"] is False
    (event,) = memory["events"]
    assert [m["content"] for m in event["source_messages"]] == ["Let's switch to pnpm."]
    assert chain["batch"]["batch_id"] == answered["batch_id"]
    assert [r["ref"] for r in chain["retrieved_unused"]] == [f"event:{answered['npm']['id']}"]


def test_memory_usage_tells_cited_from_retrieved_and_injected(project, answered):
    pnpm = project.get(f"/ns/proj/events/{answered['pnpm']['id']}/usage").json()
    assert [c["receipt_id"] for c in pnpm["cited"]] == ["answer-1"]
    assert pnpm["adoptions"] == 2
    assert len(pnpm["injected"]) == 1 and pnpm["injected"][0]["session_id"] == "s2"
    # The only batch that showed it is the one whose receipt cited it.
    assert pnpm["retrieved_unused"] == []

    npm = project.get(f"/ns/proj/events/{answered['npm']['id']}/usage").json()
    assert npm["cited"] == [] and npm["injected"] == []
    assert [r["batch_id"] for r in npm["retrieved_unused"]] == [answered["batch_id"]]
    assert npm["adoptions"] == 1


def test_audit_selectors_work_without_the_api(answered):
    receipt = UsageReceipt.objects.get(receipt_id="answer-1")
    chain = audit_chain(receipt)
    assert chain.answer_turn is not None and chain.answer_turn.session_turn == 1
    usage = memory_usage(Event.objects.get(pk=answered["pnpm"]["id"]))
    assert usage.cited[0].refs == [f"event:{answered['pnpm']['id']}"]


def test_an_answer_turn_is_found_after_the_receipt_without_an_answer_text(project):
    _, pnpm, _ = the_events(project)
    batch_id = project.post("/ns/proj/search/events", {"query": "pnpm", "session_id": "s4"}).json()[
        "batch_id"
    ]
    project.post(
        "/ns/proj/record-use", {"batch_id": batch_id, "evidence_refs": [], "receipt_id": "z"}
    )
    say(project, 8, "Thanks!", session="s4", reply="You're welcome.")
    chain = project.get("/ns/proj/audit", receipt_id="z").json()
    assert chain["receipt"]["zero_increment"] is True
    assert chain["verdict"] is None and chain["memories"] == []
    assert chain["answer_turn"]["messages"][0]["content"] == "Thanks!"
    assert chain["retrieved_unused"] == [
        {"ref": f"event:{pnpm['id']}", "kind": "event", "rank": 1, "expanded": False}
    ]


def test_audit_of_an_unknown_receipt_is_404_and_strangers_see_nothing(project, stranger):
    missing = project.get("/ns/proj/audit", receipt_id="nope")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "receipt_not_found"
    assert stranger.get("/ns/proj/audit", receipt_id="nope").status_code == 404
    assert stranger.get("/ns/proj/events/1/usage").status_code == 404
