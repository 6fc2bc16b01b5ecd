"""Model → API dict conversion, with redaction on the way out (SPEC §15.3)."""

from __future__ import annotations

from typing import Any

from memory.engine.redact import redact
from memory.models import Message
from memory.selectors.blocks import BlockDisplay, LayeredHistory


def block_out(shown: BlockDisplay) -> dict[str, Any]:
    return {
        "block_id": shown.block.pk,
        "sequence": shown.block.sequence,
        "turn_range": list(shown.turn_range),
        "status": shown.block.status,
        "level": shown.level,
        "content": redact(shown.content),
        "tokens": shown.tokens,
        "last_lifted_by": shown.block.last_lifted_by or None,
        "last_lifted_at": shown.block.last_lifted_at,
    }


def message_out(message: Message) -> dict[str, Any]:
    return {
        "id": message.pk,
        "role": message.role,
        "name": message.name or None,
        "content": redact(message.content),
        "created_at": message.created_at,
        "session_id": message.session.external_id,
        "turn_id": message.turn_id,
    }


def history_out(history: LayeredHistory | None) -> dict[str, Any]:
    if history is None:
        return {"blocks": [], "pending": [], "open_tail": [], "open_tail_turns": 0, "tokens": 0}
    return {
        "blocks": [
            {
                k: v
                for k, v in block_out(b).items()
                if k not in ("status", "last_lifted_by", "last_lifted_at")
            }
            for b in history.blocks
        ],
        "pending": [
            {
                k: v
                for k, v in block_out(b).items()
                if k not in ("level", "last_lifted_by", "last_lifted_at")
            }
            for b in history.pending
        ],
        "open_tail": [message_out(m) for m in history.open_tail],
        "open_tail_turns": history.open_tail_turns,
        "tokens": history.tokens,
    }
