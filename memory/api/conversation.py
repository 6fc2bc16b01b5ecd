"""Turn ingest, blocks, expansion and context: the short-term memory tools."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Query, Router, Schema, Status

from memory.api.auth import READ_WRITE, request_namespace
from memory.api.presenters import history_out
from memory.api.schemas import (
    ActivatedOut,
    BatchTurnOut,
    BlocksOut,
    ContextOut,
    ExpandIn,
    ExpandOut,
    TurnIn,
    TurnOut,
    TurnsBatchIn,
    TurnsBatchOut,
)
from memory.engine.redact import redact
from memory.models import LiftedBy
from memory.selectors.blocks import (
    block_display,
    block_get,
    block_out,
    layered_history,
    session_blocks,
    session_find,
)
from memory.services import ingest
from memory.services.activation import TOKEN_BUDGET, activation_build, validate_budget
from memory.services.batches import batch_get, caller_session
from memory.services.blocks import block_expand, expand_target_check
from memory.services.expansion import block_expand_batch
from memory.services.ingest_batch import turn_batch_ingest

router = Router(tags=["conversation"])


def _turn_in(payload: TurnIn) -> ingest.TurnIn:
    return ingest.TurnIn(
        session_id=payload.session_id,
        receipt_id=payload.receipt_id,
        occurred_at=payload.occurred_at,
        messages=[
            ingest.MessageIn(
                role=m.role,
                content=m.content,
                name=m.name or "",
                created_at=m.created_at,
                tool_calls=[c.dict() for c in m.tool_calls or []],
            )
            for m in payload.messages
        ],
    )


@router.post(
    "/ns/{ns}/turns",
    response={200: TurnOut, 201: TurnOut},
    auth=READ_WRITE,
    operation_id="memory_ingest_turn",
)
def ingest_turn(request: HttpRequest, ns: str, payload: TurnIn) -> Status:
    namespace = request_namespace(request)
    result = ingest.turn_ingest(namespace=namespace, turn=_turn_in(payload))
    sealed = result.sealed_blocks[-1].pk if result.sealed_blocks else result.turn.block_id
    body = {
        "turn_id": result.turn.pk,
        "session_turn": result.turn.session_turn,
        "namespace_turn": result.turn.namespace_turn,
        "duplicate": result.duplicate,
        "sealed_block_id": sealed,
    }
    return Status(200 if result.duplicate else 201, body)


@router.post(
    "/ns/{ns}/turns/batch",
    response={200: TurnsBatchOut, 201: TurnsBatchOut},
    auth=READ_WRITE,
    operation_id="memory_ingest_turns_batch",
)
def ingest_turns_batch(request: HttpRequest, ns: str, payload: TurnsBatchIn) -> Status:
    namespace = request_namespace(request)
    result = turn_batch_ingest(
        namespace=namespace, turns=[_turn_in(turn) for turn in payload.turns]
    )
    body = TurnsBatchOut(
        turns=[
            BatchTurnOut(
                index=index,
                session_id=sent.session_id,
                receipt_id=sent.receipt_id,
                turn_id=item.turn.pk,
                session_turn=item.turn.session_turn,
                namespace_turn=item.turn.namespace_turn,
                duplicate=item.duplicate,
                sealed_block_id=item.sealed_block_id,
            )
            for index, (sent, item) in enumerate(zip(payload.turns, result.items, strict=True))
        ],
        stored=result.stored,
        duplicates=result.duplicates,
        sealed_block_ids=[b.pk for b in result.sealed_blocks],
    )
    # As for one turn: 201 when anything was stored, 200 for a pure replay.
    return Status(201 if result.stored else 200, body)


@router.get(
    "/ns/{ns}/sessions/{session_id}/blocks", response=BlocksOut, operation_id="memory_get_blocks"
)
def get_blocks(request: HttpRequest, ns: str, session_id: str) -> BlocksOut:
    namespace = request_namespace(request)
    found = session_blocks(namespace, session_id)
    return BlocksOut(
        blocks=[block_out(b) for b in found.blocks],
        open_tail_turns=found.open_tail_turns,
        block_turns=found.block_turns,
        reason=found.reason,
    )


@router.post(
    "/ns/{ns}/blocks/{block_id}/expand", response=ExpandOut, operation_id="memory_expand_block"
)
def expand_block(request: HttpRequest, ns: str, block_id: int, payload: ExpandIn) -> ExpandOut:
    namespace = request_namespace(request)
    block = block_get(namespace, block_id)
    # Check what the batch needs before the block moves (404 / 422 leave it untouched), and the
    # target before the caller's session is created.
    expand_target_check(payload.target)
    if payload.batch_id:
        batch_get(namespace, payload.batch_id)
    if payload.session_id is not None:
        caller_session(namespace, payload.session_id)
    shown = block_display(
        block_expand(block=block, target=payload.target, lifted_by=LiftedBy.AGENT)
    )
    assert shown.level is not None
    expanded = block_expand_batch(
        namespace=namespace,
        block=block,
        level=shown.level,
        session_id=payload.session_id,
        from_batch=payload.batch_id,
    )
    return ExpandOut(
        batch_id=expanded.batch.public_id,
        ref=expanded.ref,
        block_id=block.pk,
        level=shown.level,
        content=block_out(shown).content,
        tokens=shown.tokens,
    )


class ContextQuery(Schema):
    session_id: str
    query: str = ""
    # Tokens for the activated memory (events, graph nodes, source passages); 200–8000.
    budget: int = TOKEN_BUDGET


@router.get("/ns/{ns}/context", response=ContextOut, operation_id="memory_context")
def context(request: HttpRequest, ns: str, params: Query[ContextQuery]) -> ContextOut:
    namespace = request_namespace(request)
    validate_budget(params.budget)  # before the caller's session is created: a 422 writes nothing
    session = session_find(namespace, params.session_id)
    history = history_out(layered_history(session=session) if session else None)
    # Activation is recorded against the caller's session, even before its first turn.
    caller = session or caller_session(namespace, params.session_id)
    built = activation_build(
        namespace=namespace, session=caller, query=params.query, budget=params.budget
    )
    # The query quotes the open tail as stored: it leaves redacted, like the cards (SPEC §15.3).
    activated = ActivatedOut(**{**built.as_dict(), "query": redact(built.query)})
    return ContextOut(
        activated=activated, history=history, total_tokens=activated.tokens + history.tokens
    )
