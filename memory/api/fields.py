"""Field types shared by the API's request schemas."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator

# YYYY-MM-DD, then optionally a time: what docs/API.md promises ("ISO 8601").
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]|$)")


def _iso_8601_only(value: Any) -> Any:
    # Pydantic's lax mode reads 1700000000 (and "1700000000") as a Unix time in seconds or
    # milliseconds, whichever its size suggests: a client sending a number meant something else
    # and would get events from the wrong year without a word. Only ISO 8601 text is a time here.
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and _ISO_DATE.match(value.strip()):
        return value
    raise ValueError("expected an ISO 8601 date-time such as 2026-05-01T09:30:00+02:00")


def _utc_representable(value: datetime) -> datetime:
    # Every time is stored in UTC: 0001-01-01T00:00+14:00 is a valid ISO 8601 time whose UTC
    # form falls before year 1, which Python (and so both databases' adapters) cannot represent.
    # The UTC form is what goes on: PostgreSQL refuses offsets beyond ±15:59 (`-21:28`), which
    # ISO 8601 and Python allow.
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError("the time in UTC falls outside the years 1–9999") from exc


# An ISO 8601 datetime whose UTC form exists (naive ones are taken as UTC, docs/API.md).
ApiDatetime = Annotated[
    datetime, BeforeValidator(_iso_8601_only), AfterValidator(_utc_representable)
]
