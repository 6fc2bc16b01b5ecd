"""Traditional Chinese read by rules written for Simplified text: 物流我們改用新竹物流了 is read as
物流我们改用新竹物流了, and what a rule takes out of the simplified text is given back in the
characters the user wrote (黑貓宅急便, not 黑猫宅急便).

The table maps one character to one character (`memory.engine.hant_table`), so positions in the
simplified text are positions in the original: `restored` finds a piece of the simplified text
and returns the same span of the original. Text with no Traditional-only character is left as
it is, so Simplified text never changes (a few characters are written in both: 著, 乾, 於 …).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from memory.engine.hant_table import SIMPLIFIED, TRADITIONAL

_TABLE: Final = str.maketrans(TRADITIONAL, SIMPLIFIED)
# Characters Simplified text uses too (著名, 乾隆, 於 in names …): never the sign of Traditional.
_SHARED: Final = frozenset("著乾於藉瞭徵夥甦祇麼沖准剋彆佔併")
# One character class, so that the check runs in the regex engine: `folded` (how values compare)
# asks it of every value it compares.
_TRADITIONAL_ONLY: Final = re.compile("[" + "".join(sorted(frozenset(TRADITIONAL) - _SHARED)) + "]")
_HAN_RUN: Final = re.compile(r"[\u4e00-\u9fff]+")


def is_traditional(text: str) -> bool:
    return _TRADITIONAL_ONLY.search(text) is not None


def simplified(text: str) -> str:
    """The text with Traditional characters in their Simplified form, same length; text with
    none of them is returned as it is."""
    return text.translate(_TABLE) if is_traditional(text) else text


def restored(value: str, pairs: Iterable[tuple[str, str]]) -> str:
    """`value`, read out of simplified text, with each run of Han characters found in one of
    `pairs` (simplified, original) written as the original has it."""
    pairs = [(s, o) for s, o in pairs if s != o]
    if not pairs:
        return value

    def back(match: re.Match[str]) -> str:
        run = match.group(0)
        for simple, original in pairs:
            at = simple.find(run)
            if at >= 0:
                return original[at : at + len(run)]
        return run

    return _HAN_RUN.sub(back, value)


def as_written(fields: dict[str, object], tags: list[str], written: list[tuple[str, str]]) -> None:
    """An extracted event's words read from simplified text, put back in the characters written
    (`written`: (as read, as written) pairs of its sentences)."""
    if not written:
        return
    for name in ("title", "summary", "original_text"):
        if isinstance(fields.get(name), str):
            fields[name] = restored(str(fields[name]), written)
    tags[:] = [restored(t, written) for t in tags]
