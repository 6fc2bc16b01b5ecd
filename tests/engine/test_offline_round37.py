"""Issue 29's thirty-seventh round (2026-12-07, a probe of people said with an aside or a role):
"Marek, who runs infra, is based in Prague" gave Marek no home (the aside hid the subject) and
"Max is our new intern on the web team" made him no member."""

from __future__ import annotations

import pytest

from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "Marek, who runs infra, is based in Prague.",
            ("person:marek", "lives_in", "place:prague"),
        ),
        (
            "Max is our new intern on the web team.",
            ("person:max", "member_of", "organization:webteam"),
        ),
        (
            "Ana is a designer on the growth squad.",
            ("person:ana", "member_of", "organization:growthsquad"),
        ),
    ],
)
def test_a_person_said_with_an_aside_or_a_role(content: str, edge: tuple[str, ...]) -> None:
    assert edge in _edges(content)
