"""Raw message ranking (SPEC §8.6): reads only; `services.retrieval.raw_search` records it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from django.db.models import Model

from memory.models import Block, Message, Namespace, Session, Turn
from memory.models.rows import marks, read_joined, read_rows
from memory.recall.messages import messages_rank
from memory.recall.query import validate_limit, validate_query


@dataclass(frozen=True)
class RawSearch:
    query: str
    limit: int | None = None
    # SPEC §8.6 `session?`: only this session's messages; the batch belongs to it too.
    session_id: str | None = None


@dataclass(frozen=True)
class RawHit:
    message: Message
    score: float
    neighbours: list[Message]
    block: Block | None
    turn_range: tuple[int, int]
    events: tuple[int, ...] = ()  # the query's event hits it is a source of (recall.messages)


def _neighbours(messages: Sequence[Message]) -> dict[int, list[Message]]:
    """message id → its previous and next message of the same block when sealed, else of the
    same turn; two queries however many messages."""
    blocks = sorted({m.turn.block_id for m in messages if m.turn.block_id is not None})
    open_turns = sorted({m.turn_id for m in messages if m.turn.block_id is None})
    # One indexed read per list that holds ids (a sealed turn is never an open one): an OR of
    # the two made PostgreSQL scan the messages, and an `IN (NULL)` branch made SQLite scan.
    select = (
        f"SELECT m.id, m.turn_id, t.block_id, t.session_turn, m.position FROM {_MESSAGES} m "
        f"JOIN {_TURNS} t ON m.turn_id = t.id WHERE "
    )
    parts = [
        *([f"{select}t.block_id IN ({marks(blocks)})"] if blocks else []),
        *([f"{select}m.turn_id IN ({marks(open_turns)})"] if open_turns else []),
    ]
    if not parts:
        return {}
    rows = read_rows(" UNION ALL ".join(parts), [*blocks, *open_turns])
    scopes: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
    for pk, turn_id, block_id, session_turn, position in rows:
        if block_id in blocks:
            scopes.setdefault(("block", block_id), []).append((session_turn, position, pk))
        if turn_id in open_turns:
            scopes.setdefault(("turn", turn_id), []).append((session_turn, position, pk))
    chosen: dict[int, list[int]] = {}
    for message in messages:
        turn = message.turn
        key = ("block", turn.block_id) if turn.block_id is not None else ("turn", turn.pk)
        ordered = sorted(scopes.get(key, []))
        at = (turn.session_turn, message.position)
        before = [pk for st, pos, pk in ordered if (st, pos) < at]
        after = [pk for st, pos, pk in ordered if (st, pos) > at]
        chosen[message.pk] = [*before[-1:], *after[:1]]
    loaded = _with_places([i for ids in chosen.values() for i in ids], turns=False)
    return {pk: [loaded[i] for i in ids if i in loaded] for pk, ids in chosen.items()}


_MESSAGES, _TURNS = Message._meta.db_table, Turn._meta.db_table


def _with_places(ids: list[int], *, turns: bool = True) -> dict[int, Message]:
    """id → message with its session (and its turn, with the turn's block) attached: what
    `select_related("session"[, "turn", "turn__block"]).in_bulk(ids)` gives, in one plain
    read (compiling the joined query cost more than running it: a raw search made two)."""
    if not ids:
        return {}
    related: list[tuple[type[Model], str]] = [(Session, "s")]
    rest = f"JOIN {Session._meta.db_table} s ON s.id = m.session_id "
    if turns:
        related += [(Turn, "t"), (Block, "b")]
        rest += (
            f"JOIN {_TURNS} t ON t.id = m.turn_id "
            f"LEFT JOIN {Block._meta.db_table} b ON b.id = t.block_id "
        )
    found: dict[int, Message] = {}
    for message, joined in read_joined(
        Message, "m", f"{rest}WHERE m.id IN ({marks(ids)})", list(ids), related
    ):
        message.session = cast(Session, joined[0])
        if turns:
            turn = cast(Turn, joined[1])
            turn.block = cast(Block | None, joined[2])
            message.turn = turn
        found[message.pk] = message
    return found


def raw_rank(
    *, namespace: Namespace, params: RawSearch, session: Session | None = None
) -> list[RawHit]:
    """Sealed and open-tail messages (SPEC §8.6) ranked by `messages_rank` (BM25 with the
    speaker and feedback corrections), optionally within `session`, with each hit's
    neighbours, block and turn range. Reads only."""
    validate_query(params.query)
    limit = validate_limit(params.limit, default=6)
    hits = (
        messages_rank(
            namespace.pk, params.query, limit=limit, session_pk=session.pk if session else None
        )
        if params.query.strip()
        else []
    )
    messages = _with_places([h.message_id for h in hits])
    neighbours = _neighbours(list(messages.values()))
    results: list[RawHit] = []
    for hit in hits:
        message = messages.get(hit.message_id)
        if message is None:
            continue
        block = message.turn.block
        turn_range = (
            (block.first_turn, block.last_turn)
            if block
            else (message.turn.session_turn, message.turn.session_turn)
        )
        results.append(
            RawHit(message, hit.score, neighbours[message.pk], block, turn_range, hit.events)
        )
    return results
