"""Seal a session's open tail into blocks of whole turns and write their L3–L5 views."""

from __future__ import annotations

from memory.engine.layering import ToolCallRecord, ViewMessage, build_deterministic_views
from memory.engine.tokens import estimate_tokens
from memory.models import Block, BlockView, JobKind, Message, Session, Turn, ViewSource
from memory.services.jobs import job_create


def view_messages(messages: list[Message]) -> list[ViewMessage]:
    return [
        ViewMessage(
            role=m.role,
            content=m.content,
            name=m.name or None,
            tool_calls=tuple(
                ToolCallRecord(
                    name=str(call.get("name", "")),
                    arguments=call.get("arguments"),
                    result=call.get("result"),
                )
                for call in m.tool_calls
                if isinstance(call, dict)
            ),
        )
        for m in messages
    ]


def block_seal_ready_runs(*, session: Session, block_turns: int) -> list[Block]:
    """Seal every full run of `block_turns` open turns. Must run inside the ingest transaction."""
    sealed: list[Block] = []
    while True:
        open_turns = list(
            Turn.objects.filter(session=session, block__isnull=True).order_by("session_turn")[
                :block_turns
            ]
        )
        if len(open_turns) < block_turns:
            return sealed
        sealed.append(_seal(session, open_turns))


def _seal(session: Session, turns: list[Turn]) -> Block:
    sequence = Block.objects.filter(session=session).count() + 1
    block = Block.objects.create(
        namespace_id=session.namespace_id,
        session=session,
        sequence=sequence,
        first_turn=turns[0].session_turn,
        last_turn=turns[-1].session_turn,
    )
    Turn.objects.filter(pk__in=[t.pk for t in turns]).update(block=block)
    messages = list(
        Message.objects.filter(turn__in=turns).order_by("turn__session_turn", "position")
    )
    views = build_deterministic_views(view_messages(messages))
    BlockView.objects.bulk_create(
        [
            BlockView(
                block=block,
                level=level,
                content=text,
                tokens=estimate_tokens(text),
                produced_by=ViewSource.RULES,
            )
            for level, text in ((3, views.l3), (4, views.l4), (5, views.l5))
        ]
    )
    job_create(namespace_id=session.namespace_id, kind=JobKind.BLOCK_VIEWS, block=block)
    return block
