"""Whether the model proxy runs the evidence loop itself (docs/PROXY.md, "The evidence loop in
the proxy"): `memory` adds StrataGate's memory tools to each request and answers the model's
memory calls in the proxy (the agent never sees them); `off` forwards the agent's tools only."""

from __future__ import annotations

TOOLS_OFF = "off"
TOOLS_MEMORY = "memory"
TOOLS_MODES = (TOOLS_OFF, TOOLS_MEMORY)
TOOLS_DEFAULT = TOOLS_OFF
# Memory rounds the proxy runs for one answer at most before it returns what the model said.
TOOLS_MAX_ROUNDS = 6


def validate_tools_mode(value: object) -> str:
    """`off` or `memory` (case and surrounding spaces ignored); ValueError otherwise."""
    text = value.strip().lower() if isinstance(value, str) else None
    if text not in TOOLS_MODES:
        shown = value[:40] if isinstance(value, str) else value
        raise ValueError(f"proxy tools must be 'off' or 'memory', got {shown!r}")
    return text
