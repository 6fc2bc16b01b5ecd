"""How a proxied request's earlier turns reach the model (docs/PROXY.md, "Layered history"):
`layered` sends each sealed, ready block at its displayed level (SPEC §4) in place of its
messages; `native` forwards the history exactly as the agent sent it."""

from __future__ import annotations

from memory.engine.choice import validate_choice

HISTORY_LAYERED = "layered"
HISTORY_NATIVE = "native"
HISTORY_MODES = (HISTORY_LAYERED, HISTORY_NATIVE)
HISTORY_DEFAULT = HISTORY_LAYERED


def validate_history_mode(value: object) -> str:
    """`layered` or `native` (case and surrounding spaces ignored); ValueError otherwise."""
    return validate_choice(value, HISTORY_MODES, "proxy history")
