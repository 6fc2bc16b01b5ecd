"""Layered history, protocol-neutral (docs/PROXY.md, "Layered history"): which items of a
request's `messages` array give way to which blocks, the text each block is sent as, and the
token figures of `X-StrataGate-History-Tokens`. Which blocks may stand for which earlier turns
is decided by memory (memory.selectors.proxy_history); how a block's message is written is the
adapter's (`Adapter.replace_history`). Plain Python, no Django (the adapters import it).

A replaced run always covers whole items and whole turns: the items of its turns and nothing
else (an item that gave no message, e.g. an agent's mid-conversation system message, keeps its
turn native), so every tool call goes with its results and nothing the agent sent is lost
without its block standing for it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory.engine.history_mode import HISTORY_LAYERED, validate_history_mode, view_saves
from memory.engine.tokens import estimate_tokens
from proxy.conversation import Conversation, Message, Request
from proxy.errors import header_choice

if TYPE_CHECKING:  # the selector's result type only: this module stays free of Django
    from memory.selectors.proxy_history import HistoryBlock

HISTORY_HEADER = "x-stratagate-history"
TOKENS_HEADER = "x-stratagate-history-tokens"


def history_header(value: str | None) -> str | None:
    """The per-request `X-StrataGate-History` (None when absent); a bad value is a 400."""
    return header_choice(HISTORY_HEADER, value, validate_history_mode)


@dataclass(frozen=True)
class Span:
    """Items [start, end) of the body's `messages`, sent as one message per text (one text
    per block, oldest first)."""

    start: int
    end: int
    texts: tuple[str, ...]


@dataclass(frozen=True)
class Layered:
    mode: str  # the mode in force: the header's, else the installation's setting
    spans: tuple[Span, ...]
    blocks: tuple[HistoryBlock, ...]
    sent_tokens: int  # the request's system prompt and messages as sent upstream (estimate)
    native_tokens: int  # … as the agent sent them

    @property
    def header(self) -> str:
        """`X-StrataGate-History`: the mode in force and how many blocks were sent."""
        return f"{self.mode}; blocks={len(self.blocks)}"


# Said once per run of blocks, before the first one: what these messages are.
RUN_NOTE = (
    "[StrataGate: earlier parts of this conversation as memory blocks [block id, turns, level]:"
    " L0 title and tags, L1 summary, L2 key points, L3 condensed, L4 near-verbatim."
    " memory_expand_block with the id gives more.]\n"
)


def block_text(block: HistoryBlock, *, first: bool = False) -> str:
    """A block's message: a short ASCII label (it is paid for on every request, and a block at
    L0 is only a title and tags), after the run's note when it is the run's first block, then
    the view. The same text for as long as its level stays (the cached prompt prefix grows
    instead of being rewritten)."""
    if block.first_turn == block.last_turn:
        turns = f"turn {block.first_turn}"
    else:
        turns = f"turns {block.first_turn}-{block.last_turn}"
    label = f"[block {block.block_id}, {turns}, L{block.level}]"
    return f"{RUN_NOTE if first else ''}{label}\n{block.content}"


def message_tokens(message: Message) -> int:
    calls = [[c.id, c.name, c.arguments] for c in message.tool_calls]
    extra = json.dumps(calls, ensure_ascii=False, default=str) if calls else ""
    return estimate_tokens(message.content) + estimate_tokens(extra)


def request_tokens(request: Request) -> int:
    """The estimate (memory.engine.tokens) of what the agent sent: system prompt and messages."""
    return estimate_tokens(request.system) + sum(message_tokens(m) for m in request.messages)


def _units(blocks: Sequence[HistoryBlock]) -> list[list[HistoryBlock]]:
    """Blocks that share a segment (a turn stored in parts straddles them): they are sent
    together or not at all."""
    units: list[list[HistoryBlock]] = []
    for block in blocks:
        if units and block.segments[0] <= units[-1][-1].segments[1]:
            units[-1].append(block)
        else:
            units.append([block])
    return units


def _runs(units: Sequence[list[HistoryBlock]]) -> list[list[HistoryBlock]]:
    """Units over consecutive segments, joined: each run is one span."""
    runs: list[list[HistoryBlock]] = []
    for unit in units:
        if runs and unit[0].segments[0] == runs[-1][-1].segments[1] + 1:
            runs[-1].extend(unit)
        else:
            runs.append(list(unit))
    return runs


def _item_span(request: Request, first: int, end: int) -> tuple[int, int] | None:
    """Items of messages [first, end) when they are exactly those messages' items."""
    items = request.items
    if first > 0 and items[first - 1] == items[first]:
        return None
    if end < len(items) and items[end] == items[end - 1]:
        return None
    start, stop = items[first], items[end - 1] + 1
    if set(items[first:end]) != set(range(start, stop)):
        return None
    return start, stop


def layered(
    request: Request, conversation: Conversation, blocks: Sequence[HistoryBlock]
) -> Layered:
    """The spans that give way to `blocks`, and the token figures with them in place."""
    native = request_tokens(request)
    if not blocks or len(request.items) != len(request.messages):
        return Layered(HISTORY_LAYERED, (), (), native, native)
    starts = [0]
    for segment in conversation.earlier:
        starts.append(starts[-1] + len(segment))

    # Each unit's messages' tokens, counted once: they decide whether its view is worth
    # sending and, for the units sent, what the request saves.
    worth: list[list[HistoryBlock]] = []
    own: dict[int, int] = {}
    for unit in _units(blocks):
        first, end = starts[unit[0].segments[0]], starts[unit[-1].segments[1] + 1]
        own[unit[0].block_id] = sum(message_tokens(m) for m in request.messages[first:end])
        if view_saves(sum(estimate_tokens(block_text(b)) for b in unit), own[unit[0].block_id]):
            worth.append(unit)
    spans: list[Span] = []
    used: list[HistoryBlock] = []
    sent = native
    for run in _runs(worth):
        first, end = starts[run[0].segments[0]], starts[run[-1].segments[1] + 1]
        where = _item_span(request, first, end)
        if where is None:
            continue
        texts = tuple(block_text(block, first=i == 0) for i, block in enumerate(run))
        spans.append(Span(where[0], where[1], texts))
        used += run
        sent -= sum(own.get(block.block_id, 0) for block in run)
        sent += sum(estimate_tokens(text) for text in texts)
    return Layered(HISTORY_LAYERED, tuple(spans), tuple(used), sent, native)
