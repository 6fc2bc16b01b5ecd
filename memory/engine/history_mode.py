"""How a proxied request's earlier turns reach the model (docs/PROXY.md, "Layered history"):
`layered` sends each sealed, ready block at its displayed level (SPEC §4) in place of its
messages; `native` forwards the history exactly as the agent sent it."""

from __future__ import annotations

HISTORY_LAYERED = "layered"
HISTORY_NATIVE = "native"
HISTORY_MODES = (HISTORY_LAYERED, HISTORY_NATIVE)
HISTORY_DEFAULT = HISTORY_LAYERED


def validate_history_mode(value: object) -> str:
    """`layered` or `native` (case and surrounding spaces ignored); ValueError otherwise."""
    text = value.strip().lower() if isinstance(value, str) else None
    if text not in HISTORY_MODES:
        shown = value[:40] if isinstance(value, str) else value
        raise ValueError(f"proxy history must be 'layered' or 'native', got {shown!r}")
    return text
