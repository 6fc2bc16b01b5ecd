"""Whether a statement is negated ("we no longer use Redis", "他不喜欢咖啡"): one rule for every
comparison that must tell a statement from its negation (a restated fact, an imported memory).
Plain Python."""

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


def negated(text: str) -> bool:
    """True when `text` holds an English or Chinese negation."""
    text = _APOSTROPHE.sub("'", unicodedata.normalize("NFKC", text))
    return bool(_ENGLISH.search(text) or _CHINESE.search(text))
