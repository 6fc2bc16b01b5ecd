"""Relation statements of ordinary team talk → (subject, relation, object), English and Chinese.

Used twice: offline extraction keeps a sentence that states such a relation as an event (plain
facts carry no decision or plan cue), and offline graph projection turns it into nodes and an
edge citing that event. Pure rules, no model. The Chinese rules are
`memory.engine.offline_relations_zh`; the entities and relations both name,
`memory.engine.offline_entities`.

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
    AMBIGUOUS,
    CALENDAR_WORDS,
    FUNCTION_NOUNS,
    LIKED,
    ME,
    PLATFORMS,
    TEAM_NOUNS,
    Entity,
    Relation,
    calendar_word,
    employer_of,
    function_noun,
    known_tool,
)
from memory.engine.offline_relations_zh import ZH_SERVICE, chinese_relations, zh_project_name
from memory.engine.plain_clauses import plain_clauses
from memory.engine.slots import slot_of

_SERVICE_NOUNS: Final = (
    r"(?:service|api|app|application|project|pipeline|backend|frontend|website|site|dashboard"
    r"|repo|repository|platform|cluster|library|sdk|cli|bot|portal|system|microservice|gateway"
    r"|monorepo|worker|database|module|engine|server|lib|package|plugin|extension|framework"
    r"|component|integration|crawler|scheduler|planner|exporter|importer|parser|process|flow|model"
    r"|panel|console|ui|page|runbook|roadmap|handbook|suite|tooling|indexer|tracker|collector"
    r"|runner|daemon|job|script|queue|proxy|loader|scraper|renderer|builder|generator"
    r"|validator|handler|consumer|producer|router|balancer|registry|bucket|charts?|widget|agent"
    r"|warehouse|lake|notebook|template|docs|wiki|chatbot|firmware|simulator|emulator|compiler"
    r"|program|programme|blog|storefront|shop)"
)
_NAME_ONLY_NOUNS: Final = frozenset({"project", "app", "repo", "repository"})  # "Atlas project"
_DETERMINER: Final = r"(?:the|our|my|their|his|her|its|this|a|an)"
_PLAIN_WORD: Final = (
    r"(?!(?:the|a|an|and|or|of|to|for|on|in|with|by|at|from|that|which|who|is|are|was|were"
    r"|now|also|not|it)\b)[\w.+#-]+"
)
_SERVICE: Final = re.compile(
    rf"(?:{_DETERMINER}\s+)?((?:{_PLAIN_WORD}\s+){{0,3}}?(?i:{_SERVICE_NOUNS})(?:e?s\b)?)",
    re.IGNORECASE,
)
_TEAM: Final = re.compile(
    rf"(?:{_DETERMINER}\s+)?((?:{_PLAIN_WORD}\s+){{0,3}}?(?i:{TEAM_NOUNS}))", re.IGNORECASE
)
_CAPITALISED: Final = re.compile(r"[A-Z0-9][\w.+#'’-]*(?:\s+[A-Z][\w.+#'’-]*){0,2}")
# Words that may open or close a clause around its subject without being part of it.
_LEADING: Final = re.compile(
    r"^(?:(?:now|also|then|so|today|currently|actually|btw|and|but|well|ok|okay|yes|yeah|by the"
    r" way|fyi|for the record|just so you know|oh|honestly|personally|frankly)\b[,:]?\s+)+",
    re.IGNORECASE,
)
_TRAILING: Final = re.compile(
    r"(?:\s+(?:now|also|currently|still|mainly|mostly|primarily|already|actually|officially"
    r"|just|recently|finally|has|have|always|usually|generally|normally|typically|only"
    r"|really|much|definitely|strongly|personally|still)|['’]ve|['’]d)+$",
    re.IGNORECASE,
)
_NOT_SUBJECT: Final = frozenset(
    """
    i we you he she they it this that there here who what which someone everyone nobody
    everybody somebody anyone one people team everything something mine yours always never
    usually often sometimes please just also only then now still
    """.split()  # noqa: SIM905
)
_NOT_NAME: Final = CALENDAR_WORDS | frozenset(
    """
    i the a an my our it this that we he she they since for from to with in on at and but so
    then also now today yesterday
    i'm i'll i've i'd we'll we're we've we'd you'll you're you've they'll they're they've
    he's she's he'll she'll it's it'll let's that's there's here's
    """.split()  # noqa: SIM905
)
_BOUNDARY: Final = re.compile(r"[,;:—–()]|\b(?:and|but|so|because|while|that|which|who)\b", re.I)
_QUESTION_START: Final = re.compile(
    r"^\s*(?:who|what|which|where|when|why|how|does|do|did|is|are|was|were|can|could|should"
    r"|will|would|has|have)\b",
    re.IGNORECASE,
)

# "is plain Django", "is a Next.js app": the words between a copula and the technology it names.
_QUALIFIER: Final = r"(?:(?:plain|pure|just|basically|mostly|all|entirely)\s+)?(?:an?\s+)?"

# Kinds of entity a relation takes, by side: "person" (a person, or a team for ownership),
# "project", "tool", "team", "owner" (person or team), "uses" (person or project).
_RELATIONS_EN: Final = (
    # (verb pattern, relation, subject kind, object kind, passive)
    (r"(?:is|are|was|has\s+been)\s+(?:now\s+)?(?:owned|handled|looked\s+after|taken\s+care\s+of)"
     r"\s+by", "owns", "owner", "project", True),
    (r"(?:is|are|was|has\s+been)\s+(?:now\s+)?(?:led|headed|run|managed)\s+by"
     r"|(?<=team\s)(?:now\s+)?reports?\s+(?:directly\s+)?to", "leads", "owner", "project", True),
    (r"(?:is|are|was|has\s+been)\s+(?:now\s+)?maintained\s+by", "maintains", "owner", "project",
     True),
    (r"owns?|(?:is|'s|am|'m)\s+(?:now\s+)?(?:the\s+)?(?:new\s+)?owner\s+of|(?:is|am|'s|'m)\s+responsible\s+for"
     r"|looks?\s+after|takes?\s+care\s+of|handles"
     r"|(?:is|'s)\s+(?:the|our)\s+go-to\s+(?:person|guy|contact)\s+(?:for|on)", "owns", "owner",
     "project", False),
    (r"(?:leads?|heads?(?:\s+up)?|manages?|runs?(?!\s+on\b|\s+in\b|\s+off\b))"
     r"|(?:is|'s|are)\s+(?:now\s+)?(?:heading|leading|managing|running)(?:\s+up)?"
     r"(?!\s+on\b|\s+in\b|\s+off\b|\s+late\b)"
     r"|(?:is|'s|am|'m)\s+in\s+charge\s+of"
     r"|(?:is|'s|am|'m)\s+(?:now\s+)?(?:the|our)\s+(?:new\s+|current\s+)?(?:tech(?:nical)?\s+"
     r"|team\s+|engineering\s+|product\s+|project\s+)?(?:lead|leader|manager|head)\s+(?:of|on|for)",
     "leads", "owner", "project", False),
    (r"(?:took|has\s+taken|have\s+taken|is\s+taking)\s+over", "owns", "owner", "project", False),
    (r"maintains?|(?:is|'s|am|'m)\s+(?:the|a|our)\s+(?:main\s+|lead\s+)?maintainer\s+of",
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
    (rf"(?:is|are)(?=\s+{_QUALIFIER}[A-Z])", "uses", "project", "known_tool", False),
    (r"depends?\s+on|relies\s+on|(?:is|are)\s+dependent\s+on|talks?\s+to|calls|connects?\s+to"
     r"|reads\s+from|writes\s+to|pulls\s+from|pushes\s+to|integrates\s+with|publishes\s+to"
     r"|consumes\s+from|subscribes\s+to", "depends_on",
     "project", "project_or_tool", False),
    (r"(?:has\s+)?joined|(?:is|'s|am|'m)\s+(?:now\s+)?(?:a\s+)?member\s+of"
     r"|(?:is|'s|am|'m)\s+(?:now\s+)?(?:on|in|part\s+of)(?=\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+team\b)"
     r"|sits?\s+(?:on|in)(?=\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+team\b)"
     r"|(?:works?|moved|started|switched)\s+(?:over\s+)?(?:from\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+team\s+)?(?:on|to)"
     r"(?=\s+the\s+[\w-]+(?:\s+[\w-]+)?\s+team\b)",
     "member_of", "person", "team", False),
    (r"(?:prefers?|preferred)(?:\s+(?:working\s+(?:in|with)|using|to\s+use|writing\s+in"
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
    # "I mostly code in TypeScript", "Ana writes everything in Go": the language one works in.
    (r"(?:code|codes|program|programs|write|writes|develop|develops)\s+(?:everything\s+|mostly\s+)?"
     r"in", "uses", "person", "known_tool", False),
    # "I do my budgeting in YNAB", "we keep our runbooks in Notion": a task done with a tool.
    (r"(?:do|does|keep|keeps|track|tracks|write|writes|manage|manages|plan|plans)\s+(?:all\s+)?"
     r"(?:of\s+)?(?:my|our|his|her|their)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?:in|with|on)",
     "uses", "uses", "tool", False),
)  # fmt: skip
_VERBS_EN: Final = tuple(
    (re.compile(rf"(?<![\w'])(?:{verb})(?![\w])", re.IGNORECASE), rel, subj, obj, passive)
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


def _service_name(phrase: str) -> str:
    """ "billing service" stays; "Atlas project" / "Atlas app" → "Atlas"."""
    words = phrase.split()
    if (
        len(words) > 1
        and words[-1].lower() in _NAME_ONLY_NOUNS
        and all(w[:1].isupper() for w in words[:-1])
    ):
        return " ".join(words[:-1])
    return " ".join(words)


def _name(raw: str) -> str:
    """A capitalised name cut at the first word that cannot continue it."""
    words: list[str] = []
    for word in raw.split():
        bare = word.strip(".,;:!?\"'").replace("’", "'").lower()
        if bare in _NOT_NAME or (words and not word[:1].isupper()):
            break
        words.append(word)
        if word.endswith((",", ";", "!", "?")) or (word.endswith(".") and not known_tool(word)):
            break
    return " ".join(words).strip(" .,;:!?'\"")


def _tool_at(text: str) -> tuple[str, int] | None:
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


_FOR_WHAT: Final = re.compile(r"^(?:for|at|in)\s+[\w\s-]{1,30}?,?\s+(?=I$)", re.IGNORECASE)


_MAIN_FUNCTION: Final = re.compile(
    r"(?:(?:main|primary|production|prod|default|core)\s+)?(?:database|db|cache|queue|registry"
    r"|warehouse|docs|wiki|tracker|dashboard|dashboards)",
    re.IGNORECASE,
)


def _team_led(clause: str, relation: str) -> Entity | None:
    """ "The growth team is run by Carlos": a team is led like a project."""
    text = _TRAILING.sub("", _LEADING.sub("", clause.strip())).strip()
    team = _TEAM.fullmatch(text)
    return Entity(team.group(1), "organization") if team and relation == "leads" else None


def _subject(clause: str, kind: str) -> Entity | None:
    """The entity a whole clause names, if it may be the subject of a relation of `kind`."""
    text = _TRAILING.sub("", _LEADING.sub("", clause.strip())).strip()
    text = _FOR_WHAT.sub("", text)  # "For email I use Fastmail": what for, then the speaker
    if not text:
        return None
    if text in ("I", "i"):
        return Entity(ME, "person") if kind in ("owner", "person", "uses") else None
    if text.lower() in _NOT_SUBJECT or LIKED.match(text):
        return None  # "My favourite database is SQLite": a liking (`_MY_CHOICE`), no service
    team = _TEAM.fullmatch(text)
    if team:
        return Entity(team.group(1), "organization") if kind == "owner" else None
    service = _SERVICE.fullmatch(text)
    if service and _MAIN_FUNCTION.fullmatch(service.group(1)):
        return None  # "Our main database is MySQL": the project's, said by `changes`
    if service and kind in ("project", "uses"):
        return Entity(_service_name(service.group(1)), "project")
    if service or known_tool(text):
        return None
    if not _CAPITALISED.fullmatch(text) or _name(text) != text or function_noun(text):
        return None  # "Builds run on …": a function opening the sentence, not a name
    if kind in ("owner", "person"):
        return Entity(text, "person")
    return Entity(text, "project" if kind == "project" else AMBIGUOUS)


def _object(text: str, kind: str) -> tuple[Entity, int] | None:
    """The entity opening `text` as the object of a relation of `kind`, with its length."""
    if kind == "known_tool":
        qualifier = re.match(_QUALIFIER, text, re.IGNORECASE)
        skip = qualifier.end() if qualifier else 0
        known = _tool_at(text[skip:])
        return (Entity(known[0], "tool"), skip + known[1]) if known else None
    if kind in ("tool", "project_or_tool"):
        tool = _tool_at(text)
        if tool:
            return Entity(tool[0], "tool"), tool[1]
    if kind in ("team", "project"):
        # "Kemi leads the platform team": a team is led, owned or maintained like a project.
        team = _TEAM.match(text)
        if team:
            return Entity(team.group(1), "organization"), team.end()
    service = _SERVICE.match(text)
    if service and kind in ("project", "project_or_tool", "tool"):
        return Entity(_service_name(service.group(1)), "project"), service.end()
    bare = re.match(rf"(?:the\s+)?({_CAPITALISED.pattern})", text)
    if not bare:
        return None
    name = _name(bare.group(1))
    if not name or name.lower() in _NOT_NAME or calendar_word(name):
        return None  # "runs on Mondays"
    end = bare.start(1) + len(name)
    typed = {"project": "project", "project_or_tool": "project", "team": "organization"}
    return Entity(name, typed.get(kind, "tool")), end


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
        return _subject(thing.group(1), subject_kind) if thing else None
    first = _NAMED_FIRST.match(sentence)
    return _subject(first.group(1), subject_kind) if first else None


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
            owned = _subject(clause, "project") or _team_led(clause, relation)
            team = _TEAM.match(rest)
            owner = (
                (Entity(team.group(1), "organization"), team.end())
                if team
                else _object(rest, "person")
            )
            if owned and owner and owned.type in ("project", "organization"):
                whom = owner[0] if team else Entity(owner[0].name, "person")
                out.append(Relation(whom, relation, owned))
                taken_until = end
                # "maintained by Rosa and Ian": each of them.
                more = None if team else _OBJECT_LIST.match(rest[owner[1] :])
                after = rest[owner[1] + more.end() :] if more else ""
                other = _object(after, "person") if more and not _TEAM.match(after) else None
                if other is not None:
                    out.append(Relation(Entity(other[0].name, "person"), relation, owned))
            continue
        subject = previous if coordinated and previous else _subject(clause, subject_kind)
        if subject is None and coordinated:
            # "Dana left Stripe and joined Shopify": the first clause's subject, whatever its verb.
            lead = _LEAD_SUBJECT.match(sentence[:start])
            subject = _subject(lead.group(1), subject_kind) if lead else None
        if subject is None and (pronoun := _REFERRING.fullmatch(clause.strip())):
            # "Lena is our new designer; she joined the growth team".
            subject = _referent(sentence, pronoun.group("who"), subject_kind)
        if subject is None and relation in ("runs_on", "deployed_on"):
            subject = _thing_on_platform(clause, rest)
        if subject is None:
            continue
        subjects = [*_paired(sentence[:start], subject, subject_kind), subject]
        target = _object(rest, object_kind)
        while target is not None:
            entity, length = target
            out += [Relation(one, relation, entity) for one in subjects]
            taken_until = end
            rest = rest[length:]
            more = _OBJECT_LIST.match(rest)
            if not more or object_kind not in ("tool", "project_or_tool"):
                break
            nxt = _object(rest[more.end() :], object_kind)
            if nxt is None or nxt[0].type != "tool":
                break
            rest = rest[more.end() :]
            target = nxt
        previous = subject
    return [employer_of(r) for r in [*out, *_placed(sentence), *_shaped(sentence)]]


# "Both the web app and the admin panel run on Vercel": the service said before "and".
_PAIRED: Final = re.compile(
    r"(?:^|[,;:]\s*)(?:(?i:both)\s+)?((?i:the|our)\s+[\w\s-]{1,40}?)\s+(?i:and)\s+"
    r"(?i:the|our)\s+[\w\s-]{1,40}?\s*$"
)


def _paired(before: str, subject: Entity, kind: str) -> list[Entity]:
    """The other service of a pair that shares the verb, when `subject` is a service."""
    pair = _PAIRED.search(before) if subject.type == "project" else None
    first = _subject(pair.group(1), kind) if pair else None
    return [first] if first is not None and first.type == "project" else []


# "I'm a Neovim person", "Ana is a Postgres fan": a known tool someone prefers.
_PERSON_OF: Final = re.compile(
    r"(?:^|[,;]\s*|\b(?i:and)\s+)(I|[A-Z][\w'’-]+)(?:'m|’m|\s+am|\s+is|'s|’s)\s+"
    r"(?:(?i:more\s+of|kind\s+of|very\s+much|definitely|totally)\s+)?an?\s+"
    r"([\w.+#-]+(?:\s+[\w.+#-]+)?)\s+(?:person|guy|girl|fan|user)\b"
)


# "My go-to editor is Neovim", "Sublime is my editor of choice", "my favourite language is Go".
_MY_CHOICE: Final = (
    re.compile(
        r"^(?:my|our)\s+(?:go-to|favou?rite|preferred|default|usual)\s+[\w-]+(?:\s+[\w-]+)?"
        r"\s+(?:is|are)\s+([\w.+#-]+(?:\s+[\w.+#-]+)?)",
        re.IGNORECASE,
    ),
    re.compile(
        r"^([\w.+#-]+(?:\s+[\w.+#-]+)?)\s+(?:is|are)\s+(?:my|our)\s+(?:(?:go-to|favou?rite"
        r"|preferred|default|usual)\s+(?!person\b|guy\b|contact\b|expert\b)[\w-]+"
        r"|[\w-]+\s+of\s+choice)\b",
        re.IGNORECASE,
    ),
)


# "The checkout service is Priya's": whose a service is.
_WHOSE: Final = re.compile(r"^(.+?)\s+(?:is|are)\s+([A-Z][\w-]+)['’]s\s*[.!]?$")


# "Paolo handed the fraud model over to Sven": the receiver owns it now.
_HANDED: Final = re.compile(
    r"\bhanded\s+(?:over\s+)?(.+?)\s+(?:over\s+)?to\s+([A-Z][\w'’-]+)", re.IGNORECASE
)


def _handed_over(sentence: str) -> Relation | None:
    """A service handed over is owned by its receiver, a team handed over led by them."""
    handed = _HANDED.search(sentence)
    if handed is None or not handed.group(2)[:1].isupper():
        return None
    receiver = Entity(handed.group(2), "person")
    service = _SERVICE.fullmatch(handed.group(1))
    if service is not None:
        return Relation(receiver, "owns", Entity(_service_name(service.group(1)), "project"))
    team = _TEAM.fullmatch(handed.group(1))
    return Relation(receiver, "leads", Entity(team.group(1), "organization")) if team else None


def _whose(sentence: str) -> Relation | None:
    whose = _WHOSE.match(sentence.strip())
    owned = _subject(whose.group(1), "project") if whose else None
    if whose is None or owned is None or owned.type != "project":
        return None
    if whose.group(2).lower() in _NOT_NAME:
        return None
    return Relation(Entity(whose.group(2), "person"), "owns", owned)


def _my_choice(sentence: str) -> Relation | None:
    for pattern in _MY_CHOICE:
        chosen = pattern.match(sentence.strip())
        if chosen is None:
            continue
        name = chosen.group(1).rstrip(".")
        tool = known_tool(name)
        if tool or name[:1].isupper():
            return Relation(Entity(ME, "person"), "prefers", Entity(tool or name, "tool"))
    return None


def _kind_of_person(sentence: str) -> Relation | None:
    found = _PERSON_OF.search(sentence)
    tool = known_tool(found.group(2)) if found else None
    if found is None or tool is None:
        return None
    who = found.group(1)
    if who != "I" and (who.lower() in _NOT_SUBJECT or who.lower() in _NOT_NAME):
        return None
    subject = Entity(ME, "person") if who == "I" else Entity(who, "person")
    return Relation(subject, "prefers", Entity(tool, "tool"))


# Whole-sentence shapes no verb of `_RELATIONS_EN` reads, in order; the first that fits wins.
# "The data team hired a new analyst, Bo": the one hired is a member of the team.
_HIRED: Final = re.compile(
    rf"^(?:the|our)\s+((?:[\w-]+\s+){{0,2}}{TEAM_NOUNS})\s+(?:has\s+|just\s+)*hired\s+"
    r"(?:an?\s+)?(?:new\s+)?(?:[\w-]+\s+){0,2}?[\w-]+,\s+([A-Z][\w'’-]+)\s*[.!]?$",
    re.IGNORECASE,
)


def _hired(sentence: str) -> Relation | None:
    hired = _HIRED.match(sentence.strip())
    if hired is None or hired.group(2).lower() in _NOT_NAME:
        return None
    return Relation(
        Entity(hired.group(2), "person"), "member_of", Entity(hired.group(1), "organization")
    )


# "I switched from Notion to Obsidian", "I moved my recipes from Notion to Obsidian", "Ana
# switched to VS Code": a person's own tool after a switch (a move "to Berlin" names no tool).
_SWITCHED: Final = re.compile(
    r"^(I|[A-Z][\w-]+)(?:\s+(?:have|has)|['’]ve)?\s+(?:(?:just|recently|finally|also)\s+)?"
    r"(?:switched|moved|migrated|changed|went)\s+(?:over\s+)?"
    r"(?:(?:my|his|her|their)\s+[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+)?"
    r"(?:from\s+(.+?)\s+)?(?:over\s+)?to\s+(.+)$"
)


def _switched_to(sentence: str) -> Relation | None:
    found = _SWITCHED.match(sentence.strip())
    if found is None:
        return None
    who, old, new = found.groups()
    if who != "I" and (who.lower() in _NOT_SUBJECT or who.lower() in _NOT_NAME or known_tool(who)):
        return None
    tool = _tool_at(new)
    if tool is None:
        if old is None or _tool_at(old) is None:
            return None
        bare = re.match(rf"(?:the\s+)?({_CAPITALISED.pattern})", new)
        name = _name(bare.group(1)) if bare else ""
        if not name or name.lower() in _NOT_NAME or calendar_word(name):
            return None
        tool = (name, 0)
    subject = Entity(ME, "person") if who == "I" else Entity(who, AMBIGUOUS)
    return Relation(subject, "uses", Entity(tool[0], "tool"))


_SHAPES: Final = (_handed_over, _whose, _my_choice, _kind_of_person, _hired, _switched_to)


def _shaped(sentence: str) -> list[Relation]:
    for shape in _SHAPES:
        found = shape(sentence)
        if found is not None:
            return [found]
    return []


def _thing_on_platform(clause: str, rest: str) -> Entity | None:
    """ "The geocoder runs on Hetzner": a common noun after "the"/"our" is a service when what
    it runs on is a platform (not "the meeting is hosted on Zoom")."""
    text = _TRAILING.sub("", _LEADING.sub("", clause.strip())).strip()
    thing = _THING.fullmatch(text)
    tool = _tool_at(rest)
    if not thing or tool is None or tool[0].split()[0].casefold() not in PLATFORMS:
        return None
    if thing.group(1).split()[-1].casefold() in _NOT_SUBJECT | FUNCTION_NOUNS:
        return None
    return Entity(thing.group(1), "project")


def _placed(sentence: str) -> list[Relation]:
    """ "We deploy the billing service on Fly.io" → billing service deployed_on Fly.io."""
    opening = _PLACED.match(sentence)
    if not opening:
        return []
    service = _SERVICE.match(sentence, opening.end())
    if not service or function_noun(service.group(1)):
        return []  # "We moved the docs to Notion": the team's docs, a use of the project's
    target = _PLACED_TARGET.match(sentence, service.end())
    tool = _tool_at(sentence[target.end() :]) if target else None
    if not tool:
        return []
    verb = opening.group().split()[-1].lower()
    relation = "deployed_on" if verb.startswith(("deploy", "host")) else "runs_on"
    if verb in ("moved", "migrated", "switched", "ported"):
        slot = slot_of(tool[0])
        # "moved the scheduler from MQTT to gRPC": a move to what is no platform is a use.
        platform = tool[0].split()[0].casefold() in PLATFORMS
        relation = "runs_on" if platform or (slot and slot[0] in _PLATFORM_SLOTS) else "uses"
    service_entity = Entity(_service_name(service.group(1)), "project")
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
        service = _SERVICE.fullmatch(bare)
        if service:
            return _service_name(service.group(1))
        if _LATIN_NAME.fullmatch(bare) and not known_tool(bare):
            return bare
    return None
