"""Calendar arithmetic for temporal resolution: spans of local days, Monday-start weeks, month
shifts, small English/Chinese numbers, and the direction conventions for weekdays and year-less
dates. Everything is relative to the mention day handed in, never to the clock.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, time, timedelta
from typing import Final


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of local calendar days (inclusive); `at` makes a one-day span an instant."""

    first: date
    last: date
    precision: str
    basis: str
    at: time | None = None


# What a handler returns for temporal wording that names no real date ("30 February 2023").
UNRESOLVED: Final = Span(date.min, date.min, "unknown", "unknown")


@dataclass(frozen=True, slots=True)
class Context:
    """What a handler may know: the mention day and the sentence's tense ("past"/"future"/None)."""

    today: date
    tense: str | None


# ---------------------------------------------------------------------------------------------
# Calendar helpers


def week_of(day: date) -> tuple[date, date]:
    monday = day - timedelta(days=day.weekday())
    return monday, monday + timedelta(days=6)


def shift_month(year: int, month: int, by: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + by
    return index // 12, index % 12 + 1


def month_span(year: int, month: int, basis: str) -> Span:
    last = calendar.monthrange(year, month)[1]
    return Span(date(year, month, 1), date(year, month, last), "month", basis)


def year_span(year: int, basis: str) -> Span:
    return Span(date(year, 1, 1), date(year, 12, 31), "year", basis)


def day_span(day: date, basis: str = "relative") -> Span:
    return Span(day, day, "day", basis)


def add_months(day: date, by: int) -> date:
    year, month = shift_month(day.year, day.month, by)
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def unit_span(unit: str, anchor: date, basis: str = "relative") -> Span:
    """The whole day / week / month / year containing `anchor`."""
    if unit == "day":
        return day_span(anchor, basis)
    if unit == "week":
        first, last = week_of(anchor)
        return Span(first, last, "range", basis)
    if unit == "month":
        return month_span(anchor.year, anchor.month, basis)
    return year_span(anchor.year, basis)


def shift(anchor: date, unit: str, by: int) -> date:
    if unit == "day":
        return anchor + timedelta(days=by)
    if unit == "week":
        return anchor + timedelta(weeks=by)
    if unit == "month":
        return add_months(anchor, by)
    return add_months(anchor, 12 * by)


def part_of(span: Span, part: str) -> Span:
    """Beginning / middle / end of a week, month or year span, as a range."""
    first, last = span.first, span.last
    if span.precision == "month":
        cuts = {"begin": (1, 10), "middle": (11, 20), "end": (21, last.day)}
        lo, hi = cuts[part]
        return Span(first.replace(day=lo), first.replace(day=hi), "range", span.basis)
    if span.precision == "year":
        months = {"begin": (1, 3), "middle": (4, 9), "end": (10, 12)}[part]
        return Span(
            date(first.year, months[0], 1),
            month_span(first.year, months[1], span.basis).last,
            "range",
            span.basis,
        )
    offsets = {"begin": (0, 1), "middle": (2, 3), "end": (4, 6)}[part]
    return Span(
        first + timedelta(days=offsets[0]), first + timedelta(days=offsets[1]), "range", span.basis
    )


# ---------------------------------------------------------------------------------------------
# Numbers and names

_EN_NUMBERS: Final = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "couple": 2,
}  # fmt: skip
_CN_DIGITS: Final = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5,
                     "六": 6, "七": 7, "八": 8, "九": 9}  # fmt: skip
MONTHS: Final = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_MONTH_ABBREVIATIONS: Final = {"sept": 9, **{name[:3]: i + 1 for i, name in enumerate(MONTHS)}}
# Month names that are also common English words must be capitalised when no year follows.
_WORDY_MONTHS: Final = frozenset({"may", "march"})


