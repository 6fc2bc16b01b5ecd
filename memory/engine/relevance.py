"""Whether a memory matches a question well enough to be put in front of the model (SPEC §8.7's
relevance gate, measured in docs/EVALUATION.md). Two rules, both pure:

1. **Beyond names.** In a conversation between a few people nearly every memory names one of
   them, so a question such as "What did Caroline research?" matches every memory about
   Caroline through her name alone. Such a memory says nothing about the question: when the
   question asks about something besides the people, an activated item must match at least one
   of those other terms. A question that is only a name ("Caroline?") keeps name matches.
2. **Coverage.** One shared word is not enough either: "When did Caroline give a speech at a
   school?" shares "give" with "My goal is to give kids a loving home". An item must hold at
   least MIN_COVERAGE of what the question asks, each asked term weighted by its rarity in the
   namespace's messages (BM25's idf, `search.term_weights`): a rare word ("speech") is most of
   a question, a common one ("give") little of it. Terms nothing in memory holds (a typo, a
   Han bigram across a word boundary) weigh nothing: they tell no memory from another. Measured
   against the question's own terms, not against the best hit, so a question whose best hit
   is itself weak gets no cards at all, and the budget goes to the source passages. The
   question is the new message, or the whole context query (the new message and the open
   tail): a long tail would dilute a plain question, and "ok, go on" asks nothing alone. A
   message that asks several things is several questions: each of its sentences that carries
   at least SENTENCE_SHARE of its weight is also measured against on its own ("Thanks!" is
   not a question; two questions in one message are two).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence

# The share of a question's weight an activated item must hold (docs/EVALUATION.md,
# "Activated memory's relevance gate": 0.3–0.5 tried).
MIN_COVERAGE = 0.4
# The share of a message's weight a sentence must carry to count as a question of its own
# (docs/EVALUATION.md, "long messages").
SENTENCE_SHARE = 0.25
# A sentence ends after `?` or `!` (ASCII, then whitespace, so "3.5" and "e.g.x" stay whole, and
# `.` likewise), after `。！？` (CJK text has no space), or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.?!])\s+|(?<=[。！？])|\n+")


def asks_beyond(query_terms: Iterable[str], names: Collection[str]) -> set[str]:
    """The query's terms that are not a person's name."""
    return {t for t in query_terms if t not in names}


def matches_beyond_names(
    query_terms: Collection[str], names: Collection[str], item_terms: Collection[str]
) -> bool:
    """True when the item shares a non-name term with the query, or the query has none."""
    content = asks_beyond(query_terms, names)
    return not content or not content.isdisjoint(item_terms)


def term_weight(documents: int, total: int) -> float:
    """BM25's idf of a term held by `documents` of `total` documents (0 when none holds it)."""
    if documents <= 0:
        return 0.0
    total = max(total, documents)
    return math.log(1 + (total - documents + 0.5) / (documents + 0.5))


def coverage(
    weights: Mapping[str, float], names: Collection[str], item_terms: Iterable[str]
) -> float:
    """The share of the question's weight (`weights`: asked term → weight) that the item holds,
    people's names left out of both sides. 1.0 when nothing weighed is asked besides names: the
    beyond-names rule alone decides then."""
    asked = {t: w for t, w in weights.items() if t not in names and w > 0}
    total = sum(asked.values())
    if total <= 0:
        return 1.0
    held = set(item_terms)
    return sum(w for t, w in asked.items() if t in held) / total


def covers(
    questions: Sequence[Mapping[str, float]], names: Collection[str], item_terms: Iterable[str]
) -> bool:
    """Whether the item holds at least MIN_COVERAGE of what one of the `questions` asks (each
    a weighting of its terms: the new message's, the whole context query's, so that "ok, and
    then?" is judged by the turns it follows, and the message's sentences that ask something
    of their own). True when there is no question."""
    held = set(item_terms)
    return not questions or any(coverage(q, names, held) >= MIN_COVERAGE for q in questions)


def sentences(text: str) -> list[str]:
    """The text's non-empty sentences, in order (`_SENTENCE_END`)."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def sentence_questions(
    message: Mapping[str, float], sentence_terms: Iterable[Sequence[str]]
) -> list[dict[str, float]]:
    """The sentences that ask something of their own, each as its terms' weights (taken from
    the whole message's `message` weights): those carrying at least SENTENCE_SHARE of the
    message's weight, and holding fewer terms than the whole message (a one-sentence message
    is its own question already)."""
    total = sum(message.values())
    found: list[dict[str, float]] = []
    if total <= 0:
        return found
    for terms in sentence_terms:
        asked = {t: message.get(t, 0.0) for t in terms}
        if len(asked) < len(message) and sum(asked.values()) >= SENTENCE_SHARE * total:
            found.append(asked)
    return found
