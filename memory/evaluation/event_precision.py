"""How precisely the offline processor stores events: a labelled set of chat statements scored.

Each labelled statement is one message said at the set's `mentioned_at`; the offline extractor
(`memory.engine.offline_events.extract_events`) runs over it alone, exactly as it would inside a
block. Figures, per language and overall:
- **precision** — of the statements that produced at least one event, the share that should;
- **recall** — of the statements that should produce an event, the share that did;
- **type accuracy** — of the statements that should and did, the share whose first event has the
  labelled event type (the first is the one a statement's leading sentence produced);
- **status / day accuracy** — where labelled, the first event's temporal status, and whether its
  resolved occurrence interval contains the labelled calendar day (a wrong year fails it).

Detection is judged per statement rather than per event because a label says what a person
meant by one message; a statement that yields two events where one was expected still counts once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any, Final

from memory.engine.event_types import EVENT_TYPES, TEMPORAL_STATUSES
from memory.engine.offline_events import SourceMessage, extract_events
from memory.errors import Invalid

__all__ = [
    "LANGUAGES",
    "LabelledSet",
    "LabelledStatement",
    "Outcome",
    "PrecisionReport",
    "Tally",
    "event_precision_score",
    "labelled_set_load",
    "labelled_set_parse",
]

LANGUAGES: Final = ("en", "zh")
ROLES: Final = ("user", "assistant")


@dataclass(frozen=True, slots=True)
class LabelledStatement:
    text: str
    lang: str
    event: bool
    event_type: str | None = None
    status: str | None = None
    day: date | None = None
    speaker: str | None = None
    role: str = "user"


@dataclass(frozen=True, slots=True)
class LabelledSet:
    mentioned_at: datetime
    items: tuple[LabelledStatement, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the extractor made of one statement."""

    item: LabelledStatement
    types: tuple[str, ...]  # event types of the extracted events, in order
    status: str | None  # the first event's temporal status
    start: datetime | None
    end: datetime | None

    @property
    def detected(self) -> bool:
        return bool(self.types)

    @property
    def type_right(self) -> bool:
        return bool(self.types) and self.types[0] == self.item.event_type

    @property
    def day_right(self) -> bool:
        day = self.item.day
        if day is None or self.start is None:
            return False
        first = datetime.combine(day, time.min, tzinfo=UTC)
        last = datetime.combine(day, time.max, tzinfo=UTC)
        return self.start <= last and first <= (self.end or self.start)


@dataclass(slots=True)
class Tally:
    true_positive: int = 0
    false_positive: int = 0
    false_negative: int = 0
    true_negative: int = 0
    type_right: int = 0
    status_labelled: int = 0
    status_right: int = 0
    day_labelled: int = 0
    day_right: int = 0

    def add(self, outcome: Outcome) -> None:
        expected, detected = outcome.item.event, outcome.detected
        if expected and detected:
            self.true_positive += 1
            self.type_right += outcome.type_right
            if outcome.item.status is not None:
                self.status_labelled += 1
                self.status_right += outcome.status == outcome.item.status
            if outcome.item.day is not None:
                self.day_labelled += 1
                self.day_right += outcome.day_right
        elif detected:
            self.false_positive += 1
        elif expected:
            self.false_negative += 1
        else:
            self.true_negative += 1

    @property
    def statements(self) -> int:
        return self.true_positive + self.false_positive + self.false_negative + self.true_negative

    @property
    def precision(self) -> float:
        return _ratio(self.true_positive, self.true_positive + self.false_positive)

    @property
    def recall(self) -> float:
        return _ratio(self.true_positive, self.true_positive + self.false_negative)

    @property
    def type_accuracy(self) -> float:
        return _ratio(self.type_right, self.true_positive)

    @property
    def status_accuracy(self) -> float:
        return _ratio(self.status_right, self.status_labelled)

    @property
    def day_accuracy(self) -> float:
        return _ratio(self.day_right, self.day_labelled)

    def as_dict(self) -> dict[str, float | int]:
        return {
            "statements": self.statements,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "type_accuracy": round(self.type_accuracy, 4),
            "status_accuracy": round(self.status_accuracy, 4),
            "day_accuracy": round(self.day_accuracy, 4),
            "true_positive": self.true_positive,
            "false_positive": self.false_positive,
            "false_negative": self.false_negative,
            "true_negative": self.true_negative,
        }


def _ratio(part: int, whole: int) -> float:
    # An empty denominator means nothing could go wrong (no detections: no false positives).
    return part / whole if whole else 1.0


