"""The numbers behind the health page's three small charts (SPEC §13.1): blocks by display level,
events by weight band and adoptions over turns. Four queries whatever the namespace's size.

Levels and weights are derived, never stored, so each chart is one pass over only the columns
its rule needs (`values_list`), with the rule itself from the engine:

- blocks: one pass over the namespace's blocks (session, status, pointer) — a few hundred rows
  for a long project, since a block holds a block-size of turns;
- events: one pass over the namespace's visible events (five small columns each);
- receipts: one pass over the namespace's usage receipts (turn and reinforced ids), one row per
  answer that recorded use;
- plus the effective λ (one row).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import NamedTuple

from memory.engine.decay import MAX_LEVEL, MIN_LEVEL, display_level
from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.engine.weights import current_weight, weight_band
from memory.models import Block, BlockStatus, Event, Namespace, UsageReceipt
from memory.selectors.out import Out
from memory.selectors.settings import memory_settings_get

MAX_ADOPTION_BUCKETS = 30
WEIGHT_BANDS = ("high", "mid", "low", "zero")  # weight_band's answers, strongest first


class LevelCountOut(Out):
    level: int
    blocks: int


class BandCountOut(Out):
    band: str
    events: int


class AdoptionBucketOut(Out):
    first_turn: int
    last_turn: int
    receipts: int
    adoptions: int  # events reinforced by the bucket's receipts


class HealthChartsOut(Out):
    block_lambda: float
    current_turn: int
    levels: list[LevelCountOut]  # ready blocks by the level they show now, L5 first
    ready_blocks: int
    pending_blocks: int
    failed_blocks: int
    bands: list[BandCountOut]  # visible events by weight band, strongest first
    visible_events: int
    adoption_buckets: list[AdoptionBucketOut]  # 0 … current_turn, oldest first
    bucket_turns: int  # turns per adoption bucket
    receipts: int
    adoptions: int  # Σ len(reinforced_event_ids) over the receipts


class _WeightRow(NamedTuple):
    last_adopted_turn: int
    adoptions: int
    criticality: str
    status: str
    pinned: bool


def level_counts(*, namespace: Namespace, lam: float) -> tuple[dict[int, int], dict[str, int]]:
    """Ready blocks by displayed level, and every block by status (one query)."""
    rows = list(
        Block.objects.filter(namespace=namespace).values_list(
            "session_id", "status", "anchor_level", "anchor_position"
        )
    )
    by_status = Counter(status for _, status, _, _ in rows)
    latest = Counter(session for session, status, _, _ in rows if status == BlockStatus.READY)
    levels: Counter[int] = Counter()
    for session, status, anchor_level, anchor_position in rows:
        if status != BlockStatus.READY:
            continue
        levels[
            display_level(
                anchor_level=anchor_level,
                # Processing sets the pointer when a block becomes ready; a block without one
                # has not decayed yet.
                anchor_position=latest[session] if anchor_position is None else anchor_position,
                latest=latest[session],
                lam=lam,
            )
        ] += 1
    return dict(levels), dict(by_status)


def band_counts(*, namespace: Namespace, current_turn: int) -> dict[str, int]:
    """Visible events by weight band now (one query, one pass over the namespace's events)."""
    rows = Event.objects.filter(namespace=namespace, status__in=VISIBLE_STATUSES).values_list(
        "last_adopted_turn", "adoptions", "criticality", "status", "pinned"
    )
    return dict(
        Counter(weight_band(current_weight(_WeightRow(*row), current_turn)) for row in rows)
    )


def bucket_width(current_turn: int) -> int:
    """Turns per bucket so that 0 … current_turn fits in at most MAX_ADOPTION_BUCKETS buckets."""
    return max(1, math.ceil((max(0, current_turn) + 1) / MAX_ADOPTION_BUCKETS))


def adoption_buckets(*, namespace: Namespace, current_turn: int) -> list[AdoptionBucketOut]:
    """Receipts and the events they reinforced, per namespace-turn bucket (one query)."""
    top = max(0, current_turn)
    width = bucket_width(top)
    count = top // width + 1
    receipts = [0] * count
    adoptions = [0] * count
    rows = UsageReceipt.objects.filter(namespace=namespace).values_list(
        "namespace_turn", "reinforced_event_ids"
    )
    for turn, reinforced in rows:
        # An import undo can move the counter back below an older receipt's turn.
        index = min(count - 1, max(0, turn) // width)
        receipts[index] += 1
        adoptions[index] += len(reinforced or [])
    return [
        AdoptionBucketOut.model_construct(
            first_turn=i * width,
            last_turn=min(top, (i + 1) * width - 1),
            receipts=receipts[i],
            adoptions=adoptions[i],
        )
        for i in range(count)
    ]


def health_charts(*, namespace: Namespace) -> HealthChartsOut:
    lam = memory_settings_get().block_lambda
    current_turn = namespace.current_turn
    levels, blocks = level_counts(namespace=namespace, lam=lam)
    bands = band_counts(namespace=namespace, current_turn=current_turn)
    buckets = adoption_buckets(namespace=namespace, current_turn=current_turn)
    return HealthChartsOut.model_construct(
        block_lambda=lam,
        current_turn=current_turn,
        levels=[
            LevelCountOut.model_construct(level=level, blocks=levels.get(level, 0))
            for level in range(MAX_LEVEL, MIN_LEVEL - 1, -1)
        ],
        ready_blocks=blocks.get(BlockStatus.READY, 0),
        pending_blocks=blocks.get(BlockStatus.PENDING, 0),
        failed_blocks=blocks.get(BlockStatus.FAILED, 0),
        bands=[BandCountOut.model_construct(band=b, events=bands.get(b, 0)) for b in WEIGHT_BANDS],
        visible_events=sum(bands.values()),
        adoption_buckets=buckets,
        bucket_turns=bucket_width(current_turn),
        receipts=sum(b.receipts for b in buckets),
        adoptions=sum(b.adoptions for b in buckets),
    )
