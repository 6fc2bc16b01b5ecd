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
