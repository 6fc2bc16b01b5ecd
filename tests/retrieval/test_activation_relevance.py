"""Activated memory's relevance gate (memory.engine.relevance): in a conversation between a few
people nearly every memory names one of them, so a memory that matches a question only through a
name is left out; a memory that shares only a common word with the question is left out too
(coverage), and the budget goes to source passages, which are quoted as compact lines."""

from __future__ import annotations

import pytest

from memory.engine.prompts.graph import GraphProposal
from memory.engine.relevance import (
    MIN_COVERAGE,
    coverage,
    covers,
    matches_beyond_names,
    sentence_questions,
    sentences,
    term_weight,
)
from memory.models import Event, Message, Session
from memory.search import term_weights
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


@pytest.mark.parametrize(
    ("documents", "total", "expected"),
    [(0, 100, 0.0), (1, 100, 4.2097), (50, 100, 0.6931), (100, 100, 0.0050), (3, 2, 0.1335)],
)
def test_a_terms_weight_is_its_bm25_idf_and_nothing_when_no_document_holds_it(
    documents: int, total: int, expected: float
) -> None:
    assert term_weight(documents, total) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(
    ("weights", "item", "expected"),
    [
        ({"speech": 3.0, "school": 2.0, "give": 1.0}, {"speech", "school"}, 5 / 6),
        ({"speech": 3.0, "school": 2.0, "give": 1.0}, {"give", "kid"}, 1 / 6),
        ({"carolin": 2.0, "research": 2.0}, {"carolin"}, 0.0),  # a name is not covered
        ({"carolin": 2.0, "research": 2.0}, {"research"}, 1.0),
        ({"carolin": 2.0}, {"music"}, 1.0),  # only a name asked: the names rule decides
        ({"educaton": 0.0, "field": 1.0}, {"field"}, 1.0),  # a word nobody said weighs 0
        ({}, {"anything"}, 1.0),
    ],
)
def test_coverage_is_the_share_of_the_questions_weight_an_item_holds(
    weights: dict[str, float], item: set[str], expected: float
) -> None:
    assert coverage(weights, {"carolin"}, item) == pytest.approx(expected)


def test_an_item_covers_when_it_holds_enough_of_either_question() -> None:
    new_message = {"ok": 1.0}
    whole_query = {"ok": 1.0, "prototyp": 3.0, "plan": 2.0}
    assert covers([new_message, whole_query], set(), {"prototyp", "plan"})
    assert not covers([new_message, whole_query], set(), {"chatter"})
    assert covers([], set(), {"chatter"})
    assert MIN_COVERAGE == 0.4


def _school_world(w: World) -> tuple[Event, Event]:
    """`give` is said everywhere, `speech` and `school` once: an event sharing only `give`
    with the question is off-topic, one holding `speech` and `school` answers it."""
    for n in range(12):
        w.say(f"I'll give it a try, round {n}.", "Give it your best!", session="chat")
    w.say("Caroline gave a speech at the school last week.", "How did it go?", session="chat")
    w.say("The kids asked about the fundraiser.", "Tell them Friday.", session="chat")
    speech = w.event(
        "Caroline gave a speech at the school",
        "Caroline: I gave a speech at the school last week.",
        participants=["Caroline"],
    )
    goal = w.event(
        "My goal is to give kids a loving home",
        "Caroline: My goal is to give kids a loving home.",
        participants=["Caroline"],
    )
    return speech, goal


def test_a_weak_off_topic_event_is_not_activated_and_a_relevant_one_is(w: World) -> None:
    speech, _goal = _school_world(w)

    activated = activation_build(
        namespace=w.namespace,
        session=None,
        query="When did Caroline give a speech at a school?",
        record=False,
    )

    assert _refs(activated.events) == [f"event:{speech.pk}"]
    assert activated.passages


def test_a_long_open_tail_does_not_dilute_the_new_question(w: World) -> None:
    speech, _goal = _school_world(w)
    w.say("The printer jammed again.", "Facilities will fix the printer today.", session="now")
    session = Session.objects.get(namespace=w.namespace, external_id="now")

    activated = activation_build(
        namespace=w.namespace,
        session=session,
        query="When did Caroline give a speech at a school?",
        record=False,
    )

    assert _refs(activated.events) == [f"event:{speech.pk}"]


def test_a_question_no_memory_answers_well_gets_no_cards_but_passages_fill_the_budget(
    w: World,
) -> None:
    _speech, goal = _school_world(w)

    activated = activation_build(
        namespace=w.namespace,
        session=None,
        query="When is the fundraiser, and who gives the news?",
        record=False,
    )

    # The goal event shares only "give" with the question, a word said everywhere here.
    assert activated.events == []
    assert activated.nodes == []
    assert any("fundraiser" in p["text"] for p in activated.passages)
    assert "Events:" not in activated.text and "Source passages:" in activated.text
    assert f"event:{goal.pk}" not in activated.refs


def test_pinned_memory_enters_however_little_of_the_question_it_holds(w: World) -> None:
    _speech, goal = _school_world(w)
    Event.objects.filter(pk=goal.pk).update(pinned=True)

    activated = activation_build(
        namespace=w.namespace,
        session=None,
        query="When did Caroline give a speech at a school?",
        record=False,
    )

    assert f"event:{goal.pk}" in _refs(activated.events)


