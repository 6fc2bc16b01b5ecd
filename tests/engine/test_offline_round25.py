"""Issue 29's twenty-fifth round (2026-12-07): a denial beside what holds, said of people and
the stack. "Kai doesn't live in Paris anymore, he moved to Lyon" gave Kai no home; "小林不在北京
了，搬去了上海" and "We don't host anything ourselves, it's all on AWS" stored nothing; "Our
mobile apps are written in Kotlin and Swift" closed Kotlin with Swift (tests/services/
test_contradictions.py)."""

from __future__ import annotations

import pytest

from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "Kai doesn't live in Paris anymore, he moved to Lyon.",
            {("person:kai", "lives_in", "place:lyon")},
        ),
        (
            "Kai left Stripe, she works at Shopify now.",
            {("person:kai", "works_at", "organization:shopify")},
        ),
        ("I met Kai, he lives in Lyon.", set()),  # the sentence opens with the speaker
        ("小林不在北京了，搬去了上海。", {("person:小林", "lives_in", "place:上海")}),
        ("小林搬到上海了。", {("person:小林", "lives_in", "place:上海")}),
        ("我搬到杭州已经三年了。", {("person:sam", "lives_in", "place:杭州")}),
        ("我们公司搬到了望京。", set()),
        ("东西搬到仓库了。", set()),
    ],
)
def test_someone_named_first_is_who_the_later_clause_is_about(
    content: str, edges: set[tuple[str, str, str]]
) -> None:
    assert _edges(content) == edges


@pytest.mark.parametrize(
    ("content", "events", "edges"),
    [
        (
            "We don't host anything ourselves, it's all on AWS.",
            [("other", "ongoing")],
            {("project:project", "uses", "tool:aws")},
        ),
        ("It's all in my head.", [], set()),
        (
            "小林不在北京了，搬去了上海。",
            [("change", "occurred")],
            {("person:小林", "lives_in", "place:上海")},
        ),
    ],
)
def test_what_holds_beside_a_denial(
    content: str, events: list[tuple[str, str]], edges: set[tuple[str, str, str]]
) -> None:
    assert stored_events(content) == events
    assert _edges(content) == edges
