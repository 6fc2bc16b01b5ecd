"""The event-extraction answer (SPEC §5), shared by the model path and the offline rules.

Validation is forgiving where a model is sloppy and strict where provenance is at stake: unknown
enum values fall back to defaults, event types are normalised, lists are trimmed, de-duplicated
and capped, and an event that still fails validation is dropped alone rather than failing the
whole answer. An event must cite at least one source message. Whether the cited messages and
quotes really belong to the target block is checked by `ground_events`, which needs the block.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from memory.engine.event_types import (
    BASES,
    CRITICALITIES,
    PRECISIONS,
    RELATION_KINDS,
    SCOPES,
    TEMPORAL_STATUSES,
    normalize_choice,
    normalize_event_type,
)

MAX_TAGS: Final = 12
MAX_QUOTES: Final = 12
MAX_PARTICIPANTS: Final = 12
MAX_RELATIONS: Final = 24
MAX_EVENTS: Final = 24
TITLE_MAX: Final = 200
SUMMARY_MAX: Final = 2_000
ITEM_MAX: Final = 500  # one tag, quote or participant
DEFAULT_SCOPE: Final = "user"


def _clean_text(value: object, limit: int) -> str:
    text = " ".join(str(value).split()) if value is not None else ""
    return text[:limit]


def clean_list(value: object, limit: int, item_max: int = ITEM_MAX) -> list[str]:
    """Strings trimmed, empties dropped, duplicates (case-insensitive) removed, at most `limit`."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value) if isinstance(value, list) else []
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if not isinstance(item, str | int | float):
            continue
        text = str(item).strip()[:item_max]
        if text and text.casefold() not in seen:
            seen.add(text.casefold())
            out.append(text)
        if len(out) == limit:
            break
    return out


def clean_ids(value: object, limit: int = 64) -> list[int]:
    """Integer ids (ints or digit strings; never bools) in first-seen order, at most `limit`."""
    items = value if isinstance(value, list) else [value] if value is not None else []
    ids: list[int] = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int | str):
            continue
        text = str(item).strip()
        if not text.lstrip("-").isdigit():
            continue
        number = int(text)
        if number not in ids:
            ids.append(number)
        if len(ids) == limit:
            break
    return ids


