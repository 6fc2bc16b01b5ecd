"""Offline rules of issue 29's fifth round (2026-12-06): the relations, uses and preferences a
statement gives the graph, and the changes that end them. Written against the misses of three
new tuning sets (tests/evaluation/memory_quality_dev3.json, dev4, dev5) and probes in everyday
words: a task done with a tool, a role held at a named place, ownership and hand-overs said in
other words, preferences without "prefer", what the team is on, a move to what is no platform,
a Han tool replaced, and a tool no longer used. Each test asserts relations, uses, changes or
edges. What is stored as an event: `test_offline_round5_events.py`.
"""

from __future__ import annotations

import pytest

from memory.engine.change_ends import change_supersedes
from memory.engine.changes import Change, Use, parse_change, stated_uses
from memory.engine.offline_entities import ME, Entity, Relation
from memory.engine.offline_graph import project_events
from memory.engine.offline_relations import relations
from memory.engine.person_facts import person_relations
from memory.engine.stated_facts import replaces, stated_facts
from tests.engine.test_offline_graph import projected
from tests.engine.test_offline_round5_events import stored_events


def _person(name: str) -> Entity:
    return Entity(ME, "person") if name == "I" else Entity(name, "person")


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
    assert stored_events(content) == [("other", "ongoing")]


def test_a_task_done_at_a_time_names_no_tool() -> None:
    assert relations("I do my homework in the evening.") == []
    assert stored_events("I do my homework in the evening.") == []


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
    assert stored_events(content) == [("other", "ongoing")]


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


def test_a_main_function_is_the_projects() -> None:
    assert relations("Our main database is MySQL.") == []
    assert stated_uses("Our main database is MySQL.") == [Use("main database", "MySQL", "use")]
    assert stated_uses("We track bugs in Jira.") == [Use("bugs", "Jira", "use")]


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
    assert stored_events("I'm studying at MIT.") == [("other", "ongoing")]
    assert stored_events("I study at night.") == []


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
