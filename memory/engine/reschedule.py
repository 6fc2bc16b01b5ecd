"""Something moved to another time (issue 29: supersession beyond the fixed slots): "The launch
has been pushed to May 17" after "The launch is planned for May 3", "Standup moved to 10
starting next week" after "Our standup is at 9:30", "周会改到周三下午了" after "周会在周一上午".
The new statement supersedes the earlier plan or meeting it names; `services.supersession` asks
about a bounded set of the namespace's recent active events. Pure rules.

What moved is the words before the verb of moving, less articles and possessives ("the launch",
"our standup", "周会"); an earlier event is about it when it holds every one of those words (as
five-letter stems, Han text as it is), is a plan or a meeting, and had a time of its own: "the
launch party is booked at the Hilton" says no time and stays.
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine.change_terms import folded

__all__ = ["MOVABLE_TYPES", "moved_thing", "names_moved", "timed"]

# The kinds of event a time belongs to.
MOVABLE_TYPES: Final = frozenset({"plan", "meeting"})

_MOVED_EN: Final = re.compile(
    r"^(?:(?:so|ok(?:ay)?|fyi|heads\s+up)[,:]?\s+)?(?:the\s+|our\s+|my\s+|this\s+week's\s+)?"
    r"(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)\s+"
    r"(?:has\s+been\s+|have\s+been\s+|was\s+|were\s+|is\s+|are\s+|got\s+|is\s+being\s+)?"
    r"(?:moved|pushed|postponed|rescheduled|delayed|bumped|shifted|brought\s+forward)"
    r"(?:\s+(?:back|out|up))?\s+(?:to|until|till|from)\b",
    re.IGNORECASE,
)
_MOVED_ZH: Final = re.compile(
    r"^(?:我们的?|咱们的?)?(?P<what>[\u4e00-\u9fffA-Za-z]{2,8}?)(?:已经|又|也)?"
    r"(?:改到|推迟到|延期到|延到|挪到|调到|改成|提前到)"
)
_NOT_A_THING: Final = frozenset(
    "i we you he she they it this that everything everyone we've i've it's".split()  # noqa: SIM905
)
_WORD: Final = re.compile(r"[^\W_]+", re.UNICODE)
# A time said: a number, a day, a month or a part of the day.
_TIMED: Final = re.compile(
    r"\d|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:january|february|march|april|may"
    r"|june|july|august|september|october|november|december|tomorrow|tonight|noon|morning"
    r"|afternoon|evening|week|month)\b|[周星期][一二三四五六日天]|[上下]午|早上|晚上|[一二三四五六七八九十两]点"
    r"|[明后今]天|下周|月底|月初",
    re.IGNORECASE,
)


def moved_thing(text: str) -> str | None:
    """What a statement says was moved to another time ("the launch", "standup", "周会"), or
    None."""
    said = text.strip()
    match = _MOVED_ZH.match(said) or _MOVED_EN.match(said)
    if match is None:
        return None
    what = match.group("what").strip()
    if what.casefold() in _NOT_A_THING or what.split()[0].casefold() in _NOT_A_THING:
        return None
    return what


def timed(text: str) -> bool:
    """Whether a statement says a time (a plan or a meeting that had one can be moved)."""
    return bool(_TIMED.search(text))


def names_moved(what: str, earlier: str) -> bool:
    """Whether an earlier statement is about `what` (every word of it said there)."""
    if re.search(r"[\u4e00-\u9fff]", what):
        return folded(what) in folded(earlier)
    wanted = {w[:5] for w in _WORD.findall(folded(what))}
    said = {w[:5] for w in _WORD.findall(folded(earlier))}
    return bool(wanted) and wanted <= said
