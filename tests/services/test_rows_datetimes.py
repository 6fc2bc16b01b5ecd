"""The plain-SQL reads convert SQLite's timestamps exactly as the ORM does (memory.models.rows)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from memory.models import Event
from memory.models.rows import _conversion, columns_of, read_values

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's converter")
@pytest.mark.parametrize(
    "raw",
    [
        None,
        "2026-12-06 09:28:05",
        "2026-12-06 09:28:05.123456",
        "2026-12-06T09:28:05.5+02:00",
        "2026-12-06 09:28:05Z",
        datetime(2026, 12, 6, 9, 28, 5),
    ],
)
def test_the_fast_datetime_converter_gives_what_django_gives(raw: object) -> None:
    field = Event._meta.get_field("mentioned_at")
    column, converters = _conversion(field, "e")
    ours = raw
    for convert in converters:
        ours = convert(ours, column, connection)
    django = connection.ops.convert_datetimefield_value(raw, column, connection)
    assert ours == django
    assert getattr(ours, "tzinfo", None) == getattr(django, "tzinfo", None)


def test_read_values_returns_aware_datetimes_equal_to_the_orms(owner, drain) -> None:
    from tests.conftest import turn_body

    for n in range(1, 7):
        body = turn_body(n, user="We decided to use PostgreSQL for storage." if n == 1 else None)
        assert owner.post("/ns/proj/turns", body).status_code == 201
    drain()
    event = Event.objects.get(title__icontains="PostgreSQL")
    ((read,),) = read_values(
        columns_of(Event, ["mentioned_at"], "e"),
        f"FROM {Event._meta.db_table} e WHERE e.id = %s",
        [event.pk],
    )
    assert read == event.mentioned_at and read.utcoffset() == timedelta(0)
    assert read.astimezone(UTC) == event.mentioned_at
