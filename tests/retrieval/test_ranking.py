"""RRF and the token-budget packer against SPEC §8.3 and §8.7 (numbers quoted from the spec)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.engine.ranking import RRF_K, pack_budget, rrf


def test_rrf_constant_is_60() -> None:
    # SPEC §8.3: "RRF with k = 60 (Σ w_r / (60 + rank))".
    assert RRF_K == 60


@pytest.mark.parametrize(
    ("rankings", "weights", "expected"),
    [
        # One ranking: 1/(60+1), 1/(60+2).
        ([["a", "b"]], None, [("a", 1 / 61), ("b", 1 / 62)]),
        # Two rankings agree on a, disagree on the rest.
        ([["a", "b"], ["a", "c"]], None, [("a", 2 / 61), ("b", 1 / 62), ("c", 1 / 62)]),
        # Weighted: w_r / (60 + rank).
        ([["a"], ["b"]], [2.0, 1.0], [("a", 2 / 61), ("b", 1 / 61)]),
        # A ranking with weight ≤ 0 is skipped.
        ([["a"], ["b"]], [1.0, 0.0], [("a", 1 / 61)]),
        # Empty input.
        ([], None, []),
    ],
)
def test_rrf_scores_are_weight_over_60_plus_rank(
    rankings: list[list[str]], weights: list[float] | None, expected: list[tuple[str, float]]
) -> None:
    fused = rrf(rankings, weights)
    assert [k for k, _ in fused] == [k for k, _ in expected]
    for (_, got), (_, want) in zip(fused, expected, strict=True):
        assert got == pytest.approx(want)


def test_rrf_equal_scores_and_equal_best_ranks_fall_back_to_id() -> None:
    # notes Appendix A: an RRF tie puts alpha before beta by id.
    fused = rrf([["beta", "alpha"], ["alpha", "beta"]])
    assert fused[0][1] == fused[1][1]
    assert [k for k, _ in fused] == ["alpha", "beta"]


def test_rrf_equal_scores_prefer_the_better_best_single_rank_over_id() -> None:
    # With k = 0 the scores are exact: z = 1/1 (best rank 1), a = 1/2 + 1/2 (best rank 2).
    fused = rrf([["z"], ["q", "a"], ["r", "a"]], k=0)
    order = [k for k, _ in fused]
    assert dict(fused)["z"] == dict(fused)["a"] == 1.0
    assert order.index("z") < order.index("a")  # SPEC §8.3: "ties by best single rank, then id"


def test_rrf_counts_a_repeated_item_once_per_ranking() -> None:
    # The repeat adds nothing; positions stay positions in the list as given.
    assert rrf([["a", "a", "b"]]) == [("a", 1 / 61), ("b", 1 / 63)]


def test_rrf_needs_one_weight_per_ranking() -> None:
    with pytest.raises(ValueError):
        rrf([["a"], ["b"]], [1.0])


@given(st.lists(st.lists(st.integers(0, 30), max_size=12, unique=True), max_size=4))
def test_rrf_is_sorted_and_covers_every_item(rankings: list[list[int]]) -> None:
    fused = rrf(rankings)
    assert {k for k, _ in fused} == {i for r in rankings for i in r}
    scores = [s for _, s in fused]
    assert scores == sorted(scores, reverse=True)


def test_packer_adds_in_order_while_the_total_stays_within_budget() -> None:
    # SPEC §8.7: "added in rank order while the running token estimate stays ≤ 900".
    packed = pack_budget([400, 400, 50, 10], cost=lambda c: c, budget=900, used=90)
    assert packed.items == [400, 400]
    assert packed.used == 890
    assert packed.dropped == 2


def test_packer_never_inverts_rank_order_by_default_but_can_fill_gaps() -> None:
    items = [500, 500, 5]
    assert pack_budget(items, cost=lambda c: c, budget=900).items == [500]
    filled = pack_budget(items, cost=lambda c: c, budget=900, stop_at_first_overflow=False)
    assert filled.items == [500, 5]


def test_packer_caps_the_number_of_items() -> None:
    # SPEC §8.7: at most 4 events.
    packed = pack_budget(list(range(1, 10)), cost=lambda _: 1, budget=900, max_items=4)
    assert packed.items == [1, 2, 3, 4]
    assert packed.used == 4


@given(st.lists(st.integers(0, 500), max_size=20), st.integers(0, 1000))
def test_packer_never_exceeds_the_budget(costs: list[int], budget: int) -> None:
    packed = pack_budget(costs, cost=lambda c: c, budget=budget)
    assert packed.used <= budget or not packed.items
    assert sum(packed.costs) == packed.used
