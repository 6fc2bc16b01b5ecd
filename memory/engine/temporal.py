"""Occurrence time from wording (SPEC §5.2): what a sentence says about *when*, resolved against
the time the source message was said — never against the processing clock.

`resolve_temporal` finds temporal wording (English and Chinese), turns it into local calendar days
in `mentioned_at`'s own timezone, and returns UTC bounds: start at 00:00 of the first day, end at
23:59:59.999999 of the last day. Conventions where usage is ambiguous (documented choices):
- Weeks start on Monday. "next week" = the following Monday–Sunday; "last week" the previous one.
- "next <weekday>" is that weekday in next week (said on Saturday 6 May 2023, "next Tuesday" is
  9 May; said on Monday 8 May it is 16 May); "this <weekday>" is in the current week; "last
  <weekday>" is the most recent one strictly before the mention day; "coming <weekday>" the
  nearest one strictly after it. A bare weekday ("on Monday", "周一") follows the sentence's
  tense: future → next one after, past → last one before, unknown → the one in the current week.
- A date without a year ("7 May", "5月7日", "in May") takes the mention year, moved one year
  forward or back when the tense says it lies in the future or the past; its basis is "inferred".
- "N days ago" is a day; "N weeks ago" the week containing that day; "N months/years ago" that
  month / year. "in N …" mirrors it forwards, except in a past sentence, where it is a duration
  ("Rome wasn't built in a day"); "within N …" is a deadline.
- Arranging verbs ("planned", "scheduled for", "booked") are not past tense: "our wedding is
  planned for October 12" lies ahead.
- Deadlines ("by Friday", "before the end of the month", "周五前") run from the mention day to the
  deadline's last day (precision "range") and are "planned" unless already past.
- "since X" / "自从X以来" run from X's first day to the mention day ("ongoing").
- "at 3pm" / "下午3点" after a day expression makes it an instant.
- Status: wholly before the mention day → occurred; wholly after → planned; containing it → the
  caller's `default_status` when that is occurred/planned/ongoing, else the sentence's tense,
  else ongoing. `default_status="cancelled"` always wins (a cancelled plan stays cancelled).
  With no temporal wording the status is `default_status` (callers pass "unknown" by default).
- When several expressions occur, the first that fits `default_status` (planned → a future one,
  occurred → a past one) wins, else the first one with a date, else the first vague wording.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Final

from memory.engine.event_types import TEMPORAL_STATUSES
from memory.engine.temporal_calendar import Context, Span, number
from memory.engine.temporal_patterns import RULES, UNRESOLVED, Rule

__all__ = ["TemporalResolution", "resolve_temporal", "sentence_tense"]


@dataclass(frozen=True, slots=True)
class TemporalResolution:
    """When something happened (or will), as said; happened_* are tz-aware UTC or None."""

    original_text: str | None
    happened_start: datetime | None
    happened_end: datetime | None
    precision: str
    basis: str
    status: str


# Full-width ASCII and the ideographic space, mapped one-to-one so match offsets stay valid.
_FULLWIDTH: Final = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_I = re.IGNORECASE

_DEADLINE_BEFORE: Final = re.compile(
    r"(?:\b(?:by|before|until|till|due|no\s+later\s+than|not\s+later\s+than)\s+"
    r"|\b(?:expires?|runs\s+out|lapses?|closes?)\s+(?:on\s+|in\s+|at\s+the\s+end\s+of\s+)?"
    # "The deadline for the conference paper is March 3"
    r"|\bdeadline\b[^.;!?]{0,80}?\s(?:is|was)\s+(?:on\s+)?|截止到?|截至|最晚)$",
    _I,
)
# "前" is a deadline only when it does not start a word ("前端" is front-end).
_DEADLINE_AFTER: Final = re.compile(
    r"^\s*(?:之前|以前|前(?![端台面后天年景途辈提])|到期|截止|截稿)"
)
# A date something is moved to lies ahead, whatever the tense: "has been pushed to May 17",
# "周会改到周三下午了".
_MOVED_TO: Final = re.compile(
    r"\b(?:pushed|moved|postponed|rescheduled|delayed|bumped|shifted)\s+(?:back\s+|out\s+)?"
    r"(?:to|until|till)\s+(?:the\s+)?$|(?:改到|推迟到|延期到|延到|挪到|调到|推到)了?$",
    _I,
)
_SINCE_BEFORE: Final = re.compile(r"(?:\b(?:ever\s+)?since\s+|自从|自|从)$", _I)
_SINCE_AFTER: Final = re.compile(r"^\s*(?:以来|开始|起)")
_COSMETIC_BEFORE: Final = re.compile(r"\b(?:on|in|during|throughout|around|at)\s+$|在$", _I)
_CLOCK_EN: Final = re.compile(
    r"^\s*(?:(?:at|around|@)\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?"
    r"|(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.))(?![\w:])",
    _I,
)
_CLOCK_ZH: Final = re.compile(
    r"^\s*(早上|上午|中午|下午|晚上|凌晨|傍晚)?\s*(\d{1,2}|[零一二两三四五六七八九十]{1,3})\s*[点點时]"
    r"(?:\s*(半|\d{1,2}|[零一二三四五六七八九十]{1,3})\s*分?)?"
)
_AFTERNOON_ZH: Final = frozenset({"下午", "晚上", "傍晚"})

_FUTURE_MARKERS: Final = re.compile(
    r"\b(?:will|shall|gonna|going\s+to|plan(?:ning)?\s+to|intend\s+to|about\s+to|hope\s+to|"
    r"want\s+to|would\s+like\s+to|upcoming|let'?s|let\s+us"
    r"|(?:planned|scheduled|booked|slated|set)\s+for"
    r"|must|has\s+to|have\s+to|needs?\s+to|got\s+to|(?:'ve|have)\s+got\s+an?)\b|'ll\b|将|会(?!议)|打算|计划|准备|要|必须|务必",
    _I,
)
# Arranging something ("planned", "scheduled for") says when it will happen, not that it did;
# a participle after "is"/"are" ("the office is closed on Friday") is a state, not the past.
_PAST_MARKERS: Final = re.compile(
    # "I've got a dentist appointment Tuesday": having, not the past.
    r"\b(?:was|were|did|had|went|came|(?<!'ve\s)(?<!\bhave\s)got|made|took|saw|met|ate|began|bought|left|won|lost|"
    r"gave|told|found|felt|ran|spent|wrote|built|brought|caught|taught|sold|held|kept|heard|paid|"
    r"sent|drove|spoke|broke|chose|forgot|flew|grew|knew|threw|drew|fell|wore|stood|"
    r"wasn't|weren't|didn't|hadn't|ago|(?<!\bbe\s)(?<!\bis\s)(?<!\bare\s)(?!(?:planned|scheduled|booked|slated)\b)[a-z]{3,}ed)\b"
    r"|了|过|已经|刚才|曾",
    _I,
)


_SCHEDULED: Final = re.compile(
    r"\b(?:ends|expires|starts|begins|renews|launches|kicks\s+off|(?:is|are)\s+due)\b", _I
)


def sentence_tense(text: str) -> str | None:
    """ "past" or "future" when the sentence's markers lean one way, else None."""
    future = len(_FUTURE_MARKERS.findall(text))
    past = len(_PAST_MARKERS.findall(text))
    if future > past:
        return "future"
    if past > future:
        return "past"
    return None


