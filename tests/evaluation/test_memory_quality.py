"""Memory quality measured end to end (issue 29): the scorer's arithmetic on hand-made stored
rows, the command on a tiny set through the real pipeline, and a malformed set rejected."""

from __future__ import annotations

import json
from collections import Counter
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memory.errors import Invalid
from memory.evaluation.memory_quality import (
    QualityReport,
    conversation_score,
    memory_quality_score,
    name_key,
)
from memory.evaluation.memory_quality_run import Observed, StoredEdge, StoredEvent
from memory.evaluation.memory_quality_set import (
    Conversation,
    quality_set_load,
    quality_set_parse,
)
from memory.models import Namespace

HERE = Path(__file__).parent
QUALITY_SET = HERE / "memory_quality_set.json"
DEV2_SET = HERE / "memory_quality_dev2.json"


def _tiny() -> dict[str, Any]:
    """Two sessions: a fact, its echo, a repeat in a later session and a change superseding it."""
    return {
        "about": "tiny",
        "conversations": [
            {
                "id": "tiny",
                "lang": "en",
                "user_name": "Priya",
                "sessions": [
                    {"id": "s1", "at": "2026-03-02T10:00:00", "tz": "Europe/Berlin", "turns": [
                        {"user": {"text": "The billing service runs on Heroku.",
                                  "category": "fact",
                                  "events": [{"key": "heroku", "type": "other",
                                              "status": "ongoing"}],
                                  "edges": [["the billing service", "runs_on", "Heroku"]]},
                         "assistant": {"text": "Noted: the billing service runs on Heroku.",
                                       "category": "echo"}},
                    ]},
                    {"id": "s2", "at": "2026-03-09T10:00:00", "tz": "Europe/Berlin", "turns": [
                        {"user": {"text": "The billing service runs on Heroku.",
                                  "category": "repeat_later_session", "repeats": "heroku"},
                         "assistant": {"text": "Yes.", "category": "smalltalk"}},
                        {"user": {"text": "We moved the billing service from Heroku to Fly.io.",
                                  "category": "change",
                                  "events": [{"key": "flyio",
                                              "type": ["change", "migration"]}],
                                  "supersedes": ["heroku"],
                                  "edges": [["billing service", "runs_on|deployed_on",
                                             "Fly.io"]]},
                         "assistant": {"text": "Got it.", "category": "smalltalk"}},
                    ]},
                ],
            }
        ],
    }  # fmt: skip


def _conversation() -> Conversation:
    return quality_set_parse(_tiny()).conversations[0]


def _event(pk: int, origin: int, kind: str = "other", **kw: Any) -> StoredEvent:
    fields: dict[str, Any] = {
        "pk": pk,
        "event_type": kind,
        "status": "active",
        "temporal_status": "ongoing",
        "start": None,
        "end": None,
        "superseded_by": None,
        "origin": origin,
    }
    return StoredEvent(**{**fields, **kw})


def _edge(a: str, relation: str, b: str, origin: int) -> StoredEdge:
    return StoredEdge(frozenset([a]), relation, frozenset([b]), origin)


def _right() -> Observed:
    """What a correct pipeline stores: one event per fact, the old one superseded, two edges."""
    return Observed(
        namespace="tiny",
        events=[
            _event(1, 0, status="superseded", superseded_by=2),
            _event(2, 4, "migration", temporal_status="occurred"),
        ],
        mentioned={1: {2}},
        edges=[
            _edge("billing service", "runs_on", "Heroku", 0),
            _edge("Billing Service", "deployed_on", "fly.io", 4),
        ],
        nodes=[(frozenset(["billing service"]), "project")],
    )


def _score(observed: Observed, conversation: Conversation | None = None) -> dict[str, float | None]:
    report = QualityReport()
    conversation_score(conversation or _conversation(), observed, report)
    for tally in report.by_category.values():
        report.overall.merge(tally)
    return report.overall.figures()


def test_a_correct_extraction_scores_one_on_every_figure() -> None:
    figures = _score(_right())

    assert figures["event_precision"] == 1.0
    assert figures["event_recall"] == 1.0
    assert figures["duplicates"] == 0.0
    assert figures["supersession_recall"] == 1.0
    assert figures["edge_precision"] == 1.0
    assert figures["edge_recall"] == 1.0
    assert figures["status_accuracy"] == 1.0
    assert figures["repeats_as_mention"] == 1.0


