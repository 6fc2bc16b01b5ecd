"""Offline rules of issue 29's thirteenth round (2026-12-07): a probe of 48 plain facts (EN and
ZH) with no cue word and often nothing "specific" (no number, name or tool): what is said of the
product, the code or the business ("The public API is rate limited", "Our users are mostly
teachers", "Staging mirrors production", "We sell to hospitals", 我们公司在望京, 我们的客户主要是
学校, 我吃素) stored nothing, and "The warehouse is in Rotterdam" made Rotterdam a tool in use."""

from __future__ import annotations

import pytest

from memory.engine.changes import Use, stated_uses
from memory.engine.plain_facts import states_plain_fact
from tests.engine.test_offline_round5_events import stored_events


@pytest.mark.parametrize(
    "content",
    [
        "The billing service is the oldest part of the codebase.",
        "The public API is rate limited.",
        "Most of our traffic comes from mobile.",
        "The old dashboard is read-only now.",
        "All our services log in JSON.",
        "We sell to hospitals.",
        "Our users are mostly teachers.",
        "Passwords expire every 90 days.",
        "The beta is invite-only.",
        "Our pricing is per seat.",
        "Staging mirrors production.",
        "我们公司在望京。",
        "我们的服务器在新加坡。",
        "我们的客户主要是学校。",
        "我吃素。",
    ],
)
def test_what_is_said_of_the_product_or_the_business_is_a_fact(content: str) -> None:
    assert stored_events(content) == [("other", "ongoing")]


@pytest.mark.parametrize(
    "content",
    [
        "The office is freezing.",  # how it feels
        "Our customers are happy.",
        "The deploy failed again today.",  # how a day went
        "The standup ran long.",  # a meeting is no product
        "The app is down.",
        "The API is so slow.",
        "We sell it.",
        "Ask the users what they think.",  # an imperative
        "Check the logs when you can.",
        "我们公司在开会吗？",
    ],
)
def test_how_things_went_is_no_fact(content: str) -> None:
    assert not states_plain_fact(content)


def test_a_place_said_with_is_in_is_no_tool_in_use() -> None:
    assert stated_uses("The warehouse is in Rotterdam.") == []
    assert stated_uses("The docs are in Confluence.") == [Use("docs", "Confluence", "use")]
