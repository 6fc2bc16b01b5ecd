"""An import's permanent synthetic source (SPEC §11.4): the imported text as one message in one
synthetic turn of its own session, sealed as a ready block with all six views.

The turn is `synthetic`: it takes the namespace's current turn number without advancing the
counter (the unique constraint excludes synthetic turns), so undo can remove it and leave the
namespace's turn numbering exactly as it was. The block is the only legal source of the
imported events. Must run inside the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from memory.engine.layering import build_deterministic_views, render_l0, render_l1, render_l2
from memory.engine.tokens import estimate_tokens
from memory.models import (
    Block,
    BlockStatus,
    BlockView,
    ImportBatch,
    Message,
    MessageRole,
    Namespace,
    Session,
    Turn,
    ViewSource,
)
from memory.search import index_messages
from memory.selectors.messages import view_messages

L2_POINTS = 20


@dataclass(frozen=True)
class SourceRefs:
    session: Session
    turn: Turn
    message: Message
    block: Block


def _session_id(batch: ImportBatch) -> str:
    base = f"import:{batch.pk}"
    name, n = base, 1
    while Session.objects.filter(namespace_id=batch.namespace_id, external_id=name).exists():
        n += 1
        name = f"{base}#{n}"
    return name


def source_block_create(*, batch: ImportBatch, namespace: Namespace) -> SourceRefs:
    """Session, synthetic turn, message and a ready block holding the import's text."""
    now = timezone.now()
    session = Session.objects.create(
        namespace=namespace, external_id=_session_id(batch), turn_count=1, last_activity_at=now
    )
    turn = Turn.objects.create(
        namespace=namespace,
        session=session,
        session_turn=1,
        namespace_turn=namespace.current_turn,
        occurred_at=now,
        synthetic=True,
    )
    message = Message.objects.create(
        namespace=namespace,
        session=session,
        turn=turn,
        position=0,
        role=MessageRole.USER,
        name="import",
        content=batch.source_text,
        created_at=now,
    )
    block = Block.objects.create(
        namespace=namespace,
        session=session,
        sequence=1,
        first_turn=1,
        last_turn=1,
        status=BlockStatus.READY,
        anchor_level=5,
        anchor_position=1,
        ready_position=1,
        should_extract=False,
        ready_at=now,
    )
    turn.block = block
    turn.save(update_fields=["block"])
    index_messages([message])
    return SourceRefs(session=session, turn=turn, message=message, block=block)


def source_views_write(*, refs: SourceRefs, batch: ImportBatch, titles: list[str]) -> None:
    """L3–L5 by the usual rules; L0–L2 describe the import and name what it added."""
    views = build_deterministic_views(view_messages([refs.message]))
    system = batch.source_system or "another AI"
    summary = (
        f"Import {batch.pk}: {len(titles)} of {batch.total} memories from {system} "
        f"({batch.format}) were added or linked."
    )
    texts = {
        0: render_l0(f"Imported memories from {system}", ["external-memory-import", batch.format]),
        1: render_l1(summary),
        2: render_l2(titles[:L2_POINTS], summary),
        3: views.l3,
        4: views.l4,
        5: views.l5,
    }
    BlockView.objects.bulk_create(
        [
            BlockView(
                block=refs.block,
                level=level,
                content=text,
                tokens=estimate_tokens(text),
                produced_by=ViewSource.RULES,
            )
            for level, text in texts.items()
        ]
    )
