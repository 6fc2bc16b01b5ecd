"""English sentences said another way, rewritten as the plain clauses the relation rules
read (`memory.engine.offline_relations`). Pure string rules, no relations of their own:

- two people sharing a predicate, once per person: "Emma and Liam both work at Spotify" →
  "Emma works at Spotify", "Liam works at Spotify" (also read by `offline_graph` for jobs and
  homes);
- an aside about the subject, as a clause of its own: "Ravi from the QA team owns …" → "Ravi is
  on the QA team", "Ravi owns …"; "Maria, who runs the data team, is moving …"; "My colleague
  Sam …" → "Sam …";
- a clause said with emphasis or a correction, as the plain clause: "Sam is the one who
  maintains X" → "Sam maintains X"; "These days I use …"; "Maya stepped down as QA lead; Ben
  took over" → "Ben leads QA"; "Sam doesn't maintain X anymore; Dana does" → "Dana maintains X".
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine.negation import third_person
from memory.engine.offline_entities import known_tool


def plain_clauses(sentence: str) -> list[str]:
    """The plain clauses an English sentence states, in order (see the module docstring)."""
    return [
        _plain(clause) for part in one_subject_each(sentence) for clause in _without_asides(part)
    ]


def _plain(sentence: str) -> str:
    # "I'm on the growth team": the contraction read as the verb it stands for.
    sentence = re.sub(r"\bI['’]m\b", "I am", sentence)
    sentence = _TIME_FIRST.sub("", sentence)  # "These days I mostly use VS Code"
    for cleft in _CLEFT:
        sentence = cleft.sub(r"\1 ", sentence)
    if handed := _TOOK_OVER.match(sentence):
        relation = _HANDED_ROLE[handed.group("role").lower()]
        sentence = f"{handed.group('who')} {relation} {handed.group('what')}."
    if instead := _DOES_INSTEAD.match(sentence):
        verb = instead.group("verb") or third_person(instead.group("base"))
        sentence = f"{instead.group('who')} {verb} {instead.group('what')}."
    return sentence


def _without_asides(sentence: str) -> list[str]:
    sentence = _COLLEAGUE.sub("", sentence)
    if aside := _WHO_ASIDE.match(sentence):
        name = aside.group(1)
        return [f"{name} {aside.group(2)}.", f"{name} {aside.group(3)}"]
    if team := _FROM_TEAM.match(sentence):
        name = team.group(1)
        return [f"{name} is on {team.group(2)}.", f"{name} {sentence[team.end() :]}"]
    return [sentence]


# "Sam is the one who maintains the billing service", "It's Priya who owns checkout": the cleft
# read as the plain clause it stresses ("Sam maintains the billing service").
_CLEFT: Final = (
    re.compile(
        r"\b([A-Z][\w'’-]+)\s+is\s+(?:the\s+(?:one|person|guy|woman|man|engineer|developer)"
        r"\s+)?who\s+(?=[a-z])"
    ),
    re.compile(r"^[Ii]t(?:['’]s|\s+is)\s+([A-Z][\w'’-]+)\s+who\s+(?=[a-z])"),
)


_TIME_FIRST: Final = re.compile(
    r"^(?:these\s+days|nowadays|lately|currently|at\s+the\s+moment|recently),?\s+(?=I\b|[A-Z])",
    re.IGNORECASE,
)

# "Sam doesn't maintain the billing service anymore; Dana does": what the second name does.
_DOES_INSTEAD: Final = re.compile(
    r"^.+?\s+(?:(?P<not>doesn't|does\s+not)\s+(?P<base>[a-z]+)|no\s+longer\s+(?P<verb>[a-z]+))"
    r"\s+(?P<what>.+?)(?:\s+(?:anymore|any\s+more))?\s*[,;]\s*(?:now\s+)?(?:it's\s+)?"
    r"(?P<who>[A-Z][\w'’-]+)\s+does(?:\s+now)?\s*[.!]?$"
)

# "Maya stepped down as QA lead; Ben took over": the one who took over holds the role.
_TOOK_OVER: Final = re.compile(
    r"^[A-Z][\w'’-]+\s+(?:stepped\s+down|resigned)\s+as\s+(?:the\s+)?(?P<what>.+?)\s+"
    r"(?P<role>lead|owner|manager|head|maintainer)\s*[;,]\s*(?:and\s+)?(?P<who>[A-Z][\w'’-]+)\s+"
    r"(?:took\s+over|has\s+taken\s+over|is\s+taking\s+over)\b",
    re.IGNORECASE,
)
_HANDED_ROLE: Final = {
    "lead": "leads", "manager": "leads", "head": "leads", "owner": "owns",
    "maintainer": "maintains",
}  # fmt: skip


# "Emma and Liam both work at Spotify": two people, one predicate.
_PAIR: Final = re.compile(
    r"^([A-Z][\w'’-]+)\s+and\s+([A-Z][\w'’-]+)\s+(?:both\s+|also\s+|each\s+)?([a-z]+)\b(.*)$"
)
_PLURAL_VERB: Final = {"are": "is", "were": "was", "have": "has"}


def one_subject_each(sentence: str) -> list[str]:
    """The sentence once per person when two named people share its predicate ("Emma and Liam
    both work at Spotify" → "Emma works at Spotify", "Liam works at Spotify"), else itself."""
    pair = _PAIR.match(sentence.strip())
    if pair is None or known_tool(pair.group(1)) or known_tool(pair.group(2)):
        return [sentence]
    verb = pair.group(3)
    if verb.endswith("ed") or verb in ("left", "joined"):
        single = verb
    else:
        single = _PLURAL_VERB.get(verb) or third_person(verb)
    return [f"{who} {single}{pair.group(4)}" for who in (pair.group(1), pair.group(2))]


# Asides about the subject: "My colleague Sam maintains …", "Ravi from the QA team owns …",
# "Maria, who runs the data team, is moving to Berlin".
_COLLEAGUE: Final = re.compile(
    r"^(?:my|our)\s+(?:new\s+)?(?:colleague|coworker|co-worker|teammate|manager|boss|friend)"
    r"\s+(?=[A-Z])",
    re.IGNORECASE,
)
_WHO_ASIDE: Final = re.compile(r"^([A-Z][\w'’-]+),\s+who\s+([^,]{3,80}),\s+(.+)$")
_FROM_TEAM: Final = re.compile(
    r"^([A-Z][\w'’-]+)\s+(?:from|on)\s+(the\s+(?:[\w-]+\s+){1,2}team)\s+(?=[a-z])"
)
