"""A setting or header that takes one of a few words (`layered` | `native`, `off` | `memory`)."""

from __future__ import annotations

from collections.abc import Sequence


def validate_choice(value: object, choices: Sequence[str], what: str) -> str:
    """`value` as one of `choices` (case and surrounding spaces ignored); ValueError naming
    `what` and the choices otherwise."""
    text = value.strip().lower() if isinstance(value, str) else ""
    if text not in choices:
        shown = value[:40] if isinstance(value, str) else value
        allowed = " or ".join(f"'{c}'" for c in choices)
        raise ValueError(f"{what} must be {allowed}, got {shown!r}")
    return text