def test_a_repeat_stored_again_is_a_duplicate_not_an_imprecision() -> None:
    observed = _right()
    observed.events.append(_event(3, 2))  # the repeat of s2 as a second event
    observed.mentioned = {}

    figures = _score(observed)

    assert figures["duplicates"] == 0.5  # one of two facts has two events
    assert figures["event_precision"] == 1.0
    assert figures["repeats_as_mention"] == 0.0
    assert figures["supersession_recall"] == 0.0  # the duplicate of the old fact stays active


def test_a_missed_supersession_moves_only_supersession_recall() -> None:
    observed = _right()
    observed.events[0] = _event(1, 0)  # still active

    figures = _score(observed)

    assert figures["supersession_recall"] == 0.0
    assert (figures["event_precision"], figures["event_recall"], figures["edge_recall"]) == (
        1.0,
        1.0,
        1.0,
    )


def test_a_supersession_may_be_done_by_any_fact_of_the_statement() -> None:
    """ "Tamsin's gone … Devin Marsh is running night grooming now": the statement that ends the
    old fact has two, and the old one is superseded by whichever says the new value."""
    raw = _tiny()
    change = raw["conversations"][0]["sessions"][1]["turns"][1]["user"]
    change["events"].append({"key": "heroku_left", "type": ["change"]})
    conversation = quality_set_parse(raw).conversations[0]
    observed = _right()
    # The change stored as two events; the second, matched to the second fact, supersedes.
    observed.events[0] = _event(1, 0, status="superseded", superseded_by=3)
    observed.events.append(_event(3, 4, "change", temporal_status="occurred"))
    assert _score(observed, conversation)["supersession_recall"] == 1.0
    # Superseded by an event of another statement, it is still missed.
    observed.events[0] = _event(1, 0, status="superseded", superseded_by=99)
    assert _score(observed, conversation)["supersession_recall"] == 0.0


def test_a_wrong_edge_moves_edge_precision_and_recall() -> None:
    observed = _right()
    observed.edges[1] = _edge("project", "uses", "Fly.io", 4)

    figures = _score(observed)

    assert figures["edge_precision"] == 0.5
    assert figures["edge_recall"] == 0.5
    assert figures["event_recall"] == 1.0


def test_an_event_from_an_echo_is_imprecise_and_a_wrong_type_is_not_recalled() -> None:
    observed = _right()
    observed.events[1] = _event(2, 4, "plan")  # not a fitting type for the change
    observed.events.append(_event(3, 1, "other"))  # from the assistant's echo

    figures = _score(observed)

    assert figures["event_precision"] == 2 / 3
    assert figures["event_recall"] == 0.5


def test_names_are_compared_without_case_articles_or_width() -> None:
    assert name_key("The  Billing service.") == "billing service"
    assert name_key("our Platform Team") == "platform team"
    assert name_key("ＡＷＳ") == "aws"
    assert name_key("订单服务") == "订单服务"
    assert name_key("GCP") == name_key("Google Cloud")  # one tool, the product's canonical name


@pytest.mark.django_db
def test_the_labelled_set_meets_the_goals_of_issue_29() -> None:
    """The whole set through the product (about 5 s): a rule regression fails here."""
    report = memory_quality_score(quality_set_load(QUALITY_SET))

    missed = [(name, value) for name, _, _, value, met in report.goals() if not met]
    assert missed == [], report.misses
    assert not Namespace.objects.filter(name__startswith="quality-").exists()


@pytest.mark.django_db
def test_the_second_development_set_meets_the_goals_too() -> None:
    """dev2 (the held-out set's classes of miss, new phrasings; about 2 s) stays at its level."""
    report = memory_quality_score(quality_set_load(DEV2_SET))

    missed = [(name, value) for name, _, _, value, met in report.goals() if not met]
    assert missed == [], report.misses


