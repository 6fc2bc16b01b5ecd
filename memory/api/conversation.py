"""Turn ingest, blocks, expansion and context: the short-term memory tools."""

from __future__ import annotations

from datetime import UTC, datetime

from django.http import HttpRequest
from ninja import Query, Router, Schema, Status

from memory.api.auth import namespace_for
from memory.api.presenters import block_out, history_out
from memory.api.schemas import (
    ActivatedOut,
    BlocksOut,
    ContextOut,
    ExpandIn,
    ExpandOut,
    TurnIn,
    TurnOut,
)
from memory.errors import NotFound
from memory.models import Block, BlockStatus, LiftedBy, Namespace, Session, TokenScope
from memory.selectors.blocks import block_display_list, layered_history, open_tail_messages
from memory.services import ingest
from memory.services.activation import activation_build
from memory.services.batches import batch_get, caller_session
from memory.services.blocks import block_expand
from memory.services.expansion import block_expand_batch
from memory.services.settings import memory_settings_get

router = Router(tags=["conversation"])


def _aware(value: datetime | None) -> datetime | None:
    # Naive times are taken as UTC (documented in docs/API.md).
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def _session(namespace: Namespace, session_id: str) -> Session:
    session = Session.objects.filter(namespace=namespace, external_id=session_id).first()
    if session is None:
        raise NotFound(f"session {session_id[:200]!r} not found", code="session_not_found")
    return session


@router.post(
    "/ns/{ns}/turns", response={200: TurnOut, 201: TurnOut}, operation_id="memory_ingest_turn"
)
def ingest_turn(request: HttpRequest, ns: str, payload: TurnIn) -> Status:
    namespace = namespace_for(request, ns, scope=TokenScope.READ_WRITE)
    result = ingest.turn_ingest(
        namespace=namespace,
        turn=ingest.TurnIn(
            session_id=payload.session_id,
            receipt_id=payload.receipt_id,
            occurred_at=_aware(payload.occurred_at),
            messages=[
                ingest.MessageIn(
                    role=m.role,
                    content=m.content,
                    name=m.name or "",
                    created_at=_aware(m.created_at),
                    tool_calls=[c.dict() for c in m.tool_calls or []],
                )
                for m in payload.messages
            ],
        ),
    )
    sealed = result.sealed_blocks[-1].pk if result.sealed_blocks else result.turn.block_id
    body = {
        "turn_id": result.turn.pk,
        "session_turn": result.turn.session_turn,
        "namespace_turn": result.turn.namespace_turn,
        "duplicate": result.duplicate,
        "sealed_block_id": sealed,
    }
    return Status(200 if result.duplicate else 201, body)


@router.get(
    "/ns/{ns}/sessions/{session_id}/blocks", response=BlocksOut, operation_id="memory_get_blocks"
)
def get_blocks(request: HttpRequest, ns: str, session_id: str) -> dict[str, object]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    block_turns = memory_settings_get().block_turns
    session = Session.objects.filter(namespace=namespace, external_id=session_id).first()
    if session is None:
        others = Block.objects.filter(namespace=namespace).exists()
        return {
            "blocks": [],
            "open_tail_turns": 0,
            "block_turns": block_turns,
            "reason": "blocks_in_other_sessions" if others else "no_blocks_yet",
        }
    shown = block_display_list(session=session)
    _, tail_turns = open_tail_messages(session)
    reason = None
    if not shown:
        reason = "open_tail_pending" if tail_turns else "no_blocks_yet"
    return {
        "blocks": [block_out(b) for b in shown],
        "open_tail_turns": tail_turns,
        "block_turns": block_turns,
        "reason": reason,
    }


@router.post(
    "/ns/{ns}/blocks/{block_id}/expand", response=ExpandOut, operation_id="memory_expand_block"
)
def expand_block(
    request: HttpRequest, ns: str, block_id: int, payload: ExpandIn
) -> dict[str, object]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    block = Block.objects.filter(namespace=namespace, pk=block_id).first()
    if block is None:
        raise NotFound(f"block {block_id} not found", code="block_not_found")
    # Check what the batch needs before the block moves (404 / 422 leave it untouched).
    if payload.batch_id:
        batch_get(namespace, payload.batch_id)
    if payload.session_id is not None:
        caller_session(namespace, payload.session_id)
    expanded = block_expand(block=block, target=payload.target, lifted_by=LiftedBy.AGENT)
    shown = next(b for b in block_display_list(session=expanded.session) if b.block.pk == block.pk)
    assert shown.level is not None and shown.block.status == BlockStatus.READY
    batch = block_expand_batch(
        namespace=namespace,
        block=block,
        level=shown.level,
        session_id=payload.session_id,
        from_batch=payload.batch_id,
    )
    return {
        "batch_id": batch.public_id,
        "ref": f"block:{block.pk}:L{shown.level}",
        "block_id": block.pk,
        "level": shown.level,
        "content": block_out(shown)["content"],
        "tokens": shown.tokens,
    }


class ContextQuery(Schema):
    session_id: str
    query: str = ""


@router.get("/ns/{ns}/context", response=ContextOut, operation_id="memory_context")
def context(request: HttpRequest, ns: str, params: Query[ContextQuery]) -> dict[str, object]:
    namespace = namespace_for(request, ns, scope=TokenScope.READ)
    session = Session.objects.filter(namespace=namespace, external_id=params.session_id).first()
    history = history_out(layered_history(session=session) if session else None)
    # Activation is recorded against the caller's session, even before its first turn.
    caller = session or caller_session(namespace, params.session_id)
    built = activation_build(namespace=namespace, session=caller, query=params.query)
    activated = ActivatedOut(**built.as_dict())
    return {
        "activated": activated,
        "history": history,
        "total_tokens": activated.tokens + int(history["tokens"]),
    }
