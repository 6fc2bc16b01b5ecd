"""Which sentence of a message joins an event an earlier sentence of the same message made
(one event per fact, issue 29): the change it completes, in either order ("we've stopped using
Xero. Invoicing moved over to QuickBooks", "ticketing is on TeamDynamix now. Central IT made
every department get off Jira SM"); the assistant's one piece of new content, said in several
sentences; an introduction and the size of what one runs. Read by
`memory.engine.offline_events.extract_events`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from memory.engine import offline_cues as cues
from memory.engine.changes import parse_change, stated_uses
from memory.engine.offline_relations import relations
from memory.engine.person_facts import person_relations
from memory.engine.stated_results import states_result
from memory.engine.statements import unquoted


def joins(
    said: Sequence[str],
    said_type: str,
    sentence: str,
    sentence_type: str,
    *,
    role: str,
    speaker: str | None,
) -> bool:
    """Whether `sentence` (read as `sentence_type`) belongs to the event an earlier sentence of
    its message made (`said`, of `said_type`)."""
    if role == "assistant" and not speaker and said_type == "other":
        # Whatever its later sentences read as ("That way nothing gets sold that you'd have to
        # cancel later"): the assistant's one piece of new content.
        return True
    if said_type != sentence_type or len(said) != 1:
        return False
    if completes(said[0], sentence) or completes(sentence, said[0]):
        return True
    # "Morning! Erin Caldwell, I run lift operations at Silver Pine. 11 lifts total": who one is
    # and the size of what one runs, one introduction.
    return (
        role == "user"
        and said_type == "other"
        and _introduces(said[0], speaker or "")
        and _standing_count(sentence)
    )


_COUNT: Final = re.compile(
    r"\d|\b(?:two|three|four|five|six|seven|eight|nine|ten|twelve|dozen|hundred)\b"
    r"|[一二两三四五六七八九十百千]",
    re.IGNORECASE,
)


def _introduces(sentence: str, speaker: str) -> bool:
    """Whether the sentence says who the speaker is or where they work."""
    return bool(cues.IDENTITY.search(sentence)) or any(
        who == speaker and relation == "works_at"
        for who, relation, _ in person_relations(sentence, speaker)
    )


def _standing_count(sentence: str) -> bool:
    """A count of what one has or runs, and nothing else of note ("We run two crossings … with
    two ships", "我们全国现在212家店，直营就9家"): no use, relation or result."""
    return (
        bool(_COUNT.search(sentence))
        and not stated_uses(sentence)
        and not relations(sentence)
        and not states_result(sentence)
        and not cues.NEGATIVE_FACT.search(sentence)
    )


def completes(ended: str, then: str) -> bool:
    """Whether `then` says what replaced the use `ended` stopped, naming no old value of its own."""
    stop, change = parse_change(unquoted(ended)), parse_change(unquoted(then))
    return (
        stop is not None
        and stop.kind == "stop"
        and stop.new is None
        and change is not None
        and change.new is not None
        and change.old in (None, stop.old)
    )
