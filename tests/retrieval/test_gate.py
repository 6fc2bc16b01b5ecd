"""The evidence gate's validation and advice against SPEC §9.1–9.4, table-driven."""

from __future__ import annotations

import pytest

from memory.engine.gate import (
    DEFAULT_MISSING,
    AssessInput,
    EvidenceFacts,
    GateInputError,
    Ref,
    assess,
    gate_advice,
    parse_ref,
    question_intents,
)

BATCH = {"event:1", "event:2", "node:3", "fact:4", "raw:5", "block:6:L2"} | {
    f"event:{i}" for i in range(10, 30)
}


# SPEC §9.1: refs are `event:<id>`, `node:<id>`, `fact:<id>`, `raw:<message id>`,
# `block:<id>:L<level>`.
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("event:12", Ref("event", 12)),
        ("node:3", Ref("node", 3)),
        ("fact:7", Ref("fact", 7)),
        ("raw:88", Ref("raw", 88)),
        ("block:4:L2", Ref("block", 4, 2)),
        (" Event:12 ", Ref("event", 12)),  # trimmed, kind case-insensitive
        ("block:4:l5", Ref("block", 4, 5)),
        ("block:4:level:3", Ref("block", 4, 3)),  # the original's spelling
        ("block:4:L6", None),
        ("block:4", None),
        ("event:0", None),
        ("event:-1", None),
        ("event:abc", None),
        ("element:1", None),
        ("", None),
        ("   ", None),
        (12, None),
        (None, None),
        (["event:1"], None),
    ],
)
def test_ref_grammar(raw: object, expected: Ref | None) -> None:
    assert parse_ref(raw) == expected


def test_canonical_block_ref_spelling() -> None:
    assert str(Ref("block", 4, 2)) == "block:4:L2"


# The constructors are how product code spells a ref; each round-trips through parse_ref.
@pytest.mark.parametrize(
    ("ref", "spelling"),
    [
        (Ref.event(12), "event:12"),
        (Ref.node(3), "node:3"),
        (Ref.fact(7), "fact:7"),
        (Ref.raw(88), "raw:88"),
        (Ref.block(4, 2), "block:4:L2"),
        (Ref.block(4, 0), "block:4:L0"),
        (Ref.block(4, 5), "block:4:L5"),
        (Ref.event(2**63 - 1), f"event:{2**63 - 1}"),
    ],
)
def test_constructors_spell_canonical_refs_that_parse_back(ref: Ref, spelling: str) -> None:
    assert str(ref) == spelling
    assert parse_ref(str(ref)) == ref
    assert parse_ref(spelling) == ref


def test_constructors_build_the_same_ref_as_the_parser_and_the_plain_constructor() -> None:
    assert Ref.event(12) == Ref("event", 12)
    assert Ref.block(4, 2) == Ref("block", 4, 2)
    assert len({Ref.event(1), Ref.node(1), Ref.fact(1), Ref.raw(1), Ref.block(1, 1)}) == 5


def _assess(**kw: object) -> object:
    base: dict[str, object] = {
        "verdict": "sufficient",
        "evidence_refs": ["event:1"],
        "fit": "",
        "missing": "",
        "next_strategy": "answer",
    }
    base.update(kw)
    return assess(AssessInput(**base), BATCH)  # type: ignore[arg-type]


# SPEC §9.3: each rejected ref is reported with its input index and reason.
@pytest.mark.parametrize(
    ("refs", "accepted", "rejected"),
    [
        (["event:1"], ["event:1"], []),
        (["event:1", "event:1"], ["event:1"], [(1, "duplicate")]),
        (["event:1", " event:1"], ["event:1"], [(1, "duplicate")]),  # same canonical ref
        (["event:999"], [], [(0, "not_in_batch")]),
        (
            ["", 5, None, "bogus"],
            [],
            [(0, "invalid_ref"), (1, "invalid_ref"), (2, "invalid_ref"), (3, "invalid_ref")],
        ),
        (["block:6:L2", "block:6:L5"], ["block:6:L2"], [(1, "not_in_batch")]),
        (["event:999", "event:999"], [], [(0, "not_in_batch"), (1, "duplicate")]),
    ],
)
def test_refs_are_validated_with_index_and_reason(
    refs: list[object], accepted: list[str], rejected: list[tuple[int, str]]
) -> None:
    outcome = _assess(evidence_refs=refs)
    assert outcome.accepted_refs == accepted
    assert [(r.index, r.reason) for r in outcome.rejected] == rejected


