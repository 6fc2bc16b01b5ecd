"""Which earlier turns of a proxied request can be sent as their blocks (docs/PROXY.md, "Layered
history"): a turn of the request is matched to a stored turn only when the request's history
links, digest to digest, exactly as the captured turn did (`ProxyExchange.earlier_digest` →
`digest_after`), and a block is replaced only when it is sealed, ready, shown below L5 (at L5
its view is the raw messages the agent already sends) and every one of its turns is
matched. Levels come from the blocks' own read (`block_display_list`: SPEC §4 by λ
and anchor, a lifted block at its lifted level)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from memory.engine.decay import MAX_LEVEL
from memory.engine.history_mode import view_saves
from memory.engine.redact import redact
from memory.engine.tokens import estimate_tokens
from memory.models import ExchangeState, Message, ProxyExchange, Session
from memory.selectors.blocks import BlockDisplay, block_display_list


@dataclass(frozen=True)
class HistoryBlock:
    """A ready block that stands for request segments `segments[0]`…`segments[1]` (inclusive;
    a segment is one earlier turn of the request, proxy.conversation.Conversation.earlier).
    Consecutive blocks may share their boundary segment (a turn stored in parts)."""

    block_id: int
    first_turn: int
    last_turn: int
    level: int
    content: str  # the view at `level`, redacted
    segments: tuple[int, int]


def sent_as_block(shown: BlockDisplay) -> bool:
    """Whether a block goes upstream as its view: ready and below L5. At L5 its view is its raw
    messages, which the agent already sends (tool calls in the protocol's own form): its turns
    go as they came."""
    return shown.level is not None and shown.level < MAX_LEVEL


def session_raw_tokens(session: Session) -> tuple[int, dict[int, int]]:
    """The token estimate of every message of the session as an agent sends it back, and the
    part of it each block holds (block id → tokens), in one query."""
    per_block: dict[int, int] = {}
    native = 0
    rows = Message.objects.filter(session=session).values_list(
        "turn__block_id", "content", "tool_calls"
    )
    for block_id, content, calls in rows:
        tokens = estimate_tokens(content)
        if calls:
            tokens += estimate_tokens(json.dumps(calls, default=str))
        native += tokens
        if block_id is not None:
            per_block[block_id] = per_block.get(block_id, 0) + tokens
    return native, per_block


def proxied_tokens(
    blocks: Sequence[BlockDisplay], native: int, per_block: dict[int, int], *, layered: bool
) -> int:
    """What a proxied request sending the whole session back sends of its history (the settings
    preview): `native` (session_raw_tokens), with each block that `sent_as_block` at its view
    instead when `layered` and the view is shorter (`view_saves`; the blocks' short labels not
    counted)."""
    if not layered:
        return native
    saved = 0
    for shown in blocks:
        own = per_block.get(shown.block.pk, 0)
        if sent_as_block(shown) and view_saves(shown.tokens, own):
            saved += own - shown.tokens
    return native - saved


def _matched_turns(
    session: Session, history: Sequence[str], openers: Sequence[str]
) -> dict[int, int]:
    """Stored session turn → the request segment that holds it, for every segment that links
    `history[i]` → `history[i + 1]` as a captured turn of this session did."""
    if len(history) < 2:
        return {}
    rows = ProxyExchange.objects.filter(
        session=session,
        state=ExchangeState.CAPTURED,
        earlier_digest__in=list(history[:-1]),
        turn__isnull=False,
        turns_stored__gt=0,
    ).values_list(
        "earlier_digest", "opener_digest", "digest_after", "turn__session_turn", "turns_stored"
    )
    stored = {
        (earlier, opener, after): (first, count) for earlier, opener, after, first, count in rows
    }
    turns: dict[int, int] = {}
    for index in range(len(history) - 1):
        found = stored.get((history[index], openers[index], history[index + 1]))
        if found is None:
            continue
        first, count = found
        for turn in range(first, first + count):
            turns[turn] = index
    return turns


def _replaceable(ready: list[BlockDisplay], turns: dict[int, int]) -> list[BlockDisplay]:
    """The ready blocks whose turns are all matched, and whose segments hold no turn of a
    block left out (a turn stored in parts may straddle two blocks: both go, or neither)."""
    chosen = [
        b for b in ready if all(t in turns for t in range(b.turn_range[0], b.turn_range[1] + 1))
    ]
    while True:
        covered = {t for b in chosen for t in range(b.turn_range[0], b.turn_range[1] + 1)}
        segments = {turns[t] for t in covered}
        straddling = {s for t, s in turns.items() if s in segments and t not in covered}
        kept = [
            b
            for b in chosen
            if not any(turns[t] in straddling for t in range(b.turn_range[0], b.turn_range[1] + 1))
        ]
        if len(kept) == len(chosen):
            return kept
        chosen = kept


def history_blocks(
    session: Session,
    history: Sequence[str],
    openers: Sequence[str],
    *,
    lam: float | None = None,
) -> list[HistoryBlock]:
    """The blocks to send in place of the request's earlier turns, oldest first, each with
    the segments it replaces (see the module's docstring). `history` and `openers` are the
    request's digests (memory.services.proxy.sessions.TurnKey)."""
    turns = _matched_turns(session, history, openers)
    if not turns:
        return []
    ready = [b for b in block_display_list(session=session, lam=lam) if sent_as_block(b)]
    blocks: list[HistoryBlock] = []
    last_segment = -1
    for shown in _replaceable(ready, turns):
        first, last = shown.turn_range
        segments = sorted({turns[t] for t in range(first, last + 1)})
        # Blocks follow the request's order over consecutive segments; two blocks share a
        # segment only when a turn stored in parts straddles them (they are sent together).
        # Anything else is not the stored conversation in order: all of it goes as it came.
        if segments[0] < last_segment or segments != list(range(segments[0], segments[-1] + 1)):
            return []
        last_segment = segments[-1]
        assert shown.level is not None
        blocks.append(
            HistoryBlock(
                block_id=shown.block.pk,
                first_turn=first,
                last_turn=last,
                level=shown.level,
                content=redact(shown.content),
                segments=(segments[0], segments[-1]),
            )
        )
    return blocks
