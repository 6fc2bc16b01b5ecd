"""Request and response schemas of the agent API (explicit fields; API.md is the contract)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ninja import Field, Schema

from memory.api.fields import ApiDatetime
from memory.selectors.blocks import BlockOut
from memory.selectors.events import EventOut, MentionOut, RelationsOut
from memory.selectors.graph import EdgeOut, FactOut, NeighbourOut, NodeOut
from memory.selectors.health import NamespaceHealthOut
from memory.selectors.jobs import JobOut
from memory.selectors.messages import MessageOut
from memory.selectors.out import Out


class ToolCallIn(Schema):
    name: str = Field(max_length=200)
    arguments: Any = None
    result: Any = None


class MessageIn(Schema):
    role: str
    content: str = ""
    name: str | None = Field(default=None, max_length=200)
    created_at: ApiDatetime | None = None
    tool_calls: list[ToolCallIn] | None = None


class TurnIn(Schema):
    session_id: str
    receipt_id: str
    occurred_at: ApiDatetime | None = None
    messages: list[MessageIn]


class TurnOut(Schema):
    turn_id: int
    session_turn: int
    namespace_turn: int
    duplicate: bool
    sealed_block_id: int | None


class TurnsBatchIn(Schema):
    # 1–200 turns, checked by the service so the error is `too_many_turns`, not a schema error.
    turns: list[TurnIn]


class BatchTurnOut(Schema):
    index: int
    session_id: str
    receipt_id: str
    turn_id: int
    session_turn: int
    namespace_turn: int
    duplicate: bool
    sealed_block_id: int | None


class TurnsBatchOut(Schema):
    turns: list[BatchTurnOut]
    stored: int
    duplicates: int
    sealed_block_ids: list[int]


class BlocksOut(Schema):
    blocks: list[BlockOut]
    open_tail_turns: int
    block_turns: int
    reason: str | None = None


class ExpandIn(Schema):
    target: str | int = "next"
    batch_id: str | None = None
    session_id: str | None = None


class ExpandOut(Schema):
    batch_id: str | None
    ref: str
    block_id: int
    level: int
    content: str
    tokens: int


class HistoryBlockOut(Schema):
    block_id: int
    sequence: int
    turn_range: list[int]
    level: int
    content: str
    tokens: int


class PendingBlockOut(Schema):
    block_id: int
    sequence: int
    turn_range: list[int]
    status: str
    content: str
    tokens: int


class HistoryOut(Schema):
    blocks: list[HistoryBlockOut]
    pending: list[PendingBlockOut]
    open_tail: list[MessageOut]
    open_tail_turns: int
    tokens: int


class ActivatedOut(Schema):
    events: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    # Verbatim messages of other sessions ranked for the query: {ref, speaker?, said, text}.
    passages: list[dict[str, Any]] = []
    tokens: int
    # Historical background (SPEC §8.7): `text` is what to inject, `framing` its header.
    framing: str = ""
    text: str = ""
    query: str = ""
    activation_id: int | None = None


class ContextOut(Schema):
    activated: ActivatedOut
    history: HistoryOut
    total_tokens: int


class SettingsIn(Schema):
    block_lambda: Any = None
    block_turns: Any = None
    proxy_history: Any = None
    proxy_tools: Any = None


class SettingsOut(Schema):
    block_lambda: float
    block_turns: int
    saved: bool
    level_schedule: list[int]
    proxy_history: str
    proxy_tools: str


class JobsOut(Schema):
    jobs: list[JobOut]


class SourceBlockOut(Schema):
    block_id: int
    session_id: str
    turn_range: list[int]


class ExpandEventOut(Schema):
    batch_id: str
    ref: str
    event: EventOut
    relations: RelationsOut
    sources: list[MessageOut]
    source_block: SourceBlockOut
    # Every statement of the fact, the first one first (issue 29; additive field).
    mentions: list[MentionOut]


class TimelineOut(Schema):
    current_turn: int
    events: list[EventOut]


class ExpandNodeOut(Schema):
    batch_id: str
    ref: str
    node: NodeOut
    current_facts: list[FactOut]
    historical_facts: list[FactOut]
    edges: list[EdgeOut]
    provenance_event_ids: list[int]
    neighbours: list[NeighbourOut]
    provenance_events: list[EventOut]


class GraphNodeStateOut(NodeOut):
    current_facts: list[FactOut]
    historical_facts: list[FactOut]
    edges: list[EdgeOut]  # outgoing only: each edge is listed once, at its source node


class GraphStateOut(Schema):
    as_of: str | None
    nodes: list[GraphNodeStateOut]


# --- memory_status: the agent API's brief view of the health page's rows ----------------------
# The Memory UI reads failed jobs and model calls as full rows (selectors.processing_rows, one
# row model for the health and processing pages); the API's contract (docs/API.md) keeps its
# brief fields: clients depend on them, and an agent has no use for tracebacks.

HEALTH_FAILED_JOBS = 20
HEALTH_RECENT_CALLS = 5


class FailedJobOut(Out):
    id: int
    kind: str
    block_id: int | None
    attempts: int
    error_preview: str


class ModelCallOut(Out):
    kind: str
    model: str
    latency_ms: int
    prompt_tokens: int
    completion_tokens: int
    created_at: datetime


class ModelCallsOut(Out):
    recent: list[ModelCallOut]
    by_kind: dict[str, int]


class HealthOut(NamespaceHealthOut):
    failed_jobs: list[FailedJobOut]  # type: ignore[assignment]
    model_calls: ModelCallsOut  # type: ignore[assignment]

    @classmethod
    def of(cls, health: NamespaceHealthOut, failed: Sequence[JobOut]) -> HealthOut:
        """`health` with the API's rows; `failed`: the newest failed jobs, newest id first."""
        recent = health.model_calls.recent[:HEALTH_RECENT_CALLS]
        return cls.model_construct(
            **{
                **dict(health),
                "failed_jobs": [
                    FailedJobOut.model_construct(
                        id=job.id,
                        kind=job.kind,
                        block_id=job.block_id,
                        attempts=job.attempts,
                        error_preview=job.error_preview,
                    )
                    for job in failed
                ],
                "model_calls": ModelCallsOut.model_construct(
                    recent=[
                        ModelCallOut.model_construct(
                            kind=call.kind,
                            model=call.model,
                            latency_ms=call.latency_ms,
                            prompt_tokens=call.prompt_tokens,
                            completion_tokens=call.completion_tokens,
                            created_at=call.created_at,
                        )
                        for call in recent
                    ],
                    by_kind=health.model_calls.by_kind,
                ),
            }
        )
