"""Issue 29's twenty-third round (2026-12-07): people named in passing and where things go.
"同事叫Anna，在SAP上班" and "室友叫小王，在腾讯上班" stored nothing; "Felix left Spotify last year
and now works at Klarna" named no employer; "告警发到飞书群里" and "制品推到Nexus" no tool; "Both
the web app and the admin panel run on Vercel" placed only the admin panel."""

from __future__ import annotations

import pytest

from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "events", "edges"),
    [
        (
            "同事叫Anna，在SAP上班。",
            [("other", "ongoing")],
            {("person:anna", "works_at", "organization:sap")},
        ),
        (
            "室友叫小王，在腾讯上班。",
            [("other", "ongoing")],
            {("person:小王", "works_at", "organization:腾讯")},
        ),
        (
            "我表哥叫周明，在华为做硬件。",
            [("other", "ongoing")],
            {("person:周明", "works_at", "organization:华为")},
        ),
        ("我们组新来了一个实习生叫刘畅，在做推荐模型。", [("change", "occurred")], set()),
        ("我在家上班。", [("other", "ongoing")], set()),  # no employer named
    ],
)
def test_someone_named_then_where_they_work(
    content: str, events: list[tuple[str, str]], edges: set[tuple[str, str, str]]
) -> None:
    assert stored_events(content) == events
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "Felix left Spotify last year and now works at Klarna.",
            ("person:felix", "works_at", "organization:klarna"),
        ),
        ("Felix now works at Klarna.", ("person:felix", "works_at", "organization:klarna")),
        (
            "I left Globex and now work at Initech.",
            ("person:sam", "works_at", "organization:initech"),
        ),
        (
            "I left Globex in May and now I work at Initech.",
            ("person:sam", "works_at", "organization:initech"),
        ),
    ],
)
def test_a_new_employer_after_leaving_is_a_change_and_where_they_work(
    content: str, edge: tuple[str, str, str]
) -> None:
    assert stored_events(content) == [("change", "occurred")]
    assert _edges(content) == {edge}


def test_a_role_on_a_squad_at_a_company_names_the_employer() -> None:
    assert _edges("I'm the tech lead on the payments squad at Klarna.") == {
        ("person:sam", "leads", "organization:paymentssquad"),
        ("person:sam", "works_at", "organization:klarna"),
    }


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "日志我们用的是Loki，告警发到飞书群里。",
            {("project:project", "uses", "tool:loki"), ("project:project", "uses", "tool:飞书")},
        ),
        (
            "构建我们用Jenkins，制品推到Nexus。",
            {
                ("project:project", "uses", "tool:jenkins"),
                ("project:project", "uses", "tool:nexus"),
            },
        ),
        ("告警推送到钉钉。", {("project:project", "uses", "tool:钉钉")}),
        ("我把报告发到你邮箱了。", set()),
    ],
)
def test_where_alerts_and_artifacts_are_sent_is_a_tool_used(
    content: str, edges: set[tuple[str, str, str]]
) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "Both the web app and the admin panel run on Vercel.",
            {
                ("project:webapp", "runs_on", "tool:vercel"),
                ("project:adminpanel", "runs_on", "tool:vercel"),
            },
        ),
        (
            "The web app and the admin panel use Postgres.",
            {
                ("project:webapp", "uses", "tool:postgresql"),
                ("project:adminpanel", "uses", "tool:postgresql"),
            },
        ),
        (
            "The web app runs on Vercel and the API runs on Fly.io.",
            {
                ("project:webapp", "runs_on", "tool:vercel"),
                ("project:api", "runs_on", "tool:fly.io"),
            },
        ),
    ],
)
def test_two_services_sharing_a_verb_each_get_the_edge(
    content: str, edges: set[tuple[str, str, str]]
) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "events"),
    [
        ("The app doesn't support Android yet.", [("other", "ongoing")]),
        ("Our API doesn't have rate limits.", [("other", "ongoing")]),
        ("The app doesn't work.", []),
    ],
)
def test_what_the_product_lacks_is_a_negative_fact(
    content: str, events: list[tuple[str, str]]
) -> None:
    assert stored_events(content) == events
