"""Echoes (issue 29: no echoes): extraction reads a turn as a whole, and an assistant sentence
that restates or acknowledges what the user stated in that turn adds no event; one with new
content (a recommendation, a figure it worked out, a tool's outcome) still does. The rules
`memory.engine.offline_events.extract_events` applies, and the words `event_identity` compares
statements by. Pure rules.
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine import offline_cues as cues
from memory.engine import talk_cues as talk

__all__ = [
    "ACK_OPEN",
    "ECHO_MIN_WORDS",
    "ECHO_SHARE",
    "ECHO_STEM",
    "computed_answer",
    "echo_words",
    "echoes",
    "numbers_in",
    "restates_dated",
]

# An assistant sentence whose words are at least this share of the user's words of the turn
# restates them ("Noted: you decided to deploy on Fly.io"): it is no event of its own.
ECHO_SHARE: Final = 0.6
ECHO_MIN_WORDS: Final = 2
ECHO_STEM: Final = 5  # words compare by their first letters: "migrate" is "migration"
_ECHO_WORD: Final = re.compile(r"[^\W\d_]{3,}|\d+(?:[.,]\d+)*")
_HAN_RUN: Final = re.compile(r"[\u4e00-\u9fff]+")


def echo_words(text: str) -> set[str]:
    """The words an echo is judged by: Latin words of three letters or more (their first
    ECHO_STEM letters, stop words left out), numbers, and Han character pairs."""
    words = {
        w[:ECHO_STEM]
        for w in (m.group().casefold() for m in _ECHO_WORD.finditer(_HAN_RUN.sub(" ", text)))
        if w not in cues.STOP_WORDS
    }
    for run in _HAN_RUN.findall(text):
        words |= {run[i : i + 2] for i in range(len(run) - 1)} or {run}
    return words


def echoes(sentence: str, said: set[str]) -> bool:
    """True when an assistant sentence restates what the user stated in the turn: at least
    ECHO_SHARE of its words (and at least ECHO_MIN_WORDS) were said by the user. New content (a
    recommendation, a result, a tool outcome) brings words of its own and stays."""
    words = echo_words(cues.ACKNOWLEDGEMENT.sub("", sentence))
    if len(words) < ECHO_MIN_WORDS:
        return False
    return len(words & said) >= ECHO_SHARE * len(words)


# An assistant sentence opening with an acknowledgement ("Okay, no Docker Swarm in production.",
# "明白，月底前上线", "好的，不再推游戏相关的内容") restates the user or promises how it will
# answer: not new content, unless it recommends something or works out a figure.
ACK_OPEN: Final = re.compile(
    r"^\s*(?:ok(?:ay)?|sure|noted|understood|got\s+it|alright|all\s+right|will\s+do"
    r"|good\s+to\s+know|好的|好|收到|明白了?|了解了?|知道了|记下了?|记住了|没问题|嗯|行)"
    r"\s*[,，.。:：!！—–]",
    re.IGNORECASE,
)
# The user's words put another way: "也就是说302床王奶奶今晚…摔倒", "So to recap, …".
RESTATING: Final = re.compile(
    r"^\s*(?:也就是说|换句话说|就是说|总结一下|简单说|(?:so\s+to\s+recap|to\s+recap|in\s+other\s+words"
    r"|(?:so\s+)?just\s+to\s+confirm|to\s+sum\s+up|so\s+to\s+sum\s+up)\b)",
    re.IGNORECASE,
)
_NUMBER: Final = re.compile(r"\d[\d,.]*\d|\d")


def restates_dated(
    when: tuple[object, ...], sentence: str, dated_said: list[tuple[tuple[object, ...], set[str]]]
) -> bool:
    """An assistant sentence stating an event of the user's turn with its date said otherwise
    ("Keisha's leaving at the end of the month" → "Keisha leaves at the end of May"): the same
    occurrence time (start, end), and a word of the user's besides. The type may differ: the
    user's leaving is a change, the assistant's "leaves at the end of May" reads as a plan."""
    if when[0] is None:
        return False
    words = echo_words(sentence)
    return any(when == said_when and words & said for said_when, said in dated_said)


def numbers_in(text: str) -> set[str]:
    return {n.replace(",", "") for n in _NUMBER.findall(text)}


def computed_answer(sentence: str, asked: bool, user_numbers: set[str]) -> bool:
    """An assistant's sentence that works out a figure the user did not say: an answer to the
    user's question ("That is 8 vCPUs in total", "6个节点一共大约能扛18000 QPS"), or, asked or
    not, a sum shown with its working ("17 days × 7 hours = 119 scheduled hours", "每片每小时省
    8 元…一周能省 2400 元", "82% of $44,200 would be about $36,244")."""
    new_figures = numbers_in(sentence) - user_numbers
    if not new_figures:
        return False
    if _WORKED_OUT.search(sentence):
        return True
    return asked and bool(talk.COMPUTED.search(sentence))


# A figure worked out: an operator between figures, an approximate result, a saving or a share.
_WORKED_OUT: Final = re.compile(
    r"\d\s*[×x*÷/]\s*[\d$€£¥]|[=≈]\s*[\d$€£¥约]"
    r"|\b(?:would\s+be|comes?\s+to|works?\s+out\s+(?:to|at)|that['’]s)\s+(?:about|around|roughly"
    r"|approximately|~)?\s*[\d$€£¥]"
    r"|\d+(?:\.\d+)?%\s+of\s+[$€£¥]?\d"
    r"|(?:能省|省下|多出|少了?|大约是?|约为?|算下来|一共是?)\s*[\d约]",
    re.IGNORECASE,
)
