"""Whether a statement is negated ("we no longer use Redis", "他不喜欢咖啡"): one rule for every
comparison that must tell a statement from its negation (a restated fact, an imported memory),
and the statement with its negation taken out, to tell a contradiction ("we don't use Kafka"
against "we use Kafka") from an unrelated pair. Plain Python."""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_APOSTROPHE: Final = re.compile(r"[’‘`´]")
_ENGLISH: Final = re.compile(
    r"\b(?:not|no|never|cannot|nobody|nothing|none|no\s+longer|stopped|quit)\b|n't\b",
    re.IGNORECASE,
)
_CHINESE: Final = re.compile(r"不再|不用|不是|没有|不|没|别")
# What `affirmed` takes out. An English auxiliary stays ("isn't" → "is", "don't use" → "use");
# a Chinese negation before a verb goes, keeping the verb (不用 → 用, 没有 → 有, 不是 → 是).
_ENGLISH_OUT: Final = re.compile(
    r"\b(?:do|does|did)\s+not\b|\b(?:do|does|did)n't\b|\b(?:can't|cannot|won't)|n't\b"
    r"|\bno\s+longer\b|\b(?:not|never|no)\b",
    re.IGNORECASE,
)
_KEPT: Final = {"can't": "can", "cannot": "can", "won't": "will"}
# "Tom doesn't work at Globex" → "Tom works at Globex": the verb takes back its -s.
_DOES_NOT: Final = re.compile(r"\b(?:does\s+not|doesn't)\s+([a-z]+)\b", re.IGNORECASE)
_CHINESE_OUT: Final = re.compile(r"不再|不|没|别")


def negated(text: str) -> bool:
    """True when `text` holds an English or Chinese negation."""
    text = _APOSTROPHE.sub("'", unicodedata.normalize("NFKC", text))
    return bool(_ENGLISH.search(text) or _CHINESE.search(text))


def affirmed(text: str) -> str:
    """`text` with its negations taken out: "We don't use Kafka" → "We use Kafka",
    "我们不用Kafka" → "我们用Kafka". Whitespace is collapsed; nothing else changes."""
    text = _APOSTROPHE.sub("'", unicodedata.normalize("NFKC", text))
    text = _DOES_NOT.sub(lambda m: third_person(m.group(1)), text)
    text = _ENGLISH_OUT.sub(lambda m: f" {_KEPT.get(m.group().lower(), '')} ", text)
    text = _CHINESE_OUT.sub("", text)
    return " ".join(text.split())


def third_person(verb: str) -> str:
    """The -s form of an English base verb: "work" → "works", "go" → "goes", "have" → "has"."""
    if verb.lower() == "have":
        return "has"
    if verb.lower().endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.lower().endswith("y") and len(verb) > 1 and verb[-2].lower() not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"
