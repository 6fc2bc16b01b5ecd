"""Gate advice (SPEC §9.4): coverage checks on the accepted evidence that a model tends to miss.

The question's intent (when / why / list / who / did-it-happen / current state) is read with
small English and Chinese cue lists; each rule compares that intent with facts about the cited
evidence (occurrence dates, event types, temporal status, supersession, conflicts). Advice is a
note to the agent: it never changes the verdict. Pure: no Django.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

# Event types that record a state change ("we use X now") rather than its story.
STATE_CHANGE_TYPES: Final = frozenset(
    {"change", "decision", "migration", "cancellation", "release"}
)
_OCCURRED: Final = frozenset({"occurred", "ongoing"})


def _cues(english: str, chinese: str) -> re.Pattern[str]:
    parts = [rf"\b(?:{english})\b"] if english else []
    if chinese:
        parts.append(f"(?:{chinese})")
    return re.compile("|".join(parts))


_WHEN = _cues(
    r"when|what (?:time|date|day|year|month)|which (?:day|date|year|month|week)"
    r"|how long ago|since when|on what date",
    "什么时候|何时|几时|哪天|哪一天|哪年|哪一年|几月|几号|什么时间|啥时候|多久以前",
)
_WHY = _cues(
    r"why|how come|what (?:was|is|were) the reason|for what reason|what made|what caused",
    "为什么|为何|为啥|原因|怎么会",
)
# "Which" asks for a list only before a plural ("which restaurants", "which ones", "which of"):
# "which database do we use?", "which process", "which status" ask for one thing.
_LIST = _cues(
    r"which (?:ones?|of|\w*[^\Wsu]s)\b|what are|what were|list|all|every|each"
    r"|how many|name (?:the|some|all)",
    "哪些|所有|列出|都有|几个|多少个|全部",
)
_WHO = _cues(r"who|whom|whose", "谁")
_DID_IT_HAPPEN = _cues(
    r"did (?:we|you|they|i|he|she|it) (?:finish|complete|ship|release|launch|do|deliver)"
    r"|(?:has|have|was|were|is) .*\b(?:done|finished|completed|shipped|released|launched"
    r"|delivered|happened)|already",
    "完成了|做完了|已经|有没有|是否完成|上线了吗|发布了吗",
)
_CURRENT = _cues(
    r"now|current|currently|still|today|latest|these days|at the moment",
    "现在|目前|当前|如今|还在",
)
_REASON = _cues(
    r"because|since|due to|so that|in order to|as a result|reasons?|caused by|owing to"
    r"|thanks to|given that|to avoid|to fix|why",
    "因为|由于|所以|为了|原因|导致|因此|以便|以免",
)


def _normal(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def question_intents(question: str) -> frozenset[str]:
    """Which of when, why, list, who, occurrence, current the question asks about."""
    text = _normal(question)
    if not text:
        return frozenset()
    checks = {
        "when": _WHEN,
        "why": _WHY,
        "list": _LIST,
        "who": _WHO,
        "occurrence": _DID_IT_HAPPEN,
        "current": _CURRENT,
    }
    return frozenset(name for name, pattern in checks.items() if pattern.search(text))


@dataclass(frozen=True)
class EvidenceFacts:
    """What the gate needs to know about one accepted ref and the events behind it."""

    ref: str
    kind: str
    text: str = ""
    event_ids: tuple[int, ...] = ()
    event_types: tuple[str, ...] = ()
    temporal_statuses: tuple[str, ...] = ()
    has_occurrence_date: bool = False
    superseded_by: tuple[int, ...] = ()
    conflicts_with: tuple[int, ...] = ()
    participants: tuple[str, ...] = ()
    historical: bool = False


@dataclass(frozen=True)
class Advice:
    code: str
    message: str
    refs: tuple[str, ...] = ()


def _is_state_change(item: EvidenceFacts) -> bool:
    if item.kind in ("fact", "node"):
        return True
    return bool(item.event_types) and all(t in STATE_CHANGE_TYPES for t in item.event_types)


def gate_advice(question: str, evidence: Sequence[EvidenceFacts]) -> list[Advice]:
    """Advisory notes on how well the accepted evidence covers the question (SPEC §9.4)."""
    intents = question_intents(question)
    advice: list[Advice] = []
    cited_events = {i for item in evidence for i in item.event_ids}
    refs = tuple(item.ref for item in evidence)

    if "when" in intents and not any(item.has_occurrence_date for item in evidence):
        advice.append(
            Advice(
                "when_without_occurrence_date",
                "The question asks when, but no accepted evidence has an occurrence date; "
                "a mention time is not when it happened.",
                refs,
            )
        )
    if not evidence:
        return advice
    if (
        "why" in intents
        and all(_is_state_change(item) for item in evidence)
        and not any(_REASON.search(_normal(item.text)) for item in evidence)
    ):
        advice.append(
            Advice(
                "why_with_state_change_only",
                "The question asks why, but the evidence only records a state change, with no "
                "reason or cause; look for the discussion behind it (search_raw or expand).",
                refs,
            )
        )
    if "list" in intents and len(evidence) == 1:
        advice.append(
            Advice(
                "list_with_single_item",
                "The question asks for several items, but only one is cited; check whether "
                "there are more before answering.",
                refs,
            )
        )
    if "occurrence" in intents:
        statuses = {s for item in evidence for s in item.temporal_statuses}
        if "planned" in statuses and not statuses & _OCCURRED:
            advice.append(
                Advice(
                    "plan_is_not_occurrence",
                    "The question asks whether something happened, but the evidence is a plan; "
                    "a plan is not evidence that it was done.",
                    refs,
                )
            )
    outdated = [
        item.ref
        for item in evidence
        if item.superseded_by and not set(item.superseded_by) <= cited_events
    ]
    if outdated:
        advice.append(
            Advice(
                "superseded_evidence",
                "Some evidence was superseded by newer memory that is not cited; the answer may "
                "be out of date.",
                tuple(outdated),
            )
        )
    if "current" in intents and all(item.historical for item in evidence):
        advice.append(
            Advice(
                "historical_evidence_for_current_question",
                "The question asks about the current state, but every cited item is historical.",
                refs,
            )
        )
    disputed = [
        item.ref
        for item in evidence
        if item.conflicts_with and not set(item.conflicts_with) <= cited_events
    ]
    if disputed:
        advice.append(
            Advice(
                "unresolved_conflict",
                "Some evidence conflicts with other memory that is not cited; mention the "
                "conflict or resolve it first.",
                tuple(disputed),
            )
        )
    if "who" in intents and not any(item.participants for item in evidence):
        advice.append(
            Advice(
                "who_without_person",
                "The question asks who, but no accepted evidence names a participant.",
                refs,
            )
        )
    return advice
