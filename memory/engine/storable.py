"""Text no database can hold: a NUL character (PostgreSQL refuses it in text and jsonb) and half
of a UTF-16 surrogate pair (`"\\ud800"` in JSON: not a character, so it has no UTF-8 form and
neither SQLite nor PostgreSQL can store it). Input carrying either is refused at the edge with
422 `invalid_text`, the same on both databases, instead of failing deep inside a write."""

from __future__ import annotations

import re
from typing import Any, Final

INVALID_TEXT: Final = "invalid_text"
_UNSTORABLE: Final = re.compile("[\x00\ud800-\udfff]")
_PLACE_CHARS: Final = 200


def unstorable(text: str) -> bool:
    return _UNSTORABLE.search(text) is not None


def unstorable_at(value: Any, where: str = "") -> str | None:
    """The place (`messages[0].content`, `?query`, …) of the first string in `value` — keys
    included — that no database can hold, or None when every string can be stored."""
    stack: list[tuple[Any, str]] = [(value, where)]  # a loop, not recursion: any depth
    while stack:
        item, place = stack.pop()
        if isinstance(item, str):
            if unstorable(item):
                return (place or "value")[:_PLACE_CHARS]
        elif isinstance(item, dict):
            for key, inner in reversed(list(item.items())):
                if isinstance(key, str) and unstorable(key):
                    return (f"{place} (a key)" if place else "a key")[:_PLACE_CHARS]
                stack.append((inner, f"{place}.{key}" if place else str(key)))
        elif isinstance(item, list):
            for index in reversed(range(len(item))):
                stack.append((item[index], f"{place}[{index}]"))
    return None


def unstorable_message(place: str) -> str:
    return f"{place} holds a NUL character or half of a surrogate pair, which cannot be stored"
