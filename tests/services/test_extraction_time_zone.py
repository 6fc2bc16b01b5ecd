"""Relative days resolve in the installation's time zone (STRATAGATE_TIME_ZONE), not in UTC."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django.utils import timezone

from memory.models import Event
from tests.conftest import turn_body

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("zone", "said_at_utc", "local_day"),
    [
        # 23:30 on 10 March in New York is 03:30 UTC on the 11th: UTC's "tomorrow" is the 12th.
        ("America/New_York", datetime(2026, 3, 11, 3, 30, tzinfo=UTC), date(2026, 3, 11)),
        # 00:30 on 11 March in Shanghai is 16:30 UTC on the 10th: UTC's "tomorrow" is the 11th.
        ("Asia/Shanghai", datetime(2026, 3, 10, 16, 30, tzinfo=UTC), date(2026, 3, 12)),
    ],
)
def test_tomorrow_is_the_day_after_the_local_date(
    settings, owner, drain, zone, said_at_utc, local_day
):
    settings.TIME_ZONE = zone
    for n in range(1, 7):
        body = turn_body(n, when=said_at_utc)
        if n == 1:
            body["messages"][0]["content"] = "I will call the dentist tomorrow."
        assert owner.post("/ns/proj/turns", body).status_code == 201
    drain()
    event = Event.objects.get(title__icontains="dentist")
    assert event.temporal_status == "planned"
    assert event.happened_start is not None and event.happened_end is not None
    assert timezone.localtime(event.happened_start).date() == local_day
    assert timezone.localtime(event.happened_end).date() == local_day
