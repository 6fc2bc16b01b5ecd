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


def view_saves(view_tokens: int, native_tokens: int) -> bool:
    """Whether a block's view is worth sending in place of the messages it stands for: only
    when it is shorter. A view that is not (L3 and L4 of plain chat are the messages with a
    role label each) would cost tokens and detail; those turns go as the agent sent them."""
    return view_tokens < native_tokens
