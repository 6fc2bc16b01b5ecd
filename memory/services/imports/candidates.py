"""From a normalised v2 candidate to what StrataGate stores: an event with both time axes.

Choices where the format is silent (docs/IMPORT.md):
- Dates: `YYYY`, `YYYY-MM`, `YYYY-MM-DD` cover that whole year/month/day (00:00 to
  23:59:59.999999 UTC: a bare date carries no zone); an RFC 3339 instant with an offset is an
  instant; anything else is kept only as wording. A missing precision is read from the date's
  form ("range" when start and end differ); a missing basis with a date present is `explicit`.
- Event type: `temporal.eventType` through the alias table; otherwise `other`.
- Scope: given, else `project` for category project, else `user`. Criticality: given, else
  identity → identity, preference → preference, instruction → preference (a standing rule
  the user gave should not decay to nothing), else routine.
- Mention time: `temporal.mentionedAt` when it parses, else the commit time.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from memory.engine.event_types import normalize_event_type
from memory.engine.import_similarity import Comparable
from memory.engine.prompts.extraction import ExtractedEvent

_YEAR: Final = re.compile(r"^(\d{4})$")
_MONTH: Final = re.compile(r"^(\d{4})-(\d{2})$")
_DAY: Final = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_END_OF_DAY: Final = timedelta(days=1) - timedelta(microseconds=1)


def date_bounds(value: str | None) -> tuple[datetime, datetime, str] | None:
    """(start, end, precision) of a v2 date value, or None when it is not a usable date."""
    if not value:
        return None
    text = value.strip()
    try:
        if match := _YEAR.match(text):
            year = int(match.group(1))
            start = datetime(year, 1, 1, tzinfo=UTC)
            return start, datetime(year + 1, 1, 1, tzinfo=UTC) - timedelta(microseconds=1), "year"
        if match := _MONTH.match(text):
            year, month = int(match.group(1)), int(match.group(2))
            last = calendar.monthrange(year, month)[1]
            start = datetime(year, month, 1, tzinfo=UTC)
            return start, datetime(year, month, last, tzinfo=UTC) + _END_OF_DAY, "month"
        if match := _DAY.match(text):
            start = datetime(
                int(match.group(1)), int(match.group(2)), int(match.group(3)), tzinfo=UTC
            )
            return start, start + _END_OF_DAY, "day"
        instant = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if instant.tzinfo is None:
        return None  # a time without a zone cannot be placed on the timeline
    instant = instant.astimezone(UTC)
    return instant, instant, "instant"


def mention_time(candidate: dict[str, Any]) -> datetime | None:
    bounds = date_bounds((candidate.get("temporal") or {}).get("mentionedAt"))
    return bounds[0] if bounds else None


def occurrence(candidate: dict[str, Any]) -> tuple[datetime | None, datetime | None, str, str]:
    """happened_start, happened_end, precision, basis — by the rules in the module docstring."""
    temporal = candidate.get("temporal") or {}
    start = date_bounds(temporal.get("happenedStart"))
    end = date_bounds(temporal.get("happenedEnd"))
    precision = temporal.get("precision")
    basis = temporal.get("basis")
    if start is None and end is None:
        return None, None, precision or "unknown", basis or "unknown"
    first = start or end
    last = end or start
    assert first is not None and last is not None
    if precision is None:
        precision = first[2] if start is None or end is None or start == end else "range"
    return first[0], last[1], precision, basis or "explicit"


def _criticality(candidate: dict[str, Any]) -> str:
    given = candidate.get("criticality")
    if given:
        return str(given)
    category = candidate.get("category") or candidate.get("memoryKind")
    return {"identity": "identity", "preference": "preference", "instruction": "preference"}.get(
        str(category), "routine"
    )


def candidate_event(
    candidate: dict[str, Any], *, message_id: int, merged: dict[str, str] | None = None
) -> ExtractedEvent:
    """The event a candidate becomes (with a merged title/summary when the decider gave one)."""
    temporal = candidate.get("temporal") or {}
    start, end, precision, basis = occurrence(candidate)
    scope = candidate.get("scope") or (
        "project" if candidate.get("category") == "project" else "user"
    )
    return ExtractedEvent.model_validate(
        {
            "title": (merged or {}).get("title") or candidate["title"],
            "summary": (merged or {}).get("summary") or candidate["summary"],
            "event_type": normalize_event_type(temporal.get("eventType")),
            "tags": candidate.get("tags", []),
            "quotes": candidate.get("quotes", []),
            "participants": temporal.get("participants", []),
            "scope": scope,
            "criticality": _criticality(candidate),
            "source_message_ids": [message_id],
            "original_text": temporal.get("originalText"),
            "happened_start": start,
            "happened_end": end,
            "precision": precision,
            "basis": basis,
            "temporal_status": temporal.get("status") or "unknown",
        }
    )


def comparable(candidate: dict[str, Any]) -> Comparable:
    start, _, _, _ = occurrence(candidate)
    return Comparable(
        title=str(candidate.get("title", "")),
        summary=str(candidate.get("summary", "")),
        when=start or mention_time(candidate),
        names=tuple(str(n) for n in (candidate.get("temporal") or {}).get("participants", [])),
    )


def search_query(candidate: dict[str, Any]) -> str:
    """Title, summary and tags: what the Top-K search looks for (notes §11.4)."""
    return " ".join(
        [candidate.get("title", ""), candidate.get("summary", ""), *candidate.get("tags", [])]
    )
