"""The English entities a relation names (`memory.engine.offline_relations`): a service or
project ("the billing service", "the Atlas project"), a team ("the platform team"), a known
technology opening a phrase, a capitalised name cut where it ends, and what a whole clause names
as a relation's subject or object. Pure rules, no model.
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine.offline_entities import (
    AMBIGUOUS,
    CALENDAR_WORDS,
    LIKED,
    ME,
    PLATFORMS,
    TEAM_NOUNS,
    Entity,
    calendar_word,
    function_noun,
    known_tool,
)
from memory.engine.offline_relations_zh import ZH_SERVICE, zh_project_name

__all__ = [
    "ACTIVITY",
    "CAPITALISED",
    "DISCIPLINE",
    "LEADING",
    "LOWER_LEAD",
    "NOT_NAME",
    "NOT_SUBJECT",
    "QUALIFIER",
    "SERVICE",
    "TEAM",
    "TRAILING",
    "capitalised_name",
    "clause_object",
    "clause_subject",
    "service_name",
    "service_named",
    "team_led",
    "tool_at",
]

_SERVICE_NOUNS: Final = (
    r"(?:service|api|app|application|project|pipeline|backend|frontend|website|site|dashboard"
    r"|repo|repository|platform|cluster|library|sdk|cli|bot|portal|system|microservice|gateway"
    r"|monorepo|worker|database|module|engine|server|lib|package|plugin|extension|framework"
    r"|component|integration|crawler|scheduler|planner|exporter|importer|parser|process|flow|model"
    r"|panel|console|ui|page|runbook|roadmap|handbook|suite|tooling|indexer|tracker|collector"
    r"|runner|daemon|job|script|queue|proxy|loader|scraper|renderer|builder|generator"
    r"|validator|handler|consumer|producer|router|balancer|registry|bucket|charts?|widget|agent"
    r"|warehouse|lake|notebook|template|docs|wiki|chatbot|firmware|simulator|emulator|compiler"
    r"|program|programme|blog|storefront|shop"
    # Parts of a business one runs: "Dev runs the box office", "Kwame leads our Dublin office".
    r"|office|clinic|branch|taproom|kitchen|lab|depot|store|yard|plant|desk)"
)
# A discipline said alone where a team is meant: "Kai leads design", "Maria stepped down as design
# lead".
DISCIPLINE: Final = re.compile(
    r"(?:the\s+)?(design|engineering|product|marketing|sales|support|operations|ops|finance"
    r"|research|security|qa|infra|infrastructure|data|growth|hr|legal|recruiting)"
    r"(?=\s*(?:$|[,.;!?]|\s+(?:now|since|these|today|lead|head|manager)\b))",
    re.IGNORECASE,
)
_NOUN_AFTER: Final = re.compile(rf"\s+(?i:{_SERVICE_NOUNS})(?:e?s)?\b")
_NAME_ONLY_NOUNS: Final = frozenset({"project", "app", "repo", "repository"})  # "Atlas project"
_DETERMINER: Final = r"(?:the|our|my|their|his|her|its|this|a|an)"
_PLAIN_WORD: Final = (
    r"(?!(?:the|a|an|and|or|of|to|for|on|in|with|by|at|from|that|which|who|is|are|was|were"
    r"|now|also|not|it)\b)[\w.+#-]+"
)
# An area of work someone leads, said as a plain noun: "Morag heads up crewing", "Devin Marsh is
# running night grooming now", "Night grooming is led by Tamsin Holt", "Ray is running carpentry
# now". A gerund (but not a time of day, an occasion or a thing), or a trade or back-office
# function, with at most one plain word before it, ending the clause.
_NOT_ACTIVITY: Final = (
    r"(?:meeting|morning|evening|thing|something|nothing|anything|everything|string|spring|king"
    r"|ring|wedding|building|ceiling|during|being|bring|sibling|outing|offering|saying|feeling"
    r"|ping|earring|setting|settings|ending|opening|filing)"
)
_FUNCTIONS: Final = (
    r"(?:carpentry|joinery|payroll|dispatch|logistics|procurement|intake|admissions|reception"
    r"|maintenance|housekeeping|catering|purchasing|inventory|fundraising|front\s+of\s+house)"
)
_CLAUSE_ENDS: Final = (
    r"(?=\s*(?:$|[,.;:!?)(—–]|\s-\s|\s(?:now|since|from|at|for|on|in|as|and|while|today|these"
    r"|this|next|last|full-time|again|too|until|till|starting|effective|with|after|before|when"
    r"|because|so|but|going)\b))"
)
ACTIVITY: Final = re.compile(
    rf"(?:(?:the|our)\s+)?((?:{_PLAIN_WORD}\s+)?(?:(?!{_NOT_ACTIVITY}\b)[a-z]{{2,}}ing"
    rf"|{_FUNCTIONS})){_CLAUSE_ENDS}"
)


SERVICE: Final = re.compile(
    rf"(?:{_DETERMINER}\s+)?((?:{_PLAIN_WORD}\s+){{0,3}}?(?i:{_SERVICE_NOUNS})(?:e?s)?)(?![\w-])",
    re.IGNORECASE,
)
TEAM: Final = re.compile(
    # Not "crewing": an area of work (ACTIVITY), not a crew.
    rf"(?:{_DETERMINER}\s+)?((?:{_PLAIN_WORD}\s+){{0,3}}?(?i:{TEAM_NOUNS}))(?!ing\b)",
    re.IGNORECASE,
)
# "ezyVet", "iCloud": a name that opens with a few lower-case letters before a capital.
LOWER_LEAD: Final = r"[a-z]{1,6}(?=[A-Z])"
CAPITALISED: Final = re.compile(
    rf"(?:[A-Z0-9]|{LOWER_LEAD})[\w.+#'’-]*(?:\s+[A-Z][\w.+#'’-]*){{0,2}}"
)
# Words that may open or close a clause around its subject without being part of it.
LEADING: Final = re.compile(
    r"^(?:(?:now|also|then|so|today|currently|actually|btw|and|but|well|ok|okay|yes|yeah|by the"
    r" way|fyi|for the record|just so you know|oh|honestly|personally|frankly)\b[,:]?\s+"
    # "Dr. Kwame Asante is clinical lead at …": the person without the title.
    r"|(?-i:Dr|Mr|Mrs|Ms|Prof)\.?\s+(?=[A-Z]))+",
    re.IGNORECASE,
)
TRAILING: Final = re.compile(
    r"(?:\s+(?:now|also|currently|still|mainly|mostly|primarily|already|actually|officially"
    r"|just|recently|finally|has|have|always|usually|generally|normally|typically|only"
    r"|really|much|definitely|strongly|personally|still)|['’]ve|['’]d)+$",
    re.IGNORECASE,
)
NOT_SUBJECT: Final = frozenset(
    """
    i we you he she they it this that there here who what which someone everyone nobody
    everybody somebody anyone one people team everything something mine yours always never
    usually often sometimes please just also only then now still
    """.split()  # noqa: SIM905
)
NOT_NAME: Final = CALENDAR_WORDS | frozenset(
    """
    i the a an my our it this that we he she they since for from to with in on at and but so
    then also now today yesterday
    i'm i'll i've i'd we'll we're we've we'd you'll you're you've they'll they're they've
    he's she's he'll she'll it's it'll let's that's there's here's
    """.split()  # noqa: SIM905
)

# "is plain Django", "is a Next.js app": the words between a copula and the technology it names.
QUALIFIER: Final = r"(?:(?:plain|pure|just|basically|mostly|all|entirely)\s+)?(?:an?\s+)?"


def service_name(phrase: str) -> str:
    """ "billing service" stays; "Atlas project" / "Atlas app" → "Atlas"."""
    words = phrase.split()
    if (
        len(words) > 1
        and words[-1].lower() in _NAME_ONLY_NOUNS
        and all(w[:1].isupper() for w in words[:-1])
    ):
        return " ".join(words[:-1])
    return " ".join(words)


def capitalised_name(raw: str) -> str:
    """A capitalised name cut at the first word that cannot continue it."""
    words: list[str] = []
    for word in raw.split():
        bare = word.strip(".,;:!?\"'").replace("’", "'").lower()
        if bare in NOT_NAME or (words and not word[:1].isupper()):
            break
        words.append(word)
        if word.endswith((",", ";", "!", "?")) or (word.endswith(".") and not known_tool(word)):
            break
    return " ".join(words).strip(" .,;:!?'\"")


def tool_at(text: str) -> tuple[str, int] | None:
    """A known technology opening `text` ("the" allowed before it): (canonical name, length)."""
    article = re.match(r"the\s+", text, re.IGNORECASE)
    skip = article.end() if article else 0
    for size in (3, 2, 1):
        match = re.match(rf"((?:[\w.+#-]+\s+){{{size - 1}}}[\w.+#-]+)", text[skip:])
        if match:
            word = match.group(1).rstrip(".")
            tool = known_tool(word)
            if tool and not (tool.lower() == "go" and not word[:1].isupper()):
                # "AWS Fargate": a platform product named after its cloud is one name.
                inner = re.match(r"\s+([A-Za-z][\w.-]*)", text[skip + len(word) :])
                if (
                    inner
                    and tool.casefold() in PLATFORMS
                    and inner.group(1).casefold() in PLATFORMS
                ):
                    return f"{tool} {inner.group(1)}", skip + len(word) + inner.end()
                return tool, skip + len(word)
    return None


# "For email I use Fastmail", "Invoicing I do in InvoiceXpress": what for, then the speaker.
_FOR_WHAT: Final = re.compile(
    r"^(?:(?:for|at|in)\s+[^,;:]{1,30}?|[A-Za-z]+ing),?\s+(?=I$)", re.IGNORECASE
)


_MAIN_FUNCTION: Final = re.compile(
    r"(?:(?:main|primary|production|prod|default|core)\s+)?(?:database|db|cache|queue|registry"
    r"|warehouse|docs|wiki|tracker|dashboard|dashboards)",
    re.IGNORECASE,
)


def team_led(clause: str, relation: str) -> Entity | None:
    """ "The growth team is run by Carlos": a team is led like a project; so is an area of work
    ("Night grooming is led by Tamsin Holt") or a place of the business ("Warehouse is run by
    Luis Ortega")."""
    if relation != "leads":
        return None
    text = TRAILING.sub("", LEADING.sub("", clause.strip())).strip()
    team = TEAM.fullmatch(text)
    if team:
        return Entity(team.group(1), "organization")
    lowered = text[:1].lower() + text[1:]
    if unit := ACTIVITY.fullmatch(lowered):
        return Entity(unit.group(1), "organization")
    # A place of the business is a project, as `SERVICE` names it after a verb.
    place = _PLACE_OF_WORK.fullmatch(lowered)
    return Entity(place.group(1), "project") if place else None


_WARD: Final = re.compile(
    rf"(?:(?:the|our)\s+)?((?:{_PLAIN_WORD}\s+){{0,2}}?(?:ICU|NICU|PICU|ER|ED|OR|ward|unit))"
    r"(?![\w-])"
)
# A place of the business, led by whoever runs it ("Warehouse is run by Luis Ortega").
_PLACE_OF_WORK: Final = re.compile(
    rf"(?:(?:the|our)\s+)?((?:{_PLAIN_WORD}\s+)?(?:warehouse|office|clinic|branch|taproom"
    r"|kitchen|lab|depot|store|yard|plant|desk|shop|site|workshop|factory|studio))"
)


def clause_subject(clause: str, kind: str) -> Entity | None:
    """The entity a whole clause names, if it may be the subject of a relation of `kind`."""
    text = TRAILING.sub("", LEADING.sub("", clause.strip())).strip()
    text = _FOR_WHAT.sub("", text)  # "For email I use Fastmail": what for, then the speaker
    if not text:
        return None
    if text in ("I", "i"):
        return Entity(ME, "person") if kind in ("owner", "person", "uses") else None
    if text.lower() in NOT_SUBJECT or LIKED.match(text):
        return None  # "My favourite database is SQLite": a liking (`_MY_CHOICE`), no service
    team = TEAM.fullmatch(text)
    if team:
        return Entity(team.group(1), "organization") if kind == "owner" else None
    service = SERVICE.fullmatch(text)
    if service and _MAIN_FUNCTION.fullmatch(service.group(1)):
        return None  # "Our main database is MySQL": the project's, said by `changes`
    if service and kind in ("project", "uses"):
        return Entity(service_name(service.group(1)), "project")
    if service or known_tool(text):
        return None
    if not CAPITALISED.fullmatch(text) or capitalised_name(text) != text or function_noun(text):
        return None  # "Builds run on …": a function opening the sentence, not a name
    if kind in ("owner", "person"):
        return Entity(text, "person")
    return Entity(text, "project" if kind == "project" else AMBIGUOUS)


def clause_object(text: str, kind: str) -> tuple[Entity, int] | None:
    """The entity opening `text` as the object of a relation of `kind`, with its length."""
    if kind == "known_tool":
        qualifier = re.match(QUALIFIER, text, re.IGNORECASE)
        skip = qualifier.end() if qualifier else 0
        known = tool_at(text[skip:])
        return (Entity(known[0], "tool"), skip + known[1]) if known else None
    if kind in ("tool", "project_or_tool"):
        tool = tool_at(text)
        if tool:
            return Entity(tool[0], "tool"), tool[1]
    if kind in ("team", "project"):
        # "Kemi leads the platform team": a team is led, owned or maintained like a project.
        team = TEAM.match(text)
        if team:
            return Entity(team.group(1), "organization"), team.end()
        # "Kai leads design now": a discipline said alone is its team.
        discipline = DISCIPLINE.match(text)
        if discipline:
            return Entity(f"{discipline.group(1)} team", "organization"), discipline.end(1)
        activity = ACTIVITY.match(text)
        if activity:
            return Entity(activity.group(1), "organization"), activity.end(1)
        # "she runs the cardiovascular ICU": a ward or unit of a hospital or a clinic.
        ward = _WARD.match(text)
        if ward:
            return Entity(ward.group(1), "organization"), ward.end(1)
    service = SERVICE.match(text)
    if service and kind in ("project", "project_or_tool", "tool"):
        # "the API gateway": a service noun right after another is part of the name.
        more = _NOUN_AFTER.match(text, service.end())
        end = more.end() if more else service.end()
        return Entity(service_name(text[service.start(1) : end]), "project"), end
    bare = re.match(rf"(?:the\s+)?({CAPITALISED.pattern})", text)
    if not bare:
        return None
    name = capitalised_name(bare.group(1))
    if not name or name.lower() in NOT_NAME or calendar_word(name):
        return None  # "runs on Mondays"
    end = bare.start(1) + len(name)
    typed = {"project": "project", "project_or_tool": "project", "team": "organization"}
    return Entity(name, typed.get(kind, "tool")), end


_POSSESSIVE_EN: Final = re.compile(r"^(.+?)(?:'s|’s)\s+\S.*$")
_LATIN_NAME: Final = re.compile(r"[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*){0,2}")


def service_named(phrase: str) -> str | None:
    """The project or service a change's subject names, or None for anything else: "billing
    service", "Atlas" (a capitalised name that is no known tool), "Atlas's CI" → "Atlas",
    "订单服务", "数据平台的日志" → "数据平台"; "调度", "前端构建" or "the CI" name none."""
    text = phrase.strip()
    owner = _POSSESSIVE_EN.match(text) or re.match(r"^(.+?)的.+$", text)
    for candidate in (text, owner.group(1) if owner else None):
        if not candidate:
            continue
        if re.search(r"[\u4e00-\u9fff]", candidate):
            if function_noun(candidate):
                continue  # "我们的云服务", "邮件服务": the team's function, not a service
            service = ZH_SERVICE.match(candidate)
            if service:
                return zh_project_name(service, candidate)
            continue
        bare = re.sub(r"^(?:the|our|my|their)\s+", "", candidate, flags=re.IGNORECASE)
        if function_noun(bare):
            continue  # "CI", "on-call alerts": the team's function, not a service
        service = SERVICE.fullmatch(bare)
        if service:
            return service_name(service.group(1))
        if _LATIN_NAME.fullmatch(bare) and not known_tool(bare):
            return bare
    return None
