"""Blocks agree with their session (SPEC §2, §4): a block holds exactly the turns of its range,
has its views (L3–L5 from sealing, L0–L2 once ready), and a ready block's display pointer and
ready position lie within the session's ready blocks; a pending block always has a job on the
way to making it ready.

Only the display pointer is repaired (clamped into range, as if the block had just been
expanded to the nearest valid level): it decides how a block is shown, never what it holds.
"""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, Exists, F, Max, Min, OuterRef

from memory.engine.decay import MAX_LEVEL
from memory.models import (
    Block,
    BlockStatus,
    BlockView,
    JobKind,
    JobStatus,
    ProcessingJob,
    Session,
    Turn,
)
from memory.services.consistency.base import BLOCKS, Repair, Violation, scoped
from memory.services.db import write_transaction

SEALED_LEVELS = frozenset({3, 4, 5})
ALL_LEVELS = frozenset(range(MAX_LEVEL + 1))
BLOCK_JOB_KINDS = (JobKind.BLOCK_VIEWS, JobKind.BLOCK_EXTRACT)


def block_turns_mismatch(namespace_id: int | None) -> list[Violation]:
    """The turns pointing at a block (of its own session) are exactly first_turn..last_turn."""
    # Blocks first: a block sealed after this read is simply not looked at.
    blocks = list(
        scoped(Block.objects.all(), namespace_id)
        .values_list("pk", "namespace_id", "session_id", "first_turn", "last_turn")
        .order_by("pk")
    )
    held = {
        row["block_id"]: (row["low"], row["high"], row["count"])
        for row in scoped(Turn.objects.all(), namespace_id)
        .filter(block__isnull=False, session_id=F("block__session_id"))
        .values("block_id")
        .annotate(low=Min("session_turn"), high=Max("session_turn"), count=Count("id"))
    }
    found: list[Violation] = []
    for pk, ns, session, first, last in blocks:
        expected = (first, last, last - first + 1)
        got = held.get(pk, (None, None, 0))
        if first >= 1 and got == expected:
            continue
        low, high, count = got
        found.append(
            Violation(
                BLOCKS,
                "block_turns_mismatch",
                ns,
                {"block": pk, "session": session},
                f"block {pk} covers turns {first}–{last} of session {session} but holds "
                + (f"{count} turns ({low}–{high})" if count else "no turns"),
            )
        )
    return found


def block_views_missing(namespace_id: int | None) -> list[Violation]:
    blocks = list(
        scoped(Block.objects.all(), namespace_id)
        .values_list("pk", "namespace_id", "status")
        .order_by("pk")
    )
    levels: dict[int, set[int]] = defaultdict(set)
    for block, level in scoped(
        BlockView.objects.all(), namespace_id, "block__namespace_id"
    ).values_list("block_id", "level"):
        levels[block].add(level)
    found: list[Violation] = []
    for pk, ns, status in blocks:
        wanted = ALL_LEVELS if status == BlockStatus.READY else SEALED_LEVELS
        missing = sorted(wanted - levels[pk])
        if missing:
            found.append(
                Violation(
                    BLOCKS,
                    "block_views_missing",
                    ns,
                    {"block": pk, "levels": missing},
                    f"{status} block {pk} lacks views " + ", ".join(f"L{n}" for n in missing),
                )
            )
    return found


def _ready_blocks(
    namespace_id: int | None,
) -> dict[int, list[tuple[int, int, int, int | None, int | None]]]:
    """session id → its ready blocks as (pk, namespace, anchor_level, anchor_position,
    ready_position), by sequence."""
    by_session: dict[int, list[tuple[int, int, int, int | None, int | None]]] = defaultdict(list)
    rows = scoped(Block.objects.filter(status=BlockStatus.READY), namespace_id).values_list(
        "session_id", "pk", "namespace_id", "anchor_level", "anchor_position", "ready_position"
    )
    for session, pk, ns, level, anchor, ready in rows.order_by("session_id", "sequence"):
        by_session[session].append((pk, ns, level, anchor, ready))
    return by_session


