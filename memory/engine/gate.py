"""The evidence gate (SPEC §9): ref grammar, validation of an agent's assessment, and advice.

An agent says whether what it retrieved answers the question. Code, not the model, decides which
of the cited refs count (they must be well-formed, distinct, in the batch, at most 8), whether a
"sufficient" verdict stands, and what to do next. Gate advice (§9.4) adds coverage checks a model
tends to miss; it is advisory and never changes the verdict. Pure: no Django, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Final

VERDICTS: Final = ("sufficient", "partial", "mismatch")
STRATEGIES: Final = (
    "answer",
    "search_events",
    "search_graph",
    "search_raw",
    "expand_event",
    "expand_graph_node",
    "expand_block",
)
# Spellings of the original contract (notes §9.1) accepted for compatibility.
VERDICT_ALIASES: Final = {"wrong": "mismatch"}
STRATEGY_ALIASES: Final = {
    "search_elements": "search_graph",
    "expand_element": "expand_graph_node",
    "search_raw_memory": "search_raw",
}
MAX_REFS: Final = 8
TEXT_LIMIT: Final = 160
DEFAULT_MISSING: Final = "Direct evidence required to answer the question is still missing."
FALLBACK_STRATEGY: Final = "search_events"

INVALID_REF, DUPLICATE, NOT_IN_BATCH, LIMIT_EXCEEDED = (
    "invalid_ref",
    "duplicate",
    "not_in_batch",
    "limit_exceeded",
)
_MAX_ID = 2**63 - 1
_SIMPLE_REF = re.compile(r"^(event|node|fact|raw):(\d{1,19})$", re.IGNORECASE)
# `block:<id>:L<n>`; the original's `block:<id>:level:<n>` is accepted and canonicalised.
_BLOCK_REF = re.compile(r"^block:(\d{1,19}):(?:l|level:)?([0-5])$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class Ref:
    """A parsed evidence ref; `str(ref)` is its canonical spelling."""

    kind: str
    object_id: int
    level: int | None = None

    # The constructors are the one way product code spells a ref: `str(Ref.event(12))`.
    @classmethod
    def event(cls, object_id: int) -> Ref:
        return cls("event", object_id)

    @classmethod
    def node(cls, object_id: int) -> Ref:
        return cls("node", object_id)

    @classmethod
    def fact(cls, object_id: int) -> Ref:
        return cls("fact", object_id)

    @classmethod
    def raw(cls, object_id: int) -> Ref:
        """A source message (L5)."""
        return cls("raw", object_id)

    @classmethod
    def block(cls, object_id: int, level: int) -> Ref:
        """A block as shown at `level` (0–5)."""
        return cls("block", object_id, level)

    def __str__(self) -> str:
        if self.kind == "block":
            return f"block:{self.object_id}:L{self.level}"
        return f"{self.kind}:{self.object_id}"


def parse_ref(raw: object) -> Ref | None:
    """The ref behind `raw`, or None when it is not a well-formed ref (SPEC §9.1)."""
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if match := _SIMPLE_REF.match(text):
        object_id = int(match.group(2))
        return Ref(match.group(1).lower(), object_id) if 0 < object_id <= _MAX_ID else None
    if match := _BLOCK_REF.match(text):
        object_id = int(match.group(1))
        return Ref("block", object_id, int(match.group(2))) if 0 < object_id <= _MAX_ID else None
    return None


def canonical_ref(raw: object) -> str | None:
    ref = parse_ref(raw)
    return str(ref) if ref else None


class GateInputError(ValueError):
    """An assessment field outside its closed set (the API answers 422 with `code`)."""

    def __init__(self, code: str, message: str, details: dict[str, object]) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


def normalize_verdict(raw: object) -> str:
    value = raw.strip().lower() if isinstance(raw, str) else ""
    value = VERDICT_ALIASES.get(value, value)
    if value not in VERDICTS:
        raise GateInputError(
            "invalid_verdict",
            f"verdict must be one of {', '.join(VERDICTS)}",
            {"verdict": raw if isinstance(raw, str | int | float | bool) else None},
        )
    return value


def normalize_strategy(raw: object) -> str:
    value = raw.strip().lower() if isinstance(raw, str) else ""
    value = STRATEGY_ALIASES.get(value, value)
    if value not in STRATEGIES:
        raise GateInputError(
            "invalid_next_strategy",
            f"next_strategy must be one of {', '.join(STRATEGIES)}",
            {"next_strategy": raw if isinstance(raw, str | int | float | bool) else None},
        )
    return value


def clean_text(raw: object, limit: int = TEXT_LIMIT) -> tuple[str, bool]:
    """Trimmed, whitespace-collapsed, cut to `limit` characters; the flag says it was cut."""
    if not isinstance(raw, str):
        return "", False
    text = " ".join(raw.split())
    return text[:limit], len(text) > limit


@dataclass(frozen=True)
class Rejected:
    index: int
    ref: object
    reason: str
    detail: str


@dataclass(frozen=True)
class Note:
    code: str
    message: str


@dataclass(frozen=True)
class AssessInput:
    verdict: object
    evidence_refs: object
    fit: object = ""
    missing: object = ""
    next_strategy: object = "answer"


@dataclass(frozen=True)
class AssessOutcome:
    submitted_verdict: str
    verdict: str
    accepted_refs: list[str]
    rejected: list[Rejected]
    fit: str
    missing: str
    submitted_next_strategy: str
    next_strategy: str
    notes: list[Note] = field(default_factory=list)


def _shown(raw: object) -> object:
    # Rejected inputs are echoed back, but never as a huge or nested structure.
    if isinstance(raw, str):
        return raw[:200]
    return raw if isinstance(raw, int | float | bool) or raw is None else type(raw).__name__


def validate_refs(
    refs: Sequence[object], batch_refs: Collection[str]
) -> tuple[list[str], list[Rejected]]:
    """Accepted canonical refs and rejections with their input index (SPEC §9.3).

    Checks, in order: not a non-empty well-formed ref string → `invalid_ref`; same canonical ref
    as an earlier input → `duplicate`; not among the batch's refs → `not_in_batch`; would be the
    9th or later accepted ref → `limit_exceeded`.
    """
    accepted: list[str] = []
    rejected: list[Rejected] = []
    seen: set[str] = set()
    for index, raw in enumerate(refs):
        ref = canonical_ref(raw)
        if ref is None:
            detail = (
                "not a non-empty string"
                if not isinstance(raw, str) or not raw.strip()
                else "not of the form event:<id>, node:<id>, fact:<id>, raw:<id> "
                "or block:<id>:L<0-5>"
            )
            rejected.append(Rejected(index, _shown(raw), INVALID_REF, detail))
            continue
        if ref in seen:
            rejected.append(Rejected(index, _shown(raw), DUPLICATE, f"{ref} was already cited"))
            continue
        seen.add(ref)
        if ref not in batch_refs:
            rejected.append(
                Rejected(index, _shown(raw), NOT_IN_BATCH, f"{ref} is not in the selected batch")
            )
            continue
        if len(accepted) >= MAX_REFS:
            rejected.append(
                Rejected(index, _shown(raw), LIMIT_EXCEEDED, f"at most {MAX_REFS} refs count")
            )
            continue
        accepted.append(ref)
    return accepted, rejected


def assess(inp: AssessInput, batch_refs: Collection[str]) -> AssessOutcome:
    """Validate an assessment against its batch's refs (SPEC §9.2–9.3).

    `sufficient` stands only with ≥ 1 accepted ref and `next_strategy = answer`, otherwise it
    becomes `partial` and a note says why; a non-sufficient verdict with `answer` moves on to
    `search_events`; `missing` gets a default text when a non-sufficient verdict leaves it
    empty and is cleared when sufficient. Raises `GateInputError` for an unknown verdict or
    strategy, or evidence_refs that is not a list.
    """
    submitted_verdict = normalize_verdict(inp.verdict)
    submitted_strategy = normalize_strategy(inp.next_strategy)
    if not isinstance(inp.evidence_refs, list | tuple):
        raise GateInputError(
            "invalid_evidence_refs", "evidence_refs must be a list of refs", {"evidence_refs": None}
        )
    accepted, rejected = validate_refs(list(inp.evidence_refs), batch_refs)
    notes: list[Note] = []
    fit, fit_cut = clean_text(inp.fit)
    missing, missing_cut = clean_text(inp.missing)
    if fit_cut:
        notes.append(Note("fit_truncated", f"fit was cut to {TEXT_LIMIT} characters"))
    if missing_cut:
        notes.append(Note("missing_truncated", f"missing was cut to {TEXT_LIMIT} characters"))

    verdict, strategy = submitted_verdict, submitted_strategy
    if verdict == "sufficient":
        if not accepted:
            verdict = "partial"
            notes.append(
                Note(
                    "sufficient_without_evidence",
                    "sufficient needs at least one accepted evidence ref; downgraded to partial",
                )
            )
        if strategy != "answer":
            if verdict == "sufficient":
                verdict = "partial"
            notes.append(
                Note(
                    "sufficient_without_answer",
                    f"sufficient needs next_strategy answer, got {strategy}; downgraded to partial",
                )
            )
    if verdict == "sufficient":
        missing = ""
    else:
        if strategy == "answer":
            strategy = FALLBACK_STRATEGY
            notes.append(
                Note(
                    "answer_without_sufficient",
                    f"only a sufficient verdict may answer; next_strategy is {FALLBACK_STRATEGY}",
                )
            )
        if not missing:
            missing = DEFAULT_MISSING
    return AssessOutcome(
        submitted_verdict=submitted_verdict,
        verdict=verdict,
        accepted_refs=accepted,
        rejected=rejected,
        fit=fit,
        missing=missing,
        submitted_next_strategy=submitted_strategy,
        next_strategy=strategy,
        notes=notes,
    )


# Advice lives in its own module (cue lists and rules); re-exported so the gate is one import.
from memory.engine.gate_advice import (  # noqa: E402
    Advice,
    EvidenceFacts,
    gate_advice,
    question_intents,
)

__all__ = [
    "Advice",
    "AssessInput",
    "AssessOutcome",
    "EvidenceFacts",
    "GateInputError",
    "Note",
    "Ref",
    "Rejected",
    "assess",
    "canonical_ref",
    "clean_text",
    "gate_advice",
    "parse_ref",
    "question_intents",
    "validate_refs",
]
