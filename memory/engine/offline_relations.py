"""Relation statements of ordinary team talk → (subject, relation, object), English and Chinese.

Used twice: offline extraction keeps a sentence that states such a relation as an event (plain
facts carry no decision or plan cue), and offline graph projection turns it into nodes and an
edge citing that event. Pure rules, no model. The Chinese rules are
`memory.engine.offline_relations_zh`; the entities and relations both name,
`memory.engine.offline_entities` (the English readers of them, `offline_entities_en`); the
whole-sentence shapes no verb here reads, `memory.engine.offline_relations_shapes`.

- who owns, leads or maintains what: "Priya owns the billing service", "the billing service is
  maintained by Priya", "Priya is the tech lead of Atlas", "Priya负责账单服务",
  "账单服务由Priya维护";
- what runs where and on what it depends: "the billing service runs on Fly.io / is deployed on
  Fly.io / uses PostgreSQL / depends on the auth service", "账单服务部署在Fly.io上", "账单服务用
  PostgreSQL", "账单服务依赖认证服务";
- membership, employer, home and preferred tools said of someone named: "Tom joined the platform
  team", "Tom is a member of …", "小王加入了平台组", "小王在Globex工作", "Ana prefers Vim".

Node types (SPEC §6.1): "the billing service", "the Atlas project", 账单服务 → project; "the
platform team", 平台组 → organization; a known technology (`KNOWN_TOOLS`, and every tool of the
slot lexicon) → tool; a capitalised name → person where a person is meant. A capitalised subject
of `uses` may be a person or a project: its type is `AMBIGUOUS`, settled by the caller from
context. Only a whole clause is a subject: a pronoun ("she", "we", "他"), a negation ("no longer
runs on"), a question or a condition ("if the billing service runs on …") states nothing. English
works_at and lives_in stay with `memory.engine.offline_graph`, which already reads them.
"""

from __future__ import annotations

import re
from typing import Final

from memory.engine.offline_entities import (
    FUNCTION_NOUNS,
    PLATFORMS,
    TEAM_NOUNS,
    Entity,
    Relation,
    employer_of,
    function_noun,
)
from memory.engine.offline_entities_en import (
    ACTIVITY,
    LEADING,
    NOT_SUBJECT,
    QUALIFIER,
    SERVICE,
    TEAM,
    TRAILING,
    clause_object,
    clause_subject,
    service_name,
    team_led,
    tool_at,
)
from memory.engine.offline_relations_shapes import APP_KINDS, shaped
from memory.engine.offline_relations_zh import chinese_relations
from memory.engine.plain_clauses import plain_clauses
from memory.engine.slots import slot_of

_BOUNDARY: Final = re.compile(r"[,;:—–()]|\b(?:and|but|so|because|while|that|which|who)\b", re.I)
_QUESTION_START: Final = re.compile(
    r"^\s*(?:who|what|which|where|when|why|how|does|do|did|is|are|was|were|can|could|should"
    r"|will|would|has|have)\b",
    re.IGNORECASE,
)

