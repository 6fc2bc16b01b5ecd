"""A plan called off ends the plan (issue 29: supersession beyond the fixed slots): "The
village-hall tour's off though" after "We're planning a village-hall tour in July", "scrap the
four-day hygienist week" after "We're trialling a four-day hygienist week from May", 成都那个培训
取消了 after 老王下个月想去成都参加…的培训, 夜间班决定不开了 after 我们打算今年暑假开个夜间班.

What is called off is the words the cancellation names (`called_off`); an earlier plan, meeting
or decision still to come is about it when it holds every one of those words (English as
five-letter stems; Chinese as each piece of two or more characters between 那个, 这个 and 的).
`services.supersession` asks about a bounded set of the namespace's recent active events. Pure
rules.
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine.change_terms import HAN, folded
from memory.engine.reschedule import names_moved

__all__ = ["CALLABLE_OFF_TYPES", "called_off", "names_called_off"]

# What can be called off: something still to come.
CALLABLE_OFF_TYPES: Final = frozenset({"plan", "meeting", "decision", "other"})

_THING_EN: Final = r"(?P<what>[a-z][\w'’-]*(?:\s+[\w'’-]+){0,5}?)"
_CALLED_OFF_EN: Final = (
    re.compile(
        r"\b(?:cancel(?:l?ed|ling)?|scrap(?:ped|ping)?|called\s+off|call\s+off|shelved|axed)\s+"
        rf"(?:the\s+|our\s+|that\s+|this\s+|my\s+)?{_THING_EN}"
        r"(?=\s+(?:because|since|as|after|for|—|–|-)\b|\s*[,.;!?—–]|\s*$)",
        re.IGNORECASE,
    ),
    re.compile(
        r"^(?:(?:oh\s+)?(?:and|also|so|but|sadly|unfortunately|well)[,:]?\s+)*"
        rf"(?:the\s+|our\s+|that\s+|this\s+|my\s+)?{_THING_EN}"
        r"(?:['’]s|\s+is|\s+was|\s+has\s+been|\s+got)\s+(?:officially\s+|now\s+)?(?:off|cancell?ed"
        r"|called\s+off|scrapped|shelved|dead)\b",
        re.IGNORECASE,
    ),
    re.compile(
        rf"\bnot\s+doing\s+(?:the\s+|our\s+|that\s+)?{_THING_EN}\s+after\s+all\b", re.IGNORECASE
    ),
)
_CALLED_OFF_ZH: Final = re.compile(
    r"^(?:对了|还有|另外|哦对了)?[，,]?(?P<what>[\u4e00-\u9fffA-Za-z]{2,14}?)(?:决定|已经|也|就|还是)?"
    r"(?:取消了|不开了|不办了|不弄了|不搞了|不做了|黄了|不去了|作废了)"
)
_ZH_JOINS: Final = re.compile(r"那个|这个|那次|这次|的")


def called_off(text: str) -> str | None:
    """What a statement says is called off ("the village-hall tour", "成都那个培训"), or None."""
    said = text.strip()
    zh = _CALLED_OFF_ZH.match(said)
    if zh is not None:
        return zh.group("what")
    for pattern in _CALLED_OFF_EN:
        match = pattern.search(said)
        if match is not None and match.group("what").casefold() not in _NOT_A_THING:
            return match.group("what")
    return None


_NOT_A_THING: Final = frozenset("it that this everything plan plans idea".split())  # noqa: SIM905


def names_called_off(what: str, earlier: str) -> bool:
    """Whether an earlier statement is about what was called off (every word, or every Chinese
    piece, of it said there)."""
    if HAN.search(what):
        pieces = [p for p in _ZH_JOINS.split(folded(what)) if len(p) >= 2]
        return bool(pieces) and all(p in folded(earlier) for p in pieces)
    return names_moved(what, earlier)
