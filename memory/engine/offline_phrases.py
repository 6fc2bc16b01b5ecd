"""What a preference is *about*, for the offline processor: real noun phrases, never fragments.

"I love it", "Yeah, I love to", "I love how you use it to tell your stories" and "I love that
you chose pottery" state no preference about a thing: their objects are a pronoun, a bare
function word and clauses. Offline event extraction asks `preferences` whether a sentence states
a preference at all, and graph projection keys its `preference:<topic>` facts by the same topic,
so an event and its fact never disagree about what was liked.

A `Preference` is (feeling, topic, value): "I love camping trips with my fam, 'cause nature…" →
("loves", "camping trips", "loves camping trips with my fam"). The object is cut at the first
clause boundary (", but", "because", a dash…) and keeps a comparison ("tabs over spaces"); the
topic drops leading determiners, trailing prepositional phrases and comparisons and keeps at most
four words. English and Chinese.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from memory.engine.slots import slot_choices

__all__ = ["Preference", "noun_phrase", "noun_phrase_zh", "preferences", "topic_of"]

TOPIC_WORDS: Final = 4


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Objects that stand for something said elsewhere (or for the listener): no fact about a thing.
PRONOUNS: Final = _words(
    """
    it its it's that's this these those them they he she him her his hers we us our you your
    yours me my mine i everything something anything nothing everyone everybody someone
    somebody anyone anybody one ones all both each either neither such there here so too
    """
)
# Words that open a clause or a comparison rather than a noun phrase.
CLAUSE_OPENERS: Final = _words(
    """
    how what when where why who whom whose whether if because as since than though although
    while unless until like seeing hearing knowing thinking
    """
)
_LISTENER: Final = _words("you your yours you're")
_DEMONSTRATIVES: Final = _words("that this these those")
# Function words and verb forms an object never starts with.
FUNCTION_STARTERS: Final = _words(
    """
    to the a an and but or nor of for with without in on at by from about into onto over under
    after before is are was were be been am do does did have has had can could will would shall
    should may might must 's 're 've 'll 'd not no just really very much more most less
    """
)
# Determiners, possessives and quantifiers dropped from the front of a topic.
DETERMINERS: Final = _words(
    """
    the a an my our your his her their its this that these those all some any both every each
    many much more most lots lot of several such another other few little whole
    """
)
# Cognition and speech verbs: "I always thought…" reports a thought, not a habit.
COGNITION: Final = _words(
    """
    thought think thinks knew know knows felt feel feels believed believe wondered wonder wanted
    want wants wished wish said say says told tell forget forgot remember remembered mean meant
    guess guessed figured suppose supposed imagine imagined expected expect hoped hope kinda
    """
)
# Gerunds that say nothing without what follows them.
LIGHT_GERUNDS: Final = _words(
    "being going getting having doing spending staying living hanging sitting working"
)
# An object ends at the first clause boundary.
_OBJECT_END: Final = re.compile(
    r"\s*(?:[,;:()\"“”]|\s[-–—]\s|\.\s|[.!?]$|\s(?:but|because|'cause|cause|since|so|though"
    r"|although|which|while|when|whenever|as\s+long\s+as|and\s+(?:it|that|i|we|they|he|she))\b)",
    re.IGNORECASE,
)
# A topic ends before a prepositional phrase or a relative clause.
_TOPIC_END: Final = re.compile(
    r"\s(?:with|in|at|on|for|from|about|during|like|by|near|to|into|around|that|who|which"
    r"|where|than|when|over|rather|instead|more|and|or)\b.*$",
    re.IGNORECASE,
)
_TOKEN: Final = re.compile(r"[\w'’&+#.-]+")

_EN_VERBS: Final = {
    "'d rather": "prefers", "'d much rather": "prefers", "prefer": "prefers", "like": "likes",
    "love": "loves", "enjoy": "enjoys", "hate": "dislikes", "dislike": "dislikes",
    "adore": "loves", "can't stand": "dislikes", "cannot stand": "dislikes",
    "don't like": "dislikes", "do not like": "dislikes", "always": "always", "never": "never",
    "usually": "usually", "'ve always preferred": "prefers", "have always preferred": "prefers",
    "'m more comfortable in": "prefers", "'m more comfortable with": "prefers",
    "am more comfortable in": "prefers", "am more comfortable with": "prefers",
}  # fmt: skip
_PREFERENCE: Final = re.compile(
    r"\bI(?:\s+(?:\w+ly\s+|much\s+|just\s+|also\s+|kinda\s+)?|(?='d|'ve|'m))"
    r"('d\s+(?:much\s+)?rather|(?:'ve|have)\s+always\s+preferred"
    r"|(?:'m|am)\s+more\s+comfortable\s+(?:in|with)|prefer|like|love|enjoy|hate|dislike|adore"
    r"|can't\s+stand"
    r"|cannot\s+stand|don't\s+like"
    r"|do\s+not\s+like|always|never|usually)\b\s*([^.!?;\n]{0,100})",
    re.IGNORECASE,
)
_FAN_OF: Final = re.compile(
    r"\bI(?:'m|\s+am)\s+(?:a\s+|such\s+a\s+)?(?:big\s+|huge\s+|massive\s+)?fan\s+of\s+([^.!?;\n]{1,100})",
    re.IGNORECASE,
)
_NOT_A_FAN: Final = re.compile(
    r"\bI(?:'m|\s+am)\s+not\s+(?:a\s+)?(?:big\s+|huge\s+|really\s+a\s+)?fan\s+of\s+([^.!?;\n]{1,100})",
    re.IGNORECASE,
)
# "I'm more of a cat person", "I'm a morning person": what the speaker is drawn to.
_KIND_OF_PERSON: Final = re.compile(
    r"\bI(?:'m|\s+am)\s+(?:more\s+of\s+|definitely\s+|totally\s+|very\s+much\s+)?an?\s+"
    r"([a-z][\w-]*)\s+person\b",
    re.IGNORECASE,
)
_INTO: Final = re.compile(
    r"\bI(?:'m|\s+am)\s+(?:\w+ly\s+|so\s+|totally\s+)?into\s+([^.!?;\n]{1,100})", re.IGNORECASE
)
_FAVOURITE: Final = re.compile(
    r"\bmy\s+(?:all-time\s+)?favou?rite\s+([a-z][\w\s-]{1,40}?)\s+(?:is|are|was)\s+([^.!?;\n]{1,80})",
    re.IGNORECASE,
)
# "Painting landscapes is my favorite way to relax": the subject is what is liked.
_IS_FAVOURITE: Final = re.compile(
    r"(?:^|[.!?]\s+|[,:]\s*)([A-Za-z][\w\s'-]{1,60}?)\s+(?:is|are)\s+(?:definitely\s+|probably\s+)?"
    r"my\s+(?:all-time\s+)?favou?rite\b(?!\s+\w+\s+(?:is|are)\b)",
    re.IGNORECASE,
)
_ZH_VERBS: Final = {
    "喜欢": "喜欢", "偏好": "偏好", "热爱": "喜欢", "爱": "喜欢", "讨厌": "不喜欢",
    "不喜欢": "不喜欢", "不太喜欢": "不喜欢", "不怎么喜欢": "不喜欢", "不大喜欢": "不喜欢",
    "受不了": "不喜欢", "总是": "总是", "从不": "从不", "从来不": "从不",
    "一般": "通常", "通常": "通常", "平时": "通常", "平常": "通常", "经常": "经常",
    "习惯": "习惯",
}  # fmt: skip
_PREFERENCE_ZH: Final = re.compile(
    r"我(?:个人|自己)?(?:更|最|很|非常|特别|比较|真的|也|还|一直|超)?"
    r"(不喜欢|不太喜欢|不怎么喜欢|不大喜欢|喜欢|讨厌|偏好|热爱|受不了|爱(?!人|好)|总是|从来不|从不|一般"
    r"|通常|平时|平常|经常|习惯)"
    r"([^，。,.!！？?；;]{1,30})"
)
_ZH_FAVOURITE: Final = re.compile(
    r"我最喜欢的([^，。,.!！？?；;是]{1,10})是([^，。,.!！？?；;]{1,30})"
)
_ZH_PRONOUN_START: Final = re.compile(r"^(?:它|他|她|你|我|这|那|其|啥|什么|怎么|这样|那样|了)")
_ZH_FILLER: Final = re.compile(r"^[的地得了都也还就会去要在吃上]+")
_ZH_VERB_ONLY: Final = re.compile(r"^(?:的|了|啊|呀|呢|吧|哦|嘛|这样|那样|一下)*$")


@dataclass(frozen=True, slots=True)
class Preference:
    feeling: str  # "loves", "dislikes", "always", "喜欢" …
    topic: str  # the fact key's topic: lower-case, ≤ 4 words (or a slot name for known tools)
    value: str  # what is stored: "loves camping trips with my fam"


def _tokens(text: str) -> list[str]:
    return [t.strip(".").lower().replace("’", "'") for t in _TOKEN.findall(text)]


def noun_phrase(text: str) -> str | None:
    """`text` cut to its noun phrase, or None when it is a pronoun, function word or clause.

    Gerunds and infinitives with an object count ("hiking in the Alps", "to paint landscapes").
    """
    head = _OBJECT_END.split(text.strip(), maxsplit=1)[0].strip()
    words = _tokens(head)
    if not words or words[0] in _LISTENER or words[0] in _DEMONSTRATIVES:
        # "I love your dress" compliments the listener; "I like that idea" points at something
        # said in the conversation: neither names a thing the person likes on its own.
        return None
    if words[0] == "to":  # an infinitive needs its verb
        return head if len(words) >= 2 and words[1] not in FUNCTION_STARTERS else None
    opener = words[0] in CLAUSE_OPENERS or words[0] in FUNCTION_STARTERS or words[0] in PRONOUNS
    if opener and (words[0] not in DETERMINERS or len(words) < 2):
        return None  # a determiner may open a noun phrase ("the new office"), nothing else
    rest = _strip_determiners(words)
    if not rest or rest[0] in PRONOUNS or rest[0] in CLAUSE_OPENERS:
        return None  # "all of them", "that you chose…"
    if rest[0] in FUNCTION_STARTERS:
        return None
    if rest[0] == "way" and len(rest) > 1 and rest[1] in PRONOUNS:
        return None  # "the way you think" is a clause about someone, not a thing
    return head


def _strip_determiners(words: list[str]) -> list[str]:
    index = 0
    while index < len(words) and words[index] in DETERMINERS:
        index += 1
    return words[index:]


def topic_of(phrase: str) -> str:
    """The fact topic of a noun phrase: no determiners, no trailing modifiers, ≤ 4 words."""
    cut = _TOPIC_END.sub("", phrase.strip())
    words = _strip_determiners(_tokens(cut)) or _tokens(cut)
    if words and words[0] == "to":
        words = words[1:]
    if len(words) == 1 and words[0] in LIGHT_GERUNDS:
        # "being around friends": the modifier is the topic, "being" alone says nothing.
        words = (_strip_determiners(_tokens(phrase)) or _tokens(phrase))[:3]
    words = words[:TOPIC_WORDS]
    while len(words) > 1 and (words[-1] in FUNCTION_STARTERS or words[-1] in DETERMINERS):
        words.pop()  # cut at four words: "list of", not a topic ending in "of"
    return " ".join(words)


def noun_phrase_zh(text: str) -> str | None:
    """A Chinese object with its leading particles dropped, or None for a pronoun or nothing."""
    obj = text.strip()
    if not obj or _ZH_PRONOUN_START.match(obj) or _ZH_VERB_ONLY.match(obj):
        return None
    return obj


def _habit(phrase: str) -> str | None:
    """The verb phrase after "always / never / usually", unless it reports a thought."""
    words = _tokens(phrase)
    if not words or words[0] in COGNITION or words[0] in FUNCTION_STARTERS:
        return None
    if words[0] in PRONOUNS or words[0] in CLAUSE_OPENERS:
        return None
    head = _OBJECT_END.split(phrase.strip(), maxsplit=1)[0].strip()
    return head if len(_tokens(head)) >= 2 else None


# After "I'd rather": a verb that asks for nothing lasting ("I'd rather wait and see").
_RATHER_NOT: Final = frozenset(("not", "wait", "see", "be", "go", "stay", "keep", "leave", "let"))
_LIGHT_VERB: Final = re.compile(r"^(?:have|get|use|take)\s+", re.IGNORECASE)


def _rather(obj: str) -> str | None:
    """What "I'd rather …" prefers when it is said with a verb: "have meetings in the morning"
    (the thing after a light verb), "work from home on Fridays" (a way of doing things)."""
    words = _tokens(obj)
    if not words or words[0] in _RATHER_NOT:
        return None
    if _LIGHT_VERB.match(obj.strip()):
        return noun_phrase(_LIGHT_VERB.sub("", obj.strip(), count=1))
    return _habit(obj)


def _english(feeling: str, obj: str) -> Preference | None:
    if feeling in ("always", "never", "usually"):
        habit = _habit(obj)
        return Preference(feeling, topic_of(habit), f"{feeling} {habit}") if habit else None
    if feeling == "prefers" and _tokens(obj)[:1] in (["wait"], ["see"], ["be"]):
        return None  # "I'd rather wait and see", "I'd rather be safe than sorry"
    phrase = noun_phrase(obj)
    if phrase is None and feeling == "prefers":
        phrase = _rather(obj)
    if phrase is None:
        return None
    choices = slot_choices(phrase)
    if choices:
        return Preference(feeling, choices[0].slot, f"{feeling} {choices[0].value}")
    topic = topic_of(phrase)
    return Preference(feeling, topic, f"{feeling} {phrase}") if topic else None


def preferences(text: str) -> list[Preference]:
    """Every preference `text` states about a real thing, in order, without repeats."""
    found: list[Preference] = []
    for match in _PREFERENCE.finditer(text):
        verb = " ".join(match.group(1).lower().replace("’", "'").split())
        pref = _english(_EN_VERBS[verb], match.group(2))
        if pref:
            found.append(pref)
    for match in [*_FAN_OF.finditer(text), *_INTO.finditer(text)]:
        pref = _english("likes", match.group(1))
        if pref:
            found.append(pref)
    for match in _KIND_OF_PERSON.finditer(text):
        topic = match.group(1).lower()
        found.append(Preference("likes", topic, f"is a {topic} person"))
    for match in _NOT_A_FAN.finditer(text):  # "I'm not a fan of Kubernetes"
        pref = _english("dislikes", match.group(1))
        if pref:
            found.append(pref)
    for match in _FAVOURITE.finditer(text):
        what = noun_phrase(match.group(2))
        if what:
            topic = " ".join(_tokens(match.group(1))[:TOPIC_WORDS])
            found.append(Preference("favourite", topic, f"favourite: {what}"))
    for match in _IS_FAVOURITE.finditer(text):
        what = noun_phrase(match.group(1))
        if what and topic_of(what):
            found.append(Preference("favourite", topic_of(what), f"favourite: {what}"))
    for match in _ZH_FAVOURITE.finditer(text):
        found.append(
            Preference("最喜欢", match.group(1), f"最喜欢的{match.group(1)}：{match.group(2)}")
        )
    for match in _PREFERENCE_ZH.finditer(text):
        if _ZH_FAVOURITE.match(text, match.start()):
            continue
        obj = noun_phrase_zh(match.group(2))
        if obj is None:
            continue
        feeling = _ZH_VERBS[match.group(1)]
        choices = slot_choices(obj)
        if choices:
            found.append(Preference(feeling, choices[0].slot, f"{feeling}{choices[0].value}"))
            continue
        topic = _ZH_FILLER.sub("", obj) or obj
        found.append(Preference(feeling, topic[:12], f"{feeling}{obj}"))
    unique: dict[tuple[str, str], Preference] = {}
    for pref in found:
        unique.setdefault((pref.topic, pref.value), pref)
    return list(unique.values())
