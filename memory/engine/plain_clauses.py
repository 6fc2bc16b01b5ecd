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
  took over" → "Ben leads QA"; "Sam doesn't maintain X anymore; Dana does" → "Dana maintains X";
- a denial put right, as the clause it puts right: "The analytics service isn't written in Java,
  it's Scala" → "The analytics service is written in Scala"; "Tom isn't on the payments team,
  he's on identity" → "Tom is on the identity team"; "I don't work at Stripe anymore, I'm at
  Shopify now" → "I work at Shopify" (`corrected`, also read by `offline_graph` for jobs).
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine.change_terms import split_label
from memory.engine.negation import third_person
from memory.engine.offline_entities import known_tool


def plain_clauses(sentence: str) -> list[str]:
    """The plain clauses an English sentence states, in order (see the module docstring)."""
    put_right = corrected(sentence)
    if put_right is not None:
        sentence = put_right
    return [
        _plain(clause)
        for part in one_subject_each(without_apposition(sentence))
        for clause in asides_apart(part)
    ]


# "S isn't / doesn't V … A, (it's | he's | only …) B": a denial, then what holds instead.
_DENIED: Final = re.compile(
    r"^(?P<subject>(?:[A-Z][\w'’-]*|[Tt]he|[Oo]ur|[Mm]y)(?:\s+[\w'’-]+){0,3}?)\s+"
    r"(?P<neg>isn't|is\s+not|aren't|are\s+not|doesn't|does\s+not|don't|do\s+not)\s+"
    r"(?P<predicate>[a-z][\w\s.'’-]{1,60}?)(?:\s+(?:anymore|any\s+more))?\s*[,;]\s*(?:but\s+)?"
    r"(?:(?:it|he|she|they|we|I)(?:['’]s|['’]re|['’]m|\s+is|\s+are|\s+am)\s+(?:now\s+|actually\s+)?"
    r"|(?:only|just)\s+)?"
    # What holds instead is a thing, not a clause of its own ("…; I prefer Neovim").
    r"(?!(?:I|we|he|she|they|you|it)\s)"
    r"(?P<instead>(?:(?:on|in|at|to|for|with|by|from)\s+)?(?:the\s+|an?\s+|our\s+)?"
    r"[\w.+#'’-]+(?:\s+[\w.+#'’-]+){0,2}?)(?:\s+(?:now|instead|these\s+days))?\s*[.!]?$"
)


_PREPOSITION: Final = re.compile(r"\b(?:on|in|at|to|for|with|by|from)\s+")
_AFFIRMED: Final = {"isn't": "is", "is not": "is", "aren't": "are", "are not": "are"}
# A last word that puts nothing right: "…, it's so", "…, Tom is", "…, she does".
_NOT_A_THING: Final = frozenset(
    {"it", "that", "this", "there", "so", "sure", "really", "very", "is", "are", "does", "do"}
    | {"did", "was", "were"}
)
_PRONOUNS: Final = frozenset({"it", "this", "that", "there", "he", "she", "they", "you"})