# The tuning sets of the fifth round, and the first set, at the level their misses were fixed to
# (figures as measured on 2026-12-08; docs/EVALUATION.md "Fifth round" … "Sixteenth round").
TUNING_LEVELS = {
    "memory_quality_set.json": {"event_recall": 0.970, "supersession_recall": 1.0,
                                "edge_precision": 0.966, "edge_recall": 0.966},
    "memory_quality_dev3.json": {"event_recall": 1.0, "supersession_recall": 1.0,
                                 "edge_precision": 0.958, "edge_recall": 0.857},
    "memory_quality_dev4.json": {"event_recall": 1.0, "supersession_recall": 1.0,
                                 "edge_precision": 1.0, "edge_recall": 1.0},
    "memory_quality_dev5.json": {"event_recall": 1.0, "supersession_recall": 0.857,
                                 "edge_precision": 1.0, "edge_recall": 1.0},
    "memory_quality_dev6.json": {"event_recall": 1.0, "supersession_recall": 0.917,
                                 "edge_precision": 0.971, "edge_recall": 0.971},
    "memory_quality_dev7.json": {"event_recall": 1.0, "supersession_recall": 0.929,
                                 "edge_precision": 1.0, "edge_recall": 0.971},
    "memory_quality_dev8.json": {"event_recall": 1.0, "supersession_recall": 0.833,
                                 "edge_precision": 1.0, "edge_recall": 1.0},
    # Written fresh for the fortieth round (first score 0.706 / 0.235 / 0.857 / 0.286); two
    # restatements in other words ("nothing's changed there", "没变，还是6月5号") stay events.
    "memory_quality_dev9.json": {"event_recall": 0.812, "supersession_recall": 0.588,
                                 "edge_precision": 0.980, "edge_recall": 0.778,
                                 "duplicates": 0.024},
    # The second fresh set of the round (first score 0.983 / 0.726 / 0.041 / 0.389 / 0.833 /
    # 0.377); "不说了，明天还得早起备料" is still a plan, three restatements still events.
    "memory_quality_dev10.json": {"event_recall": 0.849, "supersession_recall": 0.722,
                                  "edge_precision": 0.974, "edge_recall": 0.698,
                                  "duplicates": 0.041, "event_precision": 0.985},
    # The third (first score 0.984 / 0.819 / 0 / 0.222 / 0.706 / 0.261).
    "memory_quality_dev11.json": {"event_recall": 0.875, "supersession_recall": 0.500,
                                  "edge_precision": 0.923, "edge_recall": 0.522,
                                  "event_precision": 0.985},
    # Written fresh for the forty-first round, asked for varied phrasing: dev12 (first score
    # 0.965 / 0.506 / 0.012 / 0.118 / 0.438 / 0.125; its writer had no labelling conventions,
    # so its edges name organisations where the product names the project) and dev13 (0.978 /
    # 0.562 / 0 / 0 / 0.455 / 0.106).
    # dev12 "POS is Toast at eight of them" is now the project's use of Toast, which its writer
    # did not label, and dev13 "We moved inventory into ShelfWise" (forty-third round).
    # dev12 "我在青禾金科数据平台组，主要负责风控数仓这一块" states two facts, each now its own
    # event (its writer labelled one) and the ownership edge it labelled (forty-fourth round).
    "memory_quality_dev12.json": {"event_recall": 0.566, "supersession_recall": 0.118,
                                  "edge_precision": 0.435, "edge_recall": 0.179,
                                  "duplicates": 0.024, "event_precision": 0.938},
    "memory_quality_dev13.json": {"event_recall": 0.740, "supersession_recall": 0.278,
                                  "edge_precision": 0.708, "edge_recall": 0.362,
                                  "event_precision": 0.983},
    # Written fresh for the forty-second round by writers who got no labelling conventions;
    # aligned to the product's before scoring (their "about" says how). First scores: dev14
    # 0.946 / 0.520 / 0.050 / 0 / 0.375 / 0.058, dev15 0.964 / 0.442 / 0.023 / 0 / 0.500 /
    # 0.056.
    "memory_quality_dev14.json": {"event_recall": 0.610, "supersession_recall": 0.200,
                                  "edge_precision": 0.727, "edge_recall": 0.308,
                                  "duplicates": 0.050, "event_precision": 0.964},
    "memory_quality_dev15.json": {"event_recall": 0.721, "supersession_recall": 0.375,
                                  "edge_precision": 0.840, "edge_recall": 0.389,
                                  "duplicates": 0.012, "event_precision": 0.961},
    # Written fresh for the forty-third round, with the product's conventions in the brief;
    # dev16 has a Traditional Chinese conversation. First scores: dev16 0.870 / 0.533 / 0.022 /
    # 0.182 / 0.583 / 0.137, dev17 0.875 / 0.552 / 0.011 / 0.111 / 0.867 / 0.317.
    "memory_quality_dev16.json": {"event_recall": 0.848, "supersession_recall": 0.727,
                                  "edge_precision": 0.824, "edge_recall": 0.549,
                                  "duplicates": 0.022, "event_precision": 0.977},
    "memory_quality_dev17.json": {"event_recall": 0.931, "supersession_recall": 0.778,
                                  "edge_precision": 0.906, "edge_recall": 0.707,
                                  "duplicates": 0.011, "event_precision": 0.922},
    # Written fresh for the forty-fourth round, with the conventions in the brief. First scores:
    # dev18 0.887 / 0.529 / 0.010 / 0.100 / 0.545 / 0.146, dev19 0.849 / 0.515 / 0.021 / 0 /
    # 0.700 / 0.156.
    # (dev18 "I started orientation at Foothills" names no "Foothills Medical Centre": one
    # unlabelled edge.)
    "memory_quality_dev18.json": {"event_recall": 0.735, "supersession_recall": 0.600,
                                  "edge_precision": 0.889, "edge_recall": 0.585,
                                  "duplicates": 0.0, "event_precision": 0.920},
    "memory_quality_dev19.json": {"event_recall": 0.845, "supersession_recall": 0.600,
                                  "edge_precision": 0.750, "edge_recall": 0.467,
                                  "duplicates": 0.021, "event_precision": 0.957},
}  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(TUNING_LEVELS))
def test_the_fifth_round_tuning_sets_stay_at_their_level(name: str) -> None:
    """set, dev3–dev19 (about 2–5 s each): every event stored is right, none twice (dev9–dev19:
    as right and as few as then), and recall, supersession and edges stay where the round left
    them."""
    figures = memory_quality_score(quality_set_load(HERE / name)).overall.figures()

    levels = dict(TUNING_LEVELS[name])
    assert figures["event_precision"] >= levels.pop("event_precision", 1.0) - 0.001
    assert figures["duplicates"] <= levels.pop("duplicates", 0.0) + 0.001
    for figure, level in levels.items():
        assert figures[figure] is not None and figures[figure] >= level - 0.001, figure


