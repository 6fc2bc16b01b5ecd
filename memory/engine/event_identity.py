"""When is a newly extracted event the same fact as an existing one (issue 29: one event per
fact)? A plain-Python rule, shared by the offline processor and the model path: the service that
stores extracted events (`memory.services.mentions`) asks it about a bounded set of candidates.

Two events state the same fact when all of these hold:

- the same event type;
- the same occurrence days, when either has an occurrence date: "the demo is on Friday" said in
  two different weeks names two Fridays, and a dated statement is not an undated one — except
  a plan's deadline, whose range starts on the day it is said: two plans with the same last
  day are the same fact when most of their words besides dates agree (`same_deadline`);
- the same polarity: one negated and the other not is a change, not a repeat
  (memory/engine/negation.py: "not", "no longer", "never", "n't" …; 不 / 没 / 没有 / 别 / 不再);
- the same named participants (generic roles such as "user" and "assistant" left out), and
  no proper noun or number said in one and not in the other (numbers of the titles too):
  "Alice owns billing" and "Bob owns billing", "deploy on Fly.io" and "deploy on Render",
  "5 replicas" and "6 replicas" differ;
- no substitution: each text has a content word the other lacks ("dark mode" / "light
  mode", "orders database" / "payments database", 账单 / 订单) — words compared as five-letter
  stems without stop words, Han text as character pairs; a word only added or dropped ("… the
  billing service" / "… billing", "… please") is no substitution;
- a liking said in other words is the same fact (`same_liking`: the same tool, or the same topic
  less words of degree, liked by both or disliked by both), and a liking against a dislike of
  the same speaker is never one;
- normalised content (NFKC, case-folded, a leading "Speaker:" label dropped, punctuation
  removed, spaces collapsed; what marks a restatement — "still", "just so you remember", 还是 —
  and Han particles 的/是/了 left out of this and the substitution rule) at least
  `SAME_FACT_THRESHOLD` (80) similar by rapidfuzz's `token_sort_ratio` (word order ignored,
  every word counted).

Measured (tests/engine/test_event_identity.py): restatements score 83.6 ("dark mode in every
editor" / "in all editors") to 100; a single content word swapped scores up to 87.5 in English
("orders database" / "payments database") and 95.8 in Chinese (账单 / 订单, one character of
twenty-four), so similarity alone cannot tell a repeat from a new value at any threshold that
merges restatements — the substitution rule does, and the threshold only bounds how much may be
added: "the gateway runs on Kubernetes" against "… and billing runs on Kubernetes too" scores 65.
`token_set_ratio` was rejected: it scores any sentence contained in a longer one as 100. A
missed merge costs one extra event; a wrong merge would lose a fact.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import lru_cache
from typing import Final

from rapidfuzz import fuzz

from memory.engine.echoes import echo_words
from memory.engine.event_types import normalize_key
from memory.engine.negation import affirmed, negated
from memory.engine.offline_cues import FILLER_PREFIX, STOP_WORDS
from memory.engine.offline_entities import known_tool
from memory.engine.offline_phrases import preferences
from memory.engine.offline_relations import relations

SAME_FACT_THRESHOLD: Final = 80.0

# Role words that name no person: a fact said by "user" in two sessions is the same speaker.
GENERIC_PARTICIPANTS: Final = frozenset(
    {"user", "assistant", "system", "tool", "me", "i", "we", "us", "用户", "助手", "我", "我们"}
)
_SPEAKER_LABEL: Final = re.compile(r"^\s*[^\s:：]{1,40}(?:\s+[^\s:：]{1,40}){0,2}\s*[:：]\s*")
_APOSTROPHE: Final = re.compile(r"[’‘`´]")
_NON_WORD: Final = re.compile(r"[^\w]+")
_HAN: Final = re.compile(r"[\u3400-\u9fff]")
# A word written with a capital: a proper noun, unless it opens its sentence and is a common
# word ("So we deploy…", "We deploy…").
_CAPITALISED: Final = re.compile(r"\b[A-Z][\w.-]*")
_SENTENCE_OPENING: Final = re.compile(r"(?:^|[.!?。！？:：;；]\s*)$")
_COMMON_OPENERS: Final = STOP_WORDS | frozenset(
    """
    a an and as at but for he her his i if in it its my no noted of ok on our please she so
    that the then there this to us we yes got let lets note also
    """.split()  # noqa: SIM905
)
# A word with a digit in it, whole: "queue1" and "queue2" differ even when both texts also
# hold a 1 and a 2 elsewhere.
_NUMBER: Final = re.compile(r"[^\W_]*\d[^\W_]*(?:[.,]\d+)*")


@dataclass(frozen=True, slots=True)
class FactText:
    """What identity compares of one event, new or stored."""

    event_type: str
    summary: str
    title: str = ""
    participants: Sequence[str] = ()
    happened_start: datetime | None = None
    happened_end: datetime | None = None


def without_speaker(text: str) -> str:
    """The text without a leading "Name:" label (at most three words before the colon)."""
    stripped = _SPEAKER_LABEL.sub("", text, count=1)
    return stripped if stripped.strip() else text


def normalise(text: str) -> str:
    """NFKC, case-folded, speaker label dropped, punctuation removed, spaces collapsed."""
    text = unicodedata.normalize("NFKC", without_speaker(text)).casefold()
    text = _APOSTROPHE.sub("'", text).replace("'", "")
    return " ".join(_NON_WORD.sub(" ", text).replace("_", " ").split())


def named_participants(participants: Sequence[str]) -> frozenset[str]:
    names = {" ".join(p.casefold().split()) for p in participants}
    return frozenset(n for n in names if n and n not in GENERIC_PARTICIPANTS)


def _marked_words(text: str, title: str = "") -> frozenset[str]:
    """Proper nouns of the text (capitalised, unless a common word opening a sentence) and the
    numbers of text and title, normalised like the content. A model's title is often in title
    case, so only its numbers count ("Works at Firm 1" / "Works at Firm 2")."""
    body = without_speaker(unicodedata.normalize("NFKC", text)).strip()
    words = {
        normalise(m.group())
        for m in _CAPITALISED.finditer(body)
        if not (
            _SENTENCE_OPENING.search(body[: m.start()])
            and m.group().casefold().rstrip(".") in _COMMON_OPENERS
        )
        and m.group() != "I"
    }
    words |= {normalise(n) for n in _NUMBER.findall(f"{body} {title}")}
    return frozenset(w for w in words if w)


def numbers(*texts: str) -> frozenset[str]:
    """The numbers said in these texts, whole ("Firm 2", "queue1"), normalised."""
    found = (
        normalise(n) for text in texts for n in _NUMBER.findall(unicodedata.normalize("NFKC", text))
    )
    return frozenset(n for n in found if n)


def _day(value: datetime | None) -> date | None:
    return value.date() if value is not None else None


# What marks a statement as said before, and says nothing of the fact: "I'm still allergic to
# shellfish, just so you remember", "我还是对花生过敏". Han particles go too, so that
# "我们公司还是用阿里云" and "我们公司用的是阿里云" read alike.
_RESTATED: Final = re.compile(
    r"\b(?:still|again|as\s+(?:i|we)\s+(?:said|mentioned|told\s+you)(?:\s+before)?"
    r"|just\s+so\s+you\s+(?:know|remember)|just\s+a\s+reminder|as\s+a\s+reminder"
    r"|nothing\s+(?:has\s+)?changed(?:\s+there)?|as\s+before|like\s+before)\b"
    r"|还是?|依然|仍然|仍旧|照旧|照样|跟以前一样|和以前一样|[的是了都也就]",
    re.IGNORECASE,
)


def _unmarked(text: str) -> str:
    # A Han marker goes without a gap: the characters either side are still one run.
    return _RESTATED.sub(lambda m: "" if _HAN.match(m.group()) else " ", without_speaker(text))


def similarity(a: str, b: str) -> float:
    """rapidfuzz `token_sort_ratio` of the normalised texts, 0–100, with what marks a statement
    as a restatement ("still", "just so you remember", 还是) left out."""
    return float(fuzz.token_sort_ratio(normalise(_unmarked(a)), normalise(_unmarked(b))))


def substituted(a: str, b: str) -> bool:
    """True when each text has a content word the other lacks: one value replaced by another
    ("dark mode" / "light mode", 账单 / 订单). Words compare as the echo rule compares them
    (`echoes.echo_words`: five-letter stems without stop words, Han character pairs),
    so "editor" / "editors" is no substitution; a word only added ("… please") is none either."""
    words_a, words_b = echo_words(_unmarked(a)), echo_words(_unmarked(b))
    return bool(words_a - words_b) and bool(words_b - words_a)


def why_different(new: FactText, old: FactText) -> str | None:
    """The first must-not-merge rule the pair breaks, or None when they are the same fact."""
    if new.event_type != old.event_type:
        return "event_type"
    if (_day(new.happened_start), _day(new.happened_end)) != (
        _day(old.happened_start),
        _day(old.happened_end),
    ):
        return None if same_deadline(new, old) else "dates"
    if negated(without_speaker(new.summary)) != negated(without_speaker(old.summary)):
        return "negation"
    a, b = _likings(new, old)
    if a is not None and b is not None and a[0] != b[0]:
        return "negation"  # "I like dark mode" / "I dislike dark mode"
    if named_participants(new.participants) != named_participants(old.participants):
        return "participants"
    if _marked_words(new.summary, new.title) != _marked_words(old.summary, old.title):
        return "names_or_numbers"
    if same_liking(new, old):
        return None
    if substituted(new.summary, old.summary):
        return "substitution"
    if similarity(new.summary, old.summary) < SAME_FACT_THRESHOLD:
        return "content"
    return None


# Feelings that say the same liking in other words ("prefer", "like", "favourite", 喜欢).
_LIKING: Final = frozenset(
    {"prefers", "likes", "loves", "enjoys", "favourite", "喜欢", "偏好", "最喜欢"}
)
_DISLIKING: Final = frozenset({"dislikes", "不喜欢"})


def same_liking(new: FactText, old: FactText) -> bool:
    """A preference restated in other words ("I prefer dark mode in every app" / "I like dark
    mode everywhere", "I'm a big fan of Go" / "As I said, Go is my favourite for backends"):
    both like (or both dislike) the same tool, by its name, or the same thing, by its topic's
    words less words of degree ("everywhere", "better"). Events of type `other` only (a
    preference's type); people, polarity, names and numbers are compared before."""
    a, b = _likings(new, old)
    return a is not None and a == b


def _likings(
    new: FactText, old: FactText
) -> tuple[tuple[str, tuple[str, ...]] | None, tuple[str, tuple[str, ...]] | None]:
    """What each of two events of type `other` says its speaker likes (`_liked`)."""
    if new.event_type != "other" or old.event_type != "other":
        return None, None
    a, b = (_liked(FILLER_PREFIX.sub("", without_speaker(f.summary))) for f in (new, old))
    return a, b


# Words of degree or place that leave a liking's topic as it is.
_DEGREE: Final = frozenset(
    """
    everywhere always generally better more most really lot overall too also still best much
    far way
    """.split()  # noqa: SIM905
)


@lru_cache(maxsize=4096)
def _liked(text: str) -> tuple[str, tuple[str, ...]] | None:
    """("+" or "-", what): what a statement says its speaker likes or dislikes, as words (a
    tool or a one-word topic as its key); None when it states no liking."""
    feelings = [p for p in preferences(text) if p.feeling in _LIKING | _DISLIKING]
    tools = [r.object.name for r in relations(text) if r.relation == "prefers"]
    if not feelings and not tools:
        return None
    sign = "-" if feelings and feelings[0].feeling in _DISLIKING else "+"
    # A tool by its name, liked ("prefers") or disliked ("dislikes Vim"): "I love Vim" and "I
    # can't stand Vim" are about one thing.
    named = tools[0] if tools else known_tool(feelings[0].value.partition(" ")[2])
    if named:
        return sign, (normalize_key(named),)
    topic = feelings[0].topic.casefold().split()
    words = [w for w in topic if w not in _DEGREE] or topic
    return sign, (normalize_key(words[0]),) if len(words) == 1 else tuple(words)


# A deadline restated in another session: the same plan and last day, said in other words.
DEADLINE_SHARE: Final = 0.6
_CALENDAR_WORD: Final = re.compile(
    r"^(?:\d+|janua|febru|march|april|may|june|july|augus|septe|octob|novem|decem|monda|tuesd"
    r"|wedne|thurs|frida|satur|sunda|week|month|today|tomor|due|until|befor|deadl)$"
    r"|[天周月号日年今明昨前后之星期点]"  # a Han pair naming a day: 明天, 周三, 之前
)
_FIRST_CLAUSE: Final = re.compile(r"[,;，；。]")


def same_deadline(new: FactText, old: FactText) -> bool:
    """A plan restated with the same last day, whatever day it was said on ("the carrier API
    integration has to be live by April 30" / "… is still due April 30", "下周三之前要交计量经济
    的作业" / "计量经济作业明天就要交了"): a deadline's range starts on the day it is mentioned,
    so only its end compares. Same polarity and people, and at least `DEADLINE_SHARE` of the
    shorter statement's words besides dates (two at least) said in both."""
    if new.event_type != "plan" or old.event_type != "plan":
        return False
    if new.happened_end is None or _day(new.happened_end) != _day(old.happened_end):
        return False
    # Polarity of the statement itself: "nothing changed there" is a restatement, and "还差一题
    # 没写完" after "作业明天就要交了" says how far it is, not that it is off.
    polarity = (negated(_FIRST_CLAUSE.split(_unmarked(f.summary))[0]) for f in (new, old))
    if len(set(polarity)) > 1:
        return False
    if named_participants(new.participants) != named_participants(old.participants):
        return False
    words_new, words_old = (
        {w for w in echo_words(_unmarked(f.summary)) if not _CALENDAR_WORD.search(w)}
        for f in (new, old)
    )
    shared = words_new & words_old
    return len(shared) >= 2 and len(shared) >= DEADLINE_SHARE * min(len(words_new), len(words_old))


def same_fact(new: FactText, old: FactText) -> bool:
    return why_different(new, old) is None


def contradicts(new: FactText, old: FactText) -> bool:
    """True when one states what the other denies and nothing else differs: "we use Kafka for
    the event bus" / "we don't use Kafka for the event bus", 他喜欢咖啡 / 他不喜欢咖啡. The pair
    breaks only the negation rule, and with the negations taken out they are the same fact."""
    if why_different(new, old) != "negation":
        return False
    a, b = _likings(new, old)
    if a is not None and b is not None and a[0] != b[0]:
        # "I like dark mode" / "I dislike dark mode": the same thing, liked and disliked.
        return (
            a[1] == b[1]
            and named_participants(new.participants) == named_participants(old.participants)
            and _marked_words(new.summary, new.title) == _marked_words(old.summary, old.title)
        )
    return same_fact(_affirmed(new), _affirmed(old))


def _affirmed(fact: FactText) -> FactText:
    return replace(fact, summary=affirmed(fact.summary), title=affirmed(fact.title))


def best_match(new: FactText, candidates: Sequence[tuple[int, FactText]]) -> int | None:
    """The id of the most similar candidate stating the same fact (ties: the oldest id)."""
    best: tuple[float, int] | None = None
    for pk, old in candidates:
        if not same_fact(new, old):
            continue
        key = (similarity(new.summary, old.summary), -pk)
        if best is None or key > best:
            best = key
    return -best[1] if best is not None else None