@dataclass(slots=True)
class PrecisionReport:
    overall: Tally = field(default_factory=Tally)
    by_language: dict[str, Tally] = field(default_factory=dict)
    outcomes: list[Outcome] = field(default_factory=list)

    def misses(self) -> list[Outcome]:
        """Statements scored wrong on detection or type, in set order."""
        return [
            o
            for o in self.outcomes
            if o.item.event != o.detected or (o.item.event and o.detected and not o.type_right)
        ]

    def as_dict(self, *, details: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "overall": self.overall.as_dict(),
            "by_language": {lang: t.as_dict() for lang, t in self.by_language.items()},
        }
        if details:
            out["misses"] = [
                {
                    "text": o.item.text,
                    "lang": o.item.lang,
                    "expected": o.item.event_type if o.item.event else None,
                    "extracted": list(o.types),
                }
                for o in self.misses()
            ]
        return out


def event_precision_score(labelled: LabelledSet) -> PrecisionReport:
    """Run the offline extractor over every statement and tally the outcomes."""
    report = PrecisionReport(by_language={lang: Tally() for lang in LANGUAGES})
    for index, item in enumerate(labelled.items, start=1):
        message = SourceMessage(
            id=index,
            role=item.role,
            content=item.text,
            created_at=labelled.mentioned_at,
            speaker=item.speaker,
        )
        events = extract_events([message]).events
        first = events[0] if events else None
        outcome = Outcome(
            item=item,
            types=tuple(e.event_type for e in events),
            status=first.temporal_status if first else None,
            start=first.happened_start if first else None,
            end=first.happened_end if first else None,
        )
        report.outcomes.append(outcome)
        report.overall.add(outcome)
        report.by_language[item.lang].add(outcome)
    return report


# -- loading ----------------------------------------------------------------------------------


def labelled_set_load(path: Path) -> LabelledSet:
    """Read a labelled set from a JSON file (format: tests/evaluation/event_precision_set.json)."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise Invalid(f"cannot read {path}: {exc}", code="invalid_labelled_set") from exc
    except ValueError as exc:
        raise Invalid(f"{path} is not JSON: {exc}", code="invalid_labelled_set") from exc
    return labelled_set_parse(raw)


def labelled_set_parse(raw: object) -> LabelledSet:
    """Validate a decoded labelled set; any malformed item is an `Invalid` naming its index."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("items"), list):
        raise _bad("the set must be an object with an `items` list")
    try:
        mentioned_at = datetime.fromisoformat(str(raw.get("mentioned_at", "")))
    except ValueError as exc:
        raise _bad("`mentioned_at` must be an ISO date-time") from exc
    if mentioned_at.tzinfo is None:
        mentioned_at = mentioned_at.replace(tzinfo=UTC)
    items = tuple(_item(index, value) for index, value in enumerate(raw["items"]))
    if not items:
        raise _bad("the set has no items")
    return LabelledSet(mentioned_at=mentioned_at, items=items)


def _item(index: int, value: object) -> LabelledStatement:
    if not isinstance(value, Mapping):
        raise _bad(f"item {index} is not an object")
    text, lang, event = value.get("text"), value.get("lang"), value.get("event")
    if not isinstance(text, str) or not text.strip():
        raise _bad(f"item {index}: `text` must be a non-empty string")
    if lang not in LANGUAGES:
        raise _bad(f"item {index}: `lang` must be one of {', '.join(LANGUAGES)}")
    if not isinstance(event, bool):
        raise _bad(f"item {index}: `event` must be true or false")
    event_type = _choice(index, value, "type", EVENT_TYPES)
    status = _choice(index, value, "status", TEMPORAL_STATUSES)
    if event != (event_type is not None):
        raise _bad(f"item {index}: `type` is required exactly when `event` is true")
    if not event and (status is not None or value.get("day") is not None):
        raise _bad(f"item {index}: a statement with no event has no status or day")
    role = value.get("role", "user")
    if role not in ROLES:
        raise _bad(f"item {index}: `role` must be one of {', '.join(ROLES)}")
    speaker = value.get("speaker")
    if speaker is not None and not isinstance(speaker, str):
        raise _bad(f"item {index}: `speaker` must be a string")
    return LabelledStatement(
        text=text,
        lang=str(lang),
        event=event,
        event_type=event_type,
        status=status,
        day=_day(index, value.get("day")),
        speaker=speaker or None,
        role=str(role),
    )


def _choice(index: int, value: Mapping[str, Any], key: str, allowed: Iterable[str]) -> str | None:
    found = value.get(key)
    if found is None:
        return None
    if found not in tuple(allowed):
        raise _bad(f"item {index}: `{key}` {found!r} is not one of the SPEC values")
    return str(found)


def _day(index: int, raw: object) -> date | None:
    if raw is None:
        return None
    try:
        return date.fromisoformat(str(raw))
    except ValueError as exc:
        raise _bad(f"item {index}: `day` must be YYYY-MM-DD") from exc


def _bad(message: str) -> Invalid:
    return Invalid(message, code="invalid_labelled_set")
