"""Plain statements of fact with no cue word (issue 29): each is an event of its own; chatter,
feelings, questions, hedges and statements about the listener are not."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.plain_facts import states_plain_fact

AT = datetime(2026, 5, 6, 10, 0, tzinfo=UTC)

FACTS = [
    "The API rate limit is 100 requests per minute.",
    "My manager is Theo.",
    "Our office is in Leeds.",
    "We have about 40 engineers.",
    "Our biggest customer is Acme.",
    "The model was trained on public GitHub data.",
    "The payment webhook retries three times.",
    "The team standup is at 9:30 every day.",
    "Our monthly AWS bill is around 12k.",
    "The frontend is a Next.js app.",
    "Luca is the new PM for the mobile app.",
    "Dev environments run in Gitpod.",
    "I have two kids.",
    "My wife is a nurse.",
    "We ship on Thursdays.",
    "The warehouse data is refreshed nightly.",
    "So, the launch is on March 3.",
    "我们组有八个人。",
    "产品经理是小陈。",
    "我们的主力语言是Go。",
    "报表每天凌晨两点刷新。",
    "我女儿今年上小学。",
]
NOT_FACTS = [
    "The weather is awful today.",
    "Thanks, that helps a lot!",
    "Sounds good, see you Monday.",
    "The meeting was so boring.",
    "Traffic was crazy this morning.",
    "The game last night was insane, 3-2 in overtime!",
    "Our team is awesome.",
    "I think the API is slow.",
    "Maybe the launch is on Friday.",
    "Is the launch on Friday?",
    "You are a lifesaver.",
    "This is the third time it broke.",
    "There are two options here.",
    "My cat is sleeping on my keyboard again.",
    "No worries, Mel!",
    "I get it, Jon.",
    "Since I was 17 or so.",
    "The energy was really motivating, it gave me a boost to go after my goals.",
    "My kids and I just finished another painting like our last one.",
    "天气真好。",
    "这个方案不错。",
    "你说得对。",
    "我觉得这个接口有点慢。",
    "会议开得太长了。",
    "My key is api_key=sk-abcdefghijklmnop1234 for postgres",  # a secret is no fact to keep
]


@pytest.mark.parametrize("sentence", FACTS)
def test_a_specific_declaration_is_a_fact_and_an_event(sentence: str) -> None:
    assert states_plain_fact(sentence)
    out = extract_events([SourceMessage(1, "user", sentence, AT, speaker="Kim")])
    assert len(out.events) == 1, sentence
    assert out.events[0].quotes == [sentence.strip()]


@pytest.mark.parametrize("sentence", NOT_FACTS)
def test_chatter_feelings_hedges_and_the_listener_are_no_fact(sentence: str) -> None:
    assert not states_plain_fact(sentence)


def test_the_assistant_stating_a_fact_adds_nothing_of_its_own() -> None:
    # The rule reads the user's statements (or a named speaker's); an unnamed assistant's
    # general remark stays out.
    out = extract_events([SourceMessage(1, "assistant", "Kong is written in Lua.", AT)])
    assert out.events == []