def test_the_labelled_set_is_large_bilingual_and_covers_every_category() -> None:
    labelled = quality_set_load(QUALITY_SET)
    statements = [s for c in labelled.conversations for s in c.statements()]
    languages = Counter(s.lang for s in statements)

    assert len(statements) >= 150
    assert languages["zh"] / len(statements) >= 0.40
    assert {s.category for s in statements} == {
        "fact", "decision", "preference", "plan", "deadline", "negation", "change",
        "third_person", "relative_date", "result", "repeat_same_session",
        "repeat_later_session", "echo", "smalltalk", "assistant_new", "assistant_general",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda raw: raw.pop("conversations"), "conversations"),
        (lambda raw: raw["conversations"][0]["sessions"][0].update(tz="Mars/Base"), "tz"),
        (
            lambda raw: raw["conversations"][0]["sessions"][1]["turns"][1]["user"].update(
                supersedes=["nowhere"]
            ),
            "before it is stated",
        ),
        (
            lambda raw: raw["conversations"][0]["sessions"][0]["turns"][0]["user"].update(
                edges=[["a", "likes", "b"]]
            ),
            "relation",
        ),
        (
            lambda raw: raw["conversations"][0]["sessions"][0]["turns"][0]["user"]["events"][
                0
            ].update(type="happening"),
            "event types",
        ),
    ],
)
def test_a_malformed_set_is_rejected(mutate: Any, message: str) -> None:
    raw = _tiny()
    mutate(raw)

    with pytest.raises(Invalid) as caught:
        quality_set_parse(raw)

    assert caught.value.code == "invalid_labelled_set"
    assert message in str(caught.value)


@pytest.mark.django_db
def test_the_command_rejects_a_malformed_set_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"conversations": []}', encoding="utf-8")

    with pytest.raises(CommandError, match="invalid_labelled_set"):
        call_command("memory_quality", str(path), stdout=StringIO())

    assert not Namespace.objects.exists()


@pytest.mark.django_db
def test_the_command_prints_the_table_and_deletes_its_namespace(tmp_path: Path) -> None:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(_tiny()), encoding="utf-8")
    out, report = StringIO(), tmp_path / "report.json"

    call_command("memory_quality", str(path), "--details", "--json-out", str(report), stdout=out)

    text = out.getvalue()
    assert "category" in text and "overall" in text and "ev.P" in text
    for goal in ("event_precision", "supersession_recall", "edge_recall"):
        assert goal in text
    assert "met" in text
    body = json.loads(report.read_text(encoding="utf-8"))
    assert {g["figure"] for g in body["goals"]} >= {"duplicates", "edge_precision"}
    assert body["overall"]["counts"]["statements"] == 6
    assert not Namespace.objects.filter(name__startswith="quality-").exists()


@pytest.mark.django_db
def test_keep_leaves_the_namespace_with_its_events(tmp_path: Path) -> None:
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(_tiny()), encoding="utf-8")

    call_command("memory_quality", str(path), "--keep", stdout=StringIO())

    namespace = Namespace.objects.get(name="quality-tiny")
    assert namespace.events.exists()
