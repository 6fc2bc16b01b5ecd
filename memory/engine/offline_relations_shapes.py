"""Whole-sentence shapes of English relations that no verb of `memory.engine.offline_relations`
reads: a hand-over ("Paolo handed the fraud model over to Sven"), whose a service is ("The
checkout service is Priya's"), a liking said as a choice ("My go-to editor is Neovim", "I'm a
Neovim person"), someone hired into a team, and a person's own switch of tools ("I moved my
recipes from Notion to Obsidian"). Pure rules, no model.
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine.changes import parse_change
from memory.engine.offline_entities import (
    AMBIGUOUS,
    ME,
    TEAM_NOUNS,
    Entity,
    Relation,
    calendar_word,
    known_tool,
)
from memory.engine.offline_entities_en import (
    CAPITALISED,
    NOT_NAME,
    NOT_SUBJECT,
    SERVICE,
    TEAM,
    capitalised_name,
    clause_subject,
    service_name,
    team_led,
    tool_at,
)

__all__ = ["handed_from", "shaped"]


# "I'm a Neovim person", "Ana is a Postgres fan", "Tom is a big Rust fan": a known tool someone
# prefers.
_PERSON_OF: Final = re.compile(
    r"(?:^|[,;]\s*|\b(?i:and)\s+)(I|[A-Z][\w'’-]+)(?:'m|’m|\s+am|\s+is|'s|’s)\s+"
    r"(?:(?i:more\s+of|kind\s+of|very\s+much|definitely|totally)\s+)?an?\s+"
    r"(?:(?i:big|huge|massive|real|true|die-hard|diehard|loyal|longtime|long-time)\s+)?"
    r"([\w.+#-]+(?:\s+[\w.+#-]+)?)\s+(?:person|guy|girl|fan|user)\b"
)


# "My go-to editor is Neovim", "Sublime is my editor of choice", "my favourite language is Go".
_MY_CHOICE: Final = (
    re.compile(
        r"^(?:my|our)\s+(?:go-to|favou?rite|preferred|default|usual)\s+(?P<kind>[\w-]+(?:\s+[\w-]+)?)"
        r"\s+(?:is|are)\s+(?P<name>[\w.+#-]+(?:\s+[\w.+#-]+)?)",
        re.IGNORECASE,
    ),
    re.compile(
        r"^(?P<name>[\w.+#-]+(?:\s+[\w.+#-]+)?)\s+(?:is|are)\s+(?:my|our)\s+(?:(?:go-to|favou?rite"
        r"|preferred|default|usual)\s+(?!person\b|guy\b|contact\b|expert\b)(?P<kind>[\w-]+)"
        r"|(?P<chosen>[\w-]+)\s+of\s+choice)\b",
        re.IGNORECASE,
    ),
)


# "The checkout service is Priya's", "Lustre is Ravi Sundaram's responsibility now", "Snowmaking is
# Gus Ferreira's dept": whose a service or an area of work is.
_WHOSE: Final = re.compile(
    r"^(.+?)\s+(?:is|are)\s+(?:now\s+)?([A-Z][\w-]+(?:\s+[A-Z][\w-]+)?)['’]s"
    r"(?:\s+(?:(?P<led>department|dept|team|crew|domain|area|patch)"
    r"|responsibility|baby|job|thing))?(?:\s+now)?\s*(?:[.!,;]|$)"
)


# "Paolo handed the fraud model over to Sven": the receiver owns it now.
_HANDED: Final = re.compile(
    r"\bhanded\s+(?:over\s+)?(.+?)\s+(?:over\s+)?to\s+([A-Z][\w'’-]+)", re.IGNORECASE
)


_GIVER: Final = re.compile(r"(?:^|[,;:]\s*)([A-Z][\w'’-]+)\s+(?:(?:has|had|just)\s+)*$")


def handed_from(sentence: str) -> tuple[str, str] | None:
    """(who handed it over, what) a hand-over says: "Priya handed the search service over to
    Tom" → ("Priya", "search service"); None when no one named hands anything."""
    handed = _HANDED.search(sentence)
    giver = _GIVER.search(sentence[: handed.start()]) if handed is not None else None
    if handed is None or giver is None:
        return None
    return giver.group(1), re.sub(r"^(?:the|our)\s+", "", handed.group(1), flags=re.IGNORECASE)


