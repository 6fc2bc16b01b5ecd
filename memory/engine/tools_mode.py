"""Whether the model proxy runs the evidence loop itself (docs/PROXY.md, "The evidence loop in
the proxy"): `memory` adds StrataGate's memory tools to each request and answers the model's
memory calls in the proxy (the agent never sees them); `off` forwards the agent's tools only."""

from __future__ import annotations

import re

from memory.engine.choice import validate_choice

TOOLS_OFF = "off"
TOOLS_MEMORY = "memory"
TOOLS_MODES = (TOOLS_OFF, TOOLS_MEMORY)
TOOLS_DEFAULT = TOOLS_OFF
# Memory rounds the proxy runs for one answer at most before it returns what the model said.
TOOLS_MAX_ROUNDS = 6


def validate_tools_mode(value: object) -> str:
    """`off` or `memory` (case and surrounding spaces ignored); ValueError otherwise."""
    return validate_choice(value, TOOLS_MODES, "proxy tools")


# A receipt the proxy's loop records is named after its turn: the first 12 hex digits of the
# turn's user message digest and of its history's, then the round and the call's place in it.
# A retried turn records the same receipt; the usage audit finds the exchange from the name.
_RECEIPT = re.compile(r"^proxy-([0-9a-f]{12})([0-9a-f]{12})-\d+-\d+$")
TURN_PREFIX = 12


def proxy_receipt_id(opener_digest: str, earlier_digest: str, round_number: int, index: int) -> str:
    opener, earlier = opener_digest[:TURN_PREFIX], earlier_digest[:TURN_PREFIX]
    return f"proxy-{opener}{earlier}-{round_number}-{index}"


def proxy_receipt_turn(receipt_id: str) -> tuple[str, str] | None:
    """(opener digest prefix, earlier digest prefix) of a receipt the proxy's loop recorded."""
    found = _RECEIPT.match(receipt_id)
    return (found.group(1), found.group(2)) if found else None