# Perfect and progressive forms: "Luis has been maintaining the Android app", "Priya has owned
# checkout for a year".
_HAS: Final = r"(?:has|have|'s|'ve)\s+"
_BE: Final = r"(?:is|are|am|'s|'re|'m|(?:has|have|'s|'ve)\s+been)"
_TAKE_OVER: Final = r"(?:took|has\s+taken|have\s+taken|'s\s+taken|is\s+taking)\s+over"
# Kinds of entity a relation takes, by side: "person" (a person, or a team for ownership),
# "project", "tool", "team", "owner" (person or team), "uses" (person or project).
_RELATIONS_EN: Final = (
    # (verb pattern, relation, subject kind, object kind, passive)
    (r"belongs?\s+to|(?:is|are|was|has\s+been)\s+(?:now\s+)?(?:owned|handled|looked\s+after|taken\s+care\s+of)"
     r"\s+by", "owns", "owner", "project", True),
    (r"(?:is|are|was|has\s+been)\s+(?:now\s+)?(?:led|headed|run|managed)\s+by"
     r"|(?<=team\s)(?:now\s+)?reports?\s+(?:directly\s+)?to", "leads", "owner", "project", True),
    (r"(?:is|are|was|has\s+been)\s+(?:now\s+)?maintained\s+by", "maintains", "owner", "project",
     True),
    (r"owns?|(?:is|'s|am|'m)\s+(?:now\s+)?(?:the\s+)?(?:new\s+)?owner\s+of|(?:is|am|'s|'m)\s+responsible\s+for"
     r"|looks?\s+after|takes?\s+care\s+of|handles"
     # "Priya has owned checkout for a year", "Kim's been looking after the wiki".
     rf"|{_HAS}(?:always\s+)?owned|{_BE}\s+(?:owning|handling|looking\s+after|taking\s+care\s+of)"
     r"|(?:is|'s)\s+(?:the|our)\s+go-to\s+(?:person|guy|contact)\s+(?:for|on)", "owns", "owner",
     "project", False),
    (r"(?:leads?|heads?(?:\s+up)?|manages?|runs?(?!\s+on\b|\s+in\b|\s+off\b))"
     rf"|{_BE}\s+(?:now\s+)?(?:heading|leading|managing|running)(?:\s+up)?"
     r"(?!\s+on\b|\s+in\b|\s+off\b|\s+late\b)"
     r"|(?:is|'s|am|'m)\s+in\s+charge\s+of"
     r"|(?:is|'s|am|'m)\s+(?:now\s+)?(?:the|our)\s+(?:new\s+|current\s+)?(?:tech(?:nical)?\s+"
     r"|team\s+|engineering\s+|product\s+|project\s+)?(?:lead|leader|manager|head)\s+(?:of|on|for)"
     # "Dr. Kwame Asante is clinical lead at our Dublin office": a role heading one of ours.
     r"|(?:is|'s)\s+(?:now\s+)?(?:the\s+)?[a-z]+\s+(?:lead|head|manager|director)\s+(?:at|of|for)"
     r"(?=\s+our\s)",
     "leads", "owner", "project", False),
    (rf"{_TAKE_OVER}|(?:has\s+)?picked\s+up", "owns", "owner", "project", False),
    (r"maintains?|(?:is|'s|am|'m)\s+(?:the|a|our)\s+(?:main\s+|lead\s+)?maintainer\s+of"
     rf"|{_BE}\s+maintaining|{_HAS}maintained(?!\s+by)",
     "maintains", "owner", "project", False),
    (r"(?:runs?|is\s+running|are\s+running)\s+(?:on|off)|lives?\s+on", "runs_on", "project",
     "tool", False),
    (r"(?:is|are)\s+(?:deployed|hosted)\s+(?:on|to|at)|deploys\s+to", "deployed_on", "project",
     "tool", False),
    (r"uses?|is\s+using|always\s+used|(?:is|are)\s+built\s+(?:with|on)"
     r"|(?:is|are)\s+written\s+in"
     r"|stores\s+(?:its\s+)?data\s+in|(?:is|are)\s+served\s+(?:with|by|from)", "uses", "uses",
     "tool", False),
    # "The booking backend is plain Django", "the website is a Next.js app": a service that is a
    # known technology uses it.
    (rf"(?:is|are)(?=\s+{QUALIFIER}[A-Z])", "uses", "project", "known_tool", False),
    (r"depends?\s+on|relies\s+on|(?:is|are)\s+dependent\s+on|talks?\s+to|calls|connects?\s+to"
     r"|reads\s+from|writes\s+to|pulls\s+from|pushes\s+to|integrates\s+with|publishes\s+to"
     r"|consumes\s+from|subscribes\s+to", "depends_on",
     "project", "project_or_tool", False),
    (r"(?:has\s+)?(?:re-?)?joined|(?:is|'s|am|'m)\s+(?:now\s+)?(?:a\s+)?member\s+of"
     rf"|(?:is|'s|am|'m)\s+(?:now\s+|back\s+)?(?:on|in|part\s+of)(?=\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+{TEAM_NOUNS}\b)"
     rf"|sits?\s+(?:on|in)(?=\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+{TEAM_NOUNS}\b)"
     # "I'm Ifeoma, a data engineer on the data platform team": a role after one's name.
     r"|(?:'m|am)\s+[A-Z][\w-]+,\s+an?\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?:on|in)"
     rf"(?=\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+{TEAM_NOUNS}\b)"
     # "Max is our new intern on the web team": a role on a team.
     r"|(?:is|'s)\s+(?:our|the|a|an)\s+(?:new\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?:on|in)"
     rf"(?=\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+{TEAM_NOUNS}\b)"
     r"|(?:works?|moved|started|switched|transferred)\s+(?:over\s+)?"
     rf"(?:from\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+{TEAM_NOUNS}\s+)?(?:on|to)"
     rf"(?=\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+{TEAM_NOUNS}\b)",
     "member_of", "person", "team", False),
    (r"(?:(?:much|really|definitely|strongly|far|generally)\s+)?(?:prefers?|preferred)"
     r"(?:\s+(?:working\s+(?:in|with)|using|to\s+use|writing\s+in"
     r"|coding\s+in))?"
     r"|(?:would\s+(?:much\s+)?)?rather\s+(?:we\s+)?(?:use|write|code\s+in|work\s+(?:in|with)"
     r"|go\s+with)"
     r"|swears?\s+by"
     r"|can't\s+live\s+without|(?:'m|am|is)\s+more\s+comfortable\s+(?:in|with)"
     r"|(?:like|likes|love|loves)(?=\s+\S+(?:\s+\S+)?\s+(?:better|more)\s+than\b)"
     r"|pick(?=\s+\S+(?:\s+\S+)?\s+over\b)",
     "prefers", "person", "tool", False),
    # "Tom loves Rust", "I love using Notion", "Tom is really into Elixir": a liking is a
    # preference for a known technology only ("I love Paris" names none).
    # "Ben is a big fan of the Lakers" names no technology either.
    (r"(?:like|likes|love|loves|enjoy|enjoys)(?:\s+using|\s+working\s+(?:in|with))?"
     r"|(?:'m|am|is|are|'re)\s+(?:really\s+)?into"
     r"|(?:'m|am|is)\s+(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of", "prefers", "person", "known_tool",
     False),
    (r"(?:tend|tends)\s+to\s+use", "uses", "uses", "tool", False),
    # "I'd much rather review stacked PRs in Graphite than click around the GitHub UI" (not
    # "I'd rather stay in Lisbon than move").
    (r"(?:'d|would)\s+(?:much\s+)?rather\s+[a-z]+(?:\s+[\w-]+){0,3}\s+(?:in|with|on)"
     r"(?=\s+[A-Z][\w.-]*\s+than\b)", "prefers", "person", "known_tool", False),
    # "I mostly code in TypeScript", "Ana writes everything in Go": the language one works in.
    (r"(?:code|codes|program|programs|write|writes|develop|develops)\s+(?:everything\s+|mostly\s+)?"
     r"in", "uses", "person", "known_tool", False),
    # "I sketch pretty much everything in Procreate", "Invoicing I do in InvoiceXpress": what one
    # does one's work in.
    (r"(?:sketch|sketches|draw|draws|design|designs|edit|edits|paint|paints|do|does)\s+"
     r"(?:(?:pretty\s+much|almost|nearly)\s+)?(?:everything|all\s+of\s+it|all\s+my\s+[a-z]+)\s+in"
     r"|(?<=ing\sI\s)do\s+(?:in|with|on)|(?<=ing\swe\s)do\s+(?:in|with|on)", "uses", "uses",
     "tool", False),
    # "I do my budgeting in YNAB", "we keep our runbooks in Notion": a task done with a tool.
    # "I log every climbing session in Crimpd".
    (r"(?:do|does|keep|keeps|track|tracks|write|writes|manage|manages|plan|plans|log|logs"
     r"|record|records)\s+(?:all\s+)?"
     r"(?:of\s+)?(?:my|our|his|her|their|every|each)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?:in|with|on)",
     "uses", "uses", "tool", False),
)  # fmt: skip
_VERBS_EN: Final = tuple(
    # A contraction opens its verb ("Priya's responsible for"); no other match starts in a word.
    (
        re.compile(rf"(?:(?<![\w'])|(?=['’]))(?:{verb})(?![\w])", re.IGNORECASE),
        rel,
        subj,
        obj,
        passive,
    )
    for verb, rel, subj, obj, passive in _RELATIONS_EN
)
_ADVERBS_AFTER: Final = re.compile(r"^\s+(?:(?:now|mainly|mostly|primarily|also)\s+)*")
# "deployed on three Hetzner machines": a count before a platform is not part of its name.
_COUNT: Final = re.compile(
    r"^(?:a\s+(?:couple|pair|handful)\s+of|a\s+few|several|some|two|three|four|five|six|a\s+dozen"
    r"|a\s+single|one|a|an|\d+)\s+(?=(?-i:[A-Z]))",
    re.IGNORECASE,
)
# "The geocoder runs on Hetzner": a thing named by a common noun may run on a platform.
_THING: Final = re.compile(r"(?i:the|our)\s+([a-z][\w-]*(?:\s+[a-z][\w-]*)?)")
_OBJECT_LIST: Final = re.compile(r"^\s*(?:,\s*and|,|and|&|as\s+well\s+as)\s+", re.IGNORECASE)
# "We deploy the billing service on Fly.io", "we moved the billing service from Heroku to Render":
# the place a service runs, said with the speakers as the subject.
_PLACED: Final = re.compile(
    r"^(?:we|i)\b(?:(?!\b(?:not|never|no\s+longer)\b|n't\b)[^,;:])*?"
    r"\b(?:run|deploy|host|deployed|hosted|moved|migrated|switched|ported)\s+(?=\S)",
    re.IGNORECASE,
)
_PLACED_TARGET: Final = re.compile(
    r"\s+(?:from\s+[\w.+#-]+(?:\s+[A-Z][\w.+#-]*)?\s+)?(?:on|to|onto|at)\s+", re.IGNORECASE
)
_PLATFORM_SLOTS: Final = frozenset({"hosting"})


