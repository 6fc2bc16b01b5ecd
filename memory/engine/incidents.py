"""Something that broke, told by the user: an incident whoever it happened to ("walk-in cooler
#2 died tonight", "the bow ramp is leaking hydraulic oil again", 椰浆断货了, 王奶奶起夜摔了一下), by
the verbs of breaking only (`offline_cues.BROKE`: not "crash reports" or "bug fixing"), not a
habit ("Servers crash sometimes"), a question or a month's figures (跌倒3起). Read by
`memory.engine.offline_events._classify`, which types it with the incident cue.
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine import offline_cues as cues
from memory.engine.stated_results import states_result

_NOW_AND_THEN: Final = re.compile(
    r"\b(?:sometimes|often|usually|always|occasionally|tends?\s+to|can|may|might|never)\b"
    r"|有时|经常|偶尔|总是|一般|往往|可能|容易",
    re.IGNORECASE,
)
# What broke and is done breaking: "died", "fell over", 烧了, 摔了 (not "is leaking").
_DONE_BREAKING: Final = re.compile(
    r"\b(?:died|fell\s+over|broke(?:\s+down)?|crashed|went\s+down|burst|caught\s+fire|blew\s+up)\b"
    r"|了",
    re.IGNORECASE,
)


def told_incident(sentence: str) -> str | None:
    """The temporal status of the incident a user's sentence tells of ("occurred" when it is done
    breaking, else "ongoing"), or None when it tells of none."""
    if (
        sentence.rstrip().endswith(("?", "？"))
        or not cues.BROKE.search(sentence)
        or _NOW_AND_THEN.search(sentence)
        or states_result(sentence)
    ):
        return None
    return "occurred" if _DONE_BREAKING.search(sentence) else "ongoing"
