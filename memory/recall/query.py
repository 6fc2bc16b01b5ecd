"""The limits every search takes: its query's length and the number of hits asked for."""

from __future__ import annotations

from memory.errors import Invalid

MAX_QUERY_CHARS = 4000


def validate_query(query: str) -> str:
    if len(query) > MAX_QUERY_CHARS:
        raise Invalid(
            f"query is limited to {MAX_QUERY_CHARS} characters",
            code="query_too_long",
            details={"length": len(query), "limit": MAX_QUERY_CHARS},
        )
    return query


def validate_limit(limit: int | None, *, default: int, maximum: int = 20) -> int:
    value = default if limit is None else limit
    if not 1 <= value <= maximum:
        raise Invalid(f"limit must be 1–{maximum}", code="invalid_limit", details={"limit": limit})
    return value
