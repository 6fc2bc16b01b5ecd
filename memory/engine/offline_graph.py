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
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Final

from memory.engine.change_terms import HAN, VERSION
from memory.engine.changes import HOSTING, USING, parse_change, said_of_others, stated_uses
from memory.engine.event_types import NOT_CURRENT, SLOT_EVENT_TYPES, normalize_key
from memory.engine.hant import restored, simplified
from memory.engine.offline_entities import (
    AMBIGUOUS,
    ME,
    PLATFORMS,
    ZH_ROLES,
    calendar_word,
    function_noun,
    han_tool,
    known_tool,
)
from memory.engine.offline_entities_en import LOWER_LEAD, service_named
from memory.engine.offline_phrases import noun_phrase, preferences
from memory.engine.offline_relations import relations
from memory.engine.person_facts import HAN_NAME, NAME, first_name, person_relations
from memory.engine.prompts.graph import (
    SINGLE_VALUED_RELATIONS,
    SLOTTED_RELATIONS,
    EdgeProposal,
    FactProposal,
    GraphProposal,
    NodeProposal,
    edge_exclusivity_key,
)
from memory.engine.short_names import service_forms
from memory.engine.slots import project_name, slot_choices, slot_of

__all__ = [
    "SINGLE_VALUED_RELATIONS",
    "SLOTTED_RELATIONS",
    "ProjectionEvent",
    "edge_exclusivity_key",
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


_NAME_IS: Final = (
    re.compile(rf"\b(?i:my\s+name\s+is|call\s+me)\s+{NAME}"),
    re.compile(rf"我叫{HAN_NAME}(?:[，。,.!！]|$)"),
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
        if key not in self.nodes:
            # "fraud scoring" after "the fraud-scoring service" (or the other way round): the
            # same project.
            key = next((k for k in service_forms(key) if k in self.nodes), key)
        node = self.nodes.setdefault(key, _Node(key, name, kind))
        if name.casefold() != node.name.casefold() and name not in node.aliases:
            node.aliases.append(name)
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


# What precedes a company someone works at, joined or left.
_EMPLOYER_BEFORE: Final = re.compile(
    r"\b(?:left|quit|joined|joins|joining|works?\s+(?:at|for)|working\s+(?:at|for)|worked\s+"
    r"(?:at|for)|employed\s+(?:at|by)|hired\s+(?:at|by)|interview(?:s|ed|ing)?\s+(?:at|with)"
    r"|offer\s+from|job\s+at|started\s+at)\s+(?:the\s+)?$",
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
    # "Route 53"; "ezyVet": a capital inside
    rf"(?:[A-Z]|{LOWER_LEAD})[\w.+#-]*(?:\s*&\s*[A-Z][\w.+#-]*|\s+[A-Z][\w.+#-]*){{0,2}}(?:\s+\d+)?"
)
# A supplier bought from: "锅底料是从成都川味源工厂直接进口的".
_STAFF_ZH: Final = re.compile(rf"^[\u4e00-\u9fff]{{0,4}}(?:{ZH_ROLES})们?$")
# "板材主要从兔宝宝进" (not "从门口进来").
_BOUGHT_FROM_ZH: Final = re.compile(
    r"从.{2,16}?(?:进口|进货|拿货|采购|订货|(?:进|拿|买)(?![来去入行到步度展门]))"
)
_CLOUD_PRODUCT: Final = re.compile(r"(?:阿里云|腾讯云|华为云)[A-Z][A-Za-z0-9]{1,10}")
_MIXED_NAME: Final = re.compile(r"[\u4e00-\u9fff]{2,4}[A-Z][A-Za-z0-9]{1,10}")
# Where something runs is said with these verbs; "move/migrate X to B" alone may be a database.
_HOSTING_VERB: Final = re.compile(
    r"\b(?:deploy\w*|host\w*|runs?\s+on|running\s+on)\b|部署|托管|跑在|运行在", re.IGNORECASE
)
# A subject that names something other than a service (a technology, a person): "Django".
_NAMED_THING: Final = re.compile(r"^[A-Z]")
# A thing named by a common noun ("geocoder", "tile server"): a service when it runs on a platform.
_COMMON_THING: Final = re.compile(r"[a-z][\w-]*(?:\s+[a-z][\w-]*)?")
_HAN_THING: Final = re.compile(r"[\u4e00-\u9fff]{2,4}")
# "我们的服务都跑在阿里云上", "our services all run on AWS": everything the team runs, no one
# service of it (the namespace's project).
_WHOLE_STACK: Final = frozenset(
    """服务 系统 应用 产品 项目 代码 services service systems system apps app everything stuff
    code infra infrastructure""".split()  # noqa: SIM905
)
# "For Nimbus, instead of Stripe we'll use Adyen": the project named before the clause.
_FOR_PROJECT: Final = re.compile(r"^(?:[Ff]or|[Ii]n)\s+([A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)?)\s*,")


_POSSESSION: Final = re.compile(r"\b(?:drive|drives|drove|ride|rides|rode|sold|bought)\b", re.I)


def _switched_from_han_tool(text: str, value: str) -> bool:
    """ "ERP换了，春节后从聚水潭切到了旺店通": a switch from one Han name to another names tools.
    Asked last, for a Han value no service or function vouches for."""
    change = parse_change(text)
    return (
        change is not None
        and bool(change.old)
        and han_tool(change.old or "")
        and (change.new == value)
    )


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
                # "库存管理用富勒WMS": a maker's name and a product's, for a function
                or (_MIXED_NAME.fullmatch(use.value) and function_noun(use.subject or ""))
                or (
                    han_tool(use.value)
                    and (
                        service_named(use.subject or "") is not None
                        or function_noun(use.subject or "")  # "支付走的是微信支付"
                        # "门店设计师都用酷家乐": the team's staff at their work
                        or _STAFF_ZH.search(use.subject or "") is not None
                        or _switched_from_han_tool(text, use.value)
                        or _BOUGHT_FROM_ZH.search(text) is not None
                    )
                )
            )
        ) or (
            # "Customer support runs on Intercom", "The iOS build runs on Bitrise": a named
            # platform under a service or a function of the team's (not "runs on Mondays").
            use.role == HOSTING
            and _TOOL_NAME.fullmatch(use.value) is not None
            and not calendar_word(use.value)
            and bool(use.subject)
            and (
                function_noun(use.subject or "")
                or (  # a service by its common noun, not a name ("Tom moved to Lisbon")
                    service_named(use.subject or "") is not None
                    and not _NAMED_THING.match(use.subject or "")
                )
            )
        )
        value = VERSION.sub("", use.value)  # "Postgres 15" is PostgreSQL
        tool = known_tool(value) or (use.value if unknown else None)
        if tool is None or normalize_key(tool) in covered:
            continue
        service = service_named(use.subject) if use.subject else None
        generic = bool(use.subject) and (
            function_noun(use.subject or "")
            or _BOUGHT_FROM_ZH.search(text) is not None
            or _STAFF_ZH.search(use.subject or "") is not None
        )
        if service is None and use.subject and _NAMED_THING.match(use.subject) and not generic:
            continue  # "Django uses Python": a fact about technologies, not about this team
        on_platform = use.role == HOSTING and tool.split()[0].casefold() in PLATFORMS
        if (
            service is None
            and use.subject
            and HAN.search(use.subject)
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
            and use.subject.casefold() not in _WHOLE_STACK
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
    name = first_name(_NAME_IS, text)
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
        # "upgraded Frostbound to Unity 6": a known tool at a version is that tool.
        bare = known_tool(VERSION.sub("", target.name)) if target.type == "tool" else None
        to = builder.node(target.type, bare or target.name, event, tag=tag)
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
    # Traditional Chinese is read in Simplified form and named as written (`engine.hant`).
    written = [(simplified(t), t) for e in events for t in (e.summary, e.title)]
    read = [replace(e, summary=simplified(e.summary), title=simplified(e.title)) for e in events]
    ordered = sorted(read, key=lambda e: (e.valid_from, e.id))
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
    proposal = builder.proposal(reason)
    if all(r == w for r, w in written):
        return proposal
    for node in proposal.nodes:
        node.name = restored(node.name, written)
        node.aliases = [restored(a, written) for a in node.aliases]
    for fact in proposal.facts:
        if isinstance(fact.value, str):
            fact.value = restored(fact.value, written)
    return proposal