def test_the_ninth_and_later_accepted_refs_exceed_the_limit() -> None:
    # SPEC §9.2–9.3: evidence_refs ≤ 8; `limit_exceeded` for the 9th and later.
    refs = [f"event:{i}" for i in range(10, 20)]
    outcome = _assess(evidence_refs=refs)
    assert outcome.accepted_refs == refs[:8]
    assert [(r.index, r.reason) for r in outcome.rejected] == [
        (8, "limit_exceeded"),
        (9, "limit_exceeded"),
    ]


def test_invalid_refs_do_not_use_up_the_limit() -> None:
    refs = ["nope", *(f"event:{i}" for i in range(10, 18))]
    outcome = _assess(evidence_refs=refs)
    assert len(outcome.accepted_refs) == 8
    assert [(r.index, r.reason) for r in outcome.rejected] == [(0, "invalid_ref")]


# SPEC §9.3: "sufficient is accepted only with ≥ 1 accepted ref and next_strategy = answer;
# otherwise it is downgraded to partial and the response says why. A non-sufficient verdict
# with answer becomes search_events. Missing `missing` on a non-sufficient verdict gets a
# default text."
@pytest.mark.parametrize(
    ("verdict", "refs", "strategy", "out_verdict", "out_strategy", "notes"),
    [
        ("sufficient", ["event:1"], "answer", "sufficient", "answer", []),
        (
            "sufficient",
            [],
            "answer",
            "partial",
            "search_events",
            ["sufficient_without_evidence", "answer_without_sufficient"],
        ),
        (
            "sufficient",
            ["event:999"],
            "answer",
            "partial",
            "search_events",
            ["sufficient_without_evidence", "answer_without_sufficient"],
        ),
        (
            "sufficient",
            ["event:1"],
            "search_graph",
            "partial",
            "search_graph",
            ["sufficient_without_answer"],
        ),
        (
            "partial",
            ["event:1"],
            "answer",
            "partial",
            "search_events",
            ["answer_without_sufficient"],
        ),
        ("mismatch", [], "answer", "mismatch", "search_events", ["answer_without_sufficient"]),
        ("mismatch", [], "search_raw", "mismatch", "search_raw", []),
        ("wrong", [], "expand_block", "mismatch", "expand_block", []),  # original's spelling
        ("partial", ["event:1"], "search_elements", "partial", "search_graph", []),
    ],
)
def test_verdict_and_strategy_normalisation(
    verdict: str,
    refs: list[str],
    strategy: str,
    out_verdict: str,
    out_strategy: str,
    notes: list[str],
) -> None:
    outcome = _assess(verdict=verdict, evidence_refs=refs, next_strategy=strategy)
    assert (outcome.verdict, outcome.next_strategy) == (out_verdict, out_strategy)
    assert [n.code for n in outcome.notes] == notes


def test_missing_gets_a_default_on_non_sufficient_and_is_cleared_on_sufficient() -> None:
    assert _assess(verdict="partial", next_strategy="search_raw").missing == DEFAULT_MISSING
    kept = _assess(verdict="partial", missing="the date", next_strategy="search_raw")
    assert kept.missing == "the date"
    assert _assess(missing="nothing really").missing == ""


def test_fit_and_missing_are_collapsed_and_cut_to_160_characters() -> None:
    # SPEC §9.2: fit, missing ≤ 160 chars.
    outcome = _assess(
        verdict="partial",
        fit="  a  \n b " + "x" * 300,
        missing="y" * 200,
        next_strategy="search_raw",
    )
    assert outcome.fit.startswith("a b x") and len(outcome.fit) == 160
    assert len(outcome.missing) == 160
    assert {n.code for n in outcome.notes} == {"fit_truncated", "missing_truncated"}


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("verdict", "great", "invalid_verdict"),
        ("verdict", None, "invalid_verdict"),
        ("next_strategy", "guess", "invalid_next_strategy"),
        ("evidence_refs", "event:1", "invalid_evidence_refs"),
    ],
)
def test_values_outside_the_closed_sets_are_input_errors(
    field: str, value: object, code: str
) -> None:
    with pytest.raises(GateInputError) as caught:
        _assess(**{field: value})
    assert caught.value.code == code


# --- gate advice (SPEC §9.4) ---------------------------------------------------------------

