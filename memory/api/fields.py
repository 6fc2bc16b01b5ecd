"""Field types shared by the API's request schemas."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator


def _utc_representable(value: datetime) -> datetime:
    # Every time is stored in UTC: 0001-01-01T00:00+14:00 is a valid ISO 8601 time whose UTC
    # form falls before year 1, which Python (and so both databases' adapters) cannot represent.
    # The UTC form is what goes on: PostgreSQL refuses offsets beyond ±15:59 (`-21:28`), which
    # ISO 8601 and Python allow.
    if value.tzinfo is not None:
        try:
            return value.astimezone(UTC)
        except OverflowError as exc:
            raise ValueError("the time in UTC falls outside the years 1–9999") from exc
    return value


# A datetime whose UTC form exists (naive ones are taken as UTC, docs/API.md).
ApiDatetime = Annotated[datetime, AfterValidator(_utc_representable)]