def _clause_before(text: str) -> tuple[str, bool]:
    """The clause ending at the end of `text`, and whether a coordinator opened it ("… and")."""
    cuts = list(_BOUNDARY.finditer(text))
    if not cuts:
        return text, False
    last = cuts[-1]
    clause = text[last.end() :]
    coordinated = last.group().lower() in ("and", ",") and not clause.strip()
    return clause, coordinated


_LEAD_SUBJECT: Final = re.compile(
    r"^\s*(I|[A-Z][\w'’-]+)\s+(?:just\s+|recently\s+|then\s+|finally\s+)?(?:[a-z]+ed|left|quit"
    r"|sold|took|went|got|made|built|wrote|began|gave)\b"
)

_REFERRING: Final = re.compile(
    r"(?P<who>she|he|it)(?:\s+(?:now|also|then|just|recently|still|actually))?", re.I
)
# A sentence that opens on a person, whom a later "she" / "he" refers to.
_NAMED_FIRST: Final = re.compile(
    r"^\s*([A-Z][\w'’-]+)\s+(?:is|was|has|had|just|recently|started|joined|isn't|doesn't|didn't"
    r"|wasn't|no\s+longer|never)\b"
    # "My unit manager is Priyanka Gill, she runs the cardiovascular ICU": the one named.
    r"|^\s*(?i:my|our)\s+[\w\s-]{1,30}?\s+is\s+((?-i:[A-Z])[\w'’-]+(?:\s+(?-i:[A-Z])[\w'’-]+)?)"
    r"(?=\s*[,;])"
)
# A sentence that opens on a thing, which a later "it" refers to: "The billing service doesn't
# run on Heroku, it runs on Render".
_THING_FIRST: Final = re.compile(
    r"^\s*((?:the|our)\s+[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:is|was|isn't|wasn't|doesn't|does"
    r"|no\s+longer|now|still|used\s+to)\b",
    re.I,
)


