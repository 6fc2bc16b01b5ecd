"""Display decay, expansion targets and the λ / block-size settings rules, against SPEC §4."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from memory.engine.decay import (
    MAX_LEVEL,
    decay_weight,
    display_level,
    dropped_levels,
    level_schedule,
    resolve_expand_target,
    suggest_lambda,
    validate_block_turns,
    validate_lambda,
)

# SPEC §4.4: λ = 0.30, anchor L5, by number of ready blocks after it:
# 0–1 → L5, 2 → L4, 3–4 → L3, 5–6 → L2, 7–8 → L1, ≥ 9 → L0.
LAMBDA_030_SCHEDULE = [
    (0, 5),
    (1, 5),
    (2, 4),
    (3, 3),
    (4, 3),
    (5, 2),
    (6, 2),
    (7, 1),
    (8, 1),
    (9, 0),
    (10, 0),
    (25, 0),
]

# λ = 0.10, computed from w = exp(−0.1 · age) with the §4.3 thresholds:
# age 3 w=0.741 (>0.7, L5) | 4 w=0.670 (L4) | 6 w=0.549 (L4) | 7 w=0.497 (L3) | 12 w=0.301 (L3)
# 13 w=0.273 (L2) | 18 w=0.165 (L2) | 19 w=0.150 (L1) | 25 w=0.082 (L1) | 26 w=0.074 (L0)
LAMBDA_010_SCHEDULE = [
    (0, 5),
    (3, 5),
    (4, 4),
    (6, 4),
    (7, 3),
    (12, 3),
    (13, 2),
    (18, 2),
    (19, 1),
    (25, 1),
    (26, 0),
    (40, 0),
]


@pytest.mark.parametrize(("age", "level"), LAMBDA_030_SCHEDULE)
def test_lambda_030_follows_the_spec_schedule(age: int, level: int) -> None:
    shown = display_level(anchor_level=5, anchor_position=3, latest=3 + age, lam=0.30)
    assert shown == level


@pytest.mark.parametrize(("age", "level"), LAMBDA_010_SCHEDULE)
def test_lambda_010_follows_the_formula(age: int, level: int) -> None:
    shown = display_level(anchor_level=5, anchor_position=1, latest=1 + age, lam=0.10)
    assert shown == level


@pytest.mark.parametrize("age", [0, 1, 10, 1000])
def test_lambda_zero_never_decays(age: int) -> None:
    assert display_level(anchor_level=5, anchor_position=1, latest=1 + age, lam=0.0) == 5
    assert display_level(anchor_level=2, anchor_position=1, latest=1 + age, lam=0.0) == 2


def test_weight_is_exp_of_minus_lambda_times_age() -> None:
    assert decay_weight(0.3, 2, 0) == pytest.approx(math.exp(-0.6))
    assert decay_weight(0.3, 7, 7) == 1.0


def test_a_latest_before_the_anchor_counts_as_age_zero() -> None:
    assert decay_weight(0.3, 1, 4) == 1.0
    assert display_level(anchor_level=3, anchor_position=4, latest=1, lam=0.3) == 3


@pytest.mark.parametrize("lam", [-0.05, math.nan, math.inf])
def test_a_negative_or_non_finite_lambda_is_refused(lam: float) -> None:
    with pytest.raises(ValueError, match="λ"):
        decay_weight(lam, 2, 1)


# SPEC §4.3 thresholds are strict: exactly 0.7 already drops one level.
DROPPED_LEVELS = [
    (1.0, 0),
    (0.7000001, 0),
    (0.7, 1),
    (0.5000001, 1),
    (0.5, 2),
    (0.3000001, 2),
    (0.3, 3),
    (0.15, 4),
    (0.0800001, 4),
    (0.08, 5),
    (0.0, 5),
]


@pytest.mark.parametrize(("weight", "dropped"), DROPPED_LEVELS)
def test_dropped_levels_use_strict_thresholds(weight: float, dropped: int) -> None:
    assert dropped_levels(weight) == dropped


def test_display_level_is_clamped_at_l0() -> None:
    assert display_level(anchor_level=1, anchor_position=1, latest=6, lam=0.3) == 0


def test_level_schedule_is_the_lambda_030_table() -> None:
    assert level_schedule(0.30) == [5, 5, 4, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0]
    assert level_schedule(0.0, max_age=3) == [5, 5, 5, 5]
    assert len(level_schedule(0.3, max_age=0)) == 1


def test_level_schedule_refuses_a_negative_age() -> None:
    with pytest.raises(ValueError):
        level_schedule(0.3, max_age=-1)


# --- expansion (SPEC §4.5): re-anchoring at the pure level --------------------------------------


def test_expanded_block_shows_the_target_now_and_decays_from_it() -> None:
    # A block that has decayed to L1 is expanded to L3 when the session has 12 ready blocks:
    # anchor_level = 3, anchor_position = latest = 12.
    assert display_level(anchor_level=5, anchor_position=4, latest=12, lam=0.30) == 1
    anchor_level = resolve_expand_target("L3", current_level=1)
    anchor_position = 12
    shown = [
        display_level(anchor_level=anchor_level, anchor_position=anchor_position, latest=n, lam=0.3)
        for n in (12, 13, 14, 15, 16, 17, 21)
    ]
    # Same drops as the λ 0.30 table, counted from L3: ages 0–1 keep L3, 2 → L2, 3–4 → L1,
    # 5+ → L0 (it never jumps to L5).
    assert shown == [3, 3, 2, 1, 1, 0, 0]


def test_expanding_to_a_lower_level_is_allowed() -> None:
    level = resolve_expand_target("L1", current_level=4)
    assert display_level(anchor_level=level, anchor_position=9, latest=9, lam=0.3) == 1


EXPAND_TARGETS: list[tuple[str | int | None, int, int]] = [
    ("L0", 3, 0),
    ("L5", 0, 5),
    ("l2", 5, 2),
    ("  L4 ", 1, 4),
    ("3", 0, 3),
    (" 0 ", 4, 0),
    ("L3\n", 0, 3),
    (0, 4, 0),
    (5, 1, 5),
    ("raw", 2, 5),
    ("RAW", 2, 5),
    ("next", 2, 3),
    ("Next", 2, 3),
    ("+1", 0, 1),
    (None, 3, 4),
    ("next", 5, 5),
    (None, 5, 5),
]


@pytest.mark.parametrize(("target", "current", "expected"), EXPAND_TARGETS)
def test_expand_target_resolves(target: str | int | None, current: int, expected: int) -> None:
    assert resolve_expand_target(target, current) == expected


BAD_EXPAND_TARGETS: list[object] = [
    "L6",
    "6",
    "-1",
    "L-1",
    "",
    "   ",
    "nxt",
    "+2",
    "L 3",
    "LL3",
    "３",  # full-width digit
    6,
    -1,
    True,
    False,
    3.0,
    [3],
]


@pytest.mark.parametrize("target", BAD_EXPAND_TARGETS)
def test_garbage_expand_targets_are_rejected_not_treated_as_next(target: object) -> None:
    with pytest.raises(ValueError):
        resolve_expand_target(target, 2)  # type: ignore[arg-type]


# --- settings (SPEC §4.6, §4.7) ----------------------------------------------------------------

GOOD_LAMBDAS: list[tuple[object, float]] = [
    (0, 0.0),
    (0.0, 0.0),
    (0.05, 0.05),
    (0.3, 0.3),
    (0.30000000000000004, 0.3),
    (0.1 + 0.2, 0.3),
    (0.45, 0.45),
    (1, 1.0),
    (1.0, 1.0),
    (Decimal("0.35"), 0.35),
]


@pytest.mark.parametrize(("value", "expected"), GOOD_LAMBDAS)
def test_lambda_in_005_steps_within_0_and_1_is_accepted(value: object, expected: float) -> None:
    assert validate_lambda(value) == expected


BAD_LAMBDAS: list[tuple[object, str]] = [
    (-0.05, "between"),
    (1.05, "between"),
    (0.31, "multiple of 0.05"),
    (0.025, "multiple of 0.05"),
    (math.nan, "finite"),
    (math.inf, "finite"),
    (-math.inf, "finite"),
    ("0.3", "number"),
    (None, "number"),
    (True, "number"),
]


@pytest.mark.parametrize(("value", "message"), BAD_LAMBDAS)
def test_bad_lambda_is_refused_with_a_clear_message(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        validate_lambda(value)


GOOD_BLOCK_TURNS: list[tuple[object, int]] = [(1, 1), (6, 6), (100, 100), (12.0, 12)]


@pytest.mark.parametrize(("value", "expected"), GOOD_BLOCK_TURNS)
def test_block_size_from_1_to_100_is_accepted(value: object, expected: int) -> None:
    assert validate_block_turns(value) == expected


BAD_BLOCK_TURNS: list[object] = [0, 101, -6, 6.5, "6", None, True, False, math.nan, math.inf]


@pytest.mark.parametrize("value", BAD_BLOCK_TURNS)
def test_bad_block_size_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="block size"):
        validate_block_turns(value)


# SPEC §4.7: λ_new = λ_old × new_size / old_size, to the nearest 0.05, within 0..1.
SUGGESTED_LAMBDAS = [
    (0.30, 6, 6, 0.30),
    (0.30, 6, 12, 0.60),
    (0.30, 6, 3, 0.15),
    (0.30, 6, 4, 0.20),
    (0.30, 4, 5, 0.40),  # 0.375 is a half step: rounds up
    (0.30, 6, 7, 0.35),
    (0.30, 6, 100, 1.0),  # 5.0 clamped
    (0.30, 6, 1, 0.05),
    (0.05, 6, 1, 0.0),  # 0.0083 rounds to 0
    (0.0, 6, 12, 0.0),
]


@pytest.mark.parametrize(("old", "old_size", "new_size", "expected"), SUGGESTED_LAMBDAS)
def test_suggested_lambda_keeps_the_per_turn_rate(
    old: float, old_size: int, new_size: int, expected: float
) -> None:
    assert suggest_lambda(old, old_size, new_size) == expected


def test_suggested_lambda_is_always_a_valid_setting() -> None:
    for old_steps in range(21):
        for old_size in (1, 4, 6, 12, 100):
            for new_size in (1, 3, 6, 7, 50, 100):
                suggested = suggest_lambda(old_steps / 20, old_size, new_size)
                assert validate_lambda(suggested) == suggested


def test_suggesting_from_a_zero_block_size_is_refused() -> None:
    with pytest.raises(ValueError):
        suggest_lambda(0.3, 0, 6)


def test_max_level_is_five() -> None:
    assert MAX_LEVEL == 5
