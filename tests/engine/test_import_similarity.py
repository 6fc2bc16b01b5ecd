"""The offline import decider: one test per row of its threshold table (docs/IMPORT.md)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.engine.import_similarity import (
    Comparable,
    decide_offline,
    fingerprint,
    name_words,
    normalize_text,
    overlap,
    values_differ,
)

OLD = datetime(2023, 1, 1, tzinfo=UTC)
NEW = datetime(2024, 1, 1, tzinfo=UTC)


def _event(title: str, summary: str, pk: int = 7, when: datetime | None = OLD) -> Comparable:
    return Comparable(title, summary, when, pk)


def test_normalisation_is_nfkc_lower_case_and_collapsed_whitespace():
    assert normalize_text("  Ｕｓｅ\tPNPM \n now ") == "use pnpm now"
    assert fingerprint("Use PNPM", " now ") == fingerprint("use  pnpm", "NOW")
    assert fingerprint("a", "b c") != fingerprint("a b", "c")


@pytest.mark.parametrize(
    ("candidate", "when", "action", "confidence"),
    [
        (("User works at Acme Corp", "I work at Acme Corp!"), None, "ignore", 0.98),
        (("Prefers tea", "I prefer tea in the morning."), NEW, "supersede", 0.75),
        (("Prefers tea", "I prefer tea in the morning."), None, "conflict", 0.6),
        (("Coffee", "I prefer coffee in the morning with oat milk."), NEW, "supersede", 0.7),
        (("Coffee", "I prefer coffee in the morning with oat milk."), None, "merge", 0.7),
        (("Coffee", "I prefer coffee."), None, "ignore", 0.7),
        (("Owns a cat", "The user has a cat called Miso."), None, "add", 0.9),
    ],
)
def test_the_threshold_table(candidate, when, action, confidence):
    existing = [_event("User prefers coffee in the morning", "I prefer coffee in the morning.")]
    if action == "ignore" and confidence > 0.9:
        existing = [_event("User works at Acme Corp", "I work at Acme Corp.")]
    decision = decide_offline(Comparable(*candidate, when=when), existing)
    assert (decision.action, decision.confidence) == (action, confidence), decision.reason
    assert decision.target_ids == (() if action == "add" else (7,))


def test_some_overlap_without_a_clear_relation_is_a_low_confidence_add():
    existing = [_event("Atlas deployment", "We deploy Atlas to AWS.")]
    decision = decide_offline(Comparable("Atlas staging", "Atlas has a staging server."), existing)
    assert (decision.action, decision.confidence) == ("add", 0.6)


def test_no_matches_is_a_confident_add():
    assert decide_offline(Comparable("x", "y"), []).action == "add"


def test_values_differ_on_a_slot_a_negation_or_a_number():
    assert values_differ("use pnpm for atlas", "use npm for atlas")
    assert values_differ("we deploy on fridays", "we no longer deploy on fridays")
    assert values_differ("the team has 5 engineers", "the team has 7 engineers")
    assert not values_differ("we deploy atlas to aws with terraform", "we deploy atlas to aws")


def test_a_shared_name_alone_is_no_overlap() -> None:
    # Two memories about Maya share nothing for being about her: the instruction is new.
    instruction = Comparable(
        "Short answers, code first",
        "Maya wants short answers: code first, then at most three bullet points.",
        names=("Maya",),
    )
    name = Comparable("My name is Maya Chen", "Maya: My name is Maya Chen.", id=1, names=("Maya",))
    decided = decide_offline(instruction, [name])
    assert (decided.action, decided.confidence) == ("add", 0.9)
    assert overlap(instruction.text, name.text) > overlap(
        instruction.text, name.text, name_words(["Maya"])
    )