def _referent(sentence: str, who: str, subject_kind: str) -> Entity | None:
    """Whom a "she" / "he" or what an "it" refers to: the one the sentence opened with."""
    if who.lower() == "it":
        thing = _THING_FIRST.match(sentence)
        return clause_subject(thing.group(1), subject_kind) if thing else None
    first = _NAMED_FIRST.match(sentence)
    return clause_subject(first.group(1) or first.group(2), subject_kind) if first else None


def _english(sentence: str) -> list[Relation]:
    """The relations of one plain clause (`plain_clauses.plain_clauses`)."""
    found: list[tuple[int, int, str, str, str, bool]] = []
    for verb, relation, subject_kind, object_kind, passive in _VERBS_EN:
        for match in verb.finditer(sentence):
            found.append((match.start(), match.end(), relation, subject_kind, object_kind, passive))
    found.sort()
    out: list[Relation] = []
    previous: Entity | None = None
    taken_until = 0
    for start, end, relation, subject_kind, object_kind, passive in found:
        if start < taken_until:
            continue
        clause, coordinated = _clause_before(sentence[:start])
        rest = sentence[end:]
        rest_start = _ADVERBS_AFTER.match(rest)
        rest = rest[rest_start.end() if rest_start else 0 :]
        if relation in ("runs_on", "deployed_on"):
            rest = _COUNT.sub("", rest)
        if passive:  # "the billing service is owned by Priya": the object is the clause
            owned = clause_subject(clause, "project") or team_led(clause, relation)
            team = TEAM.match(rest)
            owner = (
                (Entity(team.group(1), "organization"), team.end())
                if team
                else clause_object(rest, "person")
            )
            if owned and owner and owned.type in ("project", "organization"):
                whom = owner[0] if team else Entity(owner[0].name, "person")
                out.append(Relation(whom, relation, owned))
                taken_until = end
                # "maintained by Rosa and Ian": each of them.
                more = None if team else _OBJECT_LIST.match(rest[owner[1] :])
                after = rest[owner[1] + more.end() :] if more else ""
                other = clause_object(after, "person") if more and not TEAM.match(after) else None
                if other is not None:
                    out.append(Relation(Entity(other[0].name, "person"), relation, owned))
            continue
        subject = previous if coordinated and previous else clause_subject(clause, subject_kind)
        if subject is None and coordinated:
            # "Dana left Stripe and joined Shopify": the first clause's subject, whatever its verb.
            lead = _LEAD_SUBJECT.match(sentence[:start])
            subject = clause_subject(lead.group(1), subject_kind) if lead else None
        if subject is None and (pronoun := _REFERRING.fullmatch(clause.strip())):
            # "Lena is our new designer; she joined the growth team".
            subject = _referent(sentence, pronoun.group("who"), subject_kind)
        if subject is None and relation in ("runs_on", "deployed_on"):
            subject = _thing_on_platform(clause, rest)
        if subject is None:
            continue
        subjects = [*_paired(sentence[:start], subject, subject_kind), subject]
        target = clause_object(rest, object_kind)
        if (
            target is not None
            and relation == "owns"
            and ACTIVITY.match(rest)
            and not _TAKEN_OVER.match(sentence[start:end])
        ):
            target = None  # "Hamid handles billing": a function; "Jenna took over crewing" leads
        while target is not None:
            entity, length = target
            # "Kayla has taken over ezyVet admin": the upkeep of a tool is maintaining it.
            said = "maintains" if relation == "owns" and _UPKEEP.match(rest[length:]) else relation
            out += [Relation(one, said, entity) for one in subjects]
            taken_until = end
            rest = rest[length:]
            more = _OBJECT_LIST.match(rest)
            if not more or object_kind not in ("tool", "project_or_tool"):
                break
            nxt = clause_object(rest[more.end() :], object_kind)
            if nxt is None or nxt[0].type != "tool":
                break
            rest = rest[more.end() :]
            target = nxt
        previous = subject
    return [_led_if_a_unit(employer_of(r)) for r in [*out, *_placed(sentence), *shaped(sentence)]]


