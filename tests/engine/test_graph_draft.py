"""The model's graph draft: positions kept on the right events when invalid events are dropped,
turned into a proposal over stored events, and rejected item by item where it cites outside."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memory.engine.prompts.extraction_prompt import BlockMemoryOut, ExtractionGraphOut
from memory.engine.prompts.graph_draft import GraphDraft

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def event(title: str, source: int = 1) -> dict[str, object]:
    return {"title": title, "summary": title, "source_message_ids": [source]}


def test_positions_follow_their_events_when_an_invalid_event_is_dropped() -> None:
    out = ExtractionGraphOut.model_validate(
        {
            "should_extract": True,
            "events": [
                {"title": "", "summary": "no title, no sources"},  # invalid: dropped
                event("Maria joined the data team"),
                event("Maria lives in Lisbon"),
            ],
            "graph": {
                "nodes": [
                    {"name": "Maria", "type": "Person", "events": [2, 3]},
                    {"name": "Lisbon", "type": "place", "events": [3]},
                    {"name": "Ghost", "type": "person", "events": [1]},  # cites the dropped one
                ],
                "facts": [
                    {"node": "maria", "key": "Residence", "value": "Lisbon", "events": [3]},
                    {"node": "Maria", "key": "team", "value": "data", "events": [1, 2]},
                ],
                "edges": [{"from": "Maria", "to": "Lisbon", "relation": "lives in", "events": [3]}],
            },
        }
    )
    assert [e.title for e in out.events] == ["Maria joined the data team", "Maria lives in Lisbon"]
    assert out.graph is not None
    proposal = out.graph.to_proposal([(101, T0), (102, T0 + timedelta(days=1))])

    # Position 3 was the second valid event (id 102); the ghost and the fact citing the dropped
    # event are rejected whole, not trimmed to their valid citations.
    assert {(n.key, tuple(n.source_event_ids)) for n in proposal.nodes} == {
        ("person:maria", (101, 102)),
        ("place:lisbon", (102,)),
    }
    assert [(f.node_key, f.key, f.value, f.source_event_ids) for f in proposal.facts] == [
        ("person:maria", "residence", "Lisbon", [102])
    ]
    (edge,) = proposal.edges
    assert (edge.from_key, edge.to_key) == ("person:maria", "place:lisbon")
    assert edge.relation == "lives_in"
    assert edge.valid_from == T0 + timedelta(days=1)
    assert edge.exclusivity_key == "lives_in"


def test_items_past_the_stored_events_or_naming_unknown_nodes_are_dropped() -> None:
    draft = GraphDraft.model_validate(
        {
            "nodes": [
                {"name": "Atlas", "type": "project", "events": [1]},
                {"name": "pnpm", "type": "tool", "events": [1]},
                {"name": "Nobody", "type": "alien", "events": [1]},  # unknown type
            ],
            "facts": [
                {"node": "Atlas", "key": "package manager", "value": "pnpm", "events": [1]},
                {"node": "Atlas", "key": "deadline", "value": "Friday", "events": [2]},
                {"node": "Nobody", "key": "x", "value": "y", "events": [1]},
                "not an object",
            ],
            "edges": [
                {"from": "Atlas", "to": "pnpm", "relation": "uses", "slot": "package manager",
                 "events": [1]},
                {"from": "Atlas", "to": "Atlas", "relation": "uses", "events": [1]},
            ],
        }
    )  # fmt: skip
    proposal = draft.to_proposal([(7, T0)])

    assert [n.key for n in proposal.nodes] == ["project:atlas", "tool:pnpm"]
    assert [(f.key, f.value) for f in proposal.facts] == [("package_manager", "pnpm")]
    (edge,) = proposal.edges
    assert edge.metadata == {"slot": "package_manager"}
    assert edge.exclusivity_key == "uses:package_manager"
    # Restricting to another batch rejects every item.
    assert proposal.restricted_to({8}).nodes == []


def test_no_extraction_means_no_graph_and_a_missing_graph_stays_none() -> None:
    quiet = ExtractionGraphOut.model_validate(
        {
            "should_extract": False,
            "events": [event("Hello")],
            "graph": {"nodes": [{"name": "Ana", "type": "person", "events": [1]}]},
        }
    )
    assert quiet.events == []
    assert quiet.graph is not None and quiet.graph.to_proposal([]).nodes == []

    combined = BlockMemoryOut.model_validate(
        {
            "title": "Greeting",
            "tags": [],
            "summary": "Hello.",
            "key_points": [],
            "should_extract": True,
            "events": [event("Hello")],
        }
    )
    assert combined.graph is None  # the rules project this block