def _handed_over(sentence: str) -> Relation | None:
    """A service handed over is owned by its receiver, a team handed over led by them."""
    handed = _HANDED.search(sentence)
    if handed is None or not handed.group(2)[:1].isupper():
        return None
    receiver = Entity(handed.group(2), "person")
    service = SERVICE.fullmatch(handed.group(1))
    if service is not None:
        return Relation(receiver, "owns", Entity(service_name(service.group(1)), "project"))
    team = TEAM.fullmatch(handed.group(1))
    return Relation(receiver, "leads", Entity(team.group(1), "organization")) if team else None


def _whose(sentence: str) -> Relation | None:
    """ "Staff update — Lustre is …", "Ryan left, so inventory is Priya Nair's now", "So yeah, the
    NAS is Ines's job now, just so that's clear": the first clause that says whose it is."""
    for clause in _CLAUSE_CUT.split(sentence.strip()):
        found = _whose_clause(_YEAH.sub("", clause))
        if found is not None:
            return found
    return None


_CLAUSE_CUT: Final = re.compile(r"\s[—–-]\s|:\s|[,;]\s+(?:(?:so|and|but)\s+)?")
_YEAH: Final = re.compile(r"^(?:so|and|but|yeah|ok|okay|also)\b[\s,]*", re.IGNORECASE)


def _whose_clause(clause: str) -> Relation | None:
    whose = _WHOSE.match(clause)
    if whose is None or whose.group(2).split()[0].lower() in NOT_NAME:
        return None
    person = Entity(whose.group(2), "person")
    unit = team_led(whose.group(1), "leads")
    if unit is not None:
        # "Snowmaking is Gus Ferreira's dept" leads it; "fraud scoring is Mei's baby now" owns it.
        if whose.group("led") or TEAM.fullmatch(whose.group(1)):
            return Relation(person, "leads", unit)
        return Relation(person, "owns", Entity(unit.name, "project"))
    # "the NAS is Ines's job now": a name after an article.
    owned = clause_subject(re.sub(r"^(?:the|our)\s+(?=[A-Z])", "", whose.group(1)), "project")
    if owned is None or owned.type != "project":
        return None
    return Relation(person, "leads" if whose.group("led") else "owns", owned)


# "Sam's favourite editor is Helix": someone else's choice.
_THEIR_CHOICE: Final = re.compile(
    r"^([A-Z][\w-]+)['’]s\s+(?:go-to|favou?rite|preferred|usual)\s+(?P<kind>[\w-]+(?:\s+[\w-]+)?)"
    r"\s+(?:is|are)\s+(?P<name>[\w.+#-]+(?:\s+[\w.+#-]+)?)"
)
# Nouns of a kind of tool a person uses rather than builds: "I switched my running app to Strava"
# is the speaker's app, "I moved my blog to Netlify" a project of theirs (`offline_relations`).
APP_KINDS: Final = frozenset("app apps tool editor browser client provider bank tracker".split())  # noqa: SIM905
# Nouns of a kind of tool: what a favourite names when its name is no known tool ("my favourite
# editor is Helix", not a band, a city or a dish), and what a switch moves ("I switched my
# running app to Strava": its new name is a tool too).
TOOL_KINDS: Final = APP_KINDS | frozenset(
    """
    ide language database db framework library lib terminal shell os distro cloud orm linter
    formatter platform stack runtime host hosting service
    """.split()  # noqa: SIM905
)


def _my_choice(sentence: str) -> Relation | None:
    text = sentence.strip()
    found: list[tuple[Entity, re.Match[str] | None]] = [
        (Entity(ME, "person"), pattern.match(text)) for pattern in _MY_CHOICE
    ]
    theirs = _THEIR_CHOICE.match(text)
    if theirs is not None:
        who = theirs.group(1)
        if who.lower() not in NOT_SUBJECT and who.lower() not in NOT_NAME and not known_tool(who):
            found.append((Entity(who, "person"), theirs))
    for subject, chosen in found:
        if chosen is None:
            continue
        name = chosen.group("name").rstrip(".")
        kind = (chosen.group("kind") or chosen.group("chosen") or "").split()[-1:]
        tool = known_tool(name)
        a_tool = bool(kind) and kind[0].casefold() in TOOL_KINDS and name[:1].isupper()
        if tool or a_tool:
            return Relation(subject, "prefers", Entity(tool or name, "tool"))
    return None


def _kind_of_person(sentence: str) -> Relation | None:
    found = _PERSON_OF.search(sentence)
    tool = known_tool(found.group(2)) if found else None
    if found is None or tool is None:
        return None
    who = found.group(1)
    if who != "I" and (who.lower() in NOT_SUBJECT or who.lower() in NOT_NAME):
        return None
    subject = Entity(ME, "person") if who == "I" else Entity(who, "person")
    return Relation(subject, "prefers", Entity(tool, "tool"))