def _led_if_a_unit(relation: Relation) -> Relation:
    """A team or an area of work someone took over or is responsible for is one they lead
    ("Jenna Kerr took over crewing")."""
    if relation.relation == "owns" and relation.object.type == "organization":
        return Relation(relation.subject, "leads", relation.object)
    return relation


_TAKEN_OVER: Final = re.compile(_TAKE_OVER)
_UPKEEP: Final = re.compile(r"\s+(?:admin|administration|upkeep|maintenance)\b", re.IGNORECASE)

# "Both the web app and the admin panel run on Vercel": the service said before "and".
_PAIRED: Final = re.compile(
    r"(?:^|[,;:]\s*)(?:(?i:both)\s+)?((?i:the|our)\s+[\w\s-]{1,40}?)\s+(?i:and)\s+"
    r"(?i:the|our)\s+[\w\s-]{1,40}?\s*$"
)


def _paired(before: str, subject: Entity, kind: str) -> list[Entity]:
    """The other service of a pair that shares the verb, when `subject` is a service."""
    pair = _PAIRED.search(before) if subject.type == "project" else None
    first = clause_subject(pair.group(1), kind) if pair else None
    return [first] if first is not None and first.type == "project" else []


def _thing_on_platform(clause: str, rest: str) -> Entity | None:
    """ "The geocoder runs on Hetzner": a common noun after "the"/"our" is a service when what
    it runs on is a platform (not "the meeting is hosted on Zoom")."""
    text = TRAILING.sub("", LEADING.sub("", clause.strip())).strip()
    thing = _THING.fullmatch(text)
    tool = tool_at(rest)
    if not thing or tool is None or tool[0].split()[0].casefold() not in PLATFORMS:
        return None
    if thing.group(1).split()[-1].casefold() in NOT_SUBJECT | FUNCTION_NOUNS:
        return None
    return Entity(thing.group(1), "project")


