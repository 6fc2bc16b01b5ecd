"""Reads for the Memory UI's session page (SPEC §13.5): every block of a session with its six
views, the level it shows now, who lifted it last, the open tail and the context cost, plus the
look-ups behind the "source one click away" links (block and message → their exact anchor).

The page must stay fast with hundreds of blocks, so the query count is fixed: the blocks and
their views come from `block_display_list` (one query plus one prefetch), and source messages
are read in one query, only for the blocks whose L5 tab is actually shown. View text is
redacted here, once, like every other way out of StrataGate (SPEC §15.3).

A session that came through the model proxy also shows the agent's system prompts and, for each
proxied request, what memory it was given, and for each proxied answer what the model saw
(`session_proxy_panel`, memory.selectors.proxy_exchange_view): one query more for any session,
and a fixed handful more for a proxied one, whatever its number of requests.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db.models import OuterRef, Subquery

from memory.engine.decay import MAX_LEVEL, MIN_LEVEL
from memory.engine.redact import redact
from memory.errors import NotFound
from memory.models import Block, BlockStatus, Message, Namespace, Session, Turn
from memory.selectors.audit_view.refs import RefTitleOut, ref_titles, title_of
from memory.selectors.blocks import BlockDisplay, layered_history, session_get
from memory.selectors.messages import MessageOut, message_out
from memory.selectors.out import Out
from memory.selectors.proxy import (
    EXCHANGES_SHOWN,
    ExchangeOut,
    SessionProxyOut,
    SystemPromptOut,
    session_proxy,
)
from memory.selectors.proxy_exchange_view import ExchangeTurn, ModelSawOut, model_saw
from memory.selectors.settings import memory_settings_get

RAW_LEVEL = MAX_LEVEL
MAX_HIGHLIGHTS = 100


class ViewTab(Out):
    level: int
    tokens: int
    percent_of_l5: float | None  # None when L5 is empty (nothing to compare with)
    produced_by: str  # rules | offline | model
    current: bool  # the level this block shows in context now
    selected: bool  # the tab whose content the page renders


class BlockPanel(Out):
    id: int
    sequence: int
    status: str  # ready | pending | failed
    first_turn: int
    last_turn: int
    level: int | None  # displayed level now; None while not ready (shown raw in context)
    title: str  # L0's first line, redacted ("" until L0 exists)
    tags: str  # L0's "Tags:" line without its prefix, redacted
    lifted_by: str | None  # user | agent | None
    lifted_at: datetime | None
    sealed_at: datetime
    ready_at: datetime | None
    l5_tokens: int
    views: list[ViewTab]
    shown_level: int  # the tab rendered below the tabs
    produced_by: str  # of the shown view
    text: str | None  # the shown view as text (levels 0–4), redacted
    messages: list[MessageOut]  # the shown view's source messages (level 5)
    selected: bool  # named by ?block=
    next_level: int  # the expand form's default: one level up, capped at L5


class OpenTail(Out):
    turns: int
    capacity: int  # the block size setting: the tail is sealed when turns reaches it
    messages: list[MessageOut]


class TurnAnchor(Out):
    """Where a turn is on the session page: its number, and its first message, which the
    message link (graphui:message) opens in its block's L5 view or in the open tail."""

    turn_id: int
    session_turn: int
    message_id: int | None


class ExchangeRow(Out):
    exchange: ExchangeOut
    refs: list[RefTitleOut]  # the injected refs in words, linked where their objects are
    turn: TurnAnchor | None  # the turn this request completed (captured / stored before)
    saw: ModelSawOut | None  # what the model saw, for a proxied answer (one with its turn)


class SystemPromptRow(Out):
    prompt: SystemPromptOut
    turn: TurnAnchor | None  # the first turn stored with this prompt


class ProxyPanel(Out):
    """The model proxy's part of the session page."""

    proxy: SessionProxyOut  # how the session came through (named, protocol, captured turns)
    system_prompts: list[SystemPromptRow]
    exchanges: list[ExchangeRow]  # the newest `shown_limit` requests, oldest first
    shown_limit: int

    @property
    def degraded(self) -> int:
        return sum(1 for row in self.exchanges if row.exchange.degraded_reason)


class SessionPage(Out):
    session_id: str
    turns: int
    created_at: datetime
    last_activity_at: datetime | None
    imported: bool
    block_lambda: float
    blocks: list[BlockPanel]
    blocks_ready: int
    blocks_pending: int
    blocks_failed: int
    open_tail: OpenTail
    context_tokens: int  # the layered history: what memory_context puts in front of a model
    raw_tokens: int  # the same history with every block at L5, for comparison
    selected_block: int | None
    highlight: list[int]
    proxy: ProxyPanel | None  # None when the session did not come through the model proxy


