"""Times in requests go on in UTC, whatever offset ISO 8601 allowed the client to write."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("offset", ["-21:28", "+18:00", "+05:30"])
def test_an_offset_postgresql_cannot_store_is_read_as_its_utc_time(owner, offset):
    response = owner.get("/ns/proj/events", happened_from=f"2023-02-17T13:27:20{offset}")

    assert response.status_code == 200, response.content
    assert response.json()["events"] == []


def test_a_time_whose_utc_form_is_before_year_one_is_refused(owner):
    response = owner.get("/ns/proj/events", happened_from="0001-01-01T00:00+14:00")

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "validation_error"


@pytest.mark.parametrize("value", ["1700000000", "1700000000000", "17000", "yesterday"])
def test_a_query_time_that_is_not_iso_8601_is_refused(owner, value):
    response = owner.get("/ns/proj/events", happened_from=value)

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "validation_error"
    assert "ISO 8601" in response.content.decode()


@pytest.mark.parametrize("value", [1700000000, 1700000000.5, True])
def test_a_number_is_not_read_as_a_unix_time_in_a_turn(owner, value):
    from memory.models import Turn

    body = {
        "session_id": "s1",
        "receipt_id": "r-number-time",
        "messages": [{"role": "user", "content": "hello", "created_at": value}],
    }
    response = owner.post("/ns/proj/turns", body)

    assert response.status_code == 422, response.content
    assert response.json()["error"]["code"] == "validation_error"
    assert Turn.objects.count() == 0


def test_iso_8601_dates_and_times_are_still_accepted(owner):
    for value in ("2026-05-01", "2026-05-01T09:30:00+02:00", "2026-05-01 09:30:00Z"):
        response = owner.get("/ns/proj/events", happened_from=value)
        assert response.status_code == 200, (value, response.content)
