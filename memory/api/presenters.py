"""Selector results → the agent API's own shapes (those that exist only in the API)."""

from __future__ import annotations

from memory.api.schemas import HistoryBlockOut, HistoryOut, PendingBlockOut
from memory.engine.redact import redact
from memory.selectors.blocks import LayeredHistory, block_out
from memory.selectors.messages import messages_out


def history_out(history: LayeredHistory | None) -> HistoryOut:
    if history is None:
        return HistoryOut(blocks=[], pending=[], open_tail=[], open_tail_turns=0, tokens=0)
    pending = [block_out(b) for b in history.pending]
    return HistoryOut(
        blocks=[
            HistoryBlockOut(
                block_id=b.block.pk,
                sequence=b.block.sequence,
                turn_range=list(b.turn_range),
                level=b.level,
                content=redact(b.content),
                tokens=b.tokens,
            )
            for b in history.blocks
            if b.level is not None  # ready blocks always have a displayed level
        ],
        pending=[
            PendingBlockOut(
                block_id=b.block_id,
                sequence=b.sequence,
                turn_range=b.turn_range,
                status=b.status,
                content=b.content,
                tokens=b.tokens,
            )
            for b in pending
        ],
        open_tail=messages_out(history.open_tail),
        open_tail_turns=history.open_tail_turns,
        tokens=history.tokens,
    )
