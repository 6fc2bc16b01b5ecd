"""Offline rules of issue 29's twelfth round (2026-12-07): a probe of 42 statements about other
people (EN and ZH: roles, teams, homes, duties, likes). Who is responsible for something not
named as a service stored nothing ("Leo owns the release checklist", "Lisa is responsible for
the mobile release", "Nina handles customer escalations"); a role said beside a name hid the
sentence ("Our designer, Julia, is based in Lisbon"); "is based in" and "works remotely from"
were no home of someone else's; "Jonas is our go-to person for Kubernetes" made the speaker
prefer Jonas; "The QA team reports to Hannah" named no lead; 小张特别喜欢Vim was no preference."""

from __future__ import annotations

import pytest

from memory.engine.person_facts import person_relations
from memory.engine.plain_clauses import without_apposition
from memory.engine.plain_facts import states_plain_fact
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges


@pytest.mark.parametrize(
    "content",
    [
        "Leo owns the release checklist.",
        "Lisa is responsible for the mobile release.",
        "Nina handles customer escalations.",
        "Dev is the only one who knows the payment reconciliation code.",
        "Greg manages the vendor relationships.",
    ],
)
def test_who_is_responsible_for_something_is_a_fact(content: str) -> None:
    assert stored_events(content) == [("other", "ongoing")]


@pytest.mark.parametrize(
    "content",
    [
        "Postgres handles the load.",  # a tool, not a person
        "The team handles it.",
        "Sam handles everything.",
        "The router handles the rest.",
    ],
)
def test_a_duty_needs_a_named_person_and_a_thing(content: str) -> None:
    assert not states_plain_fact(content)


@pytest.mark.parametrize(
    ("content", "plain"),
    [
        ("Our designer, Julia, is based in Lisbon.", "Julia is based in Lisbon."),
        ("Alex: My sister, Anna, lives in Rome.", "Alex: Anna lives in Rome."),
        ("The problem, Tom, is that it breaks.", "The problem, Tom, is that it breaks."),
        ("Our plan, however, is to ship.", "Our plan, however, is to ship."),
    ],
)
def test_a_role_beside_a_name_gives_way_to_the_name(content: str, plain: str) -> None:
    assert without_apposition(content) == plain


@pytest.mark.parametrize(
    ("content", "place"),
    [
        ("Our designer, Julia, is based in Lisbon.", "Lisbon"),
        ("Chloe works remotely from Montreal.", "Montreal"),
        ("Julia is based out of Porto.", "Porto"),
    ],
)
def test_where_someone_else_is_based_is_their_home(content: str, place: str) -> None:
    who = content.split()[2].strip(",") if content.startswith("Our") else content.split()[0]
    assert person_relations(content, "Alex") == [(who, "lives_in", place)]


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        (
            "Jonas is our go-to person for Kubernetes.",
            ("person:jonas", "owns", "project:kubernetes"),
        ),
        ("The QA team reports to Hannah.", ("person:hannah", "leads", "organization:qateam")),
        ("小张特别喜欢Vim。", ("person:小张", "prefers", "tool:vim")),
    ],
)
def test_other_peoples_roles_and_likes(content: str, edge: tuple[str, str, str]) -> None:
    assert _edges(content) == {edge}  # "our go-to person" is no preference for the person


def test_someone_reporting_to_a_person_names_no_lead() -> None:
    assert _edges("Ben reports to Maria.") == set()