@dataclass(frozen=True, slots=True)
class _Candidate:
    start: int
    end: int
    span: Span | None  # None: vague wording, or wording naming no real date
    vague_status: str
    deadline: bool


def _matches(text: str, ctx: Context) -> list[tuple[int, int, Rule, Span | None]]:
    found: list[tuple[int, int, int, Rule, Span | None]] = []
    for index, rule in enumerate(RULES):
        for match in rule.pattern.finditer(text):
            if match.end() == match.start():
                continue
            span: Span | None = None
            if rule.handler is not None:
                # A deadline lies ahead: "by Friday" is the next Friday, whatever the tense.
                before = text[: match.start()]
                looks_ahead = (
                    _DEADLINE_BEFORE.search(before)
                    or _MOVED_TO.search(before)
                    or _DEADLINE_AFTER.match(text[match.end() :])
                )
                span = rule.handler(match, Context(ctx.today, "future") if looks_ahead else ctx)
                if span is None:
                    continue  # not temporal wording after all
            found.append((match.start(), match.end(), index, rule, span))
    found.sort(key=lambda item: (item[0], -(item[1] - item[0]), item[2]))
    chosen: list[tuple[int, int, Rule, Span | None]] = []
    taken_until = -1
    for start, end, _, rule, span in found:
        if start >= taken_until:
            chosen.append((start, end, rule, span))
            taken_until = end
    return chosen


def _clock(text: str, end: int) -> tuple[time, int] | None:
    rest = text[end:]
    english = _CLOCK_EN.match(rest)
    if english:
        hour = int(english.group(1) or english.group(4))
        minute = int(english.group(2) or english.group(5) or 0)
        meridiem = (english.group(3) or english.group(6) or "").lower().replace(".", "")
        if meridiem == "pm" and hour < 12:
            hour += 12
        if meridiem == "am" and hour == 12:
            hour = 0
        if 0 <= hour < 24 and minute < 60:
            return time(hour, minute), end + english.end()
        return None
    chinese = _CLOCK_ZH.match(rest)
    if chinese:
        hour_value = number(chinese.group(2))
        minute_text = chinese.group(3) or ""
        minute_value = 30 if minute_text == "半" else (number(minute_text) if minute_text else 0)
        if hour_value is None or minute_value is None:
            return None
        if chinese.group(1) in _AFTERNOON_ZH and hour_value < 12:
            hour_value += 12
        if 0 <= hour_value < 24 and minute_value < 60:
            return time(hour_value, minute_value), end + chinese.end()
    return None


