"""Occurrence-time resolution against the source message's time (SPEC §5.2)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from memory.engine.temporal import TemporalResolution, resolve_temporal

SAT_6_MAY_2023 = datetime(2023, 5, 6, 13, 56, tzinfo=UTC)  # a Saturday
FRI_9_JUNE_2023 = datetime(2023, 6, 9, 10, 0, tzinfo=UTC)  # a Friday
SHANGHAI = ZoneInfo("Asia/Shanghai")
FRI_9_JUNE_2023_SH = datetime(2023, 6, 9, 10, 0, tzinfo=SHANGHAI)


def resolve(
    text: str, when: datetime = SAT_6_MAY_2023, default: str = "unknown"
) -> TemporalResolution:
    return resolve_temporal(text, mentioned_at=when, default_status=default)


def local_days(result: TemporalResolution, when: datetime) -> tuple[date, date]:
    assert result.happened_start is not None and result.happened_end is not None
    zone = when.tzinfo
    return result.happened_start.astimezone(zone).date(), result.happened_end.astimezone(
        zone
    ).date()


# (text, mentioned_at, first day, last day, precision, basis, status, original_text)
CASES = [
    # SPEC §5.2: "next week" said on Saturday 6 May 2023 → 8–14 May (Monday-start week).
    ("Finish the prototype next week", SAT_6_MAY_2023, date(2023, 5, 8), date(2023, 5, 14),
     "range", "relative", "planned", "next week"),
    # "last week" said on Friday 9 June 2023 → 29 May – 4 June.
    ("We shipped it last week", FRI_9_JUNE_2023, date(2023, 5, 29), date(2023, 6, 4),
     "range", "relative", "occurred", "last week"),
    ("yesterday I met Bob", SAT_6_MAY_2023, date(2023, 5, 5), date(2023, 5, 5),
     "day", "relative", "occurred", "yesterday"),
    ("Let's talk tomorrow", SAT_6_MAY_2023, date(2023, 5, 7), date(2023, 5, 7),
     "day", "relative", "planned", "tomorrow"),
    ("I went there 3 days ago", SAT_6_MAY_2023, date(2023, 5, 3), date(2023, 5, 3),
     "day", "relative", "occurred", "3 days ago"),
    ("two weeks ago", SAT_6_MAY_2023, date(2023, 4, 17), date(2023, 4, 23),
     "range", "relative", "occurred", "two weeks ago"),
    ("in 3 days", SAT_6_MAY_2023, date(2023, 5, 9), date(2023, 5, 9),
     "day", "relative", "planned", "in 3 days"),
    ("in two weeks", SAT_6_MAY_2023, date(2023, 5, 15), date(2023, 5, 21),
     "range", "relative", "planned", "in two weeks"),
    ("last month", SAT_6_MAY_2023, date(2023, 4, 1), date(2023, 4, 30),
     "month", "relative", "occurred", "last month"),
    ("next month", SAT_6_MAY_2023, date(2023, 6, 1), date(2023, 6, 30),
     "month", "relative", "planned", "next month"),
    ("last year", SAT_6_MAY_2023, date(2022, 1, 1), date(2022, 12, 31),
     "year", "relative", "occurred", "last year"),
    ("next year", SAT_6_MAY_2023, date(2024, 1, 1), date(2024, 12, 31),
     "year", "relative", "planned", "next year"),
    ("next Tuesday", SAT_6_MAY_2023, date(2023, 5, 9), date(2023, 5, 9),
     "day", "relative", "planned", "next Tuesday"),
    ("last Friday", SAT_6_MAY_2023, date(2023, 5, 5), date(2023, 5, 5),
     "day", "relative", "occurred", "last Friday"),
    ("last Friday", FRI_9_JUNE_2023, date(2023, 6, 2), date(2023, 6, 2),
     "day", "relative", "occurred", "last Friday"),
    ("I will call her on Monday", SAT_6_MAY_2023, date(2023, 5, 8), date(2023, 5, 8),
     "day", "relative", "planned", "on Monday"),
    ("I called her on Monday", SAT_6_MAY_2023, date(2023, 5, 1), date(2023, 5, 1),
     "day", "relative", "occurred", "on Monday"),
    # explicit dates
    ("It happened on 7 May 2023", FRI_9_JUNE_2023, date(2023, 5, 7), date(2023, 5, 7),
     "day", "explicit", "occurred", "on 7 May 2023"),
    ("May 7, 2023", FRI_9_JUNE_2023, date(2023, 5, 7), date(2023, 5, 7),
     "day", "explicit", "occurred", "May 7, 2023"),
    ("release on 2023-05-07", SAT_6_MAY_2023, date(2023, 5, 7), date(2023, 5, 7),
     "day", "explicit", "planned", "on 2023-05-07"),
    ("We moved in May 2023", FRI_9_JUNE_2023, date(2023, 5, 1), date(2023, 5, 31),
     "month", "explicit", "occurred", "in May 2023"),
    ("That was in 2022", SAT_6_MAY_2023, date(2022, 1, 1), date(2022, 12, 31),
     "year", "explicit", "occurred", "in 2022"),
    ("on 7 May", FRI_9_JUNE_2023, date(2023, 5, 7), date(2023, 5, 7),
     "day", "inferred", "occurred", "on 7 May"),
    # deadlines
    ("Send the report by Friday", SAT_6_MAY_2023, date(2023, 5, 6), date(2023, 5, 12),
     "range", "relative", "planned", "by Friday"),
    ("before the end of the month", SAT_6_MAY_2023, date(2023, 5, 6), date(2023, 5, 31),
     "range", "relative", "planned", "before the end of the month"),
    # Chinese
    ("下周完成原型", SAT_6_MAY_2023, date(2023, 5, 8), date(2023, 5, 14),
     "range", "relative", "planned", "下周"),
    ("上周我们开了会", FRI_9_JUNE_2023, date(2023, 5, 29), date(2023, 6, 4),
     "range", "relative", "occurred", "上周"),
    ("昨天去了医院", SAT_6_MAY_2023, date(2023, 5, 5), date(2023, 5, 5),
     "day", "relative", "occurred", "昨天"),
    ("今天", SAT_6_MAY_2023, date(2023, 5, 6), date(2023, 5, 6),
     "day", "relative", "ongoing", "今天"),
    ("明天见", SAT_6_MAY_2023, date(2023, 5, 7), date(2023, 5, 7),
     "day", "relative", "planned", "明天"),
    ("前天", SAT_6_MAY_2023, date(2023, 5, 4), date(2023, 5, 4),
     "day", "relative", "occurred", "前天"),
    ("后天", SAT_6_MAY_2023, date(2023, 5, 8), date(2023, 5, 8),
     "day", "relative", "planned", "后天"),
    ("这周", FRI_9_JUNE_2023, date(2023, 6, 5), date(2023, 6, 11),
     "range", "relative", "ongoing", "这周"),
    ("本周", FRI_9_JUNE_2023, date(2023, 6, 5), date(2023, 6, 11),
     "range", "relative", "ongoing", "本周"),
    ("上个月", SAT_6_MAY_2023, date(2023, 4, 1), date(2023, 4, 30),
     "month", "relative", "occurred", "上个月"),
    ("下个月", SAT_6_MAY_2023, date(2023, 6, 1), date(2023, 6, 30),
     "month", "relative", "planned", "下个月"),
    ("去年", SAT_6_MAY_2023, date(2022, 1, 1), date(2022, 12, 31),
     "year", "relative", "occurred", "去年"),
    ("明年", SAT_6_MAY_2023, date(2024, 1, 1), date(2024, 12, 31),
     "year", "relative", "planned", "明年"),
    ("三天前", SAT_6_MAY_2023, date(2023, 5, 3), date(2023, 5, 3),
     "day", "relative", "occurred", "三天前"),
    ("3天前", SAT_6_MAY_2023, date(2023, 5, 3), date(2023, 5, 3),
     "day", "relative", "occurred", "3天前"),
    ("2023年5月7日发布", FRI_9_JUNE_2023, date(2023, 5, 7), date(2023, 5, 7),
     "day", "explicit", "occurred", "2023年5月7日"),
    ("上周五", FRI_9_JUNE_2023, date(2023, 6, 2), date(2023, 6, 2),
     "day", "relative", "occurred", "上周五"),
    ("月底前交付", SAT_6_MAY_2023, date(2023, 5, 6), date(2023, 5, 31),
     "range", "relative", "planned", "月底前"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "when", "first", "last", "precision", "basis", "status", "original"), CASES
)
def test_resolution_table(
    text: str,
    when: datetime,
    first: date,
    last: date,
    precision: str,
    basis: str,
    status: str,
    original: str,
) -> None:
    result = resolve(text, when)
    assert local_days(result, when) == (first, last)
    assert (result.precision, result.basis, result.status) == (precision, basis, status)
    assert result.original_text == original


def test_bounds_are_whole_local_days_returned_in_utc() -> None:
    result = resolve("下周", FRI_9_JUNE_2023_SH)
    assert result.happened_start == datetime(2023, 6, 12, tzinfo=SHANGHAI).astimezone(UTC)
    assert result.happened_end == datetime.combine(
        date(2023, 6, 18), time.max, tzinfo=SHANGHAI
    ).astimezone(UTC)
    assert result.happened_start.tzinfo == UTC
    assert result.happened_start == datetime(2023, 6, 11, 16, 0, tzinfo=UTC)


def test_relative_words_follow_the_message_timezone_not_utc() -> None:
    # 23:30 on Sunday 7 May in UTC-5 is already Monday in UTC: "yesterday" is still Saturday.
    late_sunday = datetime(2023, 5, 7, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert local_days(resolve("yesterday", late_sunday), late_sunday) == (
        date(2023, 5, 6),
        date(2023, 5, 6),
    )


def test_no_temporal_wording_gives_unknown_and_no_dates() -> None:
    assert resolve("Use npm for this project") == TemporalResolution(
        None, None, None, "unknown", "unknown", "unknown"
    )


def test_no_temporal_wording_keeps_the_callers_default_status() -> None:
    assert resolve("I will write the docs", default="planned").status == "planned"


@pytest.mark.parametrize(
    ("text", "original", "status"),
    [
        ("We talked about it recently", "recently", "occurred"),
        ("Let's do it some day", "some day", "planned"),
        ("in a few weeks", "in a few weeks", "planned"),
        ("最近很忙", "最近", "occurred"),
        ("以后再说", "以后", "planned"),
        ("on 30 February 2023", "30 February 2023", "unknown"),
    ],
)
def test_wording_without_a_date_is_kept_with_happened_empty(
    text: str, original: str, status: str
) -> None:
    result = resolve(text)
    assert result.original_text == original
    assert result.happened_start is None and result.happened_end is None
    assert (result.precision, result.basis, result.status) == ("unknown", "unknown", status)


def test_cancelled_default_wins_over_future_time() -> None:
    result = resolve("The meeting next week is cancelled", default="cancelled")
    assert result.status == "cancelled"
    assert local_days(result, SAT_6_MAY_2023) == (date(2023, 5, 8), date(2023, 5, 14))


def test_planned_default_prefers_the_future_expression() -> None:
    text = "Yesterday we agreed to ship next week"
    assert resolve(text, default="planned").original_text == "next week"
    assert resolve(text).original_text == "Yesterday"


def test_clock_time_makes_an_instant() -> None:
    result = resolve("tomorrow at 3pm")
    assert result.precision == "instant"
    assert result.happened_start == result.happened_end == datetime(2023, 5, 7, 15, tzinfo=UTC)


def test_may_the_verb_is_not_a_month() -> None:
    assert resolve("may I ask something").original_text is None


def test_same_input_same_output_and_never_the_clock() -> None:
    assert resolve("next week") == resolve("next week")
    far_past = datetime(1999, 12, 31, 12, tzinfo=UTC)
    assert local_days(resolve("tomorrow", far_past), far_past) == (
        date(2000, 1, 1),
        date(2000, 1, 1),
    )


def test_naive_mentioned_at_is_rejected() -> None:
    with pytest.raises(ValueError):
        resolve_temporal("today", mentioned_at=datetime(2023, 5, 6), default_status="unknown")


def test_unknown_default_status_is_rejected() -> None:
    with pytest.raises(ValueError):
        resolve_temporal("today", mentioned_at=SAT_6_MAY_2023, default_status="done")


@pytest.mark.parametrize(
    ("text", "first_day", "status"),
    [
        # "planned"/"scheduled" arrange something ahead: not past-tense verbs moving the year back.
        ("Our wedding is planned for October 12.", date(2023, 10, 12), "planned"),
        ("I planned a trip to Spain in September.", date(2023, 9, 1), "planned"),
        ("The review is scheduled for 2 June.", date(2023, 6, 2), "planned"),
        # an ordinary past verb still does
        ("We visited Spain in September.", date(2022, 9, 1), "occurred"),
    ],
)
def test_arranging_is_not_the_past(text: str, first_day: date, status: str) -> None:
    result = resolve(text)
    assert local_days(result, SAT_6_MAY_2023)[0] == first_day
    assert result.status == status


def test_in_n_days_in_a_past_sentence_is_a_duration() -> None:
    assert resolve("Rome wasn't built in a day.").happened_start is None
    assert resolve("We built it in two weeks.").happened_start is None
    ahead = resolve("We'll ship in two weeks.")
    assert local_days(ahead, SAT_6_MAY_2023)[0] == date(2023, 5, 15)
