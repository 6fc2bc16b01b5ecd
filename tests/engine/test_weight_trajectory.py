"""Weight over turns for the timeline's charts, against SPEC §7 (numbers quoted from the spec)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.engine.weight_trajectory import (
    ADOPTION,
    CAPPED,
    CURRENT,
    FORMED,
    HIDDEN,
    MAX_POINTS,
    PINNED,
    WeightTrajectory,
    weight_trajectory,
)
from memory.engine.weights import long_term_weight


def trajectory(
    *,
    formed: int = 0,
    now: int = 10,
    adopted: tuple[int, ...] = (),
    criticality: str = "routine",
    status: str = "active",
    pinned: bool = False,
    **stored: int,
) -> WeightTrajectory:
    return weight_trajectory(
        formed_turn=formed,
        current_turn=now,
        adoption_turns=adopted,
        criticality=criticality,
        status=status,
        pinned=pinned,
        **stored,  # type: ignore[arg-type]
    )


# SPEC §7.4: n = 1, t = 10 → 0.2231; n = 2, t = 10 → 0.4794 (the formula gives 0.47932; the
# spec rounded λ, so that example is checked to ±0.0002 as in test_weights.py).
@pytest.mark.parametrize(
    ("formed", "adopted", "now", "expected", "tolerance"),
    [
        (0, (), 10, 0.2231, 5e-5),  # n = 1, t = 10
        (0, (5,), 15, 0.4794, 2e-4),  # adopted once at turn 5 → n = 2, t = 10
        (7, (), 17, 0.2231, 5e-5),  # t counts from formed_turn, not from 0
        (0, (), 0, 1.0, 0.0),  # t = 0
        (3, (3,), 3, 1.0, 0.0),  # adopted the turn it was formed
    ],
)
def test_spec_examples_end_the_curve(formed, adopted, now, expected, tolerance):
    result = trajectory(formed=formed, adopted=adopted, now=now)
    assert result.current_weight == pytest.approx(expected, abs=tolerance)
    assert result.points[-1].turn == now
    assert result.points[-1].weight == pytest.approx(expected, abs=tolerance)


# SPEC §7.2: floors routine 0, preference 0.3, identity 0.9, safety 1.0.
@pytest.mark.parametrize(
    ("criticality", "floor"),
    [("routine", 0.0), ("preference", 0.3), ("identity", 0.9), ("safety", 1.0)],
)
def test_the_curve_never_drops_below_the_criticality_floor(criticality, floor):
    result = trajectory(criticality=criticality, now=200)
    assert min(p.weight for p in result.points) == pytest.approx(
        max(floor, math.exp(-30)), abs=1e-4
    )
    assert result.current_weight == pytest.approx(max(floor, math.exp(-0.15 * 200)), abs=1e-4)


def test_the_curve_shows_where_decay_meets_the_floor():
    # preference floor 0.3: exp(-0.15 t) < 0.3 from t = ceil(ln(1/0.3)/0.15) = 9.
    result = trajectory(criticality="preference", now=500)
    assert (9, 0.3) in [(p.turn, p.weight) for p in result.points]


def test_each_adoption_resets_to_one_and_slows_the_decay():
    result = trajectory(adopted=(10, 20), now=30)
    assert result.adoption_turns == (10, 20)
    assert result.marks == [(10.0, 1.0), (20.0, 1.0)]
    resets = [p for p in result.points if p.kind == ADOPTION]
    assert [p.adoptions for p in resets] == [2, 3]
    before = {p.turn: p.weight for p in result.points if p.kind == "sample"}
    assert before[10] == pytest.approx(math.exp(-0.15 * 10), abs=1e-4)  # n = 1 until turn 10
    lam2 = 0.15 / (1 + 1.5 * math.log(2))
    assert before[20] == pytest.approx(math.exp(-lam2 * 10), abs=1e-4)  # n = 2 until turn 20
    assert result.adoptions == 3
    assert result.current_weight == pytest.approx(
        long_term_weight(
            current_turn=30,
            last_adopted_turn=20,
            adoptions=3,
            criticality="routine",
            status="active",
            pinned=False,
        ),
        abs=1e-4,
    )


def test_the_first_point_is_formation_and_the_last_is_now():
    result = trajectory(formed=4, adopted=(8,), now=50)
    assert (result.points[0].turn, result.points[0].weight, result.points[0].kind) == (
        4,
        1.0,
        FORMED,
    )
    assert (result.points[-1].turn, result.points[-1].kind) == (50, CURRENT)
    assert [p.kind for p in result.key_points] == [FORMED, ADOPTION, CURRENT]


@pytest.mark.parametrize(
    ("adopted", "now"),
    [((), 10_000), ((5, 100, 2_000, 2_001, 5_000), 10_000), ((1, 2, 3), 4), ((), 47), ((), 48)],
)
def test_sampling_keeps_at_most_48_points_with_every_adoption_and_now(adopted, now):
    result = trajectory(adopted=adopted, now=now, criticality="preference")
    assert len(result.points) <= MAX_POINTS
    assert [t for t, _ in result.marks] == list(adopted)
    assert result.points[-1].turn == now
    turns = [p.turn for p in result.points]
    assert turns == sorted(turns)


def test_more_adoptions_than_the_budget_are_all_kept():
    adopted = tuple(range(1, 61))
    result = trajectory(adopted=adopted, now=100)
    assert [t for t, _ in result.marks] == list(adopted)


def test_superseded_events_are_capped_from_the_turn_they_were_superseded():
    result = trajectory(status="superseded", now=20, capped_from_turn=3)
    assert result.override == CAPPED
    assert result.capped_from_turn == 3
    at_3 = [p.weight for p in result.points if p.turn == 3]
    assert at_3 == [pytest.approx(math.exp(-0.45), abs=1e-4), 0.1]  # a step down to the cap
    assert all(p.weight <= 0.1 for p in result.points if p.turn > 3)
    assert result.current_weight == pytest.approx(math.exp(-0.15 * 20), abs=1e-4)  # < 0.1


def test_a_superseded_event_without_a_known_turn_is_capped_now():
    result = trajectory(status="superseded", now=2)
    assert result.points[-2].weight == pytest.approx(math.exp(-0.3), abs=1e-4)
    assert result.current_weight == 0.1
    assert result.override == CAPPED


@pytest.mark.parametrize(
    ("status", "pinned", "now_weight", "override"),
    [
        ("active", True, 1.0, PINNED),
        ("superseded", True, 1.0, PINNED),  # the pin beats the cap (engine.weights decision)
        ("forgotten", False, 0.0, HIDDEN),
        ("archived", False, 0.0, HIDDEN),
        ("forgotten", True, 0.0, HIDDEN),  # forgotten beats pinned
    ],
)
def test_pinned_forgotten_and_archived_show_the_real_weight_now(
    status, pinned, now_weight, override
):
    result = trajectory(status=status, pinned=pinned, now=30)
    assert result.current_weight == now_weight
    assert result.points[-1].weight == now_weight
    assert result.override == override
    # The history before now is the natural decay (pin and forget times are not in turns).
    assert result.points[-2].weight == pytest.approx(math.exp(-0.15 * 30), abs=1e-4)


def test_receipts_for_every_adoption_make_a_complete_history():
    result = trajectory(adopted=(5,), now=9, adoptions=2, last_adopted_turn=5)
    assert result.history_complete
    assert result.unrecorded_adoptions == 0


def test_imported_adoptions_without_receipts_mark_the_history_incomplete():
    # An imported event: n = 3 from its source system, no receipt here, anchored at formation.
    result = trajectory(formed=10, now=20, adoptions=3, last_adopted_turn=10)
    assert not result.history_complete
    assert result.unrecorded_adoptions == 2
    lam3 = 0.15 / (1 + 1.5 * math.log(3))
    assert result.current_weight == pytest.approx(math.exp(-lam3 * 10), abs=1e-4)


def test_a_stored_adoption_later_than_every_receipt_is_drawn_and_flagged():
    result = trajectory(adopted=(5,), now=30, adoptions=3, last_adopted_turn=12)
    assert [t for t, _ in result.marks] == [5, 12]
    assert result.unrecorded_adoptions == 1
    assert result.adoptions == 3
    expected = long_term_weight(
        current_turn=30,
        last_adopted_turn=12,
        adoptions=3,
        criticality="routine",
        status="active",
        pinned=False,
    )
    assert result.current_weight == pytest.approx(expected, abs=1e-4)


def test_unknown_criticality_is_an_error_not_a_silent_default():
    with pytest.raises(ValueError):
        trajectory(criticality="vital")


@given(
    formed=st.integers(0, 500),
    span=st.integers(0, 3_000),
    adoptions=st.lists(st.integers(0, 3_000), max_size=30),
    criticality=st.sampled_from(["routine", "preference", "identity", "safety"]),
    status=st.sampled_from(["active", "superseded", "forgotten", "archived"]),
    pinned=st.booleans(),
)
def test_the_last_point_is_always_the_engine_weight_now(
    formed, span, adoptions, criticality, status, pinned
):
    now = formed + span
    adopted = sorted(formed + min(a, span) for a in adoptions)
    result = trajectory(
        formed=formed,
        now=now,
        adopted=tuple(adopted),
        criticality=criticality,
        status=status,
        pinned=pinned,
    )
    expected = long_term_weight(
        current_turn=now,
        last_adopted_turn=adopted[-1] if adopted else formed,
        adoptions=1 + len(adopted),
        criticality=criticality,
        status=status,
        pinned=pinned,
    )
    assert result.points[-1].weight == pytest.approx(expected, abs=1e-4)
    assert all(0.0 <= p.weight <= 1.0 for p in result.points)
    assert len(result.points) <= max(MAX_POINTS, 2 * len(adopted) + 4)
