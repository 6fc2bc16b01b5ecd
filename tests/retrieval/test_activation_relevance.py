"""Activated memory's relevance gate beyond names (memory.engine.relevance): in a conversation
between a few people nearly every memory names one of them, so a memory that matches a question
only through a name is left out, and source passages are quoted as compact lines."""

from __future__ import annotations

import pytest

from memory.engine.prompts.graph import GraphProposal
from memory.engine.relevance import matches_beyond_names
from memory.models import Event
from memory.services.activation import activation_build
from memory.services.graph import graph_apply
from memory.services.namespaces import namespace_get_or_create
from tests.search.conftest import World

pytestmark = pytest.mark.django_db


@pytest.fixture
def w(db: None) -> World:
    return World(namespace=namespace_get_or_create(name="proj"))


@pytest.mark.parametrize(
    ("query", "item", "expected"),
    [
        ({"caroline", "research"}, {"research", "adopt"}, True),
        ({"caroline", "research"}, {"love", "live", "music"}, False),
        ({"caroline"}, {"love", "live", "music"}, True),  # only a name: name matches count
        ({"pnpm"}, {"pnpm"}, True),  # no person named: plain overlap
        (set(), {"anything"}, True),
    ],
)
def test_an_item_must_share_a_term_besides_the_names(query, item, expected):
    assert matches_beyond_names(query, {"caroline", "melani"}, item) is expected


def _people_events(world: World) -> tuple[Event, Event]:
    music = world.event(
        "Caroline loves live music", "Caroline loves live music.", participants=["Caroline"]
    )
    research = world.event(
        "Caroline researched adoption agencies",
        "Caroline researched adoption agencies for months.",
        participants=["Caroline"],
    )
    return music, research


def _refs(cards: list[dict]) -> list[str]:
    return [c["ref"] for c in cards]


def test_an_event_matching_only_a_persons_name_is_not_activated(w):
    _music, research = _people_events(w)

    activated = activation_build(
        namespace=w.namespace, session=None, query="What did Caroline research?", record=False
    )

    assert _refs(activated.events) == [f"event:{research.pk}"]


def test_a_question_that_is_only_a_name_keeps_name_matches(w):
    music, research = _people_events(w)

    activated = activation_build(
        namespace=w.namespace, session=None, query="Caroline?", record=False
    )

    assert set(_refs(activated.events)) == {f"event:{music.pk}", f"event:{research.pk}"}


def test_a_person_node_enters_only_when_its_facts_answer_more_than_the_name(w):
    music, research = _people_events(w)
    proposal = GraphProposal.model_validate(
        {
            "nodes": [
                {
                    "key": "caroline",
                    "name": "Caroline",
                    "type": "person",
                    "source_event_ids": [music.pk],
                }
            ],
            "facts": [
                {
                    "node_key": "caroline",
                    "key": "favourite_music",
                    "value": "live music",
                    "source_event_ids": [music.pk],
                }
            ],
        }
    )
    graph_apply(namespace_id=w.pk, events=[music, research], proposal=proposal)

    about_research = activation_build(
        namespace=w.namespace, session=None, query="What did Caroline research?", record=False
    )
    about_music = activation_build(
        namespace=w.namespace, session=None, query="What music does Caroline like?", record=False
    )

    assert about_research.nodes == []
    assert [n["name"] for n in about_music.nodes] == ["Caroline"]


def test_passages_are_quoted_as_one_compact_line_each(w):
    w.say("The hydraulic seal kit\n\nfor crane 7 is number 4411.", session="old")

    activated = activation_build(
        namespace=w.namespace, session=None, query="hydraulic seal kit", record=False
    )

    [passage] = [p for p in activated.passages if "4411" in p["text"]]
    line = (
        f"- [{passage['ref']} {passage['said']}] The hydraulic seal kit for crane 7 is number 4411."
    )
    assert line in activated.text.splitlines()
    assert '"text"' not in activated.text.split("Source passages:")[1]
