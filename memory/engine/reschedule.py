"""Something moved to another time (issue 29: supersession beyond the fixed slots): "The launch
has been pushed to May 17" after "The launch is planned for May 3", "Standup moved to 10
starting next week" after "Our standup is at 9:30", 周会改到周三下午了 after 周会在周一上午; and a
habit moved to another day: "From now on we deploy on Thursdays" after "We deploy every
Tuesday", 以后改成每周四发版了 after 我们每周二发版. The new statement supersedes the earlier plan,
meeting or habit; `services.supersession` asks about a bounded set of the namespace's recent
active events. Pure rules.

What moved is the words before the verb of moving, less articles and possessives ("the launch",
"our standup", "周会"); an earlier event is about it when it holds every one of those words (as
five-letter stems, Han text as it is), is a plan, a meeting or a plain fact, and had a time of
its own: "the launch party is booked at the Hilton" says no time and stays. A habit moves when
the new statement says it holds from now on, the old one says it recurs, both say a time, and
their other words are the same ("We run retros every Tuesday" is another habit).
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine.change_terms import folded

__all__ = ["MOVABLE_TYPES", "habit_moved", "may_move_habit", "moved_thing", "names_moved", "timed"]

# The kinds of event a time belongs to: a plan, a meeting, and a standing time said as a plain
# fact ("站会九点半开始", "Standup is at 9:30 every day").
MOVABLE_TYPES: Final = frozenset({"plan", "meeting", "other"})

_MOVED_EN: Final = re.compile(
    r"^(?:(?:so|ok(?:ay)?|fyi|heads\s+up)[,:]?\s+)?(?:the\s+|our\s+|my\s+|this\s+week's\s+)?"
    r"(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)\s+"
    r"(?:has\s+been\s+|have\s+been\s+|was\s+|were\s+|is\s+|are\s+|got\s+|is\s+being\s+)?"
    r"(?:moved|pushed|postponed|rescheduled|delayed|bumped|shifted|slipped|slid|brought\s+forward)"
    r"(?:\s+(?:back|out|up))?\s+(?:to|until|till|from)\b"
    # "Standup is now at 10": the time said as now.
    r"|^(?:the\s+|our\s+|my\s+)?(?P<now>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+(?:is|are)\s+now\s+"
    r"(?:at|on)\s+(?=\d|(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|noon)"
    # "Standup is at 10 now", "Retro is on Thursdays now".
    r"|^(?:the\s+|our\s+|my\s+)?(?P<then>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)\s+(?:is|are)\s+"
    r"(?:at|on)\s+(?=\d|(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|noon)[^.;!?]{1,30}?\s+now"
    r"\s*[.!]?$",
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
    said_as = match.groupdict()
    what = (said_as.get("what") or said_as.get("now") or said_as.get("then") or "").strip()
    if not what:
        return None
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


# A habit said to change from now on, and one said as recurring.
_FROM_NOW: Final = re.compile(
    r"\b(?:from\s+now\s+on|going\s+forward|starting\s+(?:next|this|today|tomorrow|now)\w*"
    r"|now|instead)\b|以后|今后|从现在起|从下周起|改成|改为|改到",
    re.IGNORECASE,
)
_RECURRING: Final = re.compile(
    r"\b(?:every|each)\s+\w+|\b(?:daily|weekly|monthly)\b|\bon\s+(?:mon|tues|wednes|thurs|fri"
    r"|satur|sun)days\b|每[天日周月]|每个?(?:周|星期|礼拜)",
    re.IGNORECASE,
)
# The time and the markers, taken out before the rest is compared.
_HABIT_NOISE: Final = re.compile(
    r"\b(?:from\s+now\s+on|going\s+forward|starting|every|each|on|at|daily|weekly|monthly|now|days?"
    r"|instead|next|this|week|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|\d{1,2}(?::\d{2})?"
    r"(?:\s*[ap]m)?)\b"
    r"|每?个?(?:周|星期|礼拜)[一二三四五六日天]|每[天日周月]|[一二三四五六七八九十两\d]+点半?"
    r"|以后|今后|从现在起|从下周起|改成|改为|改到|上午|下午|晚上|早上",
    re.IGNORECASE,
)
_HAN_FUNCTION: Final = re.compile(r"[我你他她们了的是在就都也还要会]")


def _habit_words(text: str) -> frozenset[str]:
    rest = _HABIT_NOISE.sub(" ", folded(text))
    words = {w[:5] for w in _WORD.findall(re.sub(r"[\u4e00-\u9fff]+", " ", rest))}
    for run in re.findall(r"[\u4e00-\u9fff]+", rest):
        pairs = {run[i : i + 2] for i in range(len(run) - 1)} or {run}
        words |= {p for p in pairs if not _HAN_FUNCTION.search(p)}
    return frozenset(words - _STOP)


_STOP: Final = frozenset("we i the our my a an to and will".split())  # noqa: SIM905


def may_move_habit(new: str) -> bool:
    """Whether a statement may move a habit: it says it holds from now on, at a time."""
    return bool(_FROM_NOW.search(new)) and timed(new)


def habit_moved(new: str, old: str) -> bool:
    """Whether `new` moves the habit `old` states to another time: `new` says it holds from
    now on, `old` says it recurs, both say a time, and the rest of their words is the same."""
    if not (may_move_habit(new) and _RECURRING.search(old) and timed(old)):
        return False
    words = _habit_words(new)
    return bool(words) and words == _habit_words(old) and folded(new) != folded(old)
