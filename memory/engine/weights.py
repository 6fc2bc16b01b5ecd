"""Long-term weights of events (SPEC §7): how strongly a memory still pulls, in turns, not time.

`t` counts conversation turns since the memory was last *adopted* (a usage receipt cited it);
search hits never reset it. Adoptions slow the decay: λ(n) = 0.15 / (1 + 1.5·ln n). Criticality
gives a floor, supersession caps the weight after the floor, pinning lifts it to 1, and
forgetting/archiving zeroes it (checked first, so it beats pinning). Everything here is pure.

Decision (SPEC silent): a *pinned superseded* event weighs 1. The pin is an explicit user act and
can be undone, whereas supersession is usually inferred by extraction; an inferred change must not
silently demote what the user asked to keep (this is also the original implementation's order).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Protocol

from memory.engine.lifecycle import EVENT_STATUSES, HIDDEN_STATUSES, SUPERSEDED

BASE_DECAY: Final = 0.15
REHEARSAL_FACTOR: Final = 1.5

CRITICALITY_FLOORS: Final[Mapping[str, float]] = MappingProxyType(
    {"routine": 0.0, "preference": 0.3, "identity": 0.9, "safety": 1.0}
)
SUPERSEDED_CAP: Final = 0.1
# Lifecycle statuses that hide an event and zero its weight, whatever else is true.
ZERO_WEIGHT_STATUSES: Final = frozenset(HIDDEN_STATUSES)
_KNOWN_STATUSES: Final = frozenset(EVENT_STATUSES)

# Bands for the UI's "events by weight band" chart (SPEC §13.1); lower bounds are inclusive.
BAND_HIGH_FROM: Final = 0.7
BAND_MID_FROM: Final = 0.3


def adoption_lambda(n: int) -> float:
    """Decay rate after `n` adoptions: 0.15 / (1 + 1.5·ln n); n below 1 counts as 1."""
    n = max(1, n)
    return BASE_DECAY / (1.0 + REHEARSAL_FACTOR * math.log(n))


def long_term_weight(
    *,
    current_turn: int,
    last_adopted_turn: int,
    adoptions: int,
    criticality: str,
    status: str,
    pinned: bool,
    forced_cap: float | None = None,
) -> float:
    """The weight of one event at `current_turn` (SPEC §7), in [0, 1].

    Order: forgotten/archived → 0; pinned → 1; else max(floor, exp(−λ(n)·t)) capped at 0.1 when
    superseded (and at `forced_cap` when the caller stores an explicit one; the lower cap wins).
    `t` never goes negative, so a turn counter that is behind the adoption turn gives weight 1.
    Raises `ValueError` for an unknown criticality or status: a silent default would hide a bug.
    """
    if criticality not in CRITICALITY_FLOORS:
        raise ValueError(f"unknown criticality {criticality!r}")
    if status not in _KNOWN_STATUSES:
        raise ValueError(f"unknown lifecycle status {status!r}")
    if status in ZERO_WEIGHT_STATUSES:
        return 0.0
    if pinned:
        return 1.0
    t = max(0, current_turn - last_adopted_turn)
    weight = max(CRITICALITY_FLOORS[criticality], math.exp(-adoption_lambda(adoptions) * t))
    caps = [
        c for c in (forced_cap, SUPERSEDED_CAP if status == SUPERSEDED else None) if c is not None
    ]
    if caps:
        weight = min(weight, *caps)
    return max(0.0, min(1.0, weight))


class WeightState(Protocol):
    """What the weight reads of an event (a model instance or any row with these attributes)."""

    @property
    def last_adopted_turn(self) -> int: ...
    @property
    def adoptions(self) -> int: ...
    @property
    def criticality(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def pinned(self) -> bool: ...


def current_weight(event: WeightState, current_turn: int) -> float:
    """`long_term_weight` of an event's stored state at `current_turn`."""
    return long_term_weight(
        current_turn=current_turn,
        last_adopted_turn=event.last_adopted_turn,
        adoptions=event.adoptions,
        criticality=event.criticality,
        status=event.status,
        pinned=event.pinned,
    )


def weight_band(w: float) -> str:
    """UI band of a weight: "high" ≥ 0.7, "mid" ≥ 0.3, "low" > 0, else "zero"."""
    if w >= BAND_HIGH_FROM:
        return "high"
    if w >= BAND_MID_FROM:
        return "mid"
    if w > 0:
        return "low"
    return "zero"
