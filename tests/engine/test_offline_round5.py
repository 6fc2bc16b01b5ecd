"""Offline rules for the fifth round of issue 29 (2026-12-06), written against the misses of two
new tuning sets (tests/evaluation/memory_quality_dev3.json and dev4.json): what a team or
household does not have, a restatement said with "still" or 还是, a task done with a tool ("I do
my budgeting in YNAB"), a role held at a named place, a move to a protocol, a Han tool replaced,
the end of a named month and a day of the month said alone, a hand-over said with 现在由/归, and
an assistant restating a dated event in other words. Each test asserts the stored events,
relations, uses or dates.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.change_ends import change_supersedes
from memory.engine.changes import Change, Use, parse_change, stated_uses
from memory.engine.event_identity import FactText, why_different
from memory.engine.offline_entities import ME, Entity, Relation
from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.offline_graph import person_relations, project_events
from memory.engine.offline_relations import relations
from memory.engine.stated_facts import replaces, stated_facts
from memory.engine.temporal import resolve_temporal
from tests.engine.test_offline_graph import projected

AT = datetime(2026, 6, 3, 1, 0, tzinfo=UTC)


def _events(content: str, at: datetime = AT) -> list[tuple[str, str]]:
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
    assert _events(content) == [("other", "ongoing")]


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
    assert _events(content) == []


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


@pytest.mark.parametrize(
    ("content", "tool"),
    [
        ("I do my budgeting in YNAB.", "YNAB"),
        ("I keep my notes in Obsidian.", "Obsidian"),
        ("I track my runs with Strava.", "Strava"),
    ],
)
def test_a_task_done_with_a_tool_is_a_use_of_it(content: str, tool: str) -> None:
    assert relations(content) == [Relation(Entity(ME, "person"), "uses", Entity(tool, "tool"))]
    assert _events(content) == [("other", "ongoing")]


def test_a_task_done_at_a_time_names_no_tool() -> None:
    assert relations("I do my homework in the evening.") == []
    assert _events("I do my homework in the evening.") == []


def test_a_stopped_personal_tool_ends_its_use() -> None:
    assert stated_uses("I do my budgeting in YNAB.") == [Use("budgeting", "YNAB", "use")]
    change = parse_change("We stopped using YNAB, it's all in a spreadsheet now.")
    assert change is not None and change.old == "YNAB"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("My sister Priya is a nurse at Rush.", [("Priya", "works_at", "Rush")]),
        ("My partner Leo works at Deloitte.", [("Leo", "works_at", "Deloitte")]),
        ("Tom is the CFO at Globex.", [("Tom", "works_at", "Globex")]),
        ("Tom is a regular at Joe's.", []),  # a customer, not an employee
        ("Kenji is the tech lead of Nimbus now.", []),  # a project he leads: a relation rule's
    ],
)
def test_a_role_said_of_someone_named_is_their_employer(
    content: str, expected: list[tuple[str, str, str]]
) -> None:
    assert person_relations(content, "Sam") == expected


def test_chinese_relative_holding_a_role_somewhere_works_there() -> None:
    assert relations("我老婆在协和医院当医生。") == [
        Relation(Entity("老婆", "person"), "works_at", Entity("协和医院", "organization"))
    ]
    # "…做后端开发工作" is the speaker's own job, read once by `person_relations`.
    assert relations("我现在在一家创业公司做后端开发工作。") == []


def test_a_move_said_with_when_is_a_home() -> None:
    assert person_relations("我们上周搬到了杭州。", "周杰") == [("周杰", "lives_in", "杭州")]
    assert person_relations("我们公司搬到了杭州。", "周杰") == []


@pytest.mark.parametrize(
    ("content", "relation"),
    [
        ("We moved the scheduler from MQTT to gRPC last week.", "uses"),
        ("We moved the billing service from Heroku to Fly.io.", "runs_on"),
    ],
)
def test_a_move_to_what_is_no_platform_is_a_use(content: str, relation: str) -> None:
    assert [r.relation for r in relations(content)] == [relation]


def test_what_a_service_is_spoken_to_over_is_a_use_a_change_ends() -> None:
    assert stated_uses("Our robots talk to the scheduler over MQTT.") == [
        Use("scheduler", "MQTT", "use")
    ]
    change = parse_change("We moved the scheduler from MQTT to gRPC streams last week.")
    assert change is not None and (change.subject, change.old) == ("scheduler", "MQTT")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            "记账不用随手记了，现在改用鲨鱼记账。",
            Change("stop", "记账", "随手记", "鲨鱼记账", "use"),
        ),
        ("客服系统不再用智齿了，改用了美洽。", Change("stop", "客服系统", "智齿", "美洽", "use")),
    ],
)
def test_a_han_tool_replaced_names_both_values(content: str, expected: Change) -> None:
    assert parse_change(content) == expected


def test_no_need_to_worry_replaces_nothing() -> None:
    change = parse_change("我们不用担心了，现在改用新方案。")
    assert change is None or change.old is None


def test_the_end_of_a_named_month_is_its_last_days() -> None:
    said = resolve_temporal(
        "I have to renew my passport before the end of June.",
        mentioned_at=AT,
        default_status="planned",
    )
    assert said.happened_end is not None and said.happened_end.date().isoformat() == "2026-06-30"
    assert _events("I have to renew my passport before the end of June.") == [("plan", "planned")]


def test_an_incident_report_is_no_incident() -> None:
    assert _events("Next Wednesday I need to send the incident report to legal.") == [
        ("plan", "planned")
    ]
    assert _events("We had an incident last night.") == [("incident", "occurred")]


def test_figures_and_frequencies_of_ones_own_life_are_plain_facts() -> None:
    assert _events("I work from home three days a week.") == [("other", "ongoing")]
    assert _events("我每天坐地铁上班，大概四十分钟。") == [("other", "ongoing")]
    assert _events("我大概会去看看。") != [("other", "ongoing")]  # a hedge stays one


def test_an_assistant_restating_a_dated_event_in_other_words_adds_nothing() -> None:
    at = datetime(2026, 5, 16, 16, tzinfo=UTC)
    out = extract_events(
        [
            SourceMessage(1, "user", "Keisha's leaving at the end of the month.", at, "Maya"),
            SourceMessage(2, "assistant", "Oh, noted. Keisha leaves at the end of May.", at),
        ]
    )
    assert [(e.event_type, e.source_message_ids) for e in out.events] == [("plan", [1])]


# -- from the second new tuning set (memory_quality_dev4.json) ----------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("I'm the lead designer at Pinecone Games.", [("Sam", "works_at", "Pinecone Games")]),
        ("I teach math at Lincoln High.", [("Sam", "works_at", "Lincoln High")]),
    ],
)
def test_a_role_or_subject_held_at_a_named_place_is_an_employer(
    content: str, expected: list[tuple[str, str, str]]
) -> None:
    assert person_relations(content, "Sam") == expected
    assert _events(content) == [("other", "ongoing")]


def test_handles_is_ownership_and_a_hand_over_replaces_it() -> None:
    assert relations("Hamid handles the audio pipeline.") == [
        Relation(Entity("Hamid", "person"), "owns", Entity("audio pipeline", "project"))
    ]
    assert relations("Hamid handles billing.") == []  # a function, not a thing named


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("Builds run on a Jenkins box in the office.", [Use("Builds", "Jenkins", "host")]),
        ("Our internet provider is Comcast.", [Use("internet provider", "Comcast", "use")]),
        ("The demo build is due on the 14th.", []),  # a state, not a thing used
    ],
)
def test_what_a_use_names(content: str, expected: list[Use]) -> None:
    assert stated_uses(content) == expected


def test_a_day_of_the_month_said_alone_is_this_or_next_month() -> None:
    said = resolve_temporal(
        "The demo build is due on the 14th.", mentioned_at=AT, default_status="planned"
    )
    assert said.happened_end is not None and said.happened_end.date().isoformat() == "2026-06-14"
    later = datetime(2026, 6, 20, 12, tzinfo=UTC)
    said = resolve_temporal("It's due by the 3rd.", mentioned_at=later, default_status="planned")
    assert said.happened_end is not None and said.happened_end.date().isoformat() == "2026-07-03"
    assert _events("The demo build is due on the 14th.") == [("plan", "planned")]


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
    assert _events(content) == expected


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("我在浙大读博，做机器人方向。",
         [Relation(Entity(ME, "person"), "works_at", Entity("浙大", "organization"))]),
        ("我在多伦多读研。",
         [Relation(Entity(ME, "person"), "lives_in", Entity("多伦多", "place"))]),
        ("师兄李强负责实验室的机械臂。",
         [Relation(Entity("李强", "person"), "owns", Entity("机械臂", "project"))]),
        ("李强毕业了，机械臂现在归赵鹏管。",
         [Relation(Entity("赵鹏", "person"), "owns", Entity("机械臂", "project"))]),
        ("老张负责招人。", []),  # an activity
        ("我负责写文档。", []),  # the speaker's own task
    ],
)  # fmt: skip
def test_chinese_schools_and_things_someone_is_responsible_for(
    content: str, expected: list[Relation]
) -> None:
    assert relations(content) == expected


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("日志都打到ELK里。", [Use("日志", "ELK", "use")]),
        ("实验室的服务器都装的Ubuntu。", [Use("实验室的服务器", "Ubuntu", "use")]),
    ],
)
def test_chinese_uses_said_as_where_things_go(content: str, expected: list[Use]) -> None:
    assert stated_uses(content) == expected


def test_a_hand_over_said_with_now_is_a_change() -> None:
    assert _events("数据库现在由小王维护。") == [("change", "occurred")]
    assert _events("李强毕业了，机械臂现在归赵鹏管。")[0][0] == "change"


def test_han_particles_do_not_make_a_restatement_new() -> None:
    assert (
        why_different(
            FactText("other", "我们公司还是用阿里云。"), FactText("other", "我们公司用的是阿里云。")
        )
        is None
    )


# -- a relation and preference probe in everyday words ----------------------------------------


def _person(name: str) -> Entity:
    return Entity(ME, "person") if name == "I" else Entity(name, "person")


@pytest.mark.parametrize(
    ("content", "relation", "tool"),
    [
        ("I'd rather use Postgres than MySQL.", "prefers", "PostgreSQL"),
        ("I like VS Code better than IntelliJ.", "prefers", "VS Code"),
        ("I'm a big fan of Tailwind.", "prefers", "Tailwind CSS"),
        ("My go-to editor is Neovim.", "prefers", "Neovim"),
        ("Sublime is my editor of choice.", "prefers", "Sublime"),
        ("I can't live without Raycast.", "prefers", "Raycast"),
        ("I mostly code in TypeScript.", "uses", "TypeScript"),
        ("For email I use Fastmail.", "uses", "Fastmail"),
        ("I always write my notes in Markdown.", "uses", "Markdown"),
        ("我习惯用VS Code写代码。", "uses", "VS Code"),
        ("写代码我只用Vim。", "uses", "Vim"),
    ],
)
def test_what_the_speaker_prefers_or_works_in(content: str, relation: str, tool: str) -> None:
    found = relations(content)
    assert [(r.subject, r.relation) for r in found] == [(_person("I"), relation)]
    assert found[0].object.name.casefold() == tool.casefold()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("The checkout service is Priya's.", ("Priya", "owns", "checkout service")),
        ("Omar is the go-to person for the payments API.", ("Omar", "owns", "payments API")),
        ("The frontend lives on Vercel.", ("frontend", "runs_on", "Vercel")),
        ("The website runs off a single Hetzner box.", ("website", "runs_on", "Hetzner")),
        ("Jess moved over to the platform team.", ("Jess", "member_of", "platform team")),
        ("I'm part of the infra team.", (ME, "member_of", "infra team")),
        ("Nadia heads up the design team.", ("Nadia", "leads", "design team")),
        ("The growth team is run by Carlos.", ("Carlos", "leads", "growth team")),
        ("Kai swears by Emacs.", ("Kai", "prefers", "Emacs")),
        ("老陈带前端团队。", ("老陈", "leads", "前端团队")),
        ("订单服务跑在K8s上。", ("订单服务", "runs_on", "Kubernetes")),
        ("客服系统用的是智齿。", ("客服系统", "uses", "智齿")),
        ("记账我一直用随手记。", (ME, "uses", "随手记")),
    ],
)
def test_relations_said_in_everyday_words(content: str, expected: tuple[str, str, str]) -> None:
    assert [(r.subject.name, r.relation, r.object.name) for r in relations(content)] == [expected]


@pytest.mark.parametrize(
    "content",
    [
        "Builds run on a Jenkins box in the office.",  # a function opening the sentence
        "我用手机拍的。",  # what it did with the phone follows
        "我用了两天。",
        "客服系统用的是老版本。",
    ],
)
def test_no_relation_from_look_alikes(content: str) -> None:
    assert [r.relation for r in relations(content)] == []


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("I work remotely for a startup called Lumen.", [("Sam", "works_at", "Lumen")]),
        ("Mei just started at Canva.", [("Mei", "works_at", "Canva")]),
        ("I'm based in Lisbon.", [("Sam", "lives_in", "Lisbon")]),
        ("My sister Priya is a nurse at Rush hospital.", [("Priya", "works_at", "Rush hospital")]),
    ],
)
def test_employers_and_homes_in_everyday_words(
    content: str, expected: list[tuple[str, str, str]]
) -> None:
    assert person_relations(content, "Sam") == expected


def test_the_whole_team_on_a_tool_is_the_projects_use() -> None:
    assert stated_uses("The team is all on Linear now.") == [Use(None, "Linear", "use")]


# -- from the third new tuning set (memory_quality_dev5.json): changes and hand-overs ----------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("Paolo handed the fraud model over to Sven.", ("Sven", "owns", "fraud model")),
        ("I sit on the platform team.", (ME, "member_of", "platform team")),
        ("我们的前端团队由周敏带。", ("周敏", "leads", "前端团队")),
        ("李娟休产假了，用户中心暂时交给孙强。", ("孙强", "owns", "用户中心")),
    ],
)
def test_hand_overs_and_teams_in_other_words(content: str, expected: tuple[str, str, str]) -> None:
    assert [(r.subject.name, r.relation, r.object.name) for r in relations(content)] == [expected]


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
    assert [kind for kind, _ in _events(content)] == ["change"]


def test_a_main_function_is_the_projects() -> None:
    assert relations("Our main database is MySQL.") == []
    assert stated_uses("Our main database is MySQL.") == [Use("main database", "MySQL", "use")]
    assert stated_uses("We track bugs in Jira.") == [Use("bugs", "Jira", "use")]


def test_a_move_off_a_platform_and_a_weekend_just_gone() -> None:
    monday = datetime(2026, 3, 23, 8, tzinfo=UTC)
    content = "The ledger service moved off Heroku onto Fly.io this weekend."
    assert _events(content, monday) == [("change", "occurred")]
    change = parse_change(content)
    assert change is not None and (change.old, change.new) == ("Heroku", "Fly.io")
    said = resolve_temporal(content, mentioned_at=monday, default_status="occurred")
    assert said.happened_start is not None and said.happened_start.date().isoformat() == (
        "2026-03-21"
    )


def test_a_car_sold_ends_the_one_driven_and_is_no_tool() -> None:
    change = parse_change("We sold the Honda and bought a Toyota Aqua.")
    assert change is not None and (change.old, change.new) == ("Honda", "Toyota Aqua")
    assert change_supersedes(change, ["I drive a Honda Fit."])
    assert not change_supersedes(change, ["I drive a Mazda."])


def test_a_team_move_from_the_old_one_replaces_it() -> None:
    old = stated_facts("I sit on the platform team.", "Marco")
    new_text = "I moved from the platform team to the data team."
    assert replaces(stated_facts(new_text, "Marco"), old, new_text)
    # Joining another team says nothing of the first one.
    other = "I joined the data team."
    assert not replaces(stated_facts(other, "Marco"), old, other)


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
    ("content", "expected"),
    [
        ("I prefer working in VS Code.", (ME, "prefers", "VS Code")),
        ("I love using Notion for everything.", (ME, "prefers", "Notion")),
        ("I'm more of a Vim person.", (ME, "prefers", "Vim")),
        ("Honestly I'd pick Python over Go any day.", (ME, "prefers", "Python")),
        ("I much prefer Slack to Teams.", (ME, "prefers", "Slack")),
        ("I tend to use Postman for API testing.", (ME, "uses", "Postman")),
        ("Tom loves Rust.", ("Tom", "prefers", "Rust")),
        ("Tom is really into Elixir these days.", ("Tom", "prefers", "Elixir")),
        ("我最喜欢的编辑器是VS Code。", (ME, "prefers", "VS Code")),
        ("比起Jira我更喜欢Linear。", (ME, "prefers", "Linear")),
    ],
)
def test_preferences_said_in_everyday_words(content: str, expected: tuple[str, str, str]) -> None:
    found = [(r.subject.name, r.relation, r.object.name) for r in relations(content)]
    assert [(s, r, o.casefold()) for s, r, o in found] == [
        (expected[0], expected[1], expected[2].casefold())
    ]


@pytest.mark.parametrize(
    "content",
    [
        "I love Paris.",
        "Tom likes pizza.",
        "I love my kids.",
        "我喜欢猫。",
        "我喜欢这个方案。",
        "I'm into hiking these days.",
        "I enjoy working with Sarah.",
        "I'd pick the blue one over the red one.",
        "We prefer to keep things simple.",
    ],
)
def test_a_liking_for_no_technology_is_no_edge(content: str) -> None:
    assert relations(content) == []


def test_what_the_team_prefers_is_its_use() -> None:
    assert stated_uses("We prefer Terraform for infrastructure.") == [Use(None, "Terraform", "use")]
    assert stated_uses("The team prefers GitLab.") == [Use(None, "GitLab", "use")]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("周杰在阿里工作。", [("周杰", "works_at", "阿里")]),  # 里 is part of the name
        ("Sara runs the onboarding program.", [("Sara", "leads", "onboarding program")]),
    ],
)
def test_third_person_relations(content: str, expected: list[tuple[str, str, str]]) -> None:
    assert [(r.subject.name, r.relation, r.object.name) for r in relations(content)] == expected


def test_where_someone_studies_is_their_institution() -> None:
    assert person_relations("Zoe is studying at MIT.", "Sam") == [("Zoe", "works_at", "MIT")]
    assert person_relations("I'm studying at MIT.", "Sam") == [("Sam", "works_at", "MIT")]
    assert _events("I'm studying at MIT.") == [("other", "ongoing")]
    assert _events("I study at night.") == []


# -- deadlines in everyday words --------------------------------------------------------------

MONDAY = datetime(2026, 9, 7, 9, tzinfo=UTC)


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
    assert _events(content, MONDAY) == expected


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
    ],
)
def test_plain_facts_of_a_wider_probe(content: str) -> None:
    assert len(_events(content)) == 1


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
    assert _events(content) == []


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("We're on AWS.", [Use(None, "AWS", "use")]),
        ("We're on Postgres 15.", [Use(None, "Postgres 15", "use")]),
        ("Everything runs in Docker.", [Use(None, "Docker", "use")]),
        ("我们全栈都是TypeScript。", [Use("全栈", "TypeScript", "use")]),
        ("我们用的云是AWS。", [Use("云", "AWS", "use")]),
        ("提醒一下，监控那套现在是Prometheus加Grafana。", [Use("监控", "Prometheus", "use")]),
        ("We're on it.", []),
        ("I'm on vacation.", []),
        ("我是学生。", []),
    ],
)
def test_what_the_team_is_on(content: str, expected: list[Use]) -> None:
    assert stated_uses(content) == expected


def test_a_version_said_with_a_tool_is_the_tool() -> None:
    proposal = project_events(projected("We're on Postgres 15.", speaker="Sam"))
    proposal_edges = {(e.from_key, e.relation, e.to_key) for e in proposal.edges}
    assert ("project:project", "uses", "tool:postgresql") in proposal_edges
    assert relations("后端是Go写的。") == [
        Relation(Entity("后端", "project"), "uses", Entity("Go", "tool"))
    ]


@pytest.mark.parametrize(
    "content",
    [
        "We don't use Kafka anymore.",
        "We stopped using Jenkins.",
        "We dropped Jira.",
        "We don't use Kafka.",
        "我们不再用Jenkins了。",
    ],
)
def test_a_tool_no_longer_used_is_no_edge(content: str) -> None:
    # The slot lexicon read the tool of "stopped using X" as the one chosen: project uses X.
    assert project_events(projected(content, speaker="Sam")).edges == []


def test_the_value_moved_to_is_still_chosen() -> None:
    edges = project_events(projected("We dropped Jira for Linear.", speaker="Sam")).edges
    assert [(e.relation, e.to_key) for e in edges] == [("uses", "tool:linear")]
