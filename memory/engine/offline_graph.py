"""Rule-based graph projection for the offline processor (SPEC §6, §12.1): events → proposal.

Rules, each naming its source event:
- a current decision / change / migration choosing a slot value ("Use npm", "switch to pnpm")
  → node `project` (named when the sentence names one: "for the Atlas project" → "Atlas"),
  fact `<slot> = <tool>`, tool node, and edge project —uses→ tool with metadata slot;
- "I work at X" / "X公司工作" → person + organization, edge `works_at`, fact `employer`;
- "I live in X" / "moved to X" / "我住在X" → person + place, edge `lives_in`, fact `residence`;
- "my name is X" → alias and fact `name`; "I am a X" / "I work as a X" → fact `role`;
- preferences ("I prefer / like / love / hate X", "我喜欢X") → person fact `preference:<topic>`
  (the topic is the slot when X is a slotted tool, else X's head noun phrase, see
  `memory.engine.offline_phrases`). Only a real noun phrase makes a fact: "I love it", "I love
  to" and "I love how you use it…" make none.
- relation statements about anyone named or about a service ("Priya owns the billing service",
  "the billing service runs on Fly.io", "Tom joined the platform team", "账单服务依赖认证服务")
  → typed nodes and an owns / leads / maintains / uses / runs_on / deployed_on / depends_on /
  member_of / works_at / lives_in / prefers edge (`memory.engine.offline_relations`); a slotted
  tool keys `uses` by its slot, so PostgreSQL displaces MySQL for the same service.
Names stop at the name: "I moved to Lisbon and I love it" lives in "Lisbon", never "Lisbon and I".
Facts are deduplicated per node and key: a repeated value only adds its source event.
The person is the event's first named participant, else "user". Planned and cancelled events
never change slot facts, employers or homes. Events are applied in occurrence order (happened
start, else mention time, then id), so a later choice comes later in the proposal and closes the
earlier one when applied. See `memory.engine.prompts.graph` for how single-valued edges are keyed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from memory.engine.changes import HOSTING, USING, said_of_others, stated_uses
from memory.engine.event_types import NOT_CURRENT, SLOT_EVENT_TYPES, normalize_key
from memory.engine.offline_entities import FAMILY_EN, PLATFORMS, function_noun, han_tool
from memory.engine.offline_phrases import noun_phrase, preferences
from memory.engine.offline_relations import (
    AMBIGUOUS,
    ME,
    known_tool,
    relations,
    service_named,
)
from memory.engine.offline_relations_zh import zh_employer_named
from memory.engine.plain_clauses import corrected, one_subject_each, without_apposition
from memory.engine.prompts.graph import (
    SINGLE_VALUED_RELATIONS,
    SLOTTED_RELATIONS,
    EdgeProposal,
    FactProposal,
    GraphProposal,
    NodeProposal,
    edge_exclusivity_key,
)
from memory.engine.slots import project_name, slot_choices, slot_of

__all__ = [
    "SINGLE_VALUED_RELATIONS",
    "SLOTTED_RELATIONS",
    "ProjectionEvent",
    "edge_exclusivity_key",
    "person_relations",
    "project_events",
]

OFFLINE_CONFIDENCE: Final = 0.7
DEFAULT_PROJECT: Final = "project"
DEFAULT_PERSON: Final = "user"
_ANONYMOUS: Final = frozenset({"user", "assistant", "用户", "助手", "system", "tool"})


@dataclass(frozen=True, slots=True)
class ProjectionEvent:
    """What projection reads of one event."""

    id: int
    title: str
    summary: str
    event_type: str
    participants: tuple[str, ...]
    happened_start: datetime | None
    mentioned_at: datetime
    temporal_status: str

    @property
    def valid_from(self) -> datetime:
        return self.happened_start or self.mentioned_at


# A capitalised name of up to five words ("Acme Corp", "New York", "Bank of America"); connectors
# count only between two capitalised words, and `_clean_name` cuts what the pattern over-reads.
# A kind of place written in lower case ends it too: "Rush hospital", "Lincoln high school".
_NAME: Final = (
    r"(?:the\s+)?([A-Z0-9][\w&.'’-]*(?:(?:\s+(?:of|and|&|de|la|del|van|von|der|du))?"
    r"\s+[A-Z0-9][\w&.'’-]*){0,4}(?:\s+(?:high\s+school|hospital|university|college|school"
    r"|clinic|bank|hotel|library|museum|academy|institute|bakery|restaurant|cafe)\b)?)"
)
# Capitalised words that end a name rather than continue it: the pronoun "I", days, months and
# sentence openers ("I moved to Berlin In March", "Acme Corp. I love it").
_NOT_NAME_WORDS: Final = frozenset(
    """
    i i'm i've i'll i'd i’m monday tuesday wednesday thursday friday saturday sunday january
    february march april may june july august september october november december in on at
    and but so then the a an my our it this that we he she they since for from to with
    """.split()  # noqa: SIM905
)
_CONNECTORS: Final = frozenset({"of", "and", "&", "de", "la", "del", "van", "von", "der", "du"})
_ABBREVIATION: Final = re.compile(r"^(?:[A-Z][a-z]{0,3}|[A-Z]{1,3})\.$")  # "St.", "Corp.", "U."
_HAN: Final = re.compile(r"[\u4e00-\u9fff]")
_HAN_STOP: Final = re.compile(r"(?:做|当|负责|从事|担任|干).*$")
_HAN_NAME: Final = r"([^\s，。,.!！？?、]{1,20}?)"
# What may follow a place in "我搬到了上海工作。": the place ends before the verb, not after it.
# "我搬到杭州已经三年了": how long ago, after the place.
_HAN_AFTER_PLACE: Final = (
    r"(?:工作|上班|生活|学习|读书|定居|居住|发展|了)?"
    r"(?:(?:已经|快|有|都)*[一二三四五六七八九十两半几\d]+个?(?:多个?)?(?:年|月|星期|礼拜|周|天)多?了?)?"
    r"(?:[，。,.!！]|$)"
)
# "我们上周搬到了杭州": when, between the speaker and the move (not "我们公司搬到了…").
_HAN_WHEN: Final = r"(?:上周|上个?月|去年|今年|前年|最近|刚刚?|已经|昨天|前几天|年初|年底|终于)*"
_WORKS_AT: Final = (
    re.compile(r"\b(?i:i|we|i'm|i\s+am|we're|we\s+are)\s+(?i:currently\s+|now\s+)?"
               r"(?i:work|working|study|studying)\s+(?i:(?:remotely|full[- ]time|part[- ]time)\s+)?"
               r"(?i:at|for)\s+"
               rf"(?:(?i:an?)\s+[\w\s-]{{1,30}}?\s+(?i:called|named)\s+)?{_NAME}"),
    # "I left Globex and now work at Initech".
    re.compile(r"\b(?i:i)\s+(?i:left|quit)\s+[^.;!?]{1,40}?\s+(?i:and)\s+(?i:now\s+)?"
               rf"(?i:work|am\s+working)\s+(?i:at|for)\s+{_NAME}"),
    # "I just started at Canva", "I started a new job at Figma".
    re.compile(r"\b(?i:i|i've)\s+(?i:just\s+|recently\s+)?(?i:started)\s+(?i:a\s+new\s+job\s+)?"
               rf"(?i:at)\s+{_NAME}"),
    re.compile(rf"我(?:现在|目前)?在{_HAN_NAME}(?:工作|上班)"),
    re.compile(rf"我(?:已经|刚|刚刚|上个?月|去年)?跳槽(?:去|到)了?{_HAN_NAME}{_HAN_AFTER_PLACE}"),
    # "我已经不在阿里工作了，现在在字节": the old employer, then the new one without a subject.
    re.compile(rf"我(?!们)(?:已经)?不在[^，。,]{{1,12}}(?:工作|上班)了?[，,]\s*(?:现在|目前)(?:在|去了)"
               rf"{_HAN_NAME}(?:工作|上班|了)?(?:[，。,.!！]|$)"),
    # "I lead the routing team here at Kargo", "I'm the Android lead at Medora": a role or a team
    # of the speaker's, at a named organisation.
    re.compile(r"\b(?i:i|i'm|i\s+am)\s+(?:(?!(?i:not|never|was|used|visited|met)\b)[^.;!?])"
               r"{0,50}?\b(?i:team|squad|group|department|lead|engineer|developer|manager|designer"
               r"|analyst|scientist"
               rf"|intern|founder|director|cto|ceo)\s+(?i:here\s+)?(?i:at)\s+{_NAME}"),
    re.compile(rf"\b(?i:i)\s+(?i:teach|coach)\s+(?:[a-z]+\s+){{0,2}}(?i:at)\s+{_NAME}"),
    # "I left Globex, I'm at Initech now": where the speaker is after a job change.
    re.compile(rf"\b(?i:left|quit|(?:switched|changed)\s+jobs)\b[^.;!?]{{0,30}}?[,;]\s*(?i:and\s+)?"
               rf"(?i:i'm|i\s+am)\s+(?i:now\s+)?(?i:at|with)\s+{_NAME}"),
)  # fmt: skip
# The same said of someone else: the person is the name right before the verb.
_WORKS_AT_OTHER: Final = (
    re.compile(rf"\b(?i:works|is\s+working|studies|is\s+studying)\s+(?i:at|for)\s+{_NAME}"),
    # "Leo switched jobs, he's at Accenture now".
    re.compile(rf"\b(?i:left|quit|(?:switched|changed)\s+jobs)\b[^.;!?]{{0,30}}?[,;]\s*(?i:and\s+)?"
               rf"(?i:he's|she's|he\s+is|she\s+is)\s+(?i:now\s+)?(?i:at|with)\s+{_NAME}"),
    re.compile(r"\b(?i:just\s+|recently\s+)?(?i:started)\s+(?i:a\s+new\s+job\s+)?(?i:at)\s+"
               rf"{_NAME}"),
    # "Priya is a nurse at Rush", "Tom is the CFO at Globex": a role at a named organisation
    # ("the tech lead of Nimbus" leads a project: `offline_relations`).
    re.compile(r"\b(?i:is|'s)\s+(?i:an?|the)\s+(?!(?i:regular|customer|member|guest|visitor"
               r"|patient|fan|client|friend|big|huge)\b)[A-Za-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?\s+"
               rf"(?i:at)\s+{_NAME}"),
)  # fmt: skip
_LIVES_IN: Final = (
    re.compile(r"\b(?i:i|we|i'm|i\s+am|we're|we\s+are)\s+(?i:currently\s+|now\s+)?"
               rf"(?i:live|living)\s+(?i:in)\s+{_NAME}"),
    re.compile(rf"\b(?i:i'm|i\s+am|we're|we\s+are)\s+(?i:now\s+)?(?i:based)\s+(?i:in|out\s+of)\s+{_NAME}"),
    re.compile(rf"\b(?i:i|we)\s+(?i:just\s+|recently\s+)?(?i:moved|relocated)\s+"
               rf"(?:(?i:from)\s+[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*)?\s+)?(?i:to)\s+{_NAME}"),
    # "I no longer live in Boston; I'm in Denver now": where the speaker is after a home ended.
    re.compile(rf"\b(?i:live|lived|living)\s+(?i:in)\s+[^.;!?]{{1,40}}?[,;]\s*(?i:i'm|i\s+am)\s+"
               rf"(?i:now\s+)?(?i:in|based\s+in)\s+{_NAME}"),
    re.compile(rf"我(?:现在|目前)?住在{_HAN_NAME}{_HAN_AFTER_PLACE}"),
    re.compile(rf"我(?:们)?{_HAN_WHEN}搬到了?{_HAN_NAME}{_HAN_AFTER_PLACE}"),
    # "我上个月从杭州搬到了苏州": a time word and the old home before the move.
    re.compile(rf"我(?:们)?[^，。,.!！从]{{0,6}}从[^，。,.!！]{{1,12}}?搬到了?{_HAN_NAME}{_HAN_AFTER_PLACE}"),
    # "我不在北京住了，搬到上海了": the speaker's clause, then the move said without a subject.
    re.compile(rf"我(?!们)[^，。,.!！]{{1,14}}[，,]\s*(?:后来|已经|现在|就|又)?搬(?:到|去)了?{_HAN_NAME}"
               rf"{_HAN_AFTER_PLACE}"),
)  # fmt: skip
_LIVES_IN_OTHER: Final = (
    re.compile(rf"\b(?i:lives)\s+(?i:in)\s+{_NAME}"),
    # "Julia is based in Lisbon", "Chloe works remotely from Montreal".
    re.compile(rf"\b(?i:is\s+based\s+(?:in|out\s+of)|works\s+(?:remotely\s+)?from)\s+{_NAME}"),
    re.compile(rf"\b(?i:just\s+|recently\s+)?(?i:moved|relocated)\s+(?i:to)\s+{_NAME}"),
)
# A name of one to three capitalised words opening the clause right before such a verb.
_NAMED_SUBJECT: Final = re.compile(
    r"(?:^|[,;:—–]\s*)(?:(?i:my|our)\s+(?:(?i:older|younger|little|big|best)\s+)?"
    rf"(?i:{FAMILY_EN}|friend|roommate|flatmate|boss|manager|colleague|coworker)\s+)?"
    r"((?:[A-Z][\w'’-]*\s+){1,3})(?:(?i:now|still|currently|also|already)\s+)?$"
)
# A later clause said of "he" or "she", and the name that opens the sentence.
_PRONOUN_BEFORE: Final = re.compile(
    r"[,;]\s*(?:(?i:and|but|so)\s+)?(?i:he|she)\s+(?:(?i:now|then|just|recently|has)\s+)?$"
)
_OPENING_NAME: Final = re.compile(r"^(?:[^\s:：]{1,40}[:：]\s*)?([A-Z][\w'’-]+)\s+(?=[a-z])")
# "Felix left Spotify last year and now works at Klarna": the one who left is who works.
_LEFT_AND: Final = re.compile(
    r"(?:^|[:：]\s*)([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?)\s+(?:has\s+)?(?:left|quit)\b[^.;!?:]*"
    r"\band\s+"
    r"(?:(?i:now|then)\s+)?$"
)
_NAME_IS: Final = (
    re.compile(rf"\b(?i:my\s+name\s+is|call\s+me)\s+{_NAME}"),
    re.compile(rf"我叫{_HAN_NAME}(?:[，。,.!！]|$)"),
)
_ROLE: Final = re.compile(
    r"\b(?:i'm|i\s+am|i\s+work\s+as)\s+(?:an?)\s+"
    r"([\w\s-]{2,60}?)(?=\s+(?:at|in|for|and|with|from|who|since|but|to|of)\b|[,.;!]|$)",
    re.IGNORECASE,
)
# "I'm a bit tired", "I'm a mix of excited and scared", "I'm a big fan": no role.
_NOT_A_ROLE: Final = frozenset(
    """
    bit little lot tad fan big huge massive mix kind sort total real complete bundle mess wreck
    believer sucker fool lucky proud happy nervous firm strong great good bad quick fast slow
    """.split()  # noqa: SIM905
)


@dataclass
class _Node:
    key: str
    name: str
    type: str
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    sources: list[int] = field(default_factory=list)


@dataclass
class _Builder:
    nodes: dict[str, _Node] = field(default_factory=dict)
    facts: list[FactProposal] = field(default_factory=list)
    edges: list[EdgeProposal] = field(default_factory=list)

    def node(self, kind: str, name: str, event: ProjectionEvent, *, tag: str = "") -> str:
        key = f"{kind}:{normalize_key(name)}"
        node = self.nodes.setdefault(key, _Node(key, name, kind))
        if event.id not in node.sources:
            node.sources.append(event.id)
        if tag and tag not in node.tags:
            node.tags.append(tag)
        return key

    def alias(self, key: str, alias: str) -> None:
        node = self.nodes[key]
        if alias not in node.aliases:
            node.aliases.append(alias)

    def fact(self, node_key: str, key: str, value: str, event: ProjectionEvent) -> None:
        """Add a fact; the same value again for the node and key only adds its source event."""
        for index in range(len(self.facts) - 1, -1, -1):
            known = self.facts[index]
            if (known.node_key, known.key) != (node_key, key):
                continue
            if known.value.casefold() == value.casefold():  # else a new value: keep the history
                if event.id not in known.source_event_ids:
                    sources = [*known.source_event_ids, event.id]
                    self.facts[index] = known.model_copy(update={"source_event_ids": sources})
                return
            break
        self.facts.append(
            FactProposal(
                node_key=node_key,
                key=key,
                value=value,
                valid_from=event.valid_from,
                confidence=OFFLINE_CONFIDENCE,
                source_event_ids=[event.id],
            )
        )

    def edge(
        self, from_key: str, to_key: str, relation: str, event: ProjectionEvent, slot: str = ""
    ) -> None:
        """Add an edge; the same edge again (no other target in between) only adds its source."""
        for index in range(len(self.edges) - 1, -1, -1):
            known = self.edges[index]
            if (known.from_key, known.relation, known.metadata.get("slot", "")) != (
                from_key,
                relation,
                slot,
            ):
                continue
            if known.to_key == to_key:
                if event.id not in known.source_event_ids:
                    sources = [*known.source_event_ids, event.id]
                    self.edges[index] = known.model_copy(update={"source_event_ids": sources})
                return
            if known.exclusivity_key:
                break  # a single-valued edge changed target since: the repeat is new history
        self.edges.append(
            EdgeProposal(
                from_key=from_key,
                to_key=to_key,
                relation=relation,
                valid_from=event.valid_from,
                confidence=OFFLINE_CONFIDENCE,
                source_event_ids=[event.id],
                metadata={"slot": slot} if slot else {},
            )
        )

    def proposal(self, reason: str) -> GraphProposal:
        nodes = [
            NodeProposal(
                key=n.key,
                name=n.name,
                type=n.type,
                aliases=n.aliases,
                tags=n.tags,
                source_event_ids=n.sources,
            )
            for n in self.nodes.values()
        ]
        return GraphProposal(reason=reason, nodes=nodes, facts=self.facts, edges=self.edges)


def _person(event: ProjectionEvent) -> str:
    named = [p for p in event.participants if p.strip() and p.strip().lower() not in _ANONYMOUS]
    return named[0].strip() if named else DEFAULT_PERSON


def _first(patterns: Sequence[re.Pattern[str]], text: str) -> str | None:
    for pattern in patterns:
        match = pattern.search(text)
        if match:
            name = _clean_name(match.group(1))
            if name:
                return name
    return None


def _clean_name(raw: str) -> str:
    """The name a pattern captured, cut before a word that cannot continue it and without
    trailing connectors or punctuation."""
    raw = raw.strip()
    if _HAN_STOP.search(raw) and not raw.isascii():
        raw = _HAN_STOP.sub("", raw)
        raw = re.sub(r"^(?:一家|一个|一所|某)", "", raw)
    words: list[str] = []
    for word in raw.split():
        bare = word.strip(".,;:!?\"'").replace("’", "'").lower()
        if words and bare in _NOT_NAME_WORDS:
            break
        if not words and bare in _NOT_NAME_WORDS and bare not in ("the",):
            return ""
        words.append(word)
        if word.endswith((".", ",", ";", "!", "?")) and not _ABBREVIATION.match(word):
            break  # the sentence or the clause ended inside the capture
    while words and words[-1].strip(".,").lower() in _CONNECTORS:
        words.pop()
    return " ".join(words).strip(" .,;:!?'\"")


# What precedes a company someone works at, joined or left.
_EMPLOYER_BEFORE: Final = re.compile(
    r"\b(?:left|quit|joined|joins|joining|works?\s+(?:at|for)|working\s+(?:at|for)|worked\s+"
    r"(?:at|for)|employed\s+(?:at|by)|hired\s+(?:at|by)|interview(?:s|ed|ing)?\s+(?:at|with)"
    r"|offer\s+from|job\s+at)\s+(?:the\s+)?$",
    re.IGNORECASE,
)


def _said_as_employer(text: str, value: str) -> bool:
    return any(
        _EMPLOYER_BEFORE.search(text[: found.start()])
        for found in re.finditer(re.escape(value), text, re.IGNORECASE)
    )


def _project_slots(
    builder: _Builder, event: ProjectionEvent, text: str, placed: frozenset[str]
) -> None:
    """Slot choices as facts of the project and `uses` edges, except for tools `placed`
    already on the service the statement names ("move the billing service from Heroku to
    Fly.io" is the billing service's, not the project's)."""
    if event.event_type not in SLOT_EVENT_TYPES or event.temporal_status in NOT_CURRENT:
        return
    if said_of_others(_without_speaker(event.summary)):
        return
    choices = slot_choices(event.summary) or slot_choices(event.title)
    if not choices:
        return
    name = project_name(text) or _service_named(event.summary) or DEFAULT_PROJECT
    project = builder.node("project", name, event, tag="project")
    for choice in choices:
        if _said_as_employer(text, choice.value):
            continue  # "Dana left Stripe and joined Shopify": a company, not a tool chosen
        builder.fact(project, choice.slot, choice.value, event)
        if any(key.startswith(normalize_key(choice.value)) for key in placed):
            continue  # "AWS" of "the geocoder now runs on AWS Fargate" is placed already
        tool = builder.node("tool", choice.value, event, tag=choice.slot)
        builder.edge(project, tool, "uses", event, slot=choice.slot)


# "I use Vim" is the speaker's own tool, said as a preference if at all: not the project's.
_FIRST_PERSON_SINGULAR: Final = re.compile(r"^(?:i|i'm|i've|i'd|my)\b|^我(?!们)", re.IGNORECASE)
_TEAM_CLAUSE: Final = re.compile(r"[,;]\s*(?:(?:but|and|so)\s+)?(we\b.*)$", re.IGNORECASE)
_TOOL_NAME: Final = re.compile(
    r"[A-Z][\w.+#-]*(?:\s*&\s*[A-Z][\w.+#-]*|\s+[A-Z][\w.+#-]*){0,2}(?:\s+\d+)?"  # "Route 53"
)
_CLOUD_PRODUCT: Final = re.compile(r"(?:阿里云|腾讯云|华为云)[A-Z][A-Za-z0-9]{1,10}")
_CALENDAR_NAME: Final = re.compile(
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|(?:january|february|march|april|may|june"
    r"|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)
# Where something runs is said with these verbs; "move/migrate X to B" alone may be a database.
_HOSTING_VERB: Final = re.compile(
    r"\b(?:deploy\w*|host\w*|runs?\s+on|running\s+on)\b|部署|托管|跑在|运行在", re.IGNORECASE
)
# A subject that names something other than a service (a technology, a person): "Django".
_NAMED_THING: Final = re.compile(r"^[A-Z]")
# A thing named by a common noun ("geocoder", "tile server"): a service when it runs on a platform.
_COMMON_THING: Final = re.compile(r"[a-z][\w-]*(?:\s+[a-z][\w-]*)?")
_HAN_THING: Final = re.compile(r"[\u4e00-\u9fff]{2,4}")
# "For Nimbus, instead of Stripe we'll use Adyen": the project named before the clause.
_FOR_PROJECT: Final = re.compile(r"^(?:[Ff]or|[Ii]n)\s+([A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)?)\s*,")


_VERSION: Final = re.compile(r"\s+v?\d+(?:\.\d+)*$")
_POSSESSION: Final = re.compile(r"\b(?:drive|drives|drove|ride|rides|rode|sold|bought)\b", re.I)


def _project_uses(builder: _Builder, event: ProjectionEvent, covered: set[str]) -> frozenset[str]:
    """What a change or a plain statement says is used now (`memory.engine.changes`), as an
    edge from the service it names ("move the billing service from Heroku to Fly.io" →
    billing service runs_on Fly.io; "订单服务不再用MySQL，改用PostgreSQL" → 订单服务 uses
    PostgreSQL), or from the namespace's project for "we" ("We use Datadog for monitoring",
    "我们把调度从Airflow换成了Dagster"). Tools in `covered` (an edge of the relation rules)
    are skipped. Returns the tools placed on a named service."""
    if event.temporal_status in NOT_CURRENT:
        return frozenset()
    text = _without_speaker(event.summary)
    if _FIRST_PERSON_SINGULAR.match(text.strip()):
        # "I can't stand Jira, we use Linear": only what the team's own clause says.
        ours = _TEAM_CLAUSE.search(text)
        if ours is None:
            return frozenset()
        text = ours.group(1)
    placed: set[str] = set()
    named = _FOR_PROJECT.match(text.strip())
    if _POSSESSION.search(text):
        return frozenset()  # "We sold the Honda and bought a Toyota Aqua": a car, not a tool
    for use in stated_uses(text):
        # An unknown name is a tool only as a thing used: "we moved to Seattle" is a home.
        unknown = (
            use.role == USING
            and (
                _TOOL_NAME.fullmatch(use.value)
                or _CLOUD_PRODUCT.fullmatch(use.value)  # "阿里云ECS"
                or (
                    han_tool(use.value)
                    and (
                        service_named(use.subject or "") is not None
                        or function_noun(use.subject or "")  # "支付走的是微信支付"
                    )
                )
            )
        ) or (
            # "Customer support runs on Intercom", "The iOS build runs on Bitrise": a named
            # platform under a service or a function of the team's (not "runs on Mondays").
            use.role == HOSTING
            and _TOOL_NAME.fullmatch(use.value) is not None
            and not _CALENDAR_NAME.match(use.value)
            and bool(use.subject)
            and (
                function_noun(use.subject or "")
                or (  # a service by its common noun, not a name ("Tom moved to Lisbon")
                    service_named(use.subject or "") is not None
                    and not _NAMED_THING.match(use.subject or "")
                )
            )
        )
        value = _VERSION.sub("", use.value)  # "Postgres 15" is PostgreSQL
        tool = known_tool(value) or (use.value if unknown else None)
        if tool is None or normalize_key(tool) in covered:
            continue
        service = service_named(use.subject) if use.subject else None
        generic = bool(use.subject) and function_noun(use.subject or "")
        if service is None and use.subject and _NAMED_THING.match(use.subject) and not generic:
            continue  # "Django uses Python": a fact about technologies, not about this team
        on_platform = use.role == HOSTING and tool.split()[0].casefold() in PLATFORMS
        if (
            service is None
            and use.subject
            and _HAN.search(use.subject)
            and not generic
            and not (on_platform and _HAN_THING.fullmatch(use.subject))
        ):
            continue  # "记笔记现在改用Notion": an activity, maybe the speaker's own
        if (
            service is None
            and on_platform
            and use.subject
            and not generic
            and (_COMMON_THING.fullmatch(use.subject) or _HAN_THING.fullmatch(use.subject))
        ):
            service = use.subject  # "the geocoder now runs on AWS Fargate", "网站部署在Vercel上"
        if service is None:
            service = project_name(text) or (
                named.group(1) if named and not known_tool(named.group(1)) else None
            )
        slot = slot_of(tool)
        hosting = (slot is not None and slot[0] == "hosting") or (
            slot is None and (tool.casefold() in PLATFORMS or bool(_HOSTING_VERB.search(text)))
        )
        if use.role == HOSTING and not hosting and not use.subject:
            continue  # "the team moved to Slack": nothing named moved anywhere
        origin = builder.node("project", service or DEFAULT_PROJECT, event, tag="project")
        to = builder.node("tool", tool, event, tag=slot[0] if slot else "")  # "package_manager"
        # "The billing service is on Fly.io now": a platform is where a service runs.
        platform = tool.split()[0].casefold() in PLATFORMS
        relation = (
            "runs_on" if service and hosting and (use.role == HOSTING or platform) else "uses"
        )
        slot = slot if relation == "uses" else None
        builder.edge(origin, to, relation, event, slot=slot[0] if slot else "")
        covered.add(normalize_key(tool))
        if service:
            placed.add(normalize_key(tool))
    return frozenset(placed)


def _stated(
    own: Sequence[re.Pattern[str]],
    others: Sequence[re.Pattern[str]],
    text: str,
    speaker: str,
) -> tuple[str, str] | None:
    """(whose, what) a sentence states: "I live in Porto" → the speaker's; "Caroline lives in
    Boston" → Caroline's; "she lives in Oslo" or "the team moved to Slack" name no one: None."""
    value = _first(own, text)
    if value:
        return speaker, value
    for pattern in others:
        for match in pattern.finditer(text):
            before = text[: match.start()]
            subject = _NAMED_SUBJECT.search(before) or _LEFT_AND.search(before)
            if subject is None and _PRONOUN_BEFORE.search(before):
                # "Kai doesn't live in Paris anymore, he moved to Lyon": the one named first.
                subject = _OPENING_NAME.match(text)
            who = _clean_name(subject.group(1)) if subject else ""
            value = _clean_name(match.group(1))
            if who and value and who.lower() not in _NOT_NAME_WORDS:
                return who, value
    return None


def person_relations(text: str, speaker: str) -> list[tuple[str, str, str]]:
    """(whose, works_at | lives_in, where) a sentence states of the speaker or someone named:
    "I work at Globex" → (speaker, works_at, Globex), "Caroline lives in Boston" → Caroline's."""
    found: list[tuple[str, str, str]] = []
    # "Emma and Liam both work at Spotify"; "I don't work at Stripe, I'm at Shopify now".
    for part in one_subject_each(without_apposition(corrected(text) or text)):
        employed = _stated(_WORKS_AT, _WORKS_AT_OTHER, part, speaker)
        if employed and zh_employer_named(employed[1]):  # "我在公司上班" names no employer
            found.append((employed[0], "works_at", employed[1]))
        housed = _stated(_LIVES_IN, _LIVES_IN_OTHER, part, speaker)
        if housed and slot_of(housed[1]) is None and known_tool(housed[1]) is None:
            found.append((housed[0], "lives_in", housed[1]))
    return found


def _project_person(builder: _Builder, event: ProjectionEvent, text: str) -> None:
    if event.temporal_status in NOT_CURRENT:
        return
    person_name = _person(event)
    for whose, relation, where in person_relations(text, person_name):
        person = builder.node("person", whose, event)
        if relation == "works_at":
            org = builder.node("organization", where, event, tag="employer")
            builder.fact(person, "employer", where, event)
            builder.edge(person, org, "works_at", event)
        else:
            place = builder.node("place", where, event, tag="residence")
            builder.fact(person, "residence", where, event)
            builder.edge(person, place, "lives_in", event)
    name = _first(_NAME_IS, text)
    if name:
        person = builder.node("person", person_name, event)
        if name.casefold() != person_name.casefold():
            builder.alias(person, name)
        builder.fact(person, "name", name, event)
    role = _role(text)
    if role:
        person = builder.node("person", person_name, event)
        builder.fact(person, "role", role, event)
    for pref in preferences(text):
        person = builder.node("person", person_name, event)
        builder.fact(person, f"preference:{pref.topic}", pref.value, event)


def _role(text: str) -> str | None:
    """ "I'm a data scientist" → "data scientist"; None for "I'm a bit tired" and the like."""
    match = _ROLE.search(text)
    if not match:
        return None
    role = " ".join(match.group(1).split())
    words = role.lower().split()
    if not words or words[0] in _NOT_A_ROLE or noun_phrase(role) is None:
        return None
    return role


def _service_named(text: str) -> str | None:
    """The service a slot choice is about ("deploy the billing service on Fly.io")."""
    for found in relations(_without_speaker(text)):
        if found.subject.type == "project":
            return found.subject.name
    return None


def _without_speaker(summary: str) -> str:
    """The statement without the "Speaker: " label offline extraction puts before it."""
    label = re.match(r"^[^\s:：]{1,40}(?:\s[^\s:：]{1,40})?[:：]\s*", summary)
    return summary[label.end() :] if label else summary


def _project_relations(builder: _Builder, event: ProjectionEvent) -> set[str]:
    """Statements of who owns, leads, maintains or joined what and what runs on or uses what
    (`memory.engine.offline_relations`), as nodes and an edge citing the event. Returns the
    keys of the objects it gave an edge."""
    covered: set[str] = set()
    if event.temporal_status in NOT_CURRENT:
        return covered
    speaker = _person(event)
    persons = {normalize_key(p) for p in event.participants} | {
        key.partition(":")[2] for key in builder.nodes if key.startswith("person:")
    }
    for found in relations(_without_speaker(event.summary)):
        subject, target = found.subject, found.object
        name = speaker if subject.name == ME else subject.name
        kind = subject.type
        if kind == AMBIGUOUS:  # "Ana uses Neovim" vs "Atlas uses Django": a known person?
            kind = "person" if normalize_key(name) in persons else "project"
        origin = builder.node(kind, name, event)
        tag = "employer" if found.relation == "works_at" else ""
        tag = "residence" if found.relation == "lives_in" else tag
        to = builder.node(target.type, target.name, event, tag=tag)
        slot = slot_of(target.name) if found.relation == "uses" else None
        builder.edge(origin, to, found.relation, event, slot=slot[0] if slot else "")
        covered.add(normalize_key(target.name))
    return covered


def project_events(events: Sequence[ProjectionEvent]) -> GraphProposal:
    """The offline graph proposal for one projection batch; deterministic, sources named.

    Events are applied in occurrence order; an event that no rule recognises contributes nothing
    (a plan such as "Finish the prototype next week" adds no fact).
    """
    builder = _Builder()
    ordered = sorted(events, key=lambda e: (e.valid_from, e.id))
    for event in ordered:
        text = f"{event.summary}\n{event.title}"
        _project_person(builder, event, event.summary)
        covered = _project_relations(builder, event)
        placed = _project_uses(builder, event, covered) | covered
        _project_slots(builder, event, text, placed)
    reason = (
        f"offline rules: {len(builder.facts)} facts and {len(builder.edges)} edges "
        f"from {len(events)} events"
    )
    return builder.proposal(reason)