def number(text: str) -> int | None:
    """An English or Chinese small number ("3", "three", "a couple of", "十二", "两")."""
    word = " ".join(text.lower().split())
    if word.isdigit():
        return int(word)
    word = word.removeprefix("a ").removesuffix(" of")
    if word in _EN_NUMBERS:
        return _EN_NUMBERS[word]
    if word and all(ch in _CN_DIGITS or ch == "十" for ch in word):
        if "十" not in word:
            return _CN_DIGITS[word] if len(word) == 1 else None
        tens, _, ones = word.partition("十")
        high = _CN_DIGITS.get(tens) if tens else 1
        low = _CN_DIGITS.get(ones) if ones else 0
        if high is None or low is None:
            return None
        return high * 10 + low
    return None


def month_number(name: str) -> int:
    key = name.lower().rstrip(".")
    if key in MONTHS:
        return MONTHS.index(key) + 1
    return _MONTH_ABBREVIATIONS[key]


def month_name_ok(spelled: str) -> bool:
    """The month words "may" and "march" count as months only when capitalised."""
    return spelled.lower() not in _WORDY_MONTHS or spelled[0].isupper()


def unit_of(word: str) -> str:
    word = word.lower()
    if word in ("day", "天", "日"):
        return "day"
    if word in ("week", "周", "星期", "礼拜", "禮拜"):
        return "week"
    if word in ("month", "月"):
        return "month"
    return "year"


# ---------------------------------------------------------------------------------------------
# Direction-dependent picks


def weekday_near(today: date, weekday: int, mode: str) -> date:
    """mode "after"/"before": nearest strictly after/before today; "this"/"next": in that week."""
    if mode == "after":
        return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    if mode == "before":
        return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
    monday = week_of(today)[0] + timedelta(weeks=1 if mode == "next" else 0)
    return monday + timedelta(days=weekday)


def mode_from_tense(tense: str | None) -> str:
    return {"future": "after", "past": "before"}.get(tense or "", "this")


def infer_year_for_day(today: date, month: int, day: int, tense: str | None) -> date | None:
    candidate = safe_date(today.year, month, day)
    if candidate is None:
        return safe_date(today.year + (1 if tense == "future" else 0), month, day)
    if tense == "future" and candidate < today:
        return safe_date(today.year + 1, month, day)
    if tense == "past" and candidate > today:
        return safe_date(today.year - 1, month, day)
    return candidate


def infer_year_for_month(today: date, month: int, mode: str, tense: str | None) -> int:
    if mode == "last" or (mode == "" and tense == "past" and month > today.month):
        return today.year if month < today.month else today.year - 1
    if mode == "next" or (mode == "" and tense == "future" and month < today.month):
        return today.year if month > today.month else today.year + 1
    return today.year


def quarter_span(year: int, quarter: int, basis: str) -> Span:
    """Calendar quarter `quarter` (1–4) of `year`, as a range of its three months."""
    first_month = 3 * (quarter - 1) + 1
    return Span(
        date(year, first_month, 1), month_span(year, first_month + 2, basis).last, "range", basis
    )


def relative_quarter(today: date, offset: int) -> Span:
    """This / last / next quarter relative to `today`."""
    index = today.year * 4 + (today.month - 1) // 3 + offset
    return quarter_span(index // 4, index % 4 + 1, "relative")


def part_of_quarter(span: Span, part: str) -> Span:
    """The first, middle or last month of a quarter."""
    month = {"begin": 0, "middle": 1, "end": 2}[part]
    one = month_span(span.first.year, span.first.month + month, span.basis)
    return Span(one.first, one.last, "range", span.basis)


def relative_unit(today: date, unit: str, offset: int) -> Span:
    """This / last / next week, weekend, month or year relative to `today`."""
    if unit == "weekend":
        monday = week_of(today)[0] + timedelta(weeks=offset)
        return Span(monday + timedelta(days=5), monday + timedelta(days=6), "range", "relative")
    return unit_span(unit, shift(today, unit, offset))