def _candidate(
    text: str, start: int, end: int, rule: Rule, span: Span | None, today: date
) -> _Candidate:
    """Widen one match with its deadline / since / clock modifiers and apply them."""
    if span is None or span is UNRESOLVED:
        return _Candidate(start, end, None, rule.vague_status, False)
    before, rest = text[:start], text[end:]
    prefix_deadline = _DEADLINE_BEFORE.search(before)
    prefix_since = None if prefix_deadline else _SINCE_BEFORE.search(before)
    suffix_deadline = None if prefix_since else _DEADLINE_AFTER.match(rest)
    suffix_since = None if prefix_deadline or suffix_deadline else _SINCE_AFTER.match(rest)
    if suffix_since and not prefix_since and suffix_since.group(0).strip() != "以来":
        suffix_since = None  # "下周一开始" is a start date, not "since"
    within = text[start:end].lower().startswith("within")
    deadline = bool(prefix_deadline or suffix_deadline or within)
    since = bool(prefix_since or suffix_since)
    prefix = prefix_deadline or prefix_since or _COSMETIC_BEFORE.search(before)
    if prefix:
        start = prefix.start()
    if span.precision == "day" and not deadline and not since:
        clock = _clock(text, end)
        if clock is not None:
            span = Span(span.first, span.first, "instant", span.basis, clock[0])
            end = clock[1]
    if deadline:
        if suffix_deadline:
            end += suffix_deadline.end()
        first = today if span.last >= today else span.first
        span = Span(first, span.last, "range", span.basis)
    elif since:
        if suffix_since:
            end += suffix_since.end()
        span = Span(span.first, max(today, span.first), "range", span.basis)
    return _Candidate(start, end, span, "unknown", deadline)


def _bounds(span: Span, zone: tzinfo) -> tuple[datetime, datetime]:
    if span.at is not None:
        moment = datetime.combine(span.first, span.at, tzinfo=zone).astimezone(UTC)
        return moment, moment
    start = datetime.combine(span.first, time.min, tzinfo=zone).astimezone(UTC)
    end = datetime.combine(span.last, time.max, tzinfo=zone).astimezone(UTC)
    return start, end


def _status(
    span: Span,
    *,
    mentioned_at: datetime,
    is_deadline: bool,
    default_status: str,
    tense: str | None,
) -> str:
    if default_status == "cancelled":
        return "cancelled"
    today = mentioned_at.date()
    if span.at is not None:
        moment = datetime.combine(span.first, span.at, tzinfo=mentioned_at.tzinfo)
        if moment < mentioned_at - timedelta(minutes=1):
            return "occurred"
        if moment > mentioned_at + timedelta(minutes=1):
            return "planned"
    elif span.last < today:
        return "occurred"
    elif span.first > today or is_deadline:
        return "planned"
    if default_status in ("occurred", "planned", "ongoing"):
        return default_status
    return {"past": "occurred", "future": "planned"}.get(tense or "", "ongoing")


def resolve_temporal(
    text: str, *, mentioned_at: datetime, default_status: str
) -> TemporalResolution:
    """Find the temporal wording in `text` and resolve it against `mentioned_at`.

    `mentioned_at` is the source message's timestamp and must be tz-aware (ValueError otherwise);
    `default_status` is what the sentence's own wording implies ("planned" for "I will…",
    "cancelled" for a cancellation, "unknown" when nothing), one of `TEMPORAL_STATUSES`.
    Deterministic: the same arguments always give the same resolution.
    """
    if mentioned_at.tzinfo is None or mentioned_at.utcoffset() is None:
        raise ValueError("mentioned_at must be timezone-aware")
    if default_status not in TEMPORAL_STATUSES:
        raise ValueError(f"unknown temporal status {default_status!r}")
    zone = mentioned_at.tzinfo
    scan = text.translate(_FULLWIDTH)
    tense = sentence_tense(scan)
    today = mentioned_at.date()
    # "The contract ends in March": a schedule said in the present lies ahead (dates only; the
    # sentence's own tense, and so its kind, stays as it is).
    ahead = "future" if tense is None and _SCHEDULED.search(scan) else tense
    ctx = Context(today=today, tense=ahead)
    candidates = [
        _candidate(scan, start, end, rule, span, today)
        for start, end, rule, span in _matches(scan, ctx)
    ]
    if not candidates:
        return TemporalResolution(None, None, None, "unknown", "unknown", default_status)

    resolved: list[tuple[_Candidate, Span, str]] = []
    for candidate in candidates:
        if candidate.span is not None:
            status = _status(
                candidate.span,
                mentioned_at=mentioned_at,
                is_deadline=candidate.deadline,
                default_status=default_status,
                tense=tense,
            )
            resolved.append((candidate, candidate.span, status))
    if resolved:
        wanted = default_status if default_status in ("planned", "occurred") else None
        pick = next((r for r in resolved if r[2] == wanted), resolved[0])
        candidate, span, status = pick
        start, end = _bounds(span, zone)
        return TemporalResolution(
            text[candidate.start : candidate.end].strip(),
            start,
            end,
            span.precision,
            span.basis,
            status,
        )
    vague = candidates[0]
    status = vague.vague_status if default_status == "unknown" else default_status
    return TemporalResolution(
        text[vague.start : vague.end].strip(), None, None, "unknown", "unknown", status
    )
