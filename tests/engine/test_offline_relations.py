"""Relation statements of ordinary team talk → graph edges (issue 29), English and Chinese.

Each statement is extracted offline as an event and projected; the edge must cite that event.
"""

from __future__ import annotations

import pytest

from memory.engine.offline_graph import project_events
from memory.engine.offline_relations import relations
from tests.engine.test_offline_graph import projected

EDGES = [
    ("Priya owns the billing service.", "person:priya", "owns", "project:billingservice"),
    ("The billing service is owned by Priya.", "person:priya", "owns", "project:billingservice"),
    ("Marco maintains the auth service.", "person:marco", "maintains", "project:authservice"),
    ("The auth service is maintained by Marco.", "person:marco", "maintains",
     "project:authservice"),
    ("Lena leads the mobile app.", "person:lena", "leads", "project:mobileapp"),
    ("Priya is the tech lead of Atlas.", "person:priya", "leads", "project:atlas"),
    ("The platform team owns the deployment pipeline.", "organization:platformteam", "owns",
     "project:deploymentpipeline"),
    ("The billing service runs on Fly.io.", "project:billingservice", "runs_on", "tool:fly.io"),
    ("The billing service is deployed on Fly.io.", "project:billingservice", "deployed_on",
     "tool:fly.io"),
    ("We deploy the billing service on Fly.io.", "project:billingservice", "deployed_on",
     "tool:fly.io"),
    ("The billing service uses PostgreSQL.", "project:billingservice", "uses",
     "tool:postgresql"),
    ("Our Atlas app uses Django.", "project:atlas", "uses", "tool:django"),
    ("The billing service depends on the auth service.", "project:billingservice",
     "depends_on", "project:authservice"),
    ("The search service depends on Elasticsearch.", "project:searchservice", "depends_on",
     "tool:elasticsearch"),
    ("Tom joined the platform team.", "person:tom", "member_of", "organization:platformteam"),
    ("Tom is a member of the data team.", "person:tom", "member_of", "organization:datateam"),
    ("Maria moved to the data team.", "person:maria", "member_of", "organization:datateam"),
    ("Ana works at Globex.", "person:ana", "works_at", "organization:globex"),
    ("Ana lives in Porto.", "person:ana", "lives_in", "place:porto"),
    ("Ana prefers Vim.", "person:ana", "prefers", "tool:vim"),
    ("Priya负责账单服务。", "person:priya", "owns", "project:账单服务"),
    ("账单服务由Priya维护。", "person:priya", "maintains", "project:账单服务"),
    ("账单服务部署在Fly.io上。", "project:账单服务", "deployed_on", "tool:fly.io"),
    ("账单服务现在跑在Render上。", "project:账单服务", "runs_on", "tool:render"),
    ("账单服务用PostgreSQL。", "project:账单服务", "uses", "tool:postgresql"),
    ("账单服务依赖认证服务。", "project:账单服务", "depends_on", "project:认证服务"),
    ("小王加入了平台组。", "person:小王", "member_of", "organization:平台组"),
    ("小王在Globex工作。", "person:小王", "works_at", "organization:globex"),
    ("王芳是Atlas项目的负责人。", "person:王芳", "owns", "project:atlas"),
    # Everyday wording (2026-12-06): a process or a panel is a thing owned or built; a service
    # that talks to, calls or reads from another depends on it.
    ("Ivan is responsible for the release process.", "person:ivan", "owns",
     "project:releaseprocess"),
    ("The admin panel is written in Django.", "project:adminpanel", "uses", "tool:django"),
    ("The reporting service talks to BigQuery.", "project:reportingservice", "depends_on",
     "tool:bigquery"),
    ("The checkout service calls the payments API.", "project:checkoutservice", "depends_on",
     "project:paymentsapi"),
    # A fourth round (2026-12-06): a team is led like a project; a hand-over said with a time
    # word; what a cluster's function relies on; where someone studies is where they live.
    ("Amara leads the billing team.", "person:amara", "leads", "organization:billingteam"),
    ("结算服务之后由周敏接手。", "person:周敏", "owns", "project:结算服务"),
    ("构建集群的任务调度靠Buildkite。", "project:构建集群", "uses", "tool:buildkite"),
    ("小孙在墨尔本读博。", "person:小孙", "lives_in", "place:墨尔本"),
    # Everyday team talk, a fifth probe: software nouns beyond "service"; "looks after"; a
    # service that *is* a known technology; "served with"; "I'm on the … team"; Chinese bare
    # nouns (后端, 官网), "是用X写的", a team led with 带, a Chinese employer.
    ("Mira owns the search indexer.", "person:mira", "owns", "project:searchindexer"),
    ("Jonas looks after the payment gateway.", "person:jonas", "owns",
     "project:paymentgateway"),
    ("Pia maintains our Helm charts.", "person:pia", "maintains", "project:helmcharts"),
    ("The booking backend is plain Django.", "project:bookingbackend", "uses", "tool:django"),
    ("The ML models are served with BentoML.", "project:mlmodels", "uses", "tool:bentoml"),
    ("官网部署在Vercel上。", "project:官网", "deployed_on", "tool:vercel"),
    ("我们的后端是用Go写的。", "project:后端", "uses", "tool:go"),
    ("前端团队由Lily带。", "person:lily", "leads", "organization:前端团队"),
    ("小周在字节跳动上班。", "person:小周", "works_at", "organization:字节跳动"),
]  # fmt: skip


