"""The proxy's evidence-loop mode and the receipt names its loop records."""

from __future__ import annotations

import pytest

from memory.engine.tools_mode import (
    TOOLS_MEMORY,
    TOOLS_OFF,
    proxy_receipt_id,
    proxy_receipt_turn,
    validate_tools_mode,
)

OPENER = "ab" * 32
EARLIER = "cd" * 32


def test_modes_are_read_leniently_and_anything_else_is_refused() -> None:
    assert validate_tools_mode(" Memory ") == TOOLS_MEMORY
    assert validate_tools_mode("OFF") == TOOLS_OFF
    for bad in ("on", "", None, 1):
        with pytest.raises(ValueError):
            validate_tools_mode(bad)


def test_a_loop_receipt_is_named_after_its_turn_and_read_back() -> None:
    receipt = proxy_receipt_id(OPENER, EARLIER, 2, 0)
    assert receipt == f"proxy-{OPENER[:12]}{EARLIER[:12]}-2-0"
    assert len(receipt) <= 200  # UsageReceipt.receipt_id
    assert proxy_receipt_turn(receipt) == (OPENER[:12], EARLIER[:12])
    # The same turn names the same receipt (a retried turn records it once).
    assert proxy_receipt_id(OPENER, EARLIER, 2, 0) == receipt


@pytest.mark.parametrize("other", ["call_use", "proxy-xyz-1-0", f"proxy-{OPENER[:24]}-a-0", ""])
def test_other_receipt_ids_name_no_turn(other: str) -> None:
    assert proxy_receipt_turn(other) is None