def corrected(sentence: str) -> str | None:
    """What a denial put right states, as a plain clause, or None for any other sentence:
    "The mobile app doesn't talk to the legacy API, only to the gateway" → "The mobile app
    talks to the gateway." The denied thing's last word "team" carries over ("…, he's on
    identity" → "on the identity team"); what it put right must be a short noun phrase, so "…,
    it runs on Render" (a clause of its own) is left to the relation rules."""
    label, text = split_label(" ".join(sentence.split()))
    denied = _DENIED.match(text)
    if denied is None:
        return None
    predicate, instead = denied.group("predicate"), denied.group("instead").rstrip(".")
    last = instead.split()[-1].lower()
    if (
        denied.group("subject").split()[0].lower() in _PRONOUNS
        or last in _NOT_A_THING
        or len(predicate.split()) > 8
    ):
        return None
    neg = " ".join(denied.group("neg").split())
    if neg in _AFFIRMED:
        verb, rest = _AFFIRMED[neg], predicate
    else:
        first, _, rest = predicate.partition(" ")
        verb = third_person(first) if neg.startswith("does") else first
    places = list(_PREPOSITION.finditer(rest))
    said_at = _PREPOSITION.match(instead)
    if said_at:  # "…, he's on identity": the new place replaces the old, said the same way
        if not places or places[-1].group() != said_at.group():
            return None  # "I don't use Windows at all, I'm on a Mac": no place put right
        head = rest[: places[-1].start()]
    elif places:  # "…, it's Scala": the thing after the last preposition is replaced
        head = rest[: places[-1].end()]
    elif re.match(r"(?:the|an?|our)\s|[A-Z0-9]", instead):  # "…, it's Linear": the object
        head = ""
    else:  # "I don't like it, it's too slow": no thing put right
        return None
    old = rest[len(head) :]
    if old.lower().endswith(" team") and not instead.lower().endswith("team"):
        prep = _PREPOSITION.match(instead)
        noun = instead[prep.end() :] if prep else instead
        noun = re.sub(r"^(?:the|our)\s+", "", noun, flags=re.IGNORECASE)
        instead = f"{prep.group() if prep else ''}the {noun} team"
    said = " ".join(part for part in (denied.group("subject"), verb, head.strip(), instead) if part)
    return label + said + "."


def _plain(sentence: str) -> str:
    # "I'm on the growth team": the contraction read as the verb it stands for.
    sentence = re.sub(r"\bI['’]m\b", "I am", sentence)
    sentence = _TIME_FIRST.sub("", sentence)  # "These days I mostly use VS Code"
    for cleft in _CLEFT:
        sentence = cleft.sub(r"\1 ", sentence)
    if handed := _TOOK_OVER.match(sentence):
        relation = ROLE_OF_TITLE[handed.group("role").lower()]
        sentence = f"{handed.group('who')} {relation} {handed.group('what')}."
    if instead := _DOES_INSTEAD.match(sentence):
        verb = instead.group("verb") or third_person(instead.group("base"))
        if instead.group("again") not in (None, verb):
            return sentence  # "…; Raj reviews it now" says another thing of it
        sentence = f"{instead.group('who')} {verb} {instead.group('what')}."
    return sentence


def asides_apart(sentence: str) -> list[str]:
    """The sentence without its asides, each aside a clause of its own: "Marek, who runs infra,
    is based in Prague" → "Marek runs infra.", "Marek is based in Prague"."""
    sentence = _COLLEAGUE.sub("", without_apposition(sentence))
    if aside := _WHO_ASIDE.match(sentence):
        name = aside.group(1)
        return [f"{name} {aside.group(2)}.", f"{name} {aside.group(3)}"]
    if team := _FROM_TEAM.match(sentence):
        name, rest = team.group(1), f"{team.group(1)} {sentence[team.end() :]}"
        return [f"{name} is on {team.group('team')}.", rest] if team.group("team") else [rest]
    return [sentence]


# "Sam is the one who maintains the billing service", "It's Priya who owns checkout": the cleft
# read as the plain clause it stresses ("Sam maintains the billing service").
_CLEFT: Final = (
    re.compile(
        r"\b([A-Z][\w'’-]+)\s+is\s+(?:the\s+(?:one|person|guy|woman|man|engineer|developer)"
        r"\s+)?who\s+(?=[a-z])"
    ),
    re.compile(r"^[Ii]t(?:['’]s|\s+is)\s+([A-Z][\w'’-]+)\s+who\s+(?=[a-z])"),
    # "day to day I'm the one who maintains the SCADA historian"
    re.compile(r"\b(I)\s+am\s+the\s+(?:one|person)\s+who\s+(?=[a-z])"),
)


