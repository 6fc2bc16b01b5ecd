"""Issue 29's twenty-sixth round (2026-12-07): deadlines said as tasks and people changing
roles. "下个月15号之前必须续签合同" ended on the last day of next month; "周五之前要把报告交给老板"
was a hand-over; "Amir is the new owner of the checkout service" gave Amir nothing."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memory.engine.temporal import resolve_temporal
from tests.engine.test_offline_round5_events import stored_events
from tests.engine.test_offline_round6 import _edges

MARCH_10 = datetime(2026, 3, 10, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("content", "first", "last", "status"),
    [
        ("下个月15号之前必须续签合同。", date(2026, 3, 10), date(2026, 4, 15), "planned"),
        ("这个月20号开会。", date(2026, 3, 20), date(2026, 3, 20), "planned"),
        ("上个月3号我们上线了。", date(2026, 2, 3), date(2026, 2, 3), "occurred"),
    ],
)
def test_a_day_of_this_next_or_last_month(
    content: str, first: date, last: date, status: str
) -> None:
    resolved = resolve_temporal(content, mentioned_at=MARCH_10, default_status="occurred")
    assert resolved.happened_start is not None and resolved.happened_end is not None
    assert (resolved.happened_start.date(), resolved.happened_end.date()) == (first, last)
    assert resolved.status == status


@pytest.mark.parametrize(
    ("content", "events"),
    [
        ("周五之前要把报告交给老板。", [("plan", "planned")]),
        ("记得把钥匙交给房东。", [("plan", "planned")]),
        ("短信通道现在交给小付。", [("change", "occurred")]),
    ],
)
def test_handing_something_in_is_a_task_and_handing_it_over_a_change(
    content: str, events: list[tuple[str, str]]
) -> None:
    assert stored_events(content) == events


def test_the_new_owner_of_a_service_owns_it() -> None:
    assert _edges("Amir is the new owner of the checkout service.") == {
        ("person:amir", "owns", "project:checkoutservice")
    }
