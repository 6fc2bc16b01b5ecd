"""The temporal wording `memory.engine.temporal` recognises, English and Chinese, as rules.

A rule is a regular expression plus a handler that turns its match into a `Span` of local dates
relative to the mention day; a rule without a handler is *vague wording* ("recently", "以后"),
kept as the original text without a date. Deadline ("by Friday", "周五前"), since ("since May")
and time-of-day ("at 3pm", "下午3点") modifiers are applied afterwards by the resolver, so each
rule only names a period.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import time, timedelta
from typing import Final

from memory.engine.temporal_calendar import (
    UNRESOLVED,
    Context,
    Span,
    day_span,
    infer_year_for_day,
    infer_year_for_month,
    mode_from_tense,
    month_name_ok,
    month_number,
    month_span,
    number,
    part_of,
    part_of_quarter,
    quarter_span,
    relative_quarter,
    relative_unit,
    safe_date,
    shift,
    shift_month,
    unit_of,
    unit_span,
    weekday_near,
    year_span,
)
from memory.engine.temporal_zh import (
    CN_OFFSETS,
    ZH_DAYS,
    ZH_PARTS,
    ZH_YEARS,
    cn_number,
    zh_ago,
    zh_bare_weekday,
    zh_day,
    zh_later,
    zh_md,
    zh_month,
    zh_month_part,
    zh_month_rel,
    zh_month_rel_day,
    zh_named_month_part,
    zh_week,
    zh_weekend,
    zh_within,
    zh_year,
    zh_year_part,
    zh_year_rel,
    zh_ym,
    zh_ymd,
)

Handler = Callable[[re.Match[str], Context], Span | None]
# A handler returns None when the match is not temporal wording after all ("may" the verb), and
# UNRESOLVED when it is, but names no real date ("30 February 2023"): the wording is then kept.


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    handler: Handler | None  # None: vague wording, no date
    vague_status: str = "unknown"  # what vague wording implies: "occurred" or "planned"


_I = re.IGNORECASE
_EN_NUM = (
    r"(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
    r"twenty|thirty|(?:a\s+)?couple(?:\s+of)?)"
)
_CN_NUM = r"(\d{1,3}|[零〇一二两三四五六七八九十]{1,3})"
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "sept|jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec"
)
_MONTH = rf"({_MONTHS})"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ORD = r"(?:st|nd|rd|th)?"
_PARTS: Final = {
    "end": "end", "close": "end", "late": "end", "beginning": "begin", "start": "begin",
    "early": "begin", "middle": "middle", "mid": "middle",
}  # fmt: skip
_OFFSETS: Final = {
    "last": -1, "past": -1, "previous": -1, "this past": -1, "next": 1, "following": 1,
    "coming": 1, "this coming": 1, "this": 0, "current": 0, "the": 0,
}  # fmt: skip
# A preposition must introduce a bare year or month name ("in 2022", "by May").
_PREPOSITION_BEFORE = re.compile(
    r"\b(?:in|during|since|throughout|around|from|by|before|until|till|of|early|late|mid)[\s-]+$",
    _I,
)


def _preceded_by_preposition(match: re.Match[str]) -> bool:
    return bool(
        _PREPOSITION_BEFORE.search(match.string[max(0, match.start() - 16) : match.start()])
    )


def _int(match: re.Match[str], group: int) -> int:
    return int(match.group(group))


def _time(hour: int, minute: int) -> time | None:
    return time(hour, minute) if 0 <= hour < 24 and 0 <= minute < 60 else None


# ---------------------------------------------------------------------------------------------
# English handlers


def _iso(m: re.Match[str], ctx: Context) -> Span | None:
    day = safe_date(_int(m, 1), _int(m, 2), _int(m, 3))
    if day is None:
        return UNRESOLVED
    if m.group(4):
        at = _time(_int(m, 4), _int(m, 5))
        if at is not None:
            return Span(day, day, "instant", "explicit", at)
    return day_span(day, "explicit")


def _day_month_year(m: re.Match[str], ctx: Context) -> Span | None:
    day = safe_date(_int(m, 3), month_number(m.group(2)), _int(m, 1))
    return day_span(day, "explicit") if day else UNRESOLVED


def _month_day_year(m: re.Match[str], ctx: Context) -> Span | None:
    day = safe_date(_int(m, 3), month_number(m.group(1)), _int(m, 2))
    return day_span(day, "explicit") if day else UNRESOLVED


def _day_month(m: re.Match[str], ctx: Context) -> Span | None:
    if not month_name_ok(m.group(2)):
        return None
    day = infer_year_for_day(ctx.today, month_number(m.group(2)), _int(m, 1), ctx.tense)
    return day_span(day, "inferred") if day else UNRESOLVED


def _month_day(m: re.Match[str], ctx: Context) -> Span | None:
    if not month_name_ok(m.group(1)):
        return None
    day = infer_year_for_day(ctx.today, month_number(m.group(1)), _int(m, 2), ctx.tense)
    return day_span(day, "inferred") if day else UNRESOLVED


def _month_year(m: re.Match[str], ctx: Context) -> Span | None:
    span = month_span(_int(m, 3), month_number(m.group(2)), "explicit")
    part = _PARTS.get((m.group(1) or "").lower())
    return part_of(span, part) if part else span


def _year(m: re.Match[str], ctx: Context) -> Span | None:
    year = _int(m, 2)
    if not 1900 <= year <= 2200:
        return None
    part = _PARTS.get((m.group(1) or "").lower())
    if part is None and not _preceded_by_preposition(m):
        return None
    span = year_span(year, "explicit")
    return part_of(span, part) if part else span


def _month_name(m: re.Match[str], ctx: Context) -> Span | None:
    modifier = " ".join((m.group(1) or "").lower().split())
    spelled = m.group(2)
    if not modifier and not _preceded_by_preposition(m):
        return None
    if not month_name_ok(spelled):
        return None
    month = month_number(spelled)
    mode = modifier if modifier in ("last", "next", "this") else ""
    span = month_span(infer_year_for_month(ctx.today, month, mode, ctx.tense), month, "inferred")
    part = _PARTS.get(modifier)
    return part_of(span, part) if part else span


def _ordinal_day(m: re.Match[str], ctx: Context) -> Span | None:
    """ "due on the 14th", "by the 3rd", "十号之前": a day of this month, or of the next (the
    last) one when the sentence looks ahead (back) past it."""
    today, wanted = ctx.today, cn_number(m, 1)
    if not wanted or not 1 <= wanted <= 31:
        return None
    day = safe_date(today.year, today.month, wanted)
    if ctx.tense == "future" and (day is None or day < today):
        year, month = shift_month(today.year, today.month, 1)
        day = safe_date(year, month, wanted)
    elif ctx.tense == "past" and (day is None or day > today):
        year, month = shift_month(today.year, today.month, -1)
        day = safe_date(year, month, wanted)
    return day_span(day, "inferred") if day else UNRESOLVED


def _part_of_month(m: re.Match[str], ctx: Context) -> Span | None:
    """ "the end of June", "the beginning of next March": part of a named month."""
    if not month_name_ok(m.group(3)):
        return None
    month = month_number(m.group(3))
    mode = (m.group(2) or "").lower()
    span = month_span(infer_year_for_month(ctx.today, month, mode, ctx.tense), month, "inferred")
    return part_of(span, _PARTS[m.group(1).lower()])


def _today(m: re.Match[str], ctx: Context) -> Span | None:
    return day_span(ctx.today)


def _yesterday(m: re.Match[str], ctx: Context) -> Span | None:
    back = 2 if m.group(0).lower().startswith("the day before") else 1
    return day_span(ctx.today - timedelta(days=back))


def _tomorrow(m: re.Match[str], ctx: Context) -> Span | None:
    ahead = 2 if m.group(0).lower().startswith("the day after") else 1  # not "afternoon"
    return day_span(ctx.today + timedelta(days=ahead))


def _relative_unit(m: re.Match[str], ctx: Context) -> Span | None:
    modifier = " ".join(m.group(1).lower().split())
    unit = m.group(2).lower()
    span = relative_unit(ctx.today, unit, _OFFSETS[modifier])
    if unit == "weekend" and modifier == "this" and ctx.tense == "past" and span.first > ctx.today:
        # "The ledger service moved onto Fly.io this weekend", said on a Monday: the weekend
        # just gone, not the coming one.
        return relative_unit(ctx.today, unit, -1)
    return span


def _weekday(m: re.Match[str], ctx: Context) -> Span | None:
    modifier = " ".join((m.group(1) or "").lower().split())
    weekday = _WEEKDAYS.index(m.group(2).lower())
    mode = {
        "last": "before", "past": "before", "this past": "before", "next": "next",
        "this": "this", "coming": "after", "this coming": "after",
    }.get(modifier) or mode_from_tense(ctx.tense)  # fmt: skip
    return day_span(weekday_near(ctx.today, weekday, mode))


def _ago(m: re.Match[str], ctx: Context) -> Span | None:
    count = number(m.group(1))
    if count is None:
        return None
    unit = unit_of(m.group(2))
    return unit_span(unit, shift(ctx.today, unit, -count))


def _from_now(m: re.Match[str], ctx: Context) -> Span | None:
    count = number(m.group(1))
    if count is None:
        return None
    unit = unit_of(m.group(2))
    start = ctx.today + timedelta(days=1) if m.group(0).lower().endswith("tomorrow") else ctx.today
    return unit_span(unit, shift(start, unit, count))


def _in_n(m: re.Match[str], ctx: Context) -> Span | None:
    count = number(m.group(2))
    if count is None:
        return None
    if m.group(1).lower() == "in" and ctx.tense == "past":
        return None  # a duration in a past sentence ("built in a day"), not a point ahead
    unit = unit_of(m.group(3))
    target = shift(ctx.today, unit, count)
    if m.group(1).lower() == "within":
        return Span(ctx.today, target, "range", "relative")
    return unit_span(unit, target)


def _last_n(m: re.Match[str], ctx: Context) -> Span | None:
    count = number(m.group(2))
    if count is None:
        return None
    unit = unit_of(m.group(3))
    if m.group(1).lower() in ("next", "coming"):
        return Span(ctx.today, shift(ctx.today, unit, count), "range", "relative")
    return Span(shift(ctx.today, unit, -count), ctx.today, "range", "relative")


def _part_of_unit(m: re.Match[str], ctx: Context) -> Span | None:
    offset = _OFFSETS[(m.group(2) or "this").lower()]
    span = relative_unit(ctx.today, m.group(3).lower(), offset)
    return part_of(span, _PARTS[m.group(1).lower()])


def _quarter(m: re.Match[str], ctx: Context) -> Span | None:
    """ "the end of the quarter", "next quarter", 本季度末, 季末: a calendar quarter or a part."""
    said = m.groupdict()
    which = said.get("which") or said.get("which2") or ""
    offset = _OFFSETS.get(which.lower() or "this", CN_OFFSETS.get(which, 0))
    span = relative_quarter(ctx.today, offset)
    part = said.get("part") or said.get("part2")
    return (
        part_of_quarter(span, _PARTS.get(part.lower(), ZH_PARTS.get(part, "end"))) if part else span
    )


def _numbered_quarter(m: re.Match[str], ctx: Context) -> Span | None:
    """ "Q3", "Q1 2027": that quarter of the year said, else the next one of that number."""
    quarter = int(m.group(1))
    if m.group(2):
        return quarter_span(int(m.group(2)), quarter, "explicit")
    year = ctx.today.year
    if ctx.tense == "past" and quarter_span(year, quarter, "inferred").first > ctx.today:
        year -= 1  # "Our Q3 numbers were great", said in June: last year's
    elif ctx.tense != "past" and quarter_span(year, quarter, "inferred").last < ctx.today:
        year += 1
    return quarter_span(year, quarter, "inferred")


def _rule(name: str, pattern: str, handler: Handler | None, flags: int = 0) -> Rule:
    return Rule(name, re.compile(pattern, flags), handler)


def _vague(name: str, pattern: str, status: str, flags: int = 0) -> Rule:
    return Rule(name, re.compile(pattern, flags), None, status)


_UNIT = r"(day|week|month|year)s?"
_CN_UNIT = r"(?:个|個)?\s*(天|日|周|星期|礼拜|月|年)"
RULES: Final[tuple[Rule, ...]] = (
    # English, explicit
    _rule(
        "iso",
        r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T\s](\d{1,2}):(\d{2})(?::\d{2}(?:\.\d+)?)?)?(?!\d)",
        _iso,
    ),
    _rule(
        "d_m_y", rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH},?\s+(\d{{4}})\b", _day_month_year, _I
    ),
    _rule("m_d_y", rf"\b{_MONTH}\s+(\d{{1,2}}){_ORD},?\s+(\d{{4}})\b", _month_day_year, _I),
    _rule("d_m", rf"\b(\d{{1,2}}){_ORD}\s+(?:of\s+)?{_MONTH}(?![a-z])", _day_month, _I),
    _rule("m_d", rf"\b{_MONTH}\s+(\d{{1,2}}){_ORD}\b", _month_day, _I),
    _rule(
        "m_y", rf"\b(?:(early|mid|late)[\s-]+)?{_MONTH},?\s+(?:of\s+)?(\d{{4}})\b", _month_year, _I
    ),
    _rule("year", r"\b(?:(early|mid|late)[\s-]+)?(\d{4})\b(?![-/.:]\d)", _year, _I),
    _rule(
        "ordinal_day",
        r"\b(?:on|by|before|until|till|due)\s+the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?"
        rf"{_MONTH})",
        _ordinal_day,
        _I,
    ),
    _rule(
        "part_of_month",
        rf"\b(?:the\s+)?(end|close|beginning|start|middle)\s+of\s+(?:(this|last|next)\s+)?"
        rf"{_MONTH}(?![a-z])",
        _part_of_month,
        _I,
    ),
    _rule(
        "month_name",
        rf"\b(?:(this|last|next|early|mid|late)[\s-]+)?{_MONTH}(?![a-z])",
        _month_name,
        _I,
    ),
    # English, relative
    # "two weeks from today": before "today", which it holds.
    _rule("from_now", rf"\b{_EN_NUM}\s+{_UNIT}\s+from\s+(?:today|now|tomorrow)\b", _from_now, _I),
    _rule(
        "today",
        r"\b(?:earlier\s+|later\s+)?(?:today|tonight|this\s+(?:morning|afternoon|evening))\b",
        _today,
        _I,
    ),
    _rule(
        "yesterday",
        r"\b(?:the\s+day\s+before\s+yesterday|yesterday(?:\s+(?:morning|afternoon|evening))?"
        r"|last\s+night)\b",
        _yesterday,
        _I,
    ),
    _rule(
        "tomorrow",
        r"\b(?:the\s+day\s+after\s+tomorrow|tomorrow(?:\s+(?:morning|afternoon|evening|night))?)\b",
        _tomorrow,
        _I,
    ),
    _rule(
        "relative_unit",
        r"\b(this\s+past|this\s+coming|last|next|this|past|previous|following|coming|current)"
        r"\s+(week|weekend|month|year)\b",
        _relative_unit,
        _I,
    ),
    _rule(
        "weekday",
        r"\b(?:(this\s+past|this\s+coming|last|next|this|past|coming)\s+)?"
        r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
        _weekday,
        _I,
    ),
    _rule("ago", rf"\b{_EN_NUM}\s+{_UNIT}\s+ago\b", _ago, _I),
    _rule("in_n", rf"\b(in|within|after)\s+{_EN_NUM}\s+{_UNIT}(?:'?\s*time)?\b", _in_n, _I),
    _rule(
        "last_n",
        rf"\b(?:the\s+)?(last|past|previous|next|coming)\s+{_EN_NUM}\s+{_UNIT}\b",
        _last_n,
        _I,
    ),
    _rule(
        "part_of_unit",
        r"\b(?:the\s+)?(end|close|beginning|start|middle)\s+of\s+(?:the\s+)?"
        r"(?:(this|next|last|current)\s+)?(week|month|year)\b",
        _part_of_unit,
        _I,
    ),
    _rule(
        "quarter",
        # "the end of the quarter", "next quarter"; never "a quarter of our users".
        r"\b(?:(?:the\s+)?(?P<part>end|close|beginning|start|middle)\s+of\s+(?:the\s+)?"
        r"(?:(?P<which>this|next|last|current)\s+)?|(?P<which2>this|next|last|current)\s+)quarter\b",
        _quarter,
        _I,
    ),
    # "before Q3", "in Q1 2027"; "Our Q3 numbers" names a quarter's figures, not a time.
    _rule(
        "numbered_quarter",
        r"(?:(?<=\bin\s)|(?<=\bby\s)|(?<=\bbefore\s)|(?<=\buntil\s)|(?<=\bduring\s)"
        r"|(?<=\bafter\s)|(?<=\bfor\s)|(?<=\bsince\s)|(?<=\bof\s))Q([1-4])(?:\s+(20\d\d))?\b",
        _numbered_quarter,
    ),
    _vague(
        "vague_past",
        r"\b(?:recently|lately|the\s+other\s+day|a\s+while\s+(?:ago|back)|some\s+time\s+ago"
        r"|long\s+ago|(?:a\s+few|few|several|many|some)\s+(?:days|weeks|months|years)\s+ago"
        r"|years\s+ago|back\s+then|in\s+the\s+past|previously|when\s+I\s+was\s+(?:a\s+)?"
        r"(?:kid|child|teenager|young|little))\b",
        "occurred",
        _I,
    ),
    _vague(
        "vague_future",
        r"\b(?:soon|someday|some\s+day|one\s+day|eventually|in\s+the\s+(?:near\s+)?future"
        r"|in\s+(?:a\s+few|several|some)\s+(?:days|weeks|months|years)|at\s+some\s+point"
        r"|down\s+the\s+road|sooner\s+or\s+later)\b",
        "planned",
        _I,
    ),
    # Chinese, explicit
    _rule("zh_ymd", rf"(?<!\d)(\d{{4}})\s*年\s*{_CN_NUM}\s*月\s*{_CN_NUM}\s*[日号號]?", zh_ymd),
    _rule("zh_ym", rf"(?<!\d)(\d{{4}})\s*年\s*{_CN_NUM}\s*月份?", zh_ym),
    _rule("zh_year", r"(?<!\d)(\d{4})\s*年(?!代)", zh_year),
    _rule("zh_md", rf"(?<![\d年]){_CN_NUM}\s*月\s*{_CN_NUM}\s*[日号號]", zh_md),
    _rule(
        "zh_named_month_part", rf"(?<![\d年个個]){_CN_NUM}\s*月([底初中末])", zh_named_month_part
    ),
    # "十号之前": a day of the month said alone, before a deadline word or the clause's end.
    _rule(
        "zh_ordinal_day",
        rf"(?<![\d月年]){_CN_NUM}\s*[号號](?=\s*(?:之前|以前|前|截止|到期|那天|晚上|上午|下午|早上"
        r"|中午|[，。,.!！]|$))",
        _ordinal_day,
    ),
    _rule(
        "zh_month",
        rf"(?<![\d年个個]){_CN_NUM}\s*月份?(?![\d零〇一二两三四五六七八九十日号])",
        zh_month,
    ),
    # Chinese, relative
    _rule("zh_day", "|".join(sorted(ZH_DAYS, key=len, reverse=True)), zh_day),
    _rule(
        "zh_week",
        r"(上上|下下|上|下|这|本)(?:个|個)?(?:周|星期|礼拜|禮拜)(?!末)([一二三四五六日天1-7])?",
        zh_week,
    ),
    _rule("zh_bare_weekday", r"(?:周|星期|礼拜|禮拜)([一二三四五六日天])", zh_bare_weekday),
    _rule("zh_weekend", r"(上|下|这|本)?(?:个|個)?周末", zh_weekend),
    _rule(
        "zh_month_rel_day",
        rf"(上上|下下|上|下|这|本)(?:个|個)?月\s*{_CN_NUM}\s*[日号號]",
        zh_month_rel_day,
    ),
    _rule("zh_month_rel", r"(上上|下下|上|下|这|本)(?:个|個)?月(?![底初中末份])", zh_month_rel),
    _rule("zh_month_part", r"(上|下|这|本)?(?:个|個)?月([底初中末])", zh_month_part),
    _rule("zh_year_rel", "|".join(sorted(ZH_YEARS, key=len, reverse=True)), zh_year_rel),
    _rule("zh_year_part", r"(大前年|前年|去年|今年|明年|后年)?年([底初中末])", zh_year_part),
    _rule("zh_ago", rf"{_CN_NUM}\s*{_CN_UNIT}\s*(?:以前|之前|前)", zh_ago),
    _rule("zh_later", rf"{_CN_NUM}\s*{_CN_UNIT}\s*(?:以后|之后|后)", zh_later),
    _rule("zh_within", rf"{_CN_NUM}\s*{_CN_UNIT}\s*(?:之内|以内|内)", zh_within),
    _rule(
        # "本季度末", "季末"; never the 季中 of 一年四季中.
        "zh_quarter",
        r"(?P<which>上|下|这|本)?(?:个|個)?(?:季度(?P<part>末|底|初|中)|季(?P<part2>末|底))",
        _quarter,
    ),
    _vague(
        "zh_vague_past",
        r"最近|近来|前段时间|前阵子|前些日子|不久前|从前|过去|当时|那时候?|小时候",
        "occurred",
    ),
    _vague(
        "zh_vague_future", r"以后|将来|未来|改天|回头|迟早|早晚|有一天|不久以后|很快", "planned"
    ),
)
