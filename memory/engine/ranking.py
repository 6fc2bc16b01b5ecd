"""Rank fusion and token budgets for retrieval (SPEC §8.3, §8.7): pure, deterministic, no Django.

Every retrieval surface fuses several orderings (text relevance, long-term weight, structured
filters, chronology) with weighted Reciprocal Rank Fusion, and activated memory is packed into a
token budget. Both live here so they can be tested to the decimal against the spec.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

RRF_K = 60


class _Ordered(Hashable, Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


def rrf[K: _Ordered](
    rankings: Sequence[Sequence[K]],
    weights: Sequence[float] | None = None,
    k: int = RRF_K,
) -> list[tuple[K, float]]:
    """Fuse rankings: score(x) = Σ_r w_r / (k + rank_r(x)) with 1-based ranks (SPEC §8.3).

    Ties are broken by the best (lowest) single rank the item reached in any ranking, then by
    the id itself (ascending). A ranking with weight ≤ 0 or NaN is skipped; an item repeated
    inside one ranking counts at its first position only. Raises `ValueError` when `weights`
    does not match `rankings` in length.
    """
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking is required")
    scores: dict[K, float] = {}
    best: dict[K, int] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        if not weight > 0 or math.isnan(weight):
            continue
        seen: set[K] = set()
        for position, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + position)
            best[item] = min(best.get(item, position), position)
    return sorted(scores.items(), key=lambda kv: (-kv[1], best[kv[0]], kv[0]))


@dataclass(frozen=True)
class Packed[T]:
    """What fits in a budget: the kept items, their individual costs and the total spent."""

    items: list[T]
    costs: list[int]
    used: int
    dropped: int


def pack_budget[T](
    items: Sequence[T],
    *,
    cost: Callable[[T], int],
    budget: int,
    used: int = 0,
    max_items: int | None = None,
    stop_at_first_overflow: bool = True,
) -> Packed[T]:
    """Add `items` in order while the running total stays ≤ `budget` (SPEC §8.7).

    `used` is what is already spent (a header, an earlier list). By default packing stops at the
    first item that does not fit, so rank order is never inverted; with
    `stop_at_first_overflow=False` a smaller later item may still fill the remaining room.
    """
    kept: list[T] = []
    costs: list[int] = []
    total = used
    for item in items:
        if max_items is not None and len(kept) >= max_items:
            break
        c = cost(item)
        if total + c > budget:
            if stop_at_first_overflow:
                break
            continue
        kept.append(item)
        costs.append(c)
        total += c
    return Packed(items=kept, costs=costs, used=total, dropped=len(items) - len(kept))