def test_words_nobody_said_weigh_nothing_and_a_derived_words_weigh_as_rare(w: World) -> None:
    w.say("Let's use pnpm for the monorepo.", session="chat")
    w.event("Package manager decision", "Use pnpm.")

    weights = term_weights(w.pk, "pnpm package qwxz")

    assert weights["pnpm"] > 0
    assert weights["qwxz"] == 0.0  # held by nothing: a typo tells no memory from another
    # Held only by the event (a model's paraphrase): as rare as a word one message holds.
    assert weights["packag"] == pytest.approx(term_weight(1, Message.objects.count()))


def test_a_chinese_question_gets_its_event_and_not_one_sharing_only_common_words(w: World) -> None:
    for n in range(8):
        w.say(f"我们什么时候开会？第{n}次", "还不知道，什么时候都行。", session="chat")
    w.say("王经理说周五前提交报告。", "好的，我记下了。", session="chat")
    report = w.event("王经理：周五前提交报告", "王经理说周五前提交报告。")
    meeting = w.event("什么时候开会还不知道", "用户问什么时候开会。")

    activated = activation_build(
        namespace=w.namespace, session=None, query="王经理什么时候提交报告？", record=False
    )

    assert _refs(activated.events) == [f"event:{report.pk}"]
    assert f"event:{meeting.pk}" not in activated.refs


def test_a_person_node_of_someone_the_question_does_not_name_stays_out(w: World) -> None:
    jon = w.event("Jon loves all dances", "Jon: I love all dances.", participants=["Jon"])
    gina = w.event(
        "Gina won a trophy at a dance contest",
        "Gina: I won a trophy at a dance contest.",
        participants=["Gina"],
    )
    proposal = GraphProposal.model_validate(
        {
            "nodes": [
                {"key": "jon", "name": "Jon", "type": "person", "source_event_ids": [jon.pk]},
                {"key": "gina", "name": "Gina", "type": "person", "source_event_ids": [gina.pk]},
            ],
            "facts": [
                {
                    "node_key": "jon",
                    "key": "preference:dances",
                    "value": "loves all dances",
                    "source_event_ids": [jon.pk],
                },
                {
                    "node_key": "gina",
                    "key": "award",
                    "value": "trophy at a dance contest",
                    "source_event_ids": [gina.pk],
                },
            ],
        }
    )
    graph_apply(namespace_id=w.pk, events=[jon, gina], proposal=proposal)

    about_gina = activation_build(
        namespace=w.namespace,
        session=None,
        query="What did Gina win at the dance contest?",
        record=False,
    )
    about_dance = activation_build(
        namespace=w.namespace, session=None, query="Who loves dances?", record=False
    )

    assert [n["name"] for n in about_gina.nodes] == ["Gina"]
    assert "Jon" in [n["name"] for n in about_dance.nodes]


def test_a_message_is_cut_into_sentences_after_its_marks_and_at_line_breaks() -> None:
    text = "When did X go? And who paid.\nVersion 3.5 works! 这是什么？好的。"
    assert sentences(text) == [
        "When did X go?",
        "And who paid.",
        "Version 3.5 works!",
        "这是什么？",
        "好的。",
    ]


def test_a_sentence_is_a_question_of_its_own_only_when_it_carries_a_quarter_of_the_weight() -> None:
    message = {"thank": 0.5, "deploy": 3.0, "script": 3.0, "speech": 3.5}
    thanks, deploy, speech = ["thank"], ["deploy", "script"], ["speech"]

    found = sentence_questions(message, [thanks, deploy, speech])

    assert found == [{"deploy": 3.0, "script": 3.0}, {"speech": 3.5}]  # "Thanks!" asks nothing
    assert sentence_questions({"speech": 3.5}, [speech]) == []  # one sentence: the message
    assert sentence_questions({"qwxz": 0.0}, [["qwxz"]]) == []


def test_each_question_of_a_message_that_asks_two_things_gets_its_card(w: World) -> None:
    speech, _goal = _school_world(w)
    for n in range(3):
        w.say(f"The printer on floor {n} jammed.", "Facilities will order toner.", session="chat")

    activated = activation_build(
        namespace=w.namespace,
        session=None,
        query=(
            "When did Caroline give a speech at a school? "
            "And did facilities order toner for the printer on that floor?"
        ),
        record=False,
    )

    # Against the whole message the speech event holds too little (the printer question's
    # words are as rare); against its own sentence it holds nearly all.

    assert _refs(activated.events) == [f"event:{speech.pk}"]


def test_a_new_message_of_stop_words_is_judged_by_the_turns_it_follows(w: World) -> None:
    speech, goal = _school_world(w)
    w.say("When did Caroline give a speech at a school?", "Let me look.", session="now")
    session = Session.objects.get(namespace=w.namespace, external_id="now")

    activated = activation_build(
        namespace=w.namespace, session=session, query="Was it?", record=False
    )

    assert _refs(activated.events) == [f"event:{speech.pk}"]
    assert f"event:{goal.pk}" not in activated.refs
