"""Prompts for event extraction, alone or combined with L0–L2 in one call (cost ≤ 0.25 calls per
turn at block size 6). Either way the same call drafts the graph items the events state
(`graph_draft`), so graph projection needs no call of its own. Inputs are plain data so the
engine stays free of Django."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import Field, ValidationError, model_validator

from memory.engine.prompts.block_views import SYSTEM_PROMPT as VIEWS_PROMPT
from memory.engine.prompts.block_views import BlockViewsOut
from memory.engine.prompts.extraction import MAX_EVENTS, ExtractedEvent, ExtractionOut
from memory.engine.prompts.graph_draft import GRAPH_RULES, GraphDraft, renumbered


@dataclass(frozen=True)
class PromptMessage:
    id: int
    role: str
    content: str
    created_at: datetime
    name: str = ""


@dataclass(frozen=True)
class PromptTimelineEvent:
    id: int
    title: str
    summary: str
    event_type: str
    status: str
    happened_start: datetime | None


EXTRACTION_RULES = """\
Extract durable events from the TARGET BLOCK only: decisions, preferences, plans, deadlines,
identity statements, changes, cancellations, incidents, releases, completed tasks.
- Every event cites source_message_ids taken from the target block's messages; quotes are
  verbatim snippets of those messages (the user's own words where possible).
- Separate mention time (the message's created_at) from occurrence time. Resolve relative
  wording ("next week", "last Friday") against the SOURCE MESSAGE's created_at, never today.
  If no date can be established, keep original_text and leave happened_start/happened_end null.
  A plan is temporal_status "planned"; it is never evidence that the thing happened.
- relations may only point at ids listed in TIMELINE (supersedes when a new decision replaces
  an old one; conflicts_with when they contradict and nothing resolves it).
- Use the neighbouring blocks' key points only as context, never as a source.
- Return should_extract=false and no events when nothing durable was said."""

SYSTEM_PROMPT = (
    "You turn one block of an agent conversation into long-term memory events.\n"
    + EXTRACTION_RULES
    + "\n"
    + GRAPH_RULES
    + "\nAnswer with one JSON object {should_extract, events, graph} and nothing else."
)

COMBINED_SYSTEM_PROMPT = (
    VIEWS_PROMPT
    + "\n\nIn the same JSON object also return `events` (a list) for long-term memory:\n"
    + EXTRACTION_RULES
    + "\n"
    + GRAPH_RULES
)


def _is_valid_event(raw: object) -> bool:
    try:
        ExtractedEvent.model_validate(raw)
    except ValidationError:
        return False
    return True


class ExtractionGraphOut(ExtractionOut):
    """The block's events and the model's graph draft (None when the model gave none)."""

    graph: GraphDraft | None = None

    @model_validator(mode="before")
    @classmethod
    def _positions_of_valid_events(cls, data: Any) -> Any:
        return renumbered(data, _is_valid_event, MAX_EVENTS)


class BlockMemoryOut(BlockViewsOut):
    """L0–L2, the block's events and the graph draft from a single model call."""

    events: list[ExtractedEvent] = Field(default_factory=list)
    graph: GraphDraft | None = None

    @model_validator(mode="before")
    @classmethod
    def _positions_of_valid_events(cls, data: Any) -> Any:
        return renumbered(data, _is_valid_event, MAX_EVENTS)


def build_user_prompt(
    *,
    messages: Sequence[PromptMessage],
    neighbours: str,
    timeline: Sequence[PromptTimelineEvent],
) -> str:
    payload = {
        "target_block_messages": [
            {
                "id": m.id,
                "role": m.role,
                "name": m.name or None,
                "created_at": m.created_at.isoformat(),
                "content": m.content,
            }
            for m in messages
        ],
        "neighbour_key_points": neighbours or None,
        "timeline": [
            {
                "id": e.id,
                "title": e.title,
                "summary": e.summary,
                "event_type": e.event_type,
                "status": e.status,
                "happened_start": e.happened_start.isoformat() if e.happened_start else None,
            }
            for e in timeline
        ],
    }
    return json.dumps(payload, ensure_ascii=False, indent=1)
