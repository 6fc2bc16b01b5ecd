"""An event's long-term weight over namespace turns (SPEC §7), as points for a chart.

The timeline shows how a memory's pull faded and was renewed: from `formed_turn` the weight
follows w = max(floor, exp(−λ(n)·t)); every adoption (a usage receipt that reinforced the event)
resets it to 1 with n incremented, so decay slows; a superseded event is capped at 0.1 from the
turn it was superseded. The last point is the weight *now*, computed exactly as `weights`
computes it, so the chart always ends at the value shown beside it.

What the turns cannot tell (documented choices):
- Pin time is not recorded in turns: a pinned event's curve is its natural decay, and only the
  current point is 1 (`override = "pinned"`). Forgetting/archiving is the same: the current
  point drops to 0 (`override = "hidden"`), which beats the pin.
- Imported or restored events can carry adoptions without receipts. The curve then uses what is
  known (the receipts, the stored `last_adopted_turn` and the stored n for the last segment) and
  says how many adoptions are unrecorded; earlier segments are a lower bound on n (they decay
  faster than they really did), so the history is marked incomplete.

Sampling: at most `MAX_POINTS` points, always including formation, each adoption (the value
just before it and the reset after it), the supersede cap and the current turn; then the
floor kinks while they fit; the remaining budget is spread over the segments by their length in
turns. Many adoptions (more than ~22) keep
all their points even past the budget. Pure: no Django, no clock.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from memory.engine.lifecycle import HIDDEN_STATUSES, SUPERSEDED
from memory.engine.weights import (
    CRITICALITY_FLOORS,
    SUPERSEDED_CAP,
    adoption_lambda,
    long_term_weight,
)

MAX_POINTS: Final = 48
FORMED, SAMPLE, ADOPTION, CURRENT = "formed", "sample", "adoption", "current"
PINNED, CAPPED, HIDDEN = "pinned", "capped", "hidden"
_DIGITS: Final = 4


@dataclass(frozen=True, slots=True)
class TrajectoryPoint:
    turn: int
    weight: float
    kind: str  # formed | sample | adoption | current
    adoptions: int  # n in force at this point


@dataclass(frozen=True, slots=True)
class WeightTrajectory:
    points: tuple[TrajectoryPoint, ...]
    formed_turn: int
    current_turn: int
    current_weight: float
    adoptions: int  # n now (1 + every adoption, recorded or not)
    adoption_turns: tuple[int, ...]  # turns of the receipts that reinforced it
    unrecorded_adoptions: int  # adoptions without a receipt (imported or restored history)
    override: str | None  # why "now" leaves the curve: pinned | capped | hidden
    capped_from_turn: int | None

    @property
    def history_complete(self) -> bool:
        return self.unrecorded_adoptions == 0

    @property
    def line(self) -> list[tuple[float, float]]:
        return [(float(p.turn), p.weight) for p in self.points]

    @property
    def marks(self) -> list[tuple[float, float]]:
        """The adoption resets (for chart marks)."""
        return [(float(p.turn), p.weight) for p in self.points if p.kind == ADOPTION]

    @property
    def key_points(self) -> list[TrajectoryPoint]:
        """Formation, adoptions and now: the rows of a chart's text alternative."""
        return [p for p in self.points if p.kind != SAMPLE]


@dataclass(frozen=True, slots=True)
class _Anchor:
    turn: int
    n: int
    kind: str


def _anchors(
    formed_turn: int,
    end: int,
    receipts: list[int],
    n_now: int,
    last_adopted_turn: int | None,
) -> tuple[list[_Anchor], int]:
    """Where the weight was reset to 1 and with which n; and how many adoptions lack a receipt."""
    anchors = [_Anchor(formed_turn, 1, FORMED)]
    anchors += [_Anchor(turn, i + 2, ADOPTION) for i, turn in enumerate(receipts)]
    unrecorded = max(0, n_now - 1 - len(receipts))
    if last_adopted_turn is not None and anchors[-1].turn < last_adopted_turn <= end:
        # The stored state names a later adoption than any receipt: it happened, unrecorded.
        anchors.append(_Anchor(last_adopted_turn, n_now, ADOPTION))
        unrecorded = max(1, unrecorded)
    if n_now > anchors[-1].n:
        # The last segment decays at the stored n, so "now" matches the stored weight.
        anchors[-1] = _Anchor(anchors[-1].turn, n_now, anchors[-1].kind)
    return anchors, unrecorded


