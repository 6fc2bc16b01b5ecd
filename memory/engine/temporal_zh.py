"""The Chinese handlers of `memory.engine.temporal_patterns`' rules: a match of Chinese
temporal wording ("2023年5月8日", "下周三", "上个月底", "两周内", "三天前") → a `Span` of local
dates relative to the mention day. The rules themselves stay in one table
(`temporal_patterns.RULES`), in the order they are tried."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Final

from memory.engine.temporal_calendar import (
    UNRESOLVED,
    Context,
    Span,
    day_span,
    infer_year_for_day,
    infer_year_for_month,
    mode_from_tense,
    month_span,
    number,
    part_of,
    relative_unit,
    safe_date,
    shift,
    unit_of,
    unit_span,
    week_of,
    weekday_near,
    year_span,
)

_CN_WEEKDAYS: Final = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
CN_OFFSETS: Final = {"上上": -2, "上": -1, "下下": 2, "下": 1, "这": 0, "本": 0, "今": 0}


def zh_within(m: re.Match[str], ctx: Context) -> Span | None:
    """ "两周内", "三天之内": from today to that far ahead."""
    count = cn_number(m, 1)
    if count is None:
        return None
    return Span(ctx.today, shift(ctx.today, unit_of(m.group(2)), count), "range", "relative")


def cn_number(m: re.Match[str], group: int) -> int | None:
    return number(m.group(group))


def zh_ymd(m: re.Match[str], ctx: Context) -> Span | None:
    month, day = cn_number(m, 2), cn_number(m, 3)
    found = safe_date(int(m.group(1)), month, day) if month and day else None
    return day_span(found, "explicit") if found else UNRESOLVED


def zh_ym(m: re.Match[str], ctx: Context) -> Span | None:
    month = cn_number(m, 2)
    return month_span(int(m.group(1)), month, "explicit") if month and 1 <= month <= 12 else None


def zh_year(m: re.Match[str], ctx: Context) -> Span | None:
    year = int(m.group(1))
    return year_span(year, "explicit") if 1900 <= year <= 2200 else None


def zh_md(m: re.Match[str], ctx: Context) -> Span | None:
    month, day = cn_number(m, 1), cn_number(m, 2)
    found = infer_year_for_day(ctx.today, month, day, ctx.tense) if month and day else None
    return day_span(found, "inferred") if found else UNRESOLVED


def zh_named_month_part(m: re.Match[str], ctx: Context) -> Span | None:
    """ "六月底", "3月初": part of a named month."""
    month = cn_number(m, 1)
    if not month or not 1 <= month <= 12:
        return None
    year = infer_year_for_month(ctx.today, month, "", ctx.tense)
    return part_of(month_span(year, month, "inferred"), ZH_PARTS[m.group(2)])


def zh_month(m: re.Match[str], ctx: Context) -> Span | None:
    month = cn_number(m, 1)
    if not month or not 1 <= month <= 12:
        return None
    return month_span(infer_year_for_month(ctx.today, month, "", ctx.tense), month, "inferred")


ZH_DAYS: Final = {
    "大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "今天": 0, "今日": 0,
    "今晚": 0, "今早": 0, "今儿": 0, "明天": 1, "明日": 1, "明晚": 1, "明早": 1, "后天": 2,
    "大后天": 3,
}  # fmt: skip


def zh_day(m: re.Match[str], ctx: Context) -> Span | None:
    return day_span(ctx.today + timedelta(days=ZH_DAYS[m.group(0)]))


def zh_week(m: re.Match[str], ctx: Context) -> Span | None:
    offset = CN_OFFSETS[m.group(1)]
    if m.group(2):
        monday = week_of(ctx.today)[0] + timedelta(weeks=offset)
        return day_span(monday + timedelta(days=zh_weekday(m.group(2))))
    return relative_unit(ctx.today, "week", offset)


def zh_weekday(token: str) -> int:
    return _CN_WEEKDAYS[token] if token in _CN_WEEKDAYS else int(token) - 1


def zh_bare_weekday(m: re.Match[str], ctx: Context) -> Span | None:
    weekday = zh_weekday(m.group(1))
    return day_span(weekday_near(ctx.today, weekday, mode_from_tense(ctx.tense)))


def zh_weekend(m: re.Match[str], ctx: Context) -> Span | None:
    return relative_unit(ctx.today, "weekend", CN_OFFSETS.get(m.group(1) or "这", 0))


def zh_month_rel(m: re.Match[str], ctx: Context) -> Span | None:
    return relative_unit(ctx.today, "month", CN_OFFSETS[m.group(1)])


def zh_month_rel_day(m: re.Match[str], ctx: Context) -> Span | None:
    """ "下个月15号": a day of the month before or after this one."""
    month = relative_unit(ctx.today, "month", CN_OFFSETS[m.group(1)]).first
    day = cn_number(m, 2)
    found = safe_date(month.year, month.month, day) if day else None
    return day_span(found) if found else UNRESOLVED


ZH_YEARS: Final = {
    "大前年": -3,
    "前年": -2,
    "去年": -1,
    "今年": 0,
    "明年": 1,
    "后年": 2,
    "大后年": 3,
}
ZH_PARTS: Final = {"底": "end", "末": "end", "初": "begin", "中": "middle"}


def zh_year_rel(m: re.Match[str], ctx: Context) -> Span | None:
    return relative_unit(ctx.today, "year", ZH_YEARS[m.group(0)])


def zh_month_part(m: re.Match[str], ctx: Context) -> Span | None:
    span = relative_unit(ctx.today, "month", CN_OFFSETS.get(m.group(1) or "这", 0))
    return part_of(span, ZH_PARTS[m.group(2)])


def zh_year_part(m: re.Match[str], ctx: Context) -> Span | None:
    span = relative_unit(ctx.today, "year", ZH_YEARS.get(m.group(1) or "今年", 0))
    return part_of(span, ZH_PARTS[m.group(2)])


def zh_ago(m: re.Match[str], ctx: Context) -> Span | None:
    count = cn_number(m, 1)
    if count is None:
        return None
    unit = unit_of(m.group(2))
    return unit_span(unit, shift(ctx.today, unit, -count))


def zh_later(m: re.Match[str], ctx: Context) -> Span | None:
    count = cn_number(m, 1)
    if count is None:
        return None
    unit = unit_of(m.group(2))
    return unit_span(unit, shift(ctx.today, unit, count))
