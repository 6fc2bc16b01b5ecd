"""Reads of short-term memory: sessions, blocks at their displayed level (SPEC §4), the six views
of each block, and a session's layered history (§4.8)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery

from memory.engine.decay import MAX_LEVEL, display_level
from memory.engine.layering import render_l5
from memory.engine.redact import redact
from memory.engine.tokens import estimate_tokens
from memory.errors import NotFound
from memory.models import (
    Block,
    BlockStatus,
    BlockView,
    Message,
    MessageRole,
    Namespace,
    ProxySession,
    Session,
    Turn,
)
from memory.selectors.messages import view_messages
from memory.selectors.out import Out
from memory.selectors.settings import memory_settings_get


def session_get(namespace: Namespace, session_id: str) -> Session:
    session = Session.objects.filter(namespace=namespace, external_id=session_id).first()
    if session is None:
        raise NotFound(f"session {session_id[:200]!r} not found", code="session_not_found")
    return session


def session_find(namespace: Namespace, session_id: str) -> Session | None:
    return Session.objects.filter(namespace=namespace, external_id=session_id).first()


def block_get(namespace: Namespace, block_id: int) -> Block:
    block = Block.objects.filter(namespace=namespace, pk=block_id).select_related("session").first()
    if block is None:
        raise NotFound(f"block {block_id} not found", code="block_not_found")
    return block


@dataclass(frozen=True)
class SessionRow:
    session_id: str
    turns: int
    blocks: int
    blocks_ready: int
    blocks_pending: int
    blocks_failed: int
    last_activity_at: datetime | None
    created_at: datetime
    first_message: str  # the first user message, redacted (a label for people)
    imported: bool  # holds an import's synthetic source turn
    proxied: bool  # came through the model proxy


LABEL_CHARS = 120


def session_list(namespace: Namespace) -> QuerySet[Session]:
    """Sessions, most recently active first, annotated for `session_row`; slice it to page."""
    first_user = Message.objects.filter(session=OuterRef("pk"), role=MessageRole.USER).order_by(
        "turn__session_turn", "position"
    )
    return (
        Session.objects.filter(namespace=namespace)
        .annotate(
            n_blocks=Count("blocks"),
            n_ready=Count("blocks", filter=Q(blocks__status=BlockStatus.READY)),
            n_pending=Count("blocks", filter=Q(blocks__status=BlockStatus.PENDING)),
            n_failed=Count("blocks", filter=Q(blocks__status=BlockStatus.FAILED)),
            first_message=Subquery(first_user.values("content")[:1]),
            imported=Exists(Turn.objects.filter(session=OuterRef("pk"), synthetic=True)),
            proxied=Exists(ProxySession.objects.filter(session=OuterRef("pk"))),
        )
        .order_by("-last_activity_at", "-pk")
    )


def session_row(session: Session) -> SessionRow:
    """A row of `session_list` (its annotations are required)."""
    text = " ".join(str(getattr(session, "first_message", "") or "").split())
    return SessionRow(
        session_id=session.external_id,
        turns=session.turn_count,
        blocks=getattr(session, "n_blocks", 0),
        blocks_ready=getattr(session, "n_ready", 0),
        blocks_pending=getattr(session, "n_pending", 0),
        blocks_failed=getattr(session, "n_failed", 0),
        last_activity_at=session.last_activity_at,
        created_at=session.created_at,
        first_message=redact(text[:LABEL_CHARS]),
        imported=bool(getattr(session, "imported", False)),
        proxied=bool(getattr(session, "proxied", False)),
    )


@dataclass(frozen=True)
class BlockDisplay:
    block: Block
    level: int | None  # None for pending/failed blocks (shown as raw turns)
    content: str  # as stored; redact on the way out
    tokens: int
    views: dict[int, BlockView] = field(default_factory=dict)

    @property
    def turn_range(self) -> tuple[int, int]:
        return (self.block.first_turn, self.block.last_turn)


class BlockOut(Out):
    """A block as the agent API shows it: at its displayed level (raw while not ready)."""

    block_id: int
    sequence: int
    turn_range: list[int]
    status: str
    level: int | None
    content: str
    tokens: int
    last_lifted_by: str | None
    last_lifted_at: datetime | None


def block_out(shown: BlockDisplay) -> BlockOut:
    return BlockOut.model_construct(
        block_id=shown.block.pk,
        sequence=shown.block.sequence,
        turn_range=list(shown.turn_range),
        status=shown.block.status,
        level=shown.level,
        content=redact(shown.content),
        tokens=shown.tokens,
        last_lifted_by=shown.block.last_lifted_by or None,
        last_lifted_at=shown.block.last_lifted_at,
    )


@dataclass(frozen=True)
class LayeredHistory:
    blocks: list[BlockDisplay]
    pending: list[BlockDisplay]
    open_tail: list[Message]
    open_tail_turns: int
    tokens: int


def _raw_text(messages: list[Message]) -> str:
    return render_l5(view_messages(messages))


def block_display_list(
    *, session: Session, lam: float | None = None, all_views: bool = False
) -> list[BlockDisplay]:
    """Every block of the session, oldest first; ready ones at their decayed level (SPEC §4).
    Each `BlockDisplay.views` holds only the view it shows (one query for all blocks: a
    100-block session's context read 600 views, L5 texts included, to show 100), or every
    view with `all_views=True` (the session page's tabs)."""
    lam = memory_settings_get().block_lambda if lam is None else lam
    query = Block.objects.filter(session=session).order_by("sequence")
    blocks = list(query.prefetch_related("views") if all_views else query)
    latest = sum(1 for b in blocks if b.status == BlockStatus.READY)
    levels: dict[int, int | None] = {
        block.pk: display_level(
            anchor_level=block.anchor_level,
            anchor_position=block.anchor_position,
            latest=latest,
            lam=lam,
        )
        if block.status == BlockStatus.READY and block.anchor_position is not None
        else None  # pending or failed: shown as its raw turns
        for block in blocks
    }
    if all_views:
        views_of = {b.pk: {v.level: v for v in b.views.all()} for b in blocks}
    else:
        views_of = _shown_views(levels)
    shown: list[BlockDisplay] = []
    for block in blocks:
        level = levels[block.pk]
        views = views_of.get(block.pk, {})
        view = views[MAX_LEVEL if level is None else level]
        shown.append(BlockDisplay(block, level, view.content, view.tokens, views))
    return shown


def _shown_views(levels: dict[int, int | None]) -> dict[int, dict[int, BlockView]]:
    """block id → {level: the view shown}, in one query (one condition per level in use)."""
    by_level: dict[int, list[int]] = {}
    for block_id, level in levels.items():
        by_level.setdefault(MAX_LEVEL if level is None else level, []).append(block_id)
    if not by_level:
        return {}
    wanted = Q()
    for level, block_ids in by_level.items():
        wanted |= Q(level=level, block_id__in=block_ids)
    return {view.block_id: {view.level: view} for view in BlockView.objects.filter(wanted)}


def block_display(block: Block, *, lam: float | None = None) -> BlockDisplay:
    return next(b for b in block_display_list(session=block.session, lam=lam) if b.block == block)


def open_tail_messages(session: Session) -> tuple[list[Message], int]:
    turns = Turn.objects.filter(session=session, block__isnull=True)
    messages = list(
        Message.objects.filter(turn__in=turns)
        .select_related("session")
        .order_by("turn__session_turn", "position")
    )
    return messages, turns.count()


def layered_history(
    *, session: Session, lam: float | None = None, all_views: bool = False
) -> LayeredHistory:
    """Ready blocks at their levels, then pending/failed blocks and the open tail as raw (§4.8).
    Each block carries only the view it shows unless `all_views` (see block_display_list)."""
    shown = block_display_list(session=session, lam=lam, all_views=all_views)
    ready = [b for b in shown if b.level is not None]
    pending = [b for b in shown if b.level is None]
    tail, tail_turns = open_tail_messages(session)
    tail_tokens = estimate_tokens(_raw_text(tail)) if tail else 0
    tokens = sum(b.tokens for b in ready) + sum(b.tokens for b in pending) + tail_tokens
    return LayeredHistory(ready, pending, tail, tail_turns, tokens)


@dataclass(frozen=True)
class SessionBlocks:
    """What `memory_get_blocks` answers: the blocks, the open tail and, when empty, why."""

    blocks: list[BlockDisplay]
    open_tail_turns: int
    block_turns: int
    reason: str | None


def session_blocks(namespace: Namespace, session_id: str) -> SessionBlocks:
    block_turns = memory_settings_get().block_turns
    session = session_find(namespace, session_id)
    if session is None:
        others = Block.objects.filter(namespace=namespace).exists()
        why = "blocks_in_other_sessions" if others else "no_blocks_yet"
        return SessionBlocks([], 0, block_turns, why)
    shown = block_display_list(session=session)
    tail_turns = Turn.objects.filter(session=session, block__isnull=True).count()
    if shown:
        return SessionBlocks(shown, tail_turns, block_turns, None)
    why = "open_tail_pending" if tail_turns else "no_blocks_yet"
    return SessionBlocks(shown, tail_turns, block_turns, why)