PLAN = EvidenceFacts(
    ref="event:3",
    kind="event",
    text="Finish the prototype next week.",
    event_ids=(3,),
    event_types=("plan",),
    temporal_statuses=("planned",),
    has_occurrence_date=True,
    participants=("user",),
)
SWITCH = EvidenceFacts(
    ref="event:2",
    kind="event",
    text="Use pnpm as package manager. Let's switch to pnpm.",
    event_ids=(2,),
    event_types=("decision",),
    temporal_statuses=("occurred",),
)
OLD = EvidenceFacts(
    ref="event:1",
    kind="event",
    text="Use npm for this project.",
    event_ids=(1,),
    event_types=("decision",),
    superseded_by=(2,),
    historical=True,
)
CHAT = EvidenceFacts(ref="raw:9", kind="raw", text="We moved because npm was slow on CI.")


@pytest.mark.parametrize(
    ("question", "evidence", "codes"),
    [
        # "the question asks when but no accepted evidence has an occurrence date"
        ("When did we switch to pnpm?", [SWITCH], {"when_without_occurrence_date"}),
        ("When is the prototype due?", [PLAN], set()),  # a dated plan answers when
        ("什么时候换成 pnpm 的？", [SWITCH], {"when_without_occurrence_date"}),
        # "the question asks why but the evidence is only a state change"
        ("Why did we switch to pnpm?", [SWITCH], {"why_with_state_change_only"}),
        ("Why did we switch to pnpm?", [SWITCH, CHAT], set()),
        ("为什么换成 pnpm？", [SWITCH], {"why_with_state_change_only"}),
        # "a list question cites one item"
        ("Which tools do we use?", [SWITCH], {"list_with_single_item"}),
        ("List all decisions", [SWITCH, OLD], set()),  # the superseder is cited too
        ("我们用了哪些工具？", [SWITCH], {"list_with_single_item"}),
        # Beyond the spec's examples.
        ("Did we finish the prototype?", [PLAN], {"plan_is_not_occurrence"}),
        ("What package manager do we use?", [OLD], {"superseded_evidence"}),
        (
            "What package manager do we use now?",
            [OLD],
            {"superseded_evidence", "historical_evidence_for_current_question"},
        ),
        ("Who decided on pnpm?", [SWITCH], {"who_without_person"}),
        ("Who wants the prototype?", [PLAN], set()),
        ("What is the plan?", [PLAN], set()),
    ],
)
def test_gate_advice_rules(question: str, evidence: list[EvidenceFacts], codes: set[str]) -> None:
    assert {a.code for a in gate_advice(question, evidence)} == codes


def test_a_when_question_without_any_evidence_is_advised() -> None:
    assert [a.code for a in gate_advice("When did it ship?", [])] == [
        "when_without_occurrence_date"
    ]


def test_conflicts_that_are_not_cited_are_advised() -> None:
    disputed = EvidenceFacts(ref="event:7", kind="event", event_ids=(7,), conflicts_with=(8,))
    assert [a.code for a in gate_advice("What is the deadline?", [disputed])] == [
        "unresolved_conflict"
    ]
    both = EvidenceFacts(ref="event:8", kind="event", event_ids=(8,), conflicts_with=(7,))
    assert gate_advice("What is the deadline?", [disputed, both]) == []


def test_which_day_is_a_when_question_not_a_list_question() -> None:
    intents = question_intents("Which day did we ship?")
    assert "when" in intents and "list" not in intents


@pytest.mark.parametrize(
    ("question", "is_list"),
    [
        ("Which database do we use?", False),
        ("Which process runs the worker?", False),
        ("Which status is the project in?", False),
        ("Which city does Maya live in?", False),
        ("哪个数据库？", False),
        ("Which restaurants did we visit?", True),
        ("Which ones did Caroline buy?", True),
        ("Which of the tools broke?", True),
        ("哪些城市？", True),
    ],
)
def test_which_asks_for_a_list_only_before_a_plural(question: str, is_list: bool) -> None:
    assert ("list" in question_intents(question)) is is_list


def test_advice_never_changes_the_verdict() -> None:
    # SPEC §9.4: "Advice never overrides the verdict" — assess() does not see the question.
    outcome = _assess(evidence_refs=["event:1"])
    advice = gate_advice("Why did we switch?", [SWITCH])
    assert advice and outcome.verdict == "sufficient"
