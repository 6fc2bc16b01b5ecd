"""Issue 29's thirty-third round (2026-12-07, a probe of everyday phrasings, EN and ZH): "Our
frontend talks to the API gateway" depended on "API"; "I'm a backend dev at Zalando", "I've been
at Google for three years", "Home is Melbourne these days", "I grew up in Madrid but live in
Barcelona now", "I'm part of the growth squad" and "My team is the platform team" stored no
employer, home or team; 我在杭州上班 made 杭州 an employer; 支付服务挂在K8s上, 订单服务要调库存服务
的接口, 我住浦东 and 我在上海 stored no edge."""

from __future__ import annotations

import pytest

from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "Our frontend talks to the API gateway.",
            ("project:frontend", "depends_on", "project:apigateway"),
        ),
        ("I'm a backend dev at Zalando.", ("person:sam", "works_at", "organization:zalando")),
        ("I'm a student at MIT.", ("person:sam", "works_at", "organization:mit")),
        ("I've been at Google for three years.", ("person:sam", "works_at", "organization:google")),
        ("I'm in Toronto these days.", ("person:sam", "lives_in", "place:toronto")),
        ("Home is Melbourne these days.", ("person:sam", "lives_in", "place:melbourne")),
        (
            "I grew up in Madrid but live in Barcelona now.",
            ("person:sam", "lives_in", "place:barcelona"),
        ),
        ("I'm part of the growth squad.", ("person:sam", "member_of", "organization:growthsquad")),
        ("My team is the platform team.", ("person:sam", "member_of", "organization:platformteam")),
        ("我在杭州上班。", ("person:sam", "lives_in", "place:杭州")),
        ("小李在杭州工作。", ("person:小李", "lives_in", "place:杭州")),
        ("我在腾讯上班。", ("person:sam", "works_at", "organization:腾讯")),
        ("支付服务挂在K8s上。", ("project:支付服务", "runs_on", "tool:kubernetes")),
        ("订单服务要调库存服务的接口。", ("project:订单服务", "depends_on", "project:库存服务")),
        ("我住浦东。", ("person:sam", "lives_in", "place:浦东")),
        ("我在上海。", ("person:sam", "lives_in", "place:上海")),
    ],
)
def test_everyday_phrasings_of_a_relation(content: str, edge: tuple[str, ...]) -> None:
    assert stored_events(content) == [("other", "ongoing")]
    assert _edges(content) == {edge}


@pytest.mark.parametrize(
    "content",
    [
        "I'm a regular at Joe's Diner.",
        "I'm in Paris for the week.",
        "Our team is the best team.",
        "My home is a mess.",
        "我在上海出差。",
        "我住得很远。",
    ],
)
def test_where_one_is_for_now_or_a_boast_is_no_relation(content: str) -> None:
    assert _edges(content) == set()
