"""SPEC §6.4 / §6.7 as a table: a fact's or edge's state from its source events and validity."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.graph_state import (
    CURRENT,
    HIDDEN,
    HISTORICAL,
    AsOf,
    Validity,
    item_state,
    parse_as_of,
)

MAY_1 = datetime(2023, 5, 1, tzinfo=UTC)
MAY_10 = datetime(2023, 5, 10, tzinfo=UTC)
OPEN = Validity("active", MAY_1, None, 3, None)
CLOSED = Validity("superseded", MAY_1, MAY_10, 3, 8)


@pytest.mark.parametrize(
    ("sources", "item", "expected"),
    [
        (["active"], OPEN, CURRENT),
        (["active", "forgotten"], OPEN, CURRENT),
        (["superseded"], OPEN, HISTORICAL),  # its only source was superseded
        (["active"], CLOSED, HISTORICAL),  # a newer fact closed it
        (["forgotten"], OPEN, HIDDEN),
        (["forgotten", "archived"], OPEN, HIDDEN),
        ([], OPEN, HIDDEN),  # no source at all is never shown
    ],
)
def test_state_follows_the_source_events(sources, item, expected):
    assert item_state(sources, item) == expected


@pytest.mark.parametrize(
    ("as_of", "item", "expected"),
    [
        (AsOf(turn=2), OPEN, HIDDEN),  # not yet valid
        (AsOf(turn=3), OPEN, CURRENT),
        (AsOf(turn=7), CLOSED, CURRENT),  # still valid then
        (AsOf(turn=8), CLOSED, HISTORICAL),
        (AsOf(at=datetime(2023, 4, 30, tzinfo=UTC)), OPEN, HIDDEN),
        (AsOf(at=datetime(2023, 5, 9, tzinfo=UTC)), CLOSED, CURRENT),
        (AsOf(at=MAY_10), CLOSED, HISTORICAL),
    ],
)
def test_as_of_uses_the_validity_interval(as_of, item, expected):
    assert item_state(["superseded"], item, as_of) == expected


def test_as_of_never_shows_what_was_forgotten():
    assert item_state(["forgotten"], OPEN, AsOf(turn=5)) == HIDDEN


def test_validity_reads_rows_and_objects_alike():
    row = {
        "status": "active",
        "valid_from": MAY_1,
        "valid_to": None,
        "valid_from_turn": 3,
        "valid_to_turn": None,
        "extra": 1,
    }
    assert Validity.of(row) == OPEN

    class Fact:
        status, valid_from, valid_to, valid_from_turn, valid_to_turn = OPEN

    assert Validity.of(Fact()) == OPEN


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", None),
        ("  ", None),
        ("42", AsOf(turn=42)),
        ("2023-05-10", AsOf(at=datetime(2023, 5, 10, 23, 59, 59, 999999, tzinfo=UTC))),
        ("2023-05-10T08:30:00Z", AsOf(at=datetime(2023, 5, 10, 8, 30, tzinfo=UTC))),
        ("2023-05-10T08:30", AsOf(at=datetime(2023, 5, 10, 8, 30, tzinfo=UTC))),
    ],
)
def test_as_of_is_a_turn_or_a_date(text, expected):
    assert parse_as_of(text) == expected


@pytest.mark.parametrize("text", ["yesterday", "-3", "2023-13-01", "12abc"])
def test_other_as_of_text_is_refused(text):
    with pytest.raises(ValueError, match="as_of must be"):
        parse_as_of(text)