def _placed(sentence: str) -> list[Relation]:
    """ "We deploy the billing service on Fly.io" → billing service deployed_on Fly.io."""
    opening = _PLACED.match(sentence)
    if not opening:
        return []
    service = SERVICE.match(sentence, opening.end())
    if not service or function_noun(service.group(1)):
        return []  # "We moved the docs to Notion": the team's docs, a use of the project's
    mine = sentence[opening.end() :].lower().startswith("my ")
    if mine and service.group(1).split()[-1].casefold() in APP_KINDS:
        return []  # "I switched my running app to Strava": the app one uses, not one's project
    target = _PLACED_TARGET.match(sentence, service.end())
    tool = tool_at(sentence[target.end() :]) if target else None
    if not tool:
        return []
    verb = opening.group().split()[-1].lower()
    relation = "deployed_on" if verb.startswith(("deploy", "host")) else "runs_on"
    if verb in ("moved", "migrated", "switched", "ported"):
        slot = slot_of(tool[0])
        # "moved the scheduler from MQTT to gRPC": a move to what is no platform is a use.
        platform = tool[0].split()[0].casefold() in PLATFORMS
        relation = "runs_on" if platform or (slot and slot[0] in _PLATFORM_SLOTS) else "uses"
    service_entity = Entity(service_name(service.group(1)), "project")
    return [Relation(service_entity, relation, Entity(tool[0], "tool"))]


# Chinese: a clause is split at punctuation; the subject is the clause before the verb.
def relations(sentence: str) -> list[Relation]:
    """The relations one sentence states, in order; none for a question.

    A subject said as "I" / "我" is `ME`; a capitalised subject of `uses` is `AMBIGUOUS`.
    """
    text = sentence.strip()
    if not text or text.endswith(("?", "？")) or _QUESTION_START.match(text):
        return []
    if re.search(r"[\u4e00-\u9fff]", text):
        return chinese_relations(text)
    out: list[Relation] = []
    for clause in plain_clauses(text):
        out += [r for r in _english(clause) if r not in out]
    return out