def _anchor_in_range(level: int, position: int | None, latest: int) -> bool:
    return 0 <= level <= MAX_LEVEL and position is not None and 1 <= position <= latest


def block_pointers_out_of_range(namespace_id: int | None) -> list[Violation]:
    found: list[Violation] = []
    for session, blocks in _ready_blocks(namespace_id).items():
        latest = len(blocks)
        positions = [ready for *_, ready in blocks]
        for pk, ns, level, anchor, ready in blocks:
            if not _anchor_in_range(level, anchor, latest):
                found.append(
                    Violation(
                        BLOCKS,
                        "block_anchor_out_of_range",
                        ns,
                        {"block": pk, "session": session},
                        f"ready block {pk} is anchored at L{level}, position {anchor}; "
                        f"its session has {latest} ready blocks",
                        fixable=True,
                    )
                )
            if ready is None or not 1 <= ready <= latest or positions.count(ready) > 1:
                found.append(
                    Violation(
                        BLOCKS,
                        "block_ready_position_invalid",
                        ns,
                        {"block": pk, "session": session},
                        f"ready block {pk} has ready position {ready}; its session's "
                        f"{latest} ready blocks should be numbered 1–{latest} once each",
                    )
                )
    # Pointers of blocks that are not ready are not read (they decay only once ready).
    levels = scoped(Block.objects.exclude(status=BlockStatus.READY), namespace_id).exclude(
        anchor_level__gte=0, anchor_level__lte=MAX_LEVEL
    )
    found += [
        Violation(
            BLOCKS,
            "block_anchor_out_of_range",
            ns,
            {"block": pk, "session": session},
            f"block {pk} is anchored at L{level}, outside L0–L{MAX_LEVEL}",
            fixable=True,
        )
        for pk, ns, session, level in levels.values_list(
            "pk", "namespace_id", "session_id", "anchor_level"
        ).order_by("pk")
    ]
    return found


def blocks_stalled(namespace_id: int | None) -> list[Violation]:
    """A pending block with no queued or running block job will never become ready."""
    moving = ProcessingJob.objects.filter(
        block_id=OuterRef("pk"),
        kind__in=BLOCK_JOB_KINDS,
        status__in=(JobStatus.QUEUED, JobStatus.RUNNING),
    )
    rows = scoped(
        Block.objects.filter(status=BlockStatus.PENDING).filter(~Exists(moving)), namespace_id
    ).values_list("pk", "namespace_id", "session_id")
    return [
        Violation(
            BLOCKS,
            "block_stalled",
            ns,
            {"block": pk, "session": session},
            f"block {pk} is pending but no queued or running job will make it ready",
        )
        for pk, ns, session in rows.order_by("pk")
    ]


CHECKS = (block_turns_mismatch, block_views_missing, block_pointers_out_of_range, blocks_stalled)


def block_anchors_clamp(violations: list[Violation]) -> list[Repair]:
    """Clamp each listed block's anchor into range, re-checked under the session lock (the lock
    `block_expand` and `block_mark_ready` take)."""
    done: list[Repair] = []
    for violation in violations:
        block_id = int(violation.ids["block"])  # type: ignore[arg-type]
        with write_transaction():
            block = Block.objects.filter(pk=block_id).first()
            if block is None:
                continue
            Session.objects.select_for_update().filter(pk=block.session_id).first()
            block = Block.objects.select_for_update().get(pk=block_id)
            latest = Block.objects.filter(
                session_id=block.session_id, status=BlockStatus.READY
            ).count()
            level = min(max(block.anchor_level, 0), MAX_LEVEL)
            position = block.anchor_position
            if block.status == BlockStatus.READY:
                position = latest if position is None else min(max(position, 1), latest)
            if (level, position) == (block.anchor_level, block.anchor_position):
                continue
            before = f"L{block.anchor_level}@{block.anchor_position}"
            block.anchor_level, block.anchor_position = level, position
            block.save(update_fields=["anchor_level", "anchor_position"])
        done.append(
            Repair(
                "block_anchor_out_of_range",
                block.namespace_id,
                f"block {block_id}: anchor {before} → L{level}@{position}",
                {"block": block_id},
            )
        )
    return done
