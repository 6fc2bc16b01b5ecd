"""Reads of short-term memory: blocks at their displayed level and a session's layered history."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory.engine.decay import display_level
from memory.engine.layering import render_l5
from memory.engine.tokens import estimate_tokens
from memory.models import Block, BlockStatus, BlockView, Message, Session, Turn
from memory.services.sealing import view_messages
from memory.services.settings import memory_settings_get


@dataclass(frozen=True)
class BlockDisplay:
    block: Block
    level: int | None  # None for pending/failed blocks (shown as raw turns)
    content: str
    tokens: int
    views: dict[int, BlockView] = field(default_factory=dict)

    @property
    def turn_range(self) -> tuple[int, int]:
        return (self.block.first_turn, self.block.last_turn)


@dataclass(frozen=True)
class LayeredHistory:
    blocks: list[BlockDisplay]
    pending: list[BlockDisplay]
    open_tail: list[Message]
    open_tail_turns: int
    tokens: int


def _raw_text(messages: list[Message]) -> str:
    return render_l5(view_messages(messages))


def block_display_list(*, session: Session, lam: float | None = None) -> list[BlockDisplay]:
    """Every block of the session, oldest first; ready ones at their decayed level (SPEC §4)."""
    lam = memory_settings_get().block_lambda if lam is None else lam
    blocks = list(
        Block.objects.filter(session=session).order_by("sequence").prefetch_related("views")
    )
    latest = sum(1 for b in blocks if b.status == BlockStatus.READY)
    shown: list[BlockDisplay] = []
    for block in blocks:
        views = {v.level: v for v in block.views.all()}
        if block.status == BlockStatus.READY and block.anchor_position is not None:
            level = display_level(
                anchor_level=block.anchor_level,
                anchor_position=block.anchor_position,
                latest=latest,
                lam=lam,
            )
            view = views[level]
            shown.append(BlockDisplay(block, level, view.content, view.tokens, views))
        else:
            raw = views[5]
            shown.append(BlockDisplay(block, None, raw.content, raw.tokens, views))
    return shown


def open_tail_messages(session: Session) -> tuple[list[Message], int]:
    turns = Turn.objects.filter(session=session, block__isnull=True)
    messages = list(
        Message.objects.filter(turn__in=turns)
        .select_related("session")
        .order_by("turn__session_turn", "position")
    )
    return messages, turns.count()


def layered_history(*, session: Session, lam: float | None = None) -> LayeredHistory:
    """Ready blocks at their levels, then pending/failed blocks and the open tail as raw (§4.8)."""
    shown = block_display_list(session=session, lam=lam)
    ready = [b for b in shown if b.level is not None]
    pending = [b for b in shown if b.level is None]
    tail, tail_turns = open_tail_messages(session)
    tail_tokens = estimate_tokens(_raw_text(tail)) if tail else 0
    tokens = sum(b.tokens for b in ready) + sum(b.tokens for b in pending) + tail_tokens
    return LayeredHistory(ready, pending, tail, tail_turns, tokens)
