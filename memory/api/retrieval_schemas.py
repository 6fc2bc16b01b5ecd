"""Request and response schemas of the retrieval tools: searches, assess, record-use, audit."""

from __future__ import annotations

from typing import Any

from ninja import Field, Schema

from memory.api.fields import ApiDatetime
from memory.selectors.events import EventOut, TimelineEntryOut
from memory.selectors.graph import EdgeOut, FactOut, NodeOut
from memory.selectors.messages import MessageOut


class SearchEventsIn(Schema):
    query: str
    limit: int | None = None
    session_id: str | None = Field(
        default=None, description="The caller's session: the batch belongs to it (§9.5)."
    )
    source_session_id: str | None = Field(
        default=None, description="Filter: only events extracted from this session."
    )
    participants: list[str] | str | None = None
    event_type: str | None = None
    happened_from: ApiDatetime | None = None
    happened_to: ApiDatetime | None = None
    temporal_intent: str | None = Field(default=None, description="first | latest")


class EventResultOut(Schema):
    ref: str
    score: float
    matched_by: list[str]
    event: EventOut


class SearchEventsOut(Schema):
    batch_id: str
    evidence_refs: list[str]
    results: list[EventResultOut]


class SearchGraphIn(Schema):
    query: str
    limit: int | None = None
    session_id: str | None = None
    as_of: str | None = None


class GraphResultOut(Schema):
    ref: str
    score: float
    match_type: str
    node: NodeOut
    current_facts: list[FactOut]
    historical_facts: list[FactOut]
    edges: list[EdgeOut]
    provenance_event_ids: list[int]
    timeline: list[TimelineEntryOut]


class SearchGraphOut(Schema):
    batch_id: str
    evidence_refs: list[str]
    results: list[GraphResultOut]


class SearchRawIn(Schema):
    query: str
    limit: int | None = None
    session_id: str | None = Field(
        default=None, description="Only this session's messages; the batch belongs to it."
    )


class RawResultOut(Schema):
    ref: str
    score: float
    message: MessageOut
    neighbours: list[MessageOut]
    block_id: int | None
    sealed: bool
    turn_range: list[int]


class SearchRawOut(Schema):
    batch_id: str
    evidence_refs: list[str]
    results: list[RawResultOut]


class AssessIn(Schema):
    batch_id: str | None = None
    session_id: str | None = None
    verdict: str
    evidence_refs: list[Any]
    fit: str = ""
    missing: str = ""
    next_strategy: str
    question: str | None = Field(
        default=None,
        description="The user's question, for gate advice; defaults to the batch's query.",
    )


class RecordUseIn(Schema):
    batch_id: str | None = None
    session_id: str | None = None
    evidence_refs: list[Any]
    receipt_id: str
    answer: str | None = None


class RecordUseOut(Schema):
    receipt_id: str
    duplicate: bool
    reinforced_event_ids: list[int]
    batch_id: str
    batch_closed: bool
    zero_increment: bool
    verdict: str | None