_TIME_FIRST: Final = re.compile(
    r"^(?:these\s+days|nowadays|lately|currently|at\s+the\s+moment|recently|day[-\s]to[-\s]day"
    r"|mostly|usually|basically),?\s+(?=I\b|[A-Z])",
    re.IGNORECASE,
)

# "Sam doesn't maintain the billing service anymore; Dana does" (or "Dana maintains it now"):
# what the second name does.
_DOES_INSTEAD: Final = re.compile(
    r"^.+?\s+(?:(?P<not>doesn't|does\s+not)\s+(?P<base>[a-z]+)|no\s+longer\s+(?P<verb>[a-z]+))"
    r"\s+(?P<what>.+?)(?:\s+(?:anymore|any\s+more))?\s*[,;]\s*(?:now\s+)?(?:it's\s+)?"
    r"(?P<who>[A-Z][\w'’-]+)\s+(?:does|(?P<again>[a-z]+s)\s+it)(?:\s+now)?\s*[.!]?$"
)

# "Maya stepped down as QA lead; Ben took over": the one who took over holds the role.
_TOOK_OVER: Final = re.compile(
    r"^[A-Z][\w'’-]+\s+(?:stepped\s+down|resigned)\s+as\s+(?:the\s+)?(?P<what>.+?)\s+"
    r"(?P<role>lead|owner|manager|head|maintainer)\s*[;,]\s*(?:and\s+)?(?P<who>[A-Z][\w'’-]+)\s+"
    r"(?:took\s+over|has\s+taken\s+over|is\s+taking\s+over)\b",
    re.IGNORECASE,
)
# The relation a role's title says its holder has (also what stepping down ends:
# `stated_facts.ended_facts`).
ROLE_OF_TITLE: Final = {
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
# "Our designer, Julia, is based in Lisbon": the name the role stands beside.
_APPOSITION: Final = re.compile(
    r"^(?i:my|our)\s+(?:[a-z][\w-]*\s+){0,2}[A-Za-z][\w-]*,\s+([A-Z][\w'’-]+),\s+(?=[a-z])"
    # "Sam, our intern, lives in Utrecht": the role after the name.
    r"|^([A-Z][\w'’-]+),\s+(?i:my|our|the)\s+(?:[a-z][\w-]*\s+){0,2}[A-Za-z][\w-]*,\s+(?=[a-z])"
    # "Two new engineers, Ana and Luis, joined the payments team": the people a count names.
    r"|^(?i:two|three|a\s+couple\s+of|our)\s+(?:[a-z][\w-]*\s+){0,2}[a-z][\w-]*s,\s+"
    r"([A-Z][\w'’-]+(?:,\s+[A-Z][\w'’-]+)*,?\s+and\s+[A-Z][\w'’-]+),\s+(?=[a-z])"
)


def without_apposition(sentence: str) -> str:
    """ "Our designer, Julia, is based in Lisbon" → "Julia is based in Lisbon" (after a
    speaker's label too); any other sentence as it is."""
    label, text = split_label(sentence)
    return label + _APPOSITION.sub(lambda m: (m.group(1) or m.group(2) or m.group(3)) + " ", text)


_WHO_ASIDE: Final = re.compile(
    r"^([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?),\s+who\s+([^,]{3,80}),\s+(.+)$"
)
_FROM_TEAM: Final = re.compile(
    # a name, not the speaker ("I'm on the IT team at Brackenridge City Water")
    r"^(?!(?:I|I'm|I’m|We|We're|We’re|He|She|They)\s)"
    r"([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)\s+(?:from|on)\s+"
    r"(?:(?P<team>(?:the|our)\s+(?:[\w-]+\s+){1,2}team)"
    # "Priya Shah from our Dubuque branch is taking over …": where they come from, aside.
    r"|(?:the|our)\s+(?:[\w-]+\s+){1,2}(?:branch|office|site|store|clinic|location|depot))"
    r"\s+(?=[a-z])"
)
