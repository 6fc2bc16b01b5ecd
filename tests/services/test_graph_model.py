"""Graph projection through the model (fake OpenAI-compatible server): the block's one combined
call drafts the graph, so 48 turns cost 8 calls in all; the draft replaces the rules, keeps
history, and is restricted to each projection batch's events."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memory.models import (
    Event,
    GraphEdge,
    GraphFact,
    GraphItemStatus,
    GraphNode,
    JobKind,
    JobStatus,
    ModelCall,
    ProcessingJob,
)
from tests.conftest import turn_body

pytestmark = pytest.mark.django_db


@pytest.fixture
def model(settings, fake_openai):
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    return fake_openai


def _block(request: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """The target block's messages and its number (turn n says "Question n …")."""
    payload = json.loads(request["messages"][1]["content"])
    messages = payload["target_block_messages"]
    first_turn = int(messages[0]["content"].split()[1])
    return messages, (first_turn - 1) // 6 + 1


def _combined(events: list[dict[str, Any]], graph: dict[str, Any] | None) -> str:
    answer: dict[str, Any] = {
        "title": "Work",
        "tags": ["work"],
        "summary": "Where Maria works.",
        "key_points": ["Maria works somewhere"],
        "should_extract": True,
        "events": events,
    }
    if graph is not None:
        answer["graph"] = graph
    return json.dumps(answer)


def employer_answer(request: dict[str, Any]) -> str:
    """Block k: "Maria works at Firm k" as an event the rules would read as the user's employer
    ("I work at Initech"); the draft names Maria's employer Firm k, plus two items to reject."""
    messages, k = _block(request)
    said = {
        "title": f"Maria works at Firm {k}",
        "summary": "I work at Initech, said Maria.",
        "event_type": "change",
        "participants": ["Maria"],
        "source_message_ids": [messages[0]["id"]],
    }
    graph = {
        "nodes": [
            {"name": "Maria", "type": "person", "events": [1]},
            {"name": f"Firm {k}", "type": "organization", "events": [1]},
        ],
        "facts": [
            {"node": "Maria", "key": "employer", "value": f"Firm {k}", "events": [1]},
            {"node": "Maria", "key": "mood", "value": "invented", "events": [2]},  # no event 2
            {"node": "Somebody", "key": "employer", "value": "Nowhere", "events": [1]},
        ],
        "edges": [{"from": "Maria", "to": f"Firm {k}", "relation": "works_at", "events": [1]}],
    }
    return _combined([said], graph)


def test_graph_through_the_model_costs_no_call_of_its_own(owner, model, drain) -> None:
    model.default = employer_answer
    for n in range(1, 49):
        assert owner.post("/ns/proj/turns", turn_body(n)).status_code == 201
    drain()

    # 48 turns, 8 blocks: one call each returns views, events and the graph draft.
    assert model.calls == 8
    assert model.calls / 48 <= 0.25
    assert ModelCall.objects.count() == 8
    assert set(ModelCall.objects.values_list("kind", flat=True)) == {"block_views"}
    projections = ProcessingJob.objects.filter(kind=JobKind.GRAPH_PROJECT)
    assert projections.count() == 8
    assert set(projections.values_list("status", flat=True)) == {JobStatus.SUCCEEDED}

    maria = GraphNode.objects.get(key="person:maria")
    employers = GraphFact.objects.filter(node=maria, key="employer").order_by("valid_from_turn")
    # Each block's draft names a new employer; the older ones are kept as history.
    assert [f.value for f in employers] == [f"Firm {k}" for k in range(1, 9)]
    assert [f.status for f in employers].count(GraphItemStatus.ACTIVE) == 1
    assert employers.get(status=GraphItemStatus.ACTIVE).value == "Firm 8"
    last_event = Event.objects.get(title="Maria works at Firm 8")
    assert list(employers.last().source_events.all()) == [last_event]
    works_at = GraphEdge.objects.filter(from_node=maria, relation="works_at")
    assert works_at.count() == 8
    assert works_at.get(status=GraphItemStatus.ACTIVE).to_node.name == "Firm 8"
    # The rules would have made "Initech" the user's employer: the draft replaced them.
    assert not GraphFact.objects.filter(value__icontains="initech").exists()
    assert not GraphNode.objects.filter(key="person:user").exists()
    # Items citing no event of the batch, or a node the draft did not define, were rejected.
    assert not GraphFact.objects.filter(key="mood").exists()
    assert not GraphFact.objects.filter(value="Nowhere").exists()


def test_a_draft_item_spanning_two_projection_batches_is_rejected(owner, model, drain) -> None:
    def ten_events(request: dict[str, Any]) -> str:
        messages, _ = _block(request)
        events = [
            {"title": f"Milestone {i}", "summary": f"Milestone {i} reached.",
             "source_message_ids": [messages[0]["id"]]}
            for i in range(1, 11)
        ]  # fmt: skip
        graph = {
            "nodes": [
                {"name": "Atlas", "type": "project", "events": [1, 10]},
                {"name": "Ana", "type": "person", "events": [9]},
            ],
            "facts": [
                {"node": "Atlas", "key": "status", "value": "late", "events": [1, 10]},
                {"node": "Ana", "key": "role", "value": "release manager", "events": [9]},
            ],
        }
        return _combined(events, graph)

    model.default = ten_events
    for n in range(1, 7):
        owner.post("/ns/proj/turns", turn_body(n))
    drain()

    assert model.calls == 1
    batches = [
        job.payload["event_ids"]
        for job in ProcessingJob.objects.filter(kind=JobKind.GRAPH_PROJECT).order_by("pk")
    ]
    assert [len(b) for b in batches] == [8, 2]
    # Projection batches hold ≤ 8 events; an item citing events of both is rejected whole.
    assert not GraphNode.objects.filter(key="project:atlas").exists()
    role = GraphFact.objects.get(key="role")
    assert role.value == "release manager"
    assert [e.title for e in role.source_events.all()] == ["Milestone 9"]


def test_without_a_draft_the_rules_project_the_model_s_events(owner, model, drain) -> None:
    def no_graph(request: dict[str, Any]) -> str:
        messages, _ = _block(request)
        said = {
            "title": "Ana works at Initech",
            "summary": "I work at Initech.",
            "participants": ["Ana"],
            "source_message_ids": [messages[0]["id"]],
        }
        return _combined([said], None)

    model.default = no_graph
    for n in range(1, 7):
        owner.post("/ns/proj/turns", turn_body(n))
    drain()

    assert model.calls == 1
    fact = GraphFact.objects.get(key="employer")
    assert (fact.node.key, fact.value) == ("person:ana", "Initech")
