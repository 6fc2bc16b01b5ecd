"""The import-decision prompt family (SPEC §11.3): one imported memory and its local Top-K
matches in; one of five actions, targets from the Top-K only, a confidence and a reason out.

`ImportDecisionOut` is forgiving about spelling (actions are trimmed and lower-cased, unknown ones
become `ignore`) and strict about provenance: `restricted_to` keeps only targets that were shown,
downgrades merge/supersede/conflict without a valid target to `ignore`, and fills a missing
confidence with 0.5 — the same normalisation the offline heuristic's answers go through.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memory.engine.prompts.extraction import clean_ids

ACTIONS: Final = ("add", "merge", "supersede", "conflict", "ignore")
TARGETED: Final = frozenset({"merge", "supersede", "conflict"})
DEFAULT_CONFIDENCE: Final = 0.5
REASON_MAX: Final = 500
MERGED_TITLE_MAX: Final = 160
MERGED_SUMMARY_MAX: Final = 2_000

SYSTEM_PROMPT: Final = """\
You decide how ONE memory imported from another AI relates to a user's existing memories.
You get the imported memory and up to 20 existing memories (events) that matched it locally.
Choose exactly one action:
- "add": a new fact not covered by any existing memory.
- "merge": the same fact as existing memories, supplemented with new detail. You may give
  merged_title and merged_summary combining both; the existing memories become history.
- "supersede": a newer version or a correction of existing memories (they become history).
- "conflict": contradicts existing memories and it is unclear which is true; both are kept.
- "ignore": a duplicate, temporary, of no long-term value, insufficiently supported, or unsafe.
Rules: target_event_ids must be ids from the list shown (merge, supersede and conflict need at
least one). Never assume the imported memory happened at import time; compare the stated dates
only. confidence is your probability (0 to 1) that the action is right. reason: one short
sentence (at most 200 characters). Answer with the JSON object only."""


class ImportDecisionOut(BaseModel):
    """The decider's answer for one candidate (model or offline heuristic)."""

    model_config = ConfigDict(extra="ignore")

    action: str = Field(description="add | merge | supersede | conflict | ignore")
    target_event_ids: list[int] = Field(
        default_factory=list, description="ids of the shown existing events the action applies to"
    )
    confidence: float | None = Field(default=None, description="0..1")
    reason: str = Field(default="", description="one short sentence")
    merged_title: str | None = Field(default=None, description="merge only: combined title")
    merged_summary: str | None = Field(default=None, description="merge only: combined summary")

    @field_validator("action", mode="before")
    @classmethod
    def _action(cls, value: object) -> str:
        text = str(value).strip().lower() if isinstance(value, str) else ""
        return text if text in ACTIONS else "ignore"

    @field_validator("target_event_ids", mode="before")
    @classmethod
    def _targets(cls, value: object) -> list[int]:
        return clean_ids(value, limit=20)

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: object) -> float | None:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            return None
        try:
            number = float(value)
        except ValueError:
            return None
        if not math.isfinite(number):
            return None
        return min(1.0, max(0.0, number))

    @field_validator("reason", mode="before")
    @classmethod
    def _reason(cls, value: object) -> str:
        return " ".join(str(value).split())[:REASON_MAX] if value is not None else ""

    @field_validator("merged_title", "merged_summary", mode="before")
    @classmethod
    def _merged(cls, value: object) -> str | None:
        if not isinstance(value, str) or not value.strip():
            return None
        return value.strip()

    def restricted_to(self, allowed: Collection[int]) -> ImportDecisionOut:
        """Targets outside `allowed` dropped; a targeted action left without one → ignore."""
        targets = [i for i in dict.fromkeys(self.target_event_ids) if i in allowed]
        action, confidence, reason = self.action, self.confidence, self.reason
        if action in TARGETED and not targets:
            reason = f"{action} proposed without an allowed target; safely ignored"
            action, confidence = "ignore", DEFAULT_CONFIDENCE
        if action == "add":
            targets = []
        merged = action == "merge"
        title = (self.merged_title or "")[:MERGED_TITLE_MAX] if merged else ""
        summary = (self.merged_summary or "")[:MERGED_SUMMARY_MAX] if merged else ""
        return ImportDecisionOut(
            action=action,
            target_event_ids=targets,
            confidence=DEFAULT_CONFIDENCE if confidence is None else confidence,
            reason=reason,
            # A merged text is used only when both halves are given.
            merged_title=title if title and summary else None,
            merged_summary=summary if title and summary else None,
        )


@dataclass(frozen=True, slots=True)
class PromptMatch:
    """One existing event as the decider sees it."""

    id: int
    title: str
    summary: str
    status: str
    event_type: str
    mentioned_at: datetime
    happened_start: datetime | None
    happened_end: datetime | None


def build_user_prompt(candidate: dict[str, Any], matches: Sequence[PromptMatch]) -> str:
    """The candidate as imported (normalised v2 fields) and its matches, as JSON sections."""
    shown = [
        {
            "id": m.id,
            "title": m.title,
            "summary": m.summary,
            "status": m.status,
            "event_type": m.event_type,
            "mentioned_at": m.mentioned_at.isoformat(),
            "happened_start": m.happened_start.isoformat() if m.happened_start else None,
            "happened_end": m.happened_end.isoformat() if m.happened_end else None,
        }
        for m in matches
    ]
    imported = {k: v for k, v in candidate.items() if k != "stratagate"}
    return (
        "Imported memory:\n"
        f"{json.dumps(imported, ensure_ascii=False, indent=1)}\n\n"
        f"Existing memories that matched ({len(shown)}):\n"
        f"{json.dumps(shown, ensure_ascii=False, indent=1)}\n\n"
        'Answer: {"action": …, "target_event_ids": […], "confidence": …, "reason": …}'
    )
