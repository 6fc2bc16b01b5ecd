"""The import decider's answer model: forgiving spelling, strict targets (SPEC §11.3)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.prompts.import_decision import (
    ImportDecisionOut,
    PromptMatch,
    build_user_prompt,
)


@pytest.mark.parametrize(
    ("given", "action"),
    [(" SUPERSEDE ", "supersede"), ("Merge", "merge"), ("delete", "ignore"), (3, "ignore")],
)
def test_actions_are_normalised_and_unknown_ones_ignore(given, action):
    assert ImportDecisionOut.model_validate({"action": given}).action == action


@pytest.mark.parametrize(
    ("given", "kept"), [(0.9, 0.9), ("0.4", 0.4), (2, 1.0), ("high", None), (True, None)]
)
def test_confidence_is_clamped_or_missing(given, kept):
    assert (
        ImportDecisionOut.model_validate({"action": "add", "confidence": given}).confidence == kept
    )


def test_targets_are_restricted_to_the_top_k_and_a_lost_target_means_ignore():
    answer = ImportDecisionOut.model_validate(
        {"action": "supersede", "target_event_ids": ["4", 9, 4, True], "confidence": 0.9}
    )
    assert answer.target_event_ids == [4, 9]
    kept = answer.restricted_to({4, 5})
    assert (kept.action, kept.target_event_ids, kept.confidence) == ("supersede", [4], 0.9)
    lost = answer.restricted_to({5})
    assert (lost.action, lost.target_event_ids, lost.confidence) == ("ignore", [], 0.5)
    assert lost.reason == "supersede proposed without an allowed target; safely ignored"


def test_missing_confidence_becomes_one_half_and_add_has_no_targets():
    answer = ImportDecisionOut.model_validate({"action": "add", "target_event_ids": [4]})
    restricted = answer.restricted_to({4})
    assert (restricted.target_event_ids, restricted.confidence) == ([], 0.5)


def test_a_merged_text_needs_both_halves_and_a_merge():
    merge = {"action": "merge", "target_event_ids": [1], "merged_title": "T"}
    assert ImportDecisionOut.model_validate(merge).restricted_to({1}).merged_title is None
    both = {**merge, "merged_summary": "S"}
    assert ImportDecisionOut.model_validate(both).restricted_to({1}).merged_summary == "S"
    other = {**both, "action": "supersede"}
    assert ImportDecisionOut.model_validate(other).restricted_to({1}).merged_title is None


def test_the_prompt_shows_the_candidate_and_the_matches_with_ids():
    match = PromptMatch(
        id=42,
        title="Use npm",
        summary="Use npm for Atlas.",
        status="active",
        event_type="decision",
        mentioned_at=datetime(2024, 1, 1, tzinfo=UTC),
        happened_start=None,
        happened_end=None,
    )
    prompt = build_user_prompt({"title": "pnpm", "summary": "Switch.", "stratagate": {}}, [match])
    assert '"id": 42' in prompt and '"title": "pnpm"' in prompt
    assert "stratagate" not in prompt and "2024-01-01T00:00:00+00:00" in prompt
