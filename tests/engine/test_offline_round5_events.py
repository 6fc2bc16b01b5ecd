"""Offline rules of issue 29's fifth round (2026-12-06): what is stored as an event, when,
and when two statements are one fact. Written against the misses of three new tuning sets
(tests/evaluation/memory_quality_dev3.json, dev4, dev5) and probes in everyday words: what a
team or household does not have, restatements said with "still" or 还是, a deadline said again,
a clause sharing the person before it, the end of a named month, a day of the month said alone,
obligations and expiries that lie ahead, plain facts with chatter kept out, and an assistant
restating a dated event in other words. Each test asserts the stored events, dates or identity.
The relations and uses of the same round: `test_offline_round5_relations.py`.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.changes import parse_change
from memory.engine.event_identity import FactText, why_different
from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.offline_relations import relations
from memory.engine.temporal import resolve_temporal

AT = datetime(2026, 6, 3, 1, 0, tzinfo=UTC)
MONDAY = datetime(2026, 9, 7, 9, tzinfo=UTC)


def stored_events(content: str, at: datetime = AT) -> list[tuple[str, str]]:
    """(type, status) of each event offline extraction stores from one user message."""
    out = extract_events([SourceMessage(1, "user", content, at, speaker="Sam")])
    return [(e.event_type, e.temporal_status) for e in out.events]


@pytest.mark.parametrize(
    "content",
    [
        "We don't have a staging cluster, everything is tested locally.",
        "I don't own a car.",
        "There's no staging environment.",
        "We haven't adopted GraphQL.",
        "我们没有专职的测试人员。",
        "我们家没有养宠物。",
        "公司没有测试环境。",
        "我们不做安卓原生应用。",
    ],
)
def test_what_is_not_there_is_a_negative_fact(content: str) -> None:
    assert stored_events(content) == [("other", "ongoing")]


@pytest.mark.parametrize(
    "content",
    [
        "I don't have time for this.",
        "I don't have a clue.",
        "There's no way I'm doing that.",
        "I haven't used it.",
        "我们没有时间。",
        "我们没有去。",
    ],
)
def test_chatter_about_what_is_missing_stores_nothing(content: str) -> None:
    assert stored_events(content) == []


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("I'm still allergic to shellfish, just so you remember.", "I'm allergic to shellfish."),
        ("The path planner is still written in Rust.", "The path planner is written in Rust."),
        ("As I said before, we deploy on Fly.io.", "We deploy on Fly.io."),
        ("我还是对花生过敏。", "我对花生过敏。"),
        ("小程序还是用Taro写的。", "我们的小程序是用Taro写的。"),
        ("我们依然用钉钉沟通。", "我们用钉钉沟通。"),
    ],
)
def test_a_restatement_marked_still_is_the_same_fact(new: str, old: str) -> None:
    assert why_different(FactText("other", new), FactText("other", old)) is None


def test_a_restatement_marker_hides_no_other_value() -> None:
    old = FactText("other", "We still use Postgres for the orders database.")
    assert why_different(FactText("other", "We use Postgres for the payments database."), old)
    assert why_different(FactText("other", "我们还是用订单库"), FactText("other", "我们用账单库"))


def test_the_end_of_a_named_month_is_its_last_days() -> None:
    said = resolve_temporal(
        "I have to renew my passport before the end of June.",
        mentioned_at=AT,
        default_status="planned",
    )
    assert said.happened_end is not None and said.happened_end.date().isoformat() == "2026-06-30"
    assert stored_events("I have to renew my passport before the end of June.") == [
        ("plan", "planned")
    ]


def test_an_incident_report_is_no_incident() -> None:
    assert stored_events("Next Wednesday I need to send the incident report to legal.") == [
        ("plan", "planned")
    ]
    assert stored_events("We had an incident last night.") == [("incident", "occurred")]


def test_figures_and_frequencies_of_ones_own_life_are_plain_facts() -> None:
    assert stored_events("I work from home three days a week.") == [("other", "ongoing")]
    assert stored_events("我每天坐地铁上班，大概四十分钟。") == [("other", "ongoing")]
    assert stored_events("我大概会去看看。") != [("other", "ongoing")]  # a hedge stays one


def test_an_assistant_restating_a_dated_event_in_other_words_adds_nothing() -> None:
    at = datetime(2026, 5, 16, 16, tzinfo=UTC)
    out = extract_events(
        [
            SourceMessage(1, "user", "Keisha's leaving at the end of the month.", at, "Maya"),
            SourceMessage(2, "assistant", "Oh, noted. Keisha leaves at the end of May.", at),
        ]
    )
    # Someone leaving is a change (round 42; it was a plan before, as "leaves" still reads).
    assert [(e.event_type, e.source_message_ids) for e in out.events] == [("change", [1])]


def test_a_day_of_the_month_said_alone_is_this_or_next_month() -> None:
    said = resolve_temporal(
        "The demo build is due on the 14th.", mentioned_at=AT, default_status="planned"
    )
    assert said.happened_end is not None and said.happened_end.date().isoformat() == "2026-06-14"
    later = datetime(2026, 6, 20, 12, tzinfo=UTC)
    said = resolve_temporal("It's due by the 3rd.", mentioned_at=later, default_status="planned")
    assert said.happened_end is not None and said.happened_end.date().isoformat() == "2026-07-03"
    assert stored_events("The demo build is due on the 14th.") == [("plan", "planned")]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("We're not on Steam yet.", [("other", "ongoing")]),
        ("My wife Anita runs a bakery.", [("other", "ongoing")]),
        ("Anita sold the bakery last month.", [("other", "occurred")]),
        ("导师是王教授。", [("other", "ongoing")]),
        ("Sofia was really busy last week.", []),  # how it felt
    ],
)
def test_more_plain_facts(content: str, expected: list[tuple[str, str]]) -> None:
    assert stored_events(content) == expected


def test_a_hand_over_said_with_now_is_a_change() -> None:
    assert stored_events("数据库现在由小王维护。") == [("change", "occurred")]
    assert stored_events("李强毕业了，机械臂现在归赵鹏管。")[0][0] == "change"


def test_han_particles_do_not_make_a_restatement_new() -> None:
    assert (
        why_different(
            FactText("other", "我们公司还是用阿里云。"), FactText("other", "我们公司用的是阿里云。")
        )
        is None
    )


@pytest.mark.parametrize(
    "content",
    [
        "Giulia stepped down, Carla leads the risk team now.",
        "Paolo handed the fraud model over to Sven.",
        "We sold the Honda and bought a Toyota Aqua.",
        "李娟休产假了，用户中心暂时交给孙强。",
        "我女儿不学钢琴了，改学游泳。",
    ],
)
def test_these_are_changes(content: str) -> None:
    assert [kind for kind, _ in stored_events(content)] == ["change"]


def test_a_move_off_a_platform_and_a_weekend_just_gone() -> None:
    monday = datetime(2026, 3, 23, 8, tzinfo=UTC)
    content = "The ledger service moved off Heroku onto Fly.io this weekend."
    assert stored_events(content, monday) == [("change", "occurred")]
    change = parse_change(content)
    assert change is not None and (change.old, change.new) == ("Heroku", "Fly.io")
    said = resolve_temporal(content, mentioned_at=monday, default_status="occurred")
    assert said.happened_start is not None and said.happened_start.date().isoformat() == (
        "2026-03-21"
    )


def test_a_clause_sharing_the_person_before_it_is_a_fact_of_its_own() -> None:
    # Two facts, two events (issue 29: one event per fact), each with its edge; the second is
    # read with the person carried in and quoted as said.
    events = extract_events(
        [SourceMessage(1, "user", "我在风控组，主要负责反欺诈引擎。", AT, speaker="Sam")]
    ).events
    assert [(e.summary, e.quotes) for e in events] == [
        ("Sam: 我在风控组", ["我在风控组"]),
        ("Sam: 我主要负责反欺诈引擎", ["主要负责反欺诈引擎。"]),
    ]
    assert [[(r.relation, r.object.name) for r in relations(e.summary[5:])] for e in events] == [
        [("member_of", "风控组")],
        [("owns", "反欺诈引擎")],
    ]
    # A clause with no relation of its own keeps the sentence whole.
    whole = extract_events(
        [SourceMessage(1, "user", "我在风控组，今天好累。", AT, speaker="Sam")]
    ).events
    assert [e.quotes for e in whole] == [["我在风控组，今天好累。"]]


@pytest.mark.parametrize(
    ("content", "last_day"),
    [
        ("The audit must be finished this week.", "2026-09-13"),
        ("十号之前把方案发给老板。", "2026-09-10"),
        ("合同六月底到期。", "2027-06-30"),
        ("The contract expires on June 30.", "2027-06-30"),
        ("My passport expires in March.", "2027-03-31"),
    ],
)
def test_a_deadline_said_in_everyday_words_is_a_plan_ahead(content: str, last_day: str) -> None:
    events = extract_events([SourceMessage(1, "user", content, MONDAY, speaker="Sam")]).events
    assert [(e.event_type, e.temporal_status) for e in events] == [("plan", "planned")]
    assert events[0].happened_end is not None
    assert events[0].happened_end.date().isoformat() == last_day


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("The trial ended on June 30.", [("other", "occurred")]),
        ("I had to leave early yesterday.", [("other", "occurred")]),
        ("我坐3号线上班。", []),  # a line number, no day
    ],
)
def test_what_is_past_or_no_date_stays_so(content: str, expected: list[tuple[str, str]]) -> None:
    assert stored_events(content, MONDAY) == expected


@pytest.mark.parametrize(
    "content",
    [
        "My commute is about an hour each way.",
        "I speak Spanish and a bit of Japanese.",
        "My daughter is starting college in the fall.",
        "We're a team of twelve.",
        "我们每两周发一次版。",
        "我们组一共十二个人。",
        "我老家是湖南的。",
        "我们的日活大概五万。",
        "累计用户有两万。",  # 累计 is "in all", not 累 ("tired")
        "我太太是老师。",  # 太太 is a wife, not 太 ("too")
    ],
)
def test_plain_facts_of_a_wider_probe(content: str) -> None:
    assert len(stored_events(content)) == 1


@pytest.mark.parametrize(
    "content",
    [
        "It was a long day.",
        "I speak too fast sometimes.",
        "我一共就睡了五个小时。",  # one night, not a standing fact
        "今天大约三点到。",  # a clock time, not a figure
        "我们每周都很忙。",  # how it feels
    ],
)
def test_chatter_beside_them_stores_nothing(content: str) -> None:
    assert stored_events(content) == []
