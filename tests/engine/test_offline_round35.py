"""Issue 29's thirty-fifth round (2026-12-07, a probe of who owns what and where things go):
"Billing belongs to the payments team", "Everything is containerized with Docker", "Our emails
go out through SendGrid", "Payments run through Stripe" and "Omar lives with his parents in
Cairo" stored no edge."""

from __future__ import annotations

import pytest

from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    ("content", "edges"),
    [
        (
            "Billing belongs to the payments team.",
            {("organization:paymentsteam", "owns", "project:billing")},
        ),
        (
            "The checkout service belongs to Priya.",
            {("person:priya", "owns", "project:checkoutservice")},
        ),
        ("This laptop belongs to Tom.", set()),
        ("Everything is containerized with Docker.", {("project:project", "uses", "tool:docker")}),
        ("Our emails go out through SendGrid.", {("project:project", "uses", "tool:sendgrid")}),
        ("Payments run through Stripe.", {("project:project", "uses", "tool:stripe")}),
        ("The kids run to school.", set()),
        ("Omar lives with his parents in Cairo.", {("person:omar", "lives_in", "place:cairo")}),
    ],
)
def test_what_belongs_where_it_goes_and_who_lives_with_whom(
    content: str, edges: set[tuple[str, str, str]]
) -> None:
    assert _edges(content) == edges
