"""A graph from ordinary conversations (issue 29), through the API with the offline processor:
plain team statements (who owns, leads or maintains what, what runs on or depends on what, who
joined which team), 18 in English and 6 in Chinese, give typed nodes and edges, each citing its
source events; a later "now runs on Render" closes the Fly.io edge as history."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from memory.models import GraphEdge, GraphItemStatus, GraphNode, Namespace
from memory.services.graph import graph_rebuild
from tests.conftest import BASE_TIME, ApiClient, turn_body

pytestmark = pytest.mark.django_db

STATEMENTS = [
    "Priya owns the billing service.",
    "The billing service runs on Fly.io.",
    "The billing service uses PostgreSQL.",
    "The billing service depends on the auth service.",
    "Marco maintains the auth service.",
    "The auth service is deployed on AWS.",
    "The auth service uses Redis for sessions.",
    "Tom joined the platform team last week.",
    "Tom is the tech lead of the search service.",
    "The search service depends on Elasticsearch.",
    "Ana works at Globex.",
    "Ana lives in Porto.",
    "Ana prefers Vim.",
    "The reporting service is maintained by Ana.",
    "Lena leads the mobile app.",
    "The mobile app depends on the billing service.",
    "The platform team owns the deployment pipeline.",
    "The search service is owned by the platform team.",
    "Priya负责账单服务。",
    "认证服务由Marco维护。",
    "账单服务部署在Fly.io上。",
    "搜索服务依赖Elasticsearch。",
    "小王加入了平台组。",
    "小王在Globex工作。",
]
LATER = [
    "The billing service now runs on Render.",
    "Thanks!",
    "How are you?",
    "Sounds good.",
    "OK.",
    "Bye for now.",
]
EXPECTED_EDGES = {
    ("person:priya", "owns", "project:billingservice"),
    ("project:billingservice", "runs_on", "tool:fly.io"),
    ("project:billingservice", "uses", "tool:postgresql"),
    ("project:billingservice", "depends_on", "project:authservice"),
    ("person:marco", "maintains", "project:authservice"),
    ("project:authservice", "deployed_on", "tool:aws"),
    ("project:authservice", "uses", "tool:redis"),
    ("person:tom", "member_of", "organization:platformteam"),
    ("person:tom", "leads", "project:searchservice"),
    ("project:searchservice", "depends_on", "tool:elasticsearch"),
    ("person:ana", "works_at", "organization:globex"),
    ("person:ana", "lives_in", "place:porto"),
    ("person:ana", "prefers", "tool:vim"),
    ("person:ana", "maintains", "project:reportingservice"),
    ("person:lena", "leads", "project:mobileapp"),
    ("project:mobileapp", "depends_on", "project:billingservice"),
    ("organization:platformteam", "owns", "project:deploymentpipeline"),
    ("organization:platformteam", "owns", "project:searchservice"),
    ("person:priya", "owns", "project:账单服务"),
    ("person:marco", "maintains", "project:认证服务"),
    ("project:账单服务", "deployed_on", "tool:fly.io"),
    ("project:搜索服务", "depends_on", "tool:elasticsearch"),
    ("person:小王", "member_of", "organization:平台组"),
    ("person:小王", "works_at", "organization:globex"),
    ("project:billingservice", "runs_on", "tool:render"),
}


def _say(owner: ApiClient, drain: Callable[[], int], lines: list[str], start: int) -> None:
    for i, line in enumerate(lines):
        n = start + i
        body = turn_body(n, user=line, assistant="OK.", when=BASE_TIME + timedelta(minutes=n))
        assert owner.post("/ns/proj/turns", body).status_code == 201
    drain()


def _edges() -> dict[tuple[str, str, str], GraphEdge]:
    return {
        (e.from_node.key, e.relation, e.to_node.key): e
        for e in GraphEdge.objects.select_related("from_node", "to_node")
    }


def test_plain_team_statements_make_a_graph_with_history(
    owner: ApiClient, drain: Callable[[], int]
) -> None:
    _say(owner, drain, STATEMENTS, 1)
    _say(owner, drain, LATER, len(STATEMENTS) + 1)

    edges = _edges()
    assert set(edges) == EXPECTED_EDGES  # was one node, "user", and no edges
    types = dict(GraphNode.objects.values_list("key", "node_type"))
    assert types["person:priya"] == "person"
    assert types["project:billingservice"] == "project"
    assert types["tool:fly.io"] == "tool"
    assert types["organization:platformteam"] == "organization"
    assert types["place:porto"] == "place"
    for node in GraphNode.objects.all():  # provenance: every node and edge cites its events
        assert node.source_events.exists(), node.key
    for key, edge in edges.items():
        sources = list(edge.source_events.all())
        assert sources, key
        assert all(s.source_messages.exists() for s in sources)
    # Where a service runs is single-valued: Render closes Fly.io, which stays as history.
    flyio = edges[("project:billingservice", "runs_on", "tool:fly.io")]
    render = edges[("project:billingservice", "runs_on", "tool:render")]
    assert flyio.status == GraphItemStatus.SUPERSEDED and flyio.valid_to is not None
    assert render.status == GraphItemStatus.ACTIVE
    owns = edges[("person:priya", "owns", "project:billingservice")]
    assert [e.summary for e in owns.source_events.all()] == ["Priya owns the billing service."]


def test_the_team_is_the_speakers_own_across_batches(
    owner: ApiClient, drain: Callable[[], int]
) -> None:
    # Said in separate turns and processed separately: the second batch asks the graph whose
    # team "the team" is (memory.engine.own_team).
    _say(owner, drain, ["I lead the data team.", *STATEMENTS[:11]], 1)  # 12 turns, 2 blocks
    _say(owner, drain, ["Nina joined the team this week.", *LATER[1:]], 13)

    edges = _edges()
    assert ("person:nina", "member_of", "organization:datateam") in edges
    assert not GraphNode.objects.filter(key="organization:team").exists()
    nina = edges[("person:nina", "member_of", "organization:datateam")]
    assert [e.summary for e in nina.source_events.all()] == ["Nina joined the team this week."]

    # A rebuild from nothing says it again: the batches before tell whose team it is.
    GraphEdge.objects.all().delete()
    GraphNode.objects.all().delete()
    graph_rebuild(namespace=Namespace.objects.get(name="proj"))
    assert ("person:nina", "member_of", "organization:datateam") in _edges()


def test_a_person_said_by_first_name_later_is_the_one_named_in_full(
    owner: ApiClient, drain: Callable[[], int]
) -> None:
    """ "Dev" and "老周" in a later batch are Dev Malhotra and 周海涛, whom the graph knows
    (memory.engine.short_names); the full node keeps the short name as an alias."""
    filler = LATER[1:] * 2
    first = ["Dev Malhotra leads the box office.", "周海涛负责高新店。"]
    _say(owner, drain, [*first, *filler], 1)  # 12 turns, 2 blocks
    _say(owner, drain, ["Dev left last week, he's gone to Gensler.", "老周跳槽去了铁馆。"], 13)
    _say(owner, drain, filler, 15)

    edges = _edges()
    assert ("person:devmalhotra", "works_at", "organization:gensler") in edges
    assert ("person:周海涛", "works_at", "organization:铁馆") in edges
    assert not GraphNode.objects.filter(key__in=["person:dev", "person:老周"]).exists()
    dev = GraphNode.objects.get(key="person:devmalhotra")
    assert "Dev" in dev.aliases
    gone = edges[("person:devmalhotra", "works_at", "organization:gensler")]
    assert [e.summary for e in gone.source_events.all()] == [
        "Dev left last week, he's gone to Gensler."
    ]
