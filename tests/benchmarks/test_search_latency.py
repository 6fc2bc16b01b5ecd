"""benchmarks/search_latency.py's growth-curve mode: sizes parsed strictly, p95 per size."""

from __future__ import annotations

import argparse

import pytest
import search_latency


def test_sizes_are_a_comma_separated_list_of_counts():
    assert search_latency.sizes_arg("10000,100000") == [10_000, 100_000]
    for bad in ("", "ten", "50", "1000,x"):
        with pytest.raises(argparse.ArgumentTypeError):
            search_latency.sizes_arg(bad)


def _run(p95: float) -> dict:
    row = {"p50_ms": p95 / 2, "p95_ms": p95}
    return {
        "in_process": {"search_events": row, "context": {**row, "p95_ms": p95 * 3}},
        "baseline": {"rank_bm25 get_top_n(n=6)": {**row, "p95_ms": p95 * 10}},
    }


def test_the_growth_curve_gives_each_operation_p95_per_size_and_database():
    curve = search_latency.growth(
        {10_000: {"sqlite": _run(2.0)}, 100_000: {"sqlite": _run(5.0), "postgres": _run(9.0)}}
    )
    assert curve == {
        "10000": {"sqlite": {"search_events": 2.0, "context": 6.0, "rank_bm25": 20.0}},
        "100000": {
            "sqlite": {"search_events": 5.0, "context": 15.0, "rank_bm25": 50.0},
            "postgres": {"search_events": 9.0, "context": 27.0, "rank_bm25": 90.0},
        },
    }