# Whole-sentence shapes no verb of `offline_relations` reads, in order; the first that fits wins.
# "The data team hired a new analyst, Bo": the one hired is a member of the team.
_HIRED: Final = re.compile(
    rf"^(?:the|our)\s+((?:[\w-]+\s+){{0,2}}{TEAM_NOUNS})\s+(?:has\s+|just\s+)*hired\s+"
    r"(?:an?\s+)?(?:new\s+)?(?:[\w-]+\s+){0,2}?[\w-]+,\s+([A-Z][\w'’-]+)\s*[.!]?$",
    re.IGNORECASE,
)


def _hired(sentence: str) -> Relation | None:
    hired = _HIRED.match(sentence.strip())
    if hired is None or hired.group(2).lower() in NOT_NAME:
        return None
    return Relation(
        Entity(hired.group(2), "person"), "member_of", Entity(hired.group(1), "organization")
    )


# "I switched from Notion to Obsidian", "I moved my recipes from Notion to Obsidian", "Ana
# switched to VS Code": a person's own tool after a switch (a move "to Berlin" names no tool).
# The switch itself is read by `engine.changes.parse_change`; here only who switched.
_SWITCHER: Final = re.compile(
    r"^(I|[A-Z][\w-]+)(?:\s+(?:have|has)|['’]ve)?\s+(?:(?:just|recently|finally|also)\s+)?"
    r"(?:switched|moved|migrated|changed|went|ditched|dropped|swapped|traded)\b"
)


# "I'm not using Notion anymore; I switched to Obsidian", "I stopped using Notion and switched
# to Obsidian": the speaker's later clause says the switch.
_LATER_SWITCH: Final = re.compile(
    r"^I\b[^.;!?]{0,60}?(?:[,;]\s*(?:and\s+|so\s+)?|\s+and\s+)(?:I(?:['’]ve|\s+have)?\s+)?"
    r"(?=(?:(?:just|recently|finally|also)\s+)?(?:switched|moved|migrated|went)\s)"
)


def _switched_to(sentence: str) -> Relation | None:
    sentence = sentence.strip()
    if later := _LATER_SWITCH.match(sentence):
        sentence = f"I {sentence[later.end() :]}"
    switcher = _SWITCHER.match(sentence)
    change = parse_change(sentence) if switcher is not None else None
    if switcher is None or change is None or change.new is None:
        return None
    who = switcher.group(1)
    if who != "I" and (who.lower() in NOT_SUBJECT or who.lower() in NOT_NAME or known_tool(who)):
        return None
    tool = tool_at(change.new)
    if tool is None:
        kind = (change.subject or "").split()[-1:]
        a_tool = bool(kind) and kind[0].casefold() in TOOL_KINDS
        if not a_tool and (change.old is None or tool_at(change.old) is None):
            return None
        bare = re.match(rf"(?:the\s+)?({CAPITALISED.pattern})", change.new)
        name = capitalised_name(bare.group(1)) if bare else ""
        if not name or name.lower() in NOT_NAME or calendar_word(name):
            return None
        tool = (name, 0)
    subject = Entity(ME, "person") if who == "I" else Entity(who, AMBIGUOUS)
    return Relation(subject, "uses", Entity(tool[0], "tool"))


# "My team is the platform team", "My squad is Growth": the speaker's own team.
_MY_TEAM: Final = re.compile(
    rf"^(?:my|our)\s+(?:team|squad|group)\s+is\s+(?!(?:the\s+)?(?:\w+est|only|same|other|first|last|new|old)\b)(?:the\s+)?((?:[\w-]+\s+){{0,2}}{TEAM_NOUNS})\s*[.!]?$",
    re.IGNORECASE,
)


def _my_team(sentence: str) -> Relation | None:
    found = _MY_TEAM.match(sentence.strip())
    return (
        Relation(Entity(ME, "person"), "member_of", Entity(found.group(1), "organization"))
        if found
        else None
    )


_SHAPES: Final = (
    _handed_over,
    _whose,
    _my_choice,
    _kind_of_person,
    _hired,
    _switched_to,
    _my_team,
)


def shaped(sentence: str) -> list[Relation]:
    for shape in _SHAPES:
        found = shape(sentence)
        if found is not None:
            return [found]
    return []