def _percent(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def _title_and_tags(shown: BlockDisplay) -> tuple[str, str]:
    l0 = shown.views.get(MIN_LEVEL)
    if l0 is None:
        return "", ""
    title, _, rest = redact(l0.content).partition("\n")
    tags = rest.strip().removeprefix("Tags:").strip()
    return title.strip(), "" if tags == "none" else tags


def _shown_level(shown: BlockDisplay, *, selected: bool, view: int | None) -> int:
    """The selected block shows the asked-for tab if it has it; every other block shows the
    view it has in context now (raw L5 while not ready)."""
    if selected and view is not None and view in shown.views:
        return view
    return RAW_LEVEL if shown.level is None else shown.level


def _messages_by_block(block_ids: Sequence[int]) -> dict[int, list[MessageOut]]:
    """Source messages of several blocks in one query, in conversation order."""
    found: dict[int, list[MessageOut]] = defaultdict(list)
    if not block_ids:
        return found
    rows = (
        Message.objects.filter(turn__block_id__in=block_ids)
        .select_related("session", "turn")
        .order_by("turn__session_turn", "position")
    )
    for row in rows:
        assert row.turn.block_id is not None
        found[row.turn.block_id].append(message_out(row))
    return found


def _panel(
    shown: BlockDisplay,
    *,
    shown_level: int,
    selected: bool,
    messages: list[MessageOut],
) -> BlockPanel:
    block = shown.block
    l5 = shown.views[RAW_LEVEL].tokens
    tabs = [
        ViewTab.model_construct(
            level=level,
            tokens=view.tokens,
            percent_of_l5=_percent(view.tokens, l5),
            produced_by=view.produced_by,
            current=level == (RAW_LEVEL if shown.level is None else shown.level),
            selected=level == shown_level,
        )
        for level, view in sorted(shown.views.items())
    ]
    title, tags = _title_and_tags(shown)
    current = RAW_LEVEL if shown.level is None else shown.level
    shown_view = shown.views[shown_level]
    return BlockPanel.model_construct(
        id=block.pk,
        sequence=block.sequence,
        status=block.status,
        first_turn=block.first_turn,
        last_turn=block.last_turn,
        level=shown.level,
        title=title,
        tags=tags,
        lifted_by=block.last_lifted_by or None,
        lifted_at=block.last_lifted_at,
        sealed_at=block.sealed_at,
        ready_at=block.ready_at,
        l5_tokens=l5,
        views=tabs,
        shown_level=shown_level,
        produced_by=shown_view.produced_by,
        text=None if shown_level == RAW_LEVEL else redact(shown_view.content),
        messages=messages if shown_level == RAW_LEVEL else [],
        selected=selected,
        next_level=min(MAX_LEVEL, current + 1),
    )


def session_page(
    namespace: Namespace,
    session_id: str,
    *,
    block: int | None = None,
    view: int | None = None,
    highlight: Iterable[int] = (),
) -> SessionPage:
    """The session page: `block`/`view` select one block's tab, `highlight` marks messages.

    Unknown session → NotFound `session_not_found`. A `block` that is not in this session or a
    `view` the block does not have is ignored (the page shows the defaults), never an error:
    these come from the query string of links that may be old.
    """
    session = session_get(namespace, session_id)
    settings = memory_settings_get()
    history = layered_history(session=session, lam=settings.block_lambda, all_views=True)
    displays = sorted([*history.blocks, *history.pending], key=lambda b: b.block.sequence)
    selected_id = block if any(d.block.pk == block for d in displays) else None
    levels = {
        d.block.pk: _shown_level(d, selected=d.block.pk == selected_id, view=view) for d in displays
    }
    messages = _messages_by_block([pk for pk, level in levels.items() if level == RAW_LEVEL])
    panels = [
        _panel(
            d,
            shown_level=levels[d.block.pk],
            selected=d.block.pk == selected_id,
            messages=messages.get(d.block.pk, []),
        )
        for d in displays
    ]
    status_counts = {s: sum(1 for p in panels if p.status == s) for s in BlockStatus.values}
    blocks_tokens = sum(d.tokens for d in displays)
    raw_blocks_tokens = sum(d.views[RAW_LEVEL].tokens for d in displays)
    tail_tokens = history.tokens - blocks_tokens
    return SessionPage.model_construct(
        session_id=session.external_id,
        turns=session.turn_count,
        created_at=session.created_at,
        last_activity_at=session.last_activity_at,
        imported=Turn.objects.filter(session=session, synthetic=True).exists(),
        block_lambda=settings.block_lambda,
        blocks=panels,
        blocks_ready=status_counts[BlockStatus.READY],
        blocks_pending=status_counts[BlockStatus.PENDING],
        blocks_failed=status_counts[BlockStatus.FAILED],
        open_tail=OpenTail.model_construct(
            turns=history.open_tail_turns,
            capacity=settings.block_turns,
            messages=[message_out(m) for m in history.open_tail],
        ),
        context_tokens=history.tokens,
        raw_tokens=raw_blocks_tokens + tail_tokens,
        selected_block=selected_id,
        highlight=list(highlight)[:MAX_HIGHLIGHTS],
        proxy=session_proxy_panel(namespace, session),
    )


def _turn_anchors(session: Session, turn_ids: set[int]) -> dict[int, TurnAnchor]:
    """The turns' numbers and first messages, in one query."""
    if not turn_ids:
        return {}
    first = Message.objects.filter(turn=OuterRef("pk")).order_by("position").values("pk")[:1]
    rows = (
        Turn.objects.filter(session=session, pk__in=turn_ids)
        .annotate(first_message=Subquery(first))
        .values_list("pk", "session_turn", "first_message")
    )
    return {
        pk: TurnAnchor.model_construct(turn_id=pk, session_turn=number, message_id=message)
        for pk, number, message in rows
    }


def session_proxy_panel(namespace: Namespace, session: Session) -> ProxyPanel | None:
    """The agent's system prompts and what each proxied request was given, or None when the
    session did not come through the proxy (one query then). Refs are put in words the way
    the usage audit does (one query per kind of ref present)."""
    found = session_proxy(session)
    if found is None:
        return None
    # Refs are a JSON list on the row: read them as text whatever was stored.
    refs = {e.id: [str(ref) for ref in e.injected_refs] for e in found.exchanges}
    titles = ref_titles(namespace, [ref for listed in refs.values() for ref in listed])
    turn_ids = {e.turn_id for e in found.exchanges if e.turn_id is not None}
    turn_ids |= {p.first_turn_id for p in found.system_prompts if p.first_turn_id is not None}
    anchors = _turn_anchors(session, turn_ids)
    answers = [
        ExchangeTurn.model_construct(
            exchange_id=e.id,
            session_turn=anchors[e.turn_id].session_turn,
            turns_stored=e.turns_stored,
            injected_text=e.injected_text,
            injected_tokens=e.injected_tokens,
            history_blocks=e.history_blocks,
            history_native_tokens=e.history_native_tokens,
            history_sent_tokens=e.history_sent_tokens,
            memory_rounds=e.memory_rounds,
        )
        for e in found.exchanges
        if e.turn_id is not None and e.turn_id in anchors
    ]
    prompt_turns = [
        anchors[p.first_turn_id].session_turn
        if p.first_turn_id is not None and p.first_turn_id in anchors
        else None
        for p in found.system_prompts
    ]
    saw = model_saw(session, answers, prompt_turns)
    return ProxyPanel.model_construct(
        proxy=found,
        system_prompts=[
            SystemPromptRow.model_construct(
                prompt=p,
                turn=anchors.get(p.first_turn_id) if p.first_turn_id is not None else None,
            )
            for p in found.system_prompts
        ],
        exchanges=[
            ExchangeRow.model_construct(
                exchange=e,
                refs=[title_of(titles, ref) for ref in refs[e.id]],
                turn=anchors.get(e.turn_id) if e.turn_id is not None else None,
                saw=saw.get(e.id),
            )
            for e in found.exchanges
        ],
        shown_limit=EXCHANGES_SHOWN,
    )


# --- look-ups behind the links other pages use ------------------------------------------------


class BlockLocation(Out):
    block_id: int
    session_id: str
    sequence: int
    status: str


class MessageLocation(Out):
    message_id: int
    session_id: str
    block_id: int | None  # None while the message's turn is in the open tail


def block_locate(namespace: Namespace, block_id: int) -> BlockLocation:
    row = (
        Block.objects.filter(namespace=namespace, pk=block_id)
        .values("pk", "session__external_id", "sequence", "status")
        .first()
    )
    if row is None:
        raise NotFound(f"block {block_id} not found", code="block_not_found")
    return BlockLocation.model_construct(
        block_id=row["pk"],
        session_id=row["session__external_id"],
        sequence=row["sequence"],
        status=row["status"],
    )


def message_get(namespace: Namespace, message_id: int) -> MessageLocation:
    """Where a source message lives: its session and, once sealed, its block."""
    row = (
        Message.objects.filter(namespace=namespace, pk=message_id)
        .values("pk", "session__external_id", "turn__block_id")
        .first()
    )
    if row is None:
        raise NotFound(f"message {message_id} not found", code="message_not_found")
    return MessageLocation.model_construct(
        message_id=row["pk"],
        session_id=row["session__external_id"],
        block_id=row["turn__block_id"],
    )
