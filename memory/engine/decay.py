"""Display decay of ready blocks and the λ / block-size settings rules (SPEC §4).

A block's displayed level is never stored as truth: it is recomputed from its pointer (anchor
level, anchor position) and the session's number of ready blocks, so changing λ applies to every
block at once without re-anchoring. Everything here is pure arithmetic.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

MAX_LEVEL = 5
MIN_LEVEL = 0
LAMBDA_STEP = 0.05
LAMBDA_MIN = 0.0
LAMBDA_MAX = 1.0
# Above this the UI warns "forgets fast" (SPEC §4.6); it is advice, not a limit.
LAMBDA_WARNING_ABOVE = 0.40
BLOCK_TURNS_MIN = 1
BLOCK_TURNS_MAX = 100

# SPEC §4.3: weight must be strictly greater than the threshold to drop that few levels.
_DROP_THRESHOLDS: tuple[tuple[float, int], ...] = (
    (0.7, 0),
    (0.5, 1),
    (0.3, 2),
    (0.15, 3),
    (0.08, 4),
)
_STEPS_PER_UNIT = 20  # 1 / LAMBDA_STEP, kept integral so step checks are exact
# Float noise such as 0.30000000000000004 must pass the step check; a real off-step value like
# 0.31 is 0.2 steps away, far beyond this tolerance.
_STEP_TOLERANCE = 1e-6
_LEVEL_TEXT = re.compile(r"l?([0-5])")


def _clamp_level(level: int) -> int:
    return max(MIN_LEVEL, min(MAX_LEVEL, level))


def _check_lambda(lam: float) -> None:
    if isinstance(lam, bool) or not math.isfinite(lam) or lam < 0:
        raise ValueError(f"λ must be a finite number ≥ 0, got {lam!r}")


def decay_weight(lam: float, latest: int, anchor_position: int) -> float:
    """w = exp(−λ · max(0, latest − anchor_position)) (SPEC §4.2)."""
    _check_lambda(lam)
    return math.exp(-lam * max(0, latest - anchor_position))


def dropped_levels(w: float) -> int:
    """Levels dropped from the anchor: w > 0.7 → 0, > 0.5 → 1, … , otherwise 5 (SPEC §4.3)."""
    for threshold, dropped in _DROP_THRESHOLDS:
        if w > threshold:
            return dropped
    return MAX_LEVEL


def display_level(*, anchor_level: int, anchor_position: int, latest: int, lam: float) -> int:
    """The level a ready block shows now: anchor level minus dropped levels, clamped to 0..5."""
    dropped = dropped_levels(decay_weight(lam, latest, anchor_position))
    return _clamp_level(anchor_level - dropped)


def resolve_expand_target(target: str | int | None, current_level: int) -> int:
    """Turn an expand target into a level (SPEC §4.5); unknown targets raise ValueError.

    Accepted: "L0".."L5" and "0".."5" (case-insensitive, trimmed), ints 0..5, "raw" (= 5), and
    "next", "+1" or None (= current level + 1, capped at 5). The original silently treated any
    other input as "next"; here a typo is an error the caller sees, never a surprise lift.
    """
    following = _clamp_level(current_level + 1)
    if target is None:
        return following
    # bool is an int subclass in Python; `True` as a level is almost certainly a client bug.
    if isinstance(target, bool):
        raise ValueError(f"expand target must be L0–L5, 0–5, 'raw' or 'next', got {target!r}")
    if isinstance(target, int):
        if MIN_LEVEL <= target <= MAX_LEVEL:
            return target
        raise ValueError(f"expand target level must be between 0 and 5, got {target}")
    if isinstance(target, str):
        text = target.strip().lower()
        if text == "raw":
            return MAX_LEVEL
        if text in ("next", "+1"):
            return following
        match = _LEVEL_TEXT.fullmatch(text)
        if match:
            return int(match.group(1))
    raise ValueError(f"expand target must be L0–L5, 0–5, 'raw' or 'next', got {target!r}")


def level_schedule(lam: float, max_age: int = 12) -> list[int]:
    """Level shown by a fresh (anchor L5) block at ages 0..max_age: the settings preview."""
    if max_age < 0:
        raise ValueError(f"max_age must be ≥ 0, got {max_age}")
    return [
        display_level(anchor_level=MAX_LEVEL, anchor_position=1, latest=1 + age, lam=lam)
        for age in range(max_age + 1)
    ]


def _as_real(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError(f"{what} must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{what} must be a finite number, got {value!r}")
    return number


def validate_lambda(value: object) -> float:
    """λ setting: 0.00–1.00 in steps of 0.05 (SPEC §4.6); returns it rounded to 2 decimals."""
    number = _as_real(value, "λ")
    if not LAMBDA_MIN <= number <= LAMBDA_MAX:
        raise ValueError(f"λ must be between 0.00 and 1.00, got {number:g}")
    steps = round(number * _STEPS_PER_UNIT)
    if abs(number * _STEPS_PER_UNIT - steps) > _STEP_TOLERANCE:
        raise ValueError(f"λ must be a multiple of 0.05 (e.g. 0.30 or 0.35), got {number:g}")
    return round(steps / _STEPS_PER_UNIT, 2)


def validate_block_turns(value: object) -> int:
    """Block size setting: a whole number of turns, 1–100 (SPEC §0, §4.6)."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError(f"block size must be a whole number of turns, got {value!r}")
    number = _as_real(value, "block size")
    if not number.is_integer():
        raise ValueError(f"block size must be a whole number of turns, got {value!r}")
    turns = int(number)
    if not BLOCK_TURNS_MIN <= turns <= BLOCK_TURNS_MAX:
        raise ValueError(f"block size must be between 1 and 100 turns, got {turns}")
    return turns


def suggest_lambda(old_lambda: float, old_size: int, new_size: int) -> float:
    """λ_old × new/old (keeps the per-turn decay rate), to the nearest 0.05, within 0..1 (§4.7).

    Halves round up (0.375 → 0.40), not to even as Python's round() would: a settings page
    should give the answer a person computing by hand expects.
    """
    _check_lambda(old_lambda)
    if old_size < 1 or new_size < 1:
        raise ValueError(f"block sizes must be ≥ 1, got {old_size} → {new_size}")
    exact = old_lambda * new_size / old_size
    # round(…, 9) first so float noise (7.4999999999 for an exact 7.5) cannot flip a half step.
    steps = math.floor(round(exact * _STEPS_PER_UNIT, 9) + 0.5)
    return min(LAMBDA_MAX, max(LAMBDA_MIN, round(steps / _STEPS_PER_UNIT, 2)))
