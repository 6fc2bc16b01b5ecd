"""The statements of a message: its sentences (verbatim, fenced code skipped), a name in corner
brackets read without them, and a sentence that states several facts cut into one statement per
fact (`facts_of`). Split from `memory.engine.offline_events` when it passed 600 lines; the
extractor classifies each statement. Pure rules.
"""

from __future__ import annotations

import itertools
import re
from typing import Final

from memory.engine import offline_cues as cues
from memory.engine.change_terms import HAN
from memory.engine.changes import parse_change, plain_use
from memory.engine.offline_relations import relations
from memory.engine.offline_relations_zh import carried_clauses, carried_service
from memory.engine.person_facts import person_relations

__all__ = ["facts_of", "sentences", "unquoted"]

_SENTENCE_MAX: Final = 1_000
_LIST_MARKER: Final = re.compile(r"^\s*(?:[-*•>]+|\d{1,2}[.)])\s+")
_SENTENCE_END: Final = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？；])")
# Abbreviations whose full stop does not end a sentence.
_ABBREVIATION_END: Final = re.compile(
    r"\b(?:St|Mr|Mrs|Ms|Dr|Prof|Sr|Jr|Mt|Ft|Inc|Corp|Co|Ltd|vs|etc|e\.g|i\.e|approx|No)\.$"
)
_FENCE: Final = re.compile(r"^\s*(?:```|~~~)")


def sentences(content: str) -> list[str]:
    """Sentences of prose, each a verbatim substring of `content`; fenced code is skipped."""
    out: list[str] = []
    in_fence = False
    for line in content.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        marker = _LIST_MARKER.match(line)
        body = line[marker.end() :] if marker else line
        for piece in _split_sentences(body):
            sentence = piece.strip()[:_SENTENCE_MAX].strip()
            if len(sentence) >= 3:
                out.append(sentence)
    return out


# A name set off in corner brackets (会员系统用的是「健客云」): Chinese writing marks a product's,
# a firm's or a work's name so; read without them, the name stands where the rules expect one.
_NAME_QUOTE: Final = re.compile(r"[「『]([^「」『』\s，。！？；：、,.!?;:]{1,24})[」』]")


def unquoted(sentence: str) -> str:
    return _NAME_QUOTE.sub(r"\1", sentence)


# A topic said as a question and answered in the next breath: "Work orders? that's Maximo".
_TOPIC_ASKED: Final = re.compile(
    r"(?!(?:who|what|which|where|when|why|how|do|does|did|is|are|was|can|could|should|would"
    r"|will|any|anything|ok|okay|right|really|sure|yes|no)\b)[A-Za-z][\w/-]*(?:\s+[\w/-]+){0,2}\?",
    re.IGNORECASE,
)
_ANSWERED: Final = re.compile(r"(?:that['’]s|it['’]s|that\s+is|it\s+is|all)\s", re.IGNORECASE)


def _split_sentences(body: str) -> list[str]:
    """Verbatim pieces of one line, not cut after an abbreviation ("St. Mary's hospital") nor
    after a topic asked and answered at once ("Work orders? that's Maximo")."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(body):
        if _ABBREVIATION_END.search(body[start : match.start()]):
            continue
        if _TOPIC_ASKED.fullmatch(body[start : match.start()]) and _ANSWERED.match(
            body, match.end()
        ):
            continue
        pieces.append(body[start : match.start()])
        start = match.end()
    pieces.append(body[start:])
    return pieces


# Also "when" before a name: "Ji-woo picked up the ledger API when Ravi moved to the fraud
# team" states two facts.
_CLAUSE_END: Final = re.compile(r"[，；;]|,\s+(?:and|but)\s+(?=\S)|\s+when\s+(?=[A-Z][a-z])")


def _fact_of_its_own(clause: str) -> bool:
    """A clause that states one relation or one use by itself."""
    clause = unquoted(clause)
    return (
        len(relations(clause)) == 1
        or plain_use(clause) is not None
        or len(person_relations(clause, "")) == 1  # "I'm on the IT team at Brackenridge …"
    )


_LIST_COMMA: Final = re.compile(r",\s+")


def _pieces(sentence: str, cut: re.Pattern[str]) -> tuple[list[tuple[int, int]], list[bool]]:
    """The spans `cut` leaves of a sentence, and whether each states a fact of its own."""
    cuts = [0, *(m.end() for m in cut.finditer(sentence)), len(sentence)]
    pieces = [(a, b) for a, b in itertools.pairwise(cuts) if sentence[a:b].strip(" ，；;,")]
    facts = [_fact_of_its_own(sentence[a:b].strip().rstrip("，；;,").strip()) for a, b in pieces]
    return pieces, facts


def _fact_groups(sentence: str) -> list[str] | None:
    """A sentence with two or more clauses that each state a fact of their own and others that
    only add to one ("库存管理用富勒WMS，温度监控是另一套系统叫冷眼云，每5分钟采一次数据"): one
    verbatim piece per fact, a clause that adds to one kept with it; None for any other, and for
    a change, which is read whole ("作业现在都走钉钉家校本，智学网停用了" is one change)."""
    read = unquoted(sentence)
    if parse_change(read) is not None or any(
        cue.search(read) for cue in (cues.CHANGE, cues.MIGRATION, cues.CANCELLATION, cues.DECISION)
    ):
        return None
    pieces, facts = _pieces(sentence, _CLAUSE_END)
    if sum(facts) < 2 and not HAN.search(sentence):
        # "…: Unity for the game itself, Sentry for crash reports": facts a comma lists.
        pieces, facts = _pieces(sentence, _LIST_COMMA)
    if sum(facts) < 2:
        return None
    starts = [a for (a, _), fact in zip(pieces, facts, strict=True) if fact]
    starts[0] = 0  # what opens the sentence belongs to its first fact
    ends = [*starts[1:], len(sentence)]
    return [
        sentence[a:b].strip().rstrip("，；;,").strip() for a, b in zip(starts, ends, strict=True)
    ]


def facts_of(said: list[str], *, per_fact: bool) -> list[tuple[str, str]]:
    """The statements of a message's sentences, each as (what is read, the words quoted): a
    sentence whose
    clauses each state a fact of their own ("规则平台是孙悦在负责，特征库归郭涛", "Ana owns
    billing; Tom owns search", "We use PagerDuty for paging, and the runbooks live in
    Confluence") is one fact per clause, so each can later be restated, handed over or replaced
    alone, and a clause that shares the person of the one before is read with that person
    ("我在客服平台组，主要负责工单系统" → "我主要负责工单系统", quoted as said); any other
    sentence is whole ("张伟离开了数据组，数据平台现在由赵敏负责" is one change)."""
    if not per_fact:  # the assistant's own words: each sentence whole
        return [(s, s) for s in said]
    out: list[tuple[str, str]] = []
    for sentence in said:
        clauses = [c.strip().rstrip("，；;").strip() for c in _CLAUSE_END.split(sentence)]
        clauses = [c for c in clauses if c]
        if len(clauses) > 1 and all(_fact_of_its_own(c) for c in clauses):
            read = carried_service(clauses) if HAN.search(sentence) else clauses
            out += list(zip(read, clauses, strict=True))
            continue
        grouped = _fact_groups(sentence)
        if grouped is not None:
            out += [(g, g) for g in grouped]
            continue
        carried = carried_clauses(sentence) if len(clauses) > 1 and HAN.search(sentence) else None
        if carried is not None and len(carried) == len(clauses):
            out += list(zip(carried, clauses, strict=True))
        else:
            out.append((sentence, sentence))
    return out