class EventRelation(BaseModel):
    """A link from the extracted event to an existing event that was shown to the extractor."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    kind: str
    target_event_id: int

    @field_validator("kind", mode="before")
    @classmethod
    def _known_kind(cls, value: object) -> str:
        kind = normalize_choice(value, RELATION_KINDS, "")
        if not kind:
            raise ValueError(f"unknown relation kind {value!r}")
        return kind


class ExtractedEvent(BaseModel):
    """One durable event found in a block, with both time axes and its sources."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    title: str = Field(min_length=1, max_length=TITLE_MAX)
    summary: str = Field(min_length=1, max_length=SUMMARY_MAX)
    event_type: str = "other"
    tags: list[str] = Field(default_factory=list)
    quotes: list[str] = Field(default_factory=list)
    scope: str = DEFAULT_SCOPE
    criticality: str = "routine"
    participants: list[str] = Field(default_factory=list)
    source_message_ids: list[int] = Field(min_length=1)
    original_text: str | None = None
    happened_start: datetime | None = None
    happened_end: datetime | None = None
    precision: str = "unknown"
    basis: str = "unknown"
    temporal_status: str = Field(
        default="unknown", validation_alias=AliasChoices("temporal_status", "status")
    )
    relations: list[EventRelation] = Field(default_factory=list)

    @field_validator("title", mode="before")
    @classmethod
    def _title(cls, value: object) -> str:
        return _clean_text(value, TITLE_MAX)

    @field_validator("summary", mode="before")
    @classmethod
    def _summary(cls, value: object) -> str:
        return str(value).strip()[:SUMMARY_MAX] if value is not None else ""

    @field_validator("event_type", mode="before")
    @classmethod
    def _event_type(cls, value: object) -> str:
        return normalize_event_type(value if isinstance(value, str) else None)

    @field_validator("tags", mode="before")
    @classmethod
    def _tags(cls, value: object) -> list[str]:
        return clean_list(value, MAX_TAGS, 80)

    @field_validator("quotes", mode="before")
    @classmethod
    def _quotes(cls, value: object) -> list[str]:
        return clean_list(value, MAX_QUOTES)

    @field_validator("participants", mode="before")
    @classmethod
    def _participants(cls, value: object) -> list[str]:
        return clean_list(value, MAX_PARTICIPANTS, 120)

    @field_validator("scope", mode="before")
    @classmethod
    def _scope(cls, value: object) -> str:
        return normalize_choice(value, SCOPES, DEFAULT_SCOPE)

    @field_validator("criticality", mode="before")
    @classmethod
    def _criticality(cls, value: object) -> str:
        return normalize_choice(value, CRITICALITIES, "routine")

    @field_validator("precision", mode="before")
    @classmethod
    def _precision(cls, value: object) -> str:
        return normalize_choice(value, PRECISIONS, "unknown")

    @field_validator("basis", mode="before")
    @classmethod
    def _basis(cls, value: object) -> str:
        return normalize_choice(value, BASES, "unknown")

    @field_validator("temporal_status", mode="before")
    @classmethod
    def _temporal_status(cls, value: object) -> str:
        return normalize_choice(value, TEMPORAL_STATUSES, "unknown")

    @field_validator("original_text", mode="before")
    @classmethod
    def _original_text(cls, value: object) -> str | None:
        text = _clean_text(value, 200) if value is not None else ""
        return text or None

    @field_validator("happened_start", "happened_end", mode="after")
    @classmethod
    def _aware_utc(cls, value: datetime | None) -> datetime | None:
        # A naive time from a model cannot be placed on the timeline; it is dropped, not guessed.
        if value is None or value.tzinfo is None or value.utcoffset() is None:
            return None
        return value.astimezone(UTC)

    @field_validator("source_message_ids", mode="before")
    @classmethod
    def _source_ids(cls, value: object) -> list[int]:
        return clean_ids(value)

    @field_validator("relations", mode="before")
    @classmethod
    def _relations(cls, value: object) -> list[EventRelation]:
        if not isinstance(value, list):
            return []
        kept: list[EventRelation] = []
        for item in value:
            try:
                relation = EventRelation.model_validate(item)
            except ValidationError:
                continue
            if relation not in kept:
                kept.append(relation)
        return kept[:MAX_RELATIONS]

    def model_post_init(self, context: Any, /) -> None:
        # SPEC §11.2's rule, applied to every event: a date whose precision or basis is unknown
        # is not established, so happened_* are dropped and only the wording is kept.
        if self.precision == "unknown" or self.basis == "unknown":
            self.happened_start = self.happened_end = None
        start, end = self.happened_start, self.happened_end
        if start is not None and end is not None and end < start:
            self.happened_start, self.happened_end = end, start
        if self.temporal_status == "unknown" and self.event_type == "cancellation":
            self.temporal_status = "cancelled"


class ExtractionOut(BaseModel):
    """The whole answer for one block; `should_extract = False` means "nothing durable here"."""

    model_config = ConfigDict(extra="ignore")

    should_extract: bool
    events: list[ExtractedEvent] = Field(default_factory=list)

    @field_validator("events", mode="before")
    @classmethod
    def _valid_events_only(cls, value: object) -> list[ExtractedEvent]:
        if not isinstance(value, list):
            return []
        kept: list[ExtractedEvent] = []
        for item in value:
            try:
                kept.append(ExtractedEvent.model_validate(item))
            except ValidationError:
                continue  # one bad event must not discard the good ones
        return kept[:MAX_EVENTS]

    def model_post_init(self, context: Any, /) -> None:
        if not self.should_extract:
            self.events = []


def ground_events(
    events: list[ExtractedEvent],
    *,
    block_messages: Mapping[int, str],
    timeline_ids: frozenset[int] | set[int] = frozenset(),
) -> list[ExtractedEvent]:
    """Keep extraction honest against the target block (SPEC §5.1, §5.3, §5.5).

    Source ids outside the block are dropped (an event left with none cites the whole block, the
    original's fallback); quotes that are not verbatim substrings of one of the block's messages
    are dropped; relations pointing at events not in `timeline_ids` are dropped. Returns new models.
    """
    all_ids = list(block_messages)
    grounded: list[ExtractedEvent] = []
    for event in events:
        ids = [i for i in event.source_message_ids if i in block_messages] or all_ids
        if not ids:
            continue
        quotes = [q for q in event.quotes if any(q in text for text in block_messages.values())]
        relations = [r for r in event.relations if r.target_event_id in timeline_ids]
        grounded.append(
            event.model_copy(
                update={"source_message_ids": ids, "quotes": quotes, "relations": relations}
            )
        )
    return grounded
