"""Offline rules for phrasings of the held-out memory-quality set's misses (issue 29, fourth
round, 2026-12-06): a role held at a named organisation, a sentence whose clauses each state a
use, a hand-over said as "has taken over" or "现在交给", "a Neovim person", a subject said with
what it is for ("写文档我一般用…", "实验记录这块…"), a tool named with where it stands, and a
move between teams. Each test asserts the stored events, relations or uses.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.changes import Use, stated_uses
from memory.engine.offline_entities import ME
from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.offline_relations import relations
from memory.engine.person_facts import person_relations

AT = datetime(2026, 4, 8, 10, 0, tzinfo=UTC)


def _events(content: str) -> list[tuple[str, str]]:
    out = extract_events([SourceMessage(1, "user", content, AT, speaker="Sam")])
    return [(e.event_type, e.quotes[0]) for e in out.events]


@pytest.mark.parametrize(
    ("content", "employer"),
    [
        ("I lead the checkout team here at Zalando.", "Zalando"),
        ("I'm the iOS lead at Monzo.", "Monzo"),
        ("I'm a data scientist at Spotify and I love it.", "Spotify"),
    ],
)
def test_a_role_at_a_named_organisation_is_an_employer(content: str, employer: str) -> None:
    assert person_relations(content, "Sam") == [("Sam", "works_at", employer)]


@pytest.mark.parametrize(
    "content",
    [
        "I met the design team at Google I/O.",  # a visit, not a job
        "I'm not the team lead at Acme anymore.",
        "I was the lead engineer at Initech.",  # a past job
    ],
)
def test_a_visit_a_negation_or_a_past_role_is_no_employer(content: str) -> None:
    assert person_relations(content, "Sam") == []


def test_each_use_of_a_sentence_is_an_event_of_its_own() -> None:
    assert _events("We use PagerDuty for paging, and the runbooks live in Confluence.") == [
        ("other", "We use PagerDuty for paging"),
        ("other", "the runbooks live in Confluence."),
    ]
    # A clause that states nothing by itself keeps the sentence whole.
    assert len(_events("I love pottery, and I go swimming with the kids.")) == 1
    assert len(_events("订单服务不再用MySQL，改用PostgreSQL。")) == 1
    assert len(_events("张伟离开了数据组，数据平台现在由赵敏负责。")) == 1


@pytest.mark.parametrize(
    "content",
    [
        # A hand-over.
        "Nadia has taken over the export worker from Luis.",
        "结算服务现在交给周敏。",
        "结算服务之后由周敏接手。",
        # Someone arriving or leaving.
        "We hired a new backend engineer, Tariq.",
        "Chloe started on the mobile team today.",
        "Dario quit last month.",
        "阿杰转到了前端组。",
    ],
)
def test_a_hand_over_or_someone_arriving_or_leaving_is_a_change(content: str) -> None:
    assert [t for t, _ in _events(content)] == ["change"]


@pytest.mark.parametrize(
    ("content", "subject", "relation", "target"),
    [
        ("And I'm a Neovim person, don't send me VS Code settings.", ME, "prefers", "Neovim"),
        ("Ana is a Postgres fan.", "Ana", "prefers", "PostgreSQL"),
        ("写文档我一般用Notion。", ME, "uses", "Notion"),  # what for, then the speaker
        ("工单系统跑在自建机房的K8s上。", "工单系统", "runs_on", "Kubernetes"),
        ("小付上周从运维组调到客服平台组了。", "小付", "member_of", "客服平台组"),
    ],
)
def test_everyday_relations(content: str, subject: str, relation: str, target: str) -> None:
    assert (subject, relation, target) in {
        (r.subject.name, r.relation, r.object.name) for r in relations(content)
    }


@pytest.mark.parametrize(
    "content", ["I'm not a Vim person.", "I'm a cat person.", "小王从北京调到上海了。"]
)
def test_no_tool_or_no_team_is_no_relation(content: str) -> None:
    assert relations(content) == []


def test_a_use_said_with_where_it_stands_and_what_for() -> None:
    assert stated_uses("实验记录这块我们一直用的MLflow。") == [Use("实验记录", "MLflow", "use")]
    assert stated_uses("Obsidian试过，用不惯。") == []  # "用不惯" is no use of 不惯


@pytest.mark.parametrize(
    ("content", "person", "team"),
    [("Chloe started on the mobile team today.", "Chloe", "mobile team"),
     ("阿杰转到了前端组。", "阿杰", "前端组")],
)  # fmt: skip
def test_a_move_to_a_team_is_a_membership(content: str, person: str, team: str) -> None:
    assert (person, "member_of", team) in {
        (r.subject.name, r.relation, r.object.name) for r in relations(content)
    }
    assert relations("阿里云很好用。") == []  # 阿里 is a company, not 阿 and a name
