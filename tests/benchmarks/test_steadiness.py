"""benchmarks/_common.steadiness: how steady the CPU was along a run, from fixed-work samples."""

from __future__ import annotations

import _common


def test_a_steady_machine_has_its_p95_at_its_median() -> None:
    cpu = _common.steadiness([4.0] * 100)
    assert cpu == {
        "chunk_p50_ms": 4.0,
        "chunk_p95_ms": 4.0,
        "p95_over_p50": 1.0,
        "slow_share": 0.0,
    }


def test_bursts_of_slow_running_show_in_the_ratio_and_the_slow_share() -> None:
    # 80 samples at full speed, 20 in a burst running at 60 % speed.
    cpu = _common.steadiness([4.0] * 80 + [6.5] * 20)
    assert cpu["chunk_p50_ms"] == 4.0
    assert cpu["chunk_p95_ms"] == 6.5
    assert cpu["p95_over_p50"] == 1.62
    assert cpu["slow_share"] == 0.2


def test_a_sample_is_a_positive_time() -> None:
    assert _common.fixed_work_ms() > 0