def _spread(segments: list[tuple[int, int]], budget: int) -> list[list[int]]:
    """Interior sample turns per segment, the budget split by segment length."""
    total = sum(max(0, b - a - 1) for a, b in segments)
    out: list[list[int]] = []
    for a, b in segments:
        inner = max(0, b - a - 1)
        k = min(inner, budget * inner // total) if total and budget > 0 else 0
        out.append(sorted({a + round((i + 1) * (b - a) / (k + 1)) for i in range(k)}))
    return out


def weight_trajectory(
    *,
    formed_turn: int,
    current_turn: int,
    adoption_turns: Sequence[int],
    criticality: str,
    status: str,
    pinned: bool,
    adoptions: int | None = None,
    last_adopted_turn: int | None = None,
    capped_from_turn: int | None = None,
    max_points: int = MAX_POINTS,
) -> WeightTrajectory:
    """The weight of one event from its formation to `current_turn`.

    `adoption_turns` are the namespace turns of the receipts that reinforced it (one per
    receipt); `adoptions` and `last_adopted_turn` are its stored state (n and the anchor of the
    current decay) when known; `capped_from_turn` is when it was superseded (the superseding
    event's formed turn). Raises `ValueError` for an unknown criticality or status.
    """
    end = max(current_turn, formed_turn)
    receipts = sorted(min(end, max(formed_turn, t)) for t in adoption_turns)
    n_now = max(adoptions if adoptions is not None else 1, 1 + len(receipts))
    anchors, unrecorded = _anchors(formed_turn, end, receipts, n_now, last_adopted_turn)
    floor = CRITICALITY_FLOORS.get(criticality, 0.0)
    capped = status == SUPERSEDED
    cap_turn = (
        None
        if not capped or capped_from_turn is None
        else min(end, max(formed_turn, capped_from_turn))
    )

    def natural(anchor: _Anchor, turn: int) -> float:
        return max(floor, math.exp(-adoption_lambda(anchor.n) * (turn - anchor.turn)))

    def shown(anchor: _Anchor, turn: int) -> float:
        w = natural(anchor, turn)
        return min(w, SUPERSEDED_CAP) if cap_turn is not None and turn >= cap_turn else w

    segments = [
        (a.turn, anchors[i + 1].turn if i + 1 < len(anchors) else end)
        for i, a in enumerate(anchors)
    ]
    # Formation, before and after each adoption, the end of the curve and "now" (a second
    # point at the last turn when pinned/hidden/capped moves it), and the cap drawn as a step.
    required = [
        {cap_turn} if cap_turn is not None and a < cap_turn < b else set() for a, b in segments
    ]
    fixed = 1 + 2 * (len(anchors) - 1) + 2 + 2 * sum(len(r) for r in required)
    # Where a decay meets the floor (a visible kink), as far as the budget allows: with many
    # adoptions the kinks would push the curve past it.
    room = max(0, max_points - fixed)
    for (a, b), anchor, turns in zip(segments, anchors, required, strict=True):
        if 0 < floor < 1 and room > 0:
            kink = a + math.ceil(math.log(1 / floor) / adoption_lambda(anchor.n))
            if a < kink < b and kink not in turns:
                turns.add(kink)
                room -= 1
    samples = _spread(segments, room)

    points: list[TrajectoryPoint] = []

    def emit(turn: int, weight: float, kind: str, n: int) -> None:
        point = TrajectoryPoint(turn, round(weight, _DIGITS), kind, n)
        if points and (points[-1].turn, points[-1].weight) == (turn, point.weight):
            if kind == SAMPLE:
                return
            if points[-1].kind == SAMPLE:  # a reset replaces a sample at the same place
                points[-1] = point
                return
        points.append(point)

    def emit_sample(anchor: _Anchor, turn: int) -> None:
        if turn == cap_turn:  # the drop to the cap is drawn as a step
            emit(turn, natural(anchor, turn), SAMPLE, anchor.n)
        emit(turn, shown(anchor, turn), SAMPLE, anchor.n)

    for i, ((a, b), anchor) in enumerate(zip(segments, anchors, strict=True)):
        emit(a, shown(anchor, a), anchor.kind, anchor.n)
        for turn in sorted(set(samples[i]) | required[i]):
            emit_sample(anchor, turn)
        if b > a:
            emit_sample(anchor, b)  # the end of the segment: just before a reset, or now

    last = anchors[-1]
    now = long_term_weight(
        current_turn=end,
        last_adopted_turn=last.turn,
        adoptions=n_now,
        criticality=criticality,
        status=status,
        pinned=pinned,
    )
    override = (
        HIDDEN if status in HIDDEN_STATUSES else PINNED if pinned else CAPPED if capped else None
    )
    final = TrajectoryPoint(end, round(now, _DIGITS), CURRENT, n_now)
    if points[-1].turn == end and points[-1].weight == final.weight:
        if points[-1].kind == SAMPLE:
            points[-1] = final
    else:
        points.append(final)
    return WeightTrajectory(
        points=tuple(points),
        formed_turn=formed_turn,
        current_turn=end,
        current_weight=round(now, _DIGITS),
        adoptions=n_now,
        adoption_turns=tuple(receipts),
        unrecorded_adoptions=unrecorded,
        override=override,
        capped_from_turn=cap_turn,
    )
