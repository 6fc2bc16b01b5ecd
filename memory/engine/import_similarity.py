"""The offline import decider (SPEC §11.3, §12.1): how an imported memory relates to the local
events it matched, decided by deterministic text similarity when no model is configured.

Both texts are normalised (NFKC, lower-case, whitespace collapsed) as `title + " " + summary`, then
compared with rapidfuzz: `similarity` = `fuzz.ratio` of the two texts (wording), `overlap` =
`fuzz.token_set_ratio` of their content words (stop words removed, light English stemming, the
names of the people either side names left out), so sentences sharing only "the user … in the …"
or "Maya" do not overlap. Thresholds (0–100, docs/IMPORT.md):

| rule (first that applies wins)                          | action    | confidence |
|---------------------------------------------------------|-----------|------------|
| `similarity ≥ 90` with a match (near-identical wording) | ignore    | sim/100    |
| `overlap ≥ 60`, the values differ, candidate newer      | supersede | 0.75       |
| `overlap ≥ 60`, the values differ, not newer            | conflict  | 0.6        |
| `overlap ≥ 60`, candidate adds words, candidate newer   | supersede | 0.7        |
| `overlap ≥ 60`, candidate adds words                    | merge     | 0.7        |
| `overlap ≥ 60`, candidate says nothing new              | ignore    | 0.7        |
| best `overlap < 40` (clearly new)                       | add       | 0.9        |
| otherwise (some overlap, nothing decisive)              | add       | 0.6        |

"The values differ" means: both name a value for the same slot (package manager, database, …) and
the values differ; or each side has content words the other lacks *and* one of them is a number
or a negation ("not", "no longer", "不再" …) that the other does not share; or both sides have
distinctive content words (a replaced value: "prefers tea" vs "prefers coffee").
"Newer" means the candidate's occurrence (else mention) time is later than the event's; an
undated candidate is never newer — an import is not evidence that something happened today.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from rapidfuzz import fuzz

from memory.engine.negation import negated
from memory.engine.slots import slot_choices

NEAR_IDENTICAL: Final = 90.0
HIGH_OVERLAP: Final = 60.0
CLEARLY_NEW: Final = 40.0
AUTO_APPLY_CONFIDENCE: Final = 0.85

_WS: Final = re.compile(r"\s+")
_WORD: Final = re.compile(r"[^\W_]+(?:'[^\W_]+)?|[\u4e00-\u9fff]", re.UNICODE)
_NUMBER: Final = re.compile(r"\d")
_STOP: Final = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "i",
        "in",
        "is",
        "it",
        "its",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "with",
        "you",
        "your",
        "user",
        "users",
        "的",
        "了",
        "是",
        "在",
        "和",
        "也",
        "都",
        "就",
    }
)


def normalize_text(text: str) -> str:
    """NFKC, lower-case, whitespace collapsed and trimmed (SPEC §8.1's normalisation)."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip()


def fingerprint(title: str, summary: str) -> str:
    """The exact-duplicate key: normalised title and summary, hashed (64 hex chars)."""
    joined = f"{normalize_text(title)}\u0000{normalize_text(summary)}"
    return hashlib.sha256(joined.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Comparable:
    """What the heuristic reads of a candidate or an existing event."""

    title: str
    summary: str
    when: datetime | None = None
    id: int | None = None
    names: tuple[str, ...] = ()  # the people it names (participants)

    @property
    def text(self) -> str:
        return normalize_text(f"{self.title} {self.summary}")


@dataclass(frozen=True, slots=True)
class OfflineDecision:
    action: str
    target_ids: tuple[int, ...]
    confidence: float
    reason: str


_SUFFIXES: Final = (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


def _stem(word: str) -> str:
    """A light English suffix strip ("prefers" → "prefer"), enough to compare two statements."""
    if not word.isascii() or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + replacement
    return word


def _content_words(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text) if w not in _STOP}


def name_words(names: Sequence[str]) -> frozenset[str]:
    """The words of people's names, as `_content_words` reads them."""
    return frozenset(_content_words(normalize_text(" ".join(names))))


def overlap(a: str, b: str, names: frozenset[str] = frozenset()) -> float:
    """token_set_ratio over content words: how much of one statement the other shares. The
    words of `names` (the people either side names) do not count: two memories about Maya
    share nothing for being about her (as in activation's relevance gate)."""
    words_a, words_b = _content_words(a) - names, _content_words(b) - names
    if not words_a or not words_b:
        return 0.0
    return float(fuzz.token_set_ratio(" ".join(sorted(words_a)), " ".join(sorted(words_b))))


def _slot_values(text: str) -> dict[str, str]:
    return {c.slot: c.value.casefold() for c in slot_choices(text)}


def values_differ(candidate: str, existing: str) -> bool:
    """Do two overlapping statements give different values for the same thing?"""
    mine, theirs = _slot_values(candidate), _slot_values(existing)
    if any(slot in theirs and theirs[slot] != value for slot, value in mine.items()):
        return True
    only_mine = _content_words(candidate) - _content_words(existing)
    only_theirs = _content_words(existing) - _content_words(candidate)
    if negated(candidate) != negated(existing):
        return True
    numbers_mine = {w for w in only_mine if _NUMBER.search(w)}
    numbers_theirs = {w for w in only_theirs if _NUMBER.search(w)}
    if numbers_mine and numbers_theirs:
        return True
    return bool(only_mine) and bool(only_theirs)


def adds_words(candidate: str, existing: str) -> bool:
    return bool(_content_words(candidate) - _content_words(existing))


def _newer(candidate: Comparable, existing: Comparable) -> bool:
    return (
        candidate.when is not None and existing.when is not None and candidate.when > existing.when
    )


def decide_offline(candidate: Comparable, matches: Sequence[Comparable]) -> OfflineDecision:
    """The deterministic decision over the Top-K matches (their ids must be set)."""
    text = candidate.text
    scored = sorted(
        (
            (
                fuzz.ratio(text, m.text),
                overlap(text, m.text, name_words([*candidate.names, *m.names])),
                index,
                m,
            )
            for index, m in enumerate(matches)
            if m.id is not None
        ),
        key=lambda row: (-row[1], -row[0], row[2]),
    )
    if not scored:
        return OfflineDecision("add", (), 0.9, "no similar memory exists")
    closest = max(scored, key=lambda row: (row[0], -row[2]))
    if closest[0] >= NEAR_IDENTICAL:
        match = closest[3]
        assert match.id is not None
        return OfflineDecision(
            "ignore",
            (match.id,),
            round(closest[0] / 100, 2),
            f"near-identical to event {match.id} (similarity {closest[0]:.0f})",
        )
    _, shared, _, best = scored[0]
    assert best.id is not None
    if shared >= HIGH_OVERLAP:
        newer = _newer(candidate, best)
        if values_differ(text, best.text):
            if newer:
                return OfflineDecision(
                    "supersede", (best.id,), 0.75, f"a newer value than event {best.id}"
                )
            return OfflineDecision(
                "conflict", (best.id,), 0.6, f"overlaps event {best.id} with a different value"
            )
        if adds_words(text, best.text):
            if newer:
                return OfflineDecision(
                    "supersede", (best.id,), 0.7, f"a newer, fuller version of event {best.id}"
                )
            return OfflineDecision("merge", (best.id,), 0.7, f"adds detail to event {best.id}")
        return OfflineDecision(
            "ignore", (best.id,), 0.7, f"says nothing event {best.id} does not already say"
        )
    if shared < CLEARLY_NEW:
        return OfflineDecision("add", (), 0.9, f"no similar memory (best overlap {shared:.0f})")
    return OfflineDecision(
        "add", (), 0.6, f"partly overlaps event {best.id} (overlap {shared:.0f}); added as new"
    )