@pytest.mark.parametrize(("content", "origin", "relation", "target"), EDGES)
def test_a_relation_statement_is_an_event_and_an_edge(
    content: str, origin: str, relation: str, target: str
) -> None:
    events = projected(content)
    assert len(events) == 1, content
    proposal = project_events(events)
    edges = [(e.from_key, e.relation, e.to_key) for e in proposal.edges]
    assert (origin, relation, target) in edges
    for edge in proposal.edges:
        assert edge.source_event_ids == [events[0].id]
    for node in proposal.nodes:
        assert node.source_event_ids == [events[0].id]


@pytest.mark.parametrize(
    "content",
    [
        "She owns the billing service.",  # a pronoun names no one
        "He maintains the auth service.",
        "They run on Fly.io.",
        "The team moved to Slack.",  # not a home, not a membership
        "Does Priya own the billing service?",  # a question makes nothing
        "Who maintains the auth service",
        "The billing service no longer runs on Heroku.",  # a negation
        "Priya doesn't own the billing service.",
        "If the billing service runs on Fly.io, deploys are slow.",  # a condition
        "Priya leads the effort to move everything.",  # no service, team or tool named
        "Django uses Python.",  # a fact about technologies, not about this team
        "We'll use npm for the Atlas app.",  # a pronoun's contraction is no name
        "It's running on Fly.io now.",
        "他负责账单服务。",
        "账单服务不再部署在Heroku上。",
        "账单服务是否依赖认证服务？",
        "The invoicing job runs on a cron in Kubernetes.",  # a schedule is no platform
        "The backend is Ready for review.",  # a capitalised word that names no technology
        "我在公司上班。",  # no employer named
        "小王在家里工作。",
    ],
)
def test_statements_that_name_no_relation(content: str) -> None:
    assert relations(content) == []
    proposal = project_events(projected(content))
    # (A slot choice's own `uses` edge is the slot rule's, not a relation statement's.)
    assert [e for e in proposal.edges if not e.metadata.get("slot")] == []


def test_the_team_moved_to_slack_is_no_home() -> None:
    proposal = project_events(projected("The team moved to Slack."))
    assert not [n for n in proposal.nodes if n.type == "place"]


def test_a_sentence_with_two_relations_and_a_list_of_tools() -> None:
    (event,) = projected("The billing service runs on Fly.io and uses PostgreSQL and Redis.")
    edges = {
        (e.relation, e.to_key, e.metadata.get("slot", "")) for e in project_events([event]).edges
    }
    assert edges == {
        ("runs_on", "tool:fly.io", ""),
        ("uses", "tool:postgresql", "database"),
        ("uses", "tool:redis", "cache"),
    }


def test_names_stop_at_the_name() -> None:
    found = relations("Tom joined Globex last month.")
    assert [(r.subject.name, r.relation, r.object.name) for r in found] == [
        ("Tom", "works_at", "Globex")
    ]
    found = relations("我用Vim写代码。")
    assert [r.object.name for r in found] == ["Vim"]


def test_the_speaker_is_the_subject_of_i() -> None:
    proposal = project_events(projected("I maintain the auth service.", speaker="Marco"))
    edges = [(e.from_key, e.relation, e.to_key) for e in proposal.edges]
    assert ("person:marco", "maintains", "project:authservice") in edges


def test_a_capitalised_user_of_a_tool_is_a_person_when_known_as_one() -> None:
    events = projected("Ana lives in Porto.", "Ana uses Neovim.", "Atlas uses Django.")
    edges = {(e.from_key, e.to_key) for e in project_events(events).edges}
    assert ("person:ana", "tool:neovim") in edges
    assert ("project:atlas", "tool:django") in edges


def test_where_a_service_runs_is_single_valued_and_a_repeat_adds_a_source() -> None:
    first, again, moved = projected(
        "The billing service is deployed on Fly.io.",
        "The billing service runs on Fly.io.",
        "The billing service now runs on Render.",
    )
    edges = project_events([first, again, moved]).edges
    placed = [(e.relation, e.to_key, e.source_event_ids, e.exclusivity_key) for e in edges]
    assert placed == [
        ("deployed_on", "tool:fly.io", [first.id], "runs_on"),
        ("runs_on", "tool:fly.io", [again.id], "runs_on"),
        ("runs_on", "tool:render", [moved.id], "runs_on"),
    ]


def test_planned_relations_change_nothing() -> None:
    events = projected("We will deploy the billing service on Fly.io next week.")
    assert events and events[0].temporal_status == "planned"
    assert project_events(events).edges == []


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("小李负责支付网关。", ("小李", "owns", "支付网关")),  # 网关, 模块 … are services too
        ("数据平台现在由赵敏负责。", ("赵敏", "owns", "数据平台")),  # 现在 is not part of a name
        ("我还是更喜欢用TypeScript。", ("\x00me", "prefers", "TypeScript")),
        (
            "我更喜欢用飞书沟通，别给我发邮件。",
            ("\x00me", "prefers", "飞书"),
        ),  # tool, then what for
    ],
)
def test_chinese_services_adverbs_and_tools_before_a_verb(
    sentence: str, expected: tuple[str, str, str]
) -> None:
    found = [(r.subject.name, r.relation, r.object.name) for r in relations(sentence)]
    assert found == [expected]


def test_i_am_on_a_team_is_a_membership() -> None:
    proposal = project_events(projected("I'm on the growth team.", speaker="Kim"))
    edges = [(e.from_key, e.relation, e.to_key) for e in proposal.edges]
    assert edges == [("person:kim", "member_of", "organization:growthteam")]
