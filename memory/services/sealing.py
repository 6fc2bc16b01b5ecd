"""Seal a session's open tail into blocks of whole turns and write their L3–L5 views."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection

from memory.engine.layering import build_deterministic_views
from memory.engine.tokens import estimate_tokens
from memory.models import Block, BlockView, JobKind, Message, Session, Turn, ViewSource
from memory.models.rows import in_chunks, insert_rows, marks, read_models
from memory.selectors.messages import view_messages
from memory.services.jobs import block_jobs_create

# How many of a session's turns are open, counted up to a limit on the (session, block) index.
# Every ingest asks and most find fewer than a block's worth: plain SQL, no model instances.
_OPEN_TURNS_SQL = (
    f"SELECT COUNT(*) FROM (SELECT 1 FROM {Turn._meta.db_table} "
    "WHERE session_id = %s AND block_id IS NULL LIMIT %s) AS open_turns"
)
_BLOCK_COUNT_SQL = f"SELECT COUNT(*) FROM {Block._meta.db_table} WHERE session_id = %s"
_OPEN_TAIL = "WHERE t.session_id = %s AND t.block_id IS NULL ORDER BY t.session_turn"
_MESSAGES_OF = f"JOIN {Turn._meta.db_table} t ON t.id = m.turn_id WHERE m.turn_id IN "
_IN_ORDER = "ORDER BY t.session_turn, m.position"
# Each sealed turn takes the block of its session whose range holds it: one statement for every
# run sealed together (a batch seals many), as plain SQL (an ORM update with this subquery cost
# more to compile than to run, on every sixth ingest).
_TURNS = Turn._meta.db_table
_SEAL_TURNS_SQL = (
    f"UPDATE {_TURNS} SET block_id = (SELECT b.id FROM {Block._meta.db_table} b "
    f"WHERE b.session_id = {_TURNS}.session_id AND b.first_turn <= {_TURNS}.session_turn "
    f"AND b.last_turn >= {_TURNS}.session_turn LIMIT 1) WHERE id IN "
)


def block_seal_ready_runs(*, session: Session, block_turns: int) -> list[Block]:
    """Seal every full run of `block_turns` open turns, oldest first, as `blocks_seal` seals
    them. Must run inside the ingest transaction. Plain reads: this runs on every ingest."""
    with connection.cursor() as cursor:
        cursor.execute(_OPEN_TURNS_SQL, [session.pk, block_turns])
        (open_count,) = cursor.fetchone()
        if open_count < block_turns:
            return []
        cursor.execute(_BLOCK_COUNT_SQL, [session.pk])
        (sequence,) = cursor.fetchone()
    open_turns = read_models(Turn, "t", _OPEN_TAIL, [session.pk])
    turns = open_turns[: len(open_turns) // block_turns * block_turns]
    messages: dict[int, list[Message]] = {t.pk: [] for t in turns}
    marks = ", ".join(["%s"] * len(turns))
    for message in read_models(
        Message, "m", _MESSAGES_OF + f"({marks}) {_IN_ORDER}", list(messages)
    ):
        messages[message.turn_id].append(message)
    runs = []
    for start in range(0, len(turns), block_turns):
        run = turns[start : start + block_turns]
        sequence += 1
        runs.append(SealRun(session, sequence, run, [m for t in run for m in messages[t.pk]]))
    return blocks_seal(runs)


def _rule_views(block: Block, messages: list[Message]) -> list[BlockView]:
    """L3–L5 of a block from its messages in conversation order (not saved)."""
    views = build_deterministic_views(view_messages(messages))
    return [
        BlockView(
            block=block,
            level=level,
            content=text,
            tokens=estimate_tokens(text),
            produced_by=ViewSource.RULES,
        )
        for level, text in ((3, views.l3), (4, views.l4), (5, views.l5))
    ]


@dataclass(frozen=True)
class SealRun:
    """Whole open turns of one session that fill its next block, with their messages in
    conversation order (turn, then position)."""

    session: Session
    sequence: int
    turns: list[Turn]
    messages: list[Message]


def blocks_seal(runs: Sequence[SealRun]) -> list[Block]:
    """Seal runs (for each: a block, its turns' block, L3–L5, a views job) in a few bulk
    statements, in the order given. The caller picks the runs (one-by-one ingest: its session's
    full runs; batch ingest: the runs one-by-one ingest would seal, in its order). Must run
    inside the ingest transaction. Sets `turn.block` on the given turns."""
    if not runs:
        return []
    blocks = insert_rows(
        [
            Block(
                namespace_id=run.session.namespace_id,
                session=run.session,
                sequence=run.sequence,
                first_turn=run.turns[0].session_turn,
                last_turn=run.turns[-1].session_turn,
            )
            for run in runs
        ]
    )
    sealed_turns: list[int] = []
    for block, run in zip(blocks, runs, strict=True):
        for turn in run.turns:
            turn.block = block
            sealed_turns.append(turn.pk)
    with connection.cursor() as cursor:
        for ids in in_chunks(sealed_turns):
            cursor.execute(f"{_SEAL_TURNS_SQL}({marks(ids)})", ids)
    insert_rows(
        [
            view
            for block, run in zip(blocks, runs, strict=True)
            for view in _rule_views(block, run.messages)
        ]
    )
    block_jobs_create(kind=JobKind.BLOCK_VIEWS, blocks=blocks)
    return blocks
