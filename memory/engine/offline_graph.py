"""Rule-based graph projection for the offline processor (SPEC §6, §12.1): events → proposal.

Rules, each naming its source event:
- a current decision / change / migration choosing a slot value ("Use npm", "switch to pnpm")
  → node `project` (named when the sentence names one: "for the Atlas project" → "Atlas"),
  fact `<slot> = <tool>`, tool node, and edge project —uses→ tool with metadata slot;
- "I work at X" / "X公司工作" → person + organization, edge `works_at`, fact `employer`;
- "I live in X" / "moved to X" / "我住在X" → person + place, edge `lives_in`, fact `residence`;
- "my name is X" → alias and fact `name`; "I am a X" / "I work as a X" → fact `role`;
- preferences ("I prefer / like / love / hate X", "我喜欢X") → person fact `preference:<topic>`
  (the topic is the slot when X is a slotted tool, else X's first words).
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

from memory.engine.event_types import normalize_key
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
    "project_events",
]

OFFLINE_CONFIDENCE: Final = 0.7
DEFAULT_PROJECT: Final = "project"
DEFAULT_PERSON: Final = "user"
SLOT_EVENT_TYPES: Final = frozenset({"decision", "change", "migration"})
NOT_CURRENT: Final = frozenset({"planned", "cancelled"})
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


# A capitalised name of up to five words ("Acme Corp", "New York", "Bank of America").
_NAME: Final = r"([A-Z0-9][\w&.'-]*(?:\s+(?:[A-Z0-9][\w&.'-]*|of|and|&|de|la)){0,4})"
_HAN_NAME: Final = r"([^\s，。,.!！？?、]{1,20}?)"
_WORKS_AT: Final = (
    re.compile(r"\b(?i:i|we|i'm|i\s+am|we're|we\s+are)\s+(?i:currently\s+|now\s+)?"
               rf"(?i:work|working)\s+(?i:at|for)\s+{_NAME}"),
    re.compile(rf"\b(?i:works|is\s+working)\s+(?i:at|for)\s+{_NAME}"),
    re.compile(rf"我(?:现在|目前)?在{_HAN_NAME}(?:工作|上班)"),
)  # fmt: skip
_LIVES_IN: Final = (
    re.compile(r"\b(?i:i|we|i'm|i\s+am|we're|we\s+are)\s+(?i:currently\s+|now\s+)?"
               rf"(?i:live|living)\s+(?i:in)\s+{_NAME}"),
    re.compile(rf"\b(?i:lives)\s+(?i:in)\s+{_NAME}"),
    re.compile(rf"\b(?i:i|we)\s+(?i:just\s+|recently\s+)?(?i:moved|relocated)\s+(?i:to)\s+{_NAME}"),
    re.compile(rf"我(?:现在|目前)?住在{_HAN_NAME}(?:[，。,.!！]|$)"),
    re.compile(rf"我(?:们)?搬到了?{_HAN_NAME}(?:[，。,.!！]|$)"),
)  # fmt: skip
_NAME_IS: Final = (
    re.compile(rf"\b(?i:my\s+name\s+is|call\s+me)\s+{_NAME}"),
    re.compile(rf"我叫{_HAN_NAME}(?:[，。,.!！]|$)"),
)
_ROLE: Final = re.compile(
    r"\b(?:i'm|i\s+am|i\s+work\s+as)\s+(?:an?)\s+(?!bit\b|little\b|lot\b|fan\b|big\s+fan\b)"
    r"([\w\s-]{2,60}?)(?=\s+(?:at|in|for|and|with|from|who|since)\b|[,.;!]|$)",
    re.IGNORECASE,
)
_PREFERENCE: Final = re.compile(
    r"\bI\s+(?:really\s+|strongly\s+|much\s+|totally\s+)?(prefer|like|love|enjoy|hate|dislike|adore"
    r"|can't\s+stand|don't\s+like|do\s+not\s+like|always|never|usually)\s+([^.!?;]{2,80})",
    re.IGNORECASE,
)
_FAVOURITE: Final = re.compile(
    r"\bmy\s+favou?rite\s+([\w\s-]{2,40}?)\s+is\s+([^.!?;,]{1,60})", re.I
)
_PREFERENCE_ZH: Final = re.compile(
    r"我(?:更|最|很|非常|特别|比较|真的|也)?(喜欢|讨厌|偏好|热爱|爱|不喜欢|受不了)([^，。,.!！？?]{1,30})"
)
_TOPIC_END: Final = re.compile(
    r"\s+(?:over|than|rather\s+than|instead\s+of|because|but|when|and|so|to\s+\w+\s+than)\b.*$|,.*$",
    re.IGNORECASE,
)
_VALUE_OF_VERB: Final = {
    "prefer": "prefers", "like": "likes", "love": "loves", "enjoy": "enjoys", "hate": "dislikes",
    "dislike": "dislikes", "adore": "loves", "can't stand": "dislikes", "don't like": "dislikes",
    "do not like": "dislikes", "always": "always", "never": "never", "usually": "usually",
    "喜欢": "喜欢", "偏好": "偏好", "热爱": "喜欢", "爱": "喜欢", "讨厌": "不喜欢",
    "不喜欢": "不喜欢", "受不了": "不喜欢",
}  # fmt: skip


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
            name = match.group(1).strip(" .,'\"")
            if name:
                return name
    return None


def _project_slots(builder: _Builder, event: ProjectionEvent, text: str) -> None:
    if event.event_type not in SLOT_EVENT_TYPES or event.temporal_status in NOT_CURRENT:
        return
    choices = slot_choices(event.summary) or slot_choices(event.title)
    if not choices:
        return
    project = builder.node("project", project_name(text) or DEFAULT_PROJECT, event, tag="project")
    for choice in choices:
        tool = builder.node("tool", choice.value, event, tag=choice.slot)
        builder.fact(project, choice.slot, choice.value, event)
        builder.edge(project, tool, "uses", event, slot=choice.slot)


def _project_person(builder: _Builder, event: ProjectionEvent, text: str) -> None:
    if event.temporal_status in NOT_CURRENT:
        return
    person_name = _person(event)
    employer = _first(_WORKS_AT, text)
    if employer:
        person = builder.node("person", person_name, event)
        org = builder.node("organization", employer, event, tag="employer")
        builder.fact(person, "employer", employer, event)
        builder.edge(person, org, "works_at", event)
    home = _first(_LIVES_IN, text)
    if home and slot_of(home) is None:
        person = builder.node("person", person_name, event)
        place = builder.node("place", home, event, tag="residence")
        builder.fact(person, "residence", home, event)
        builder.edge(person, place, "lives_in", event)
    name = _first(_NAME_IS, text)
    if name:
        person = builder.node("person", person_name, event)
        if name.casefold() != person_name.casefold():
            builder.alias(person, name)
        builder.fact(person, "name", name, event)
    role = _ROLE.search(text)
    if role:
        person = builder.node("person", person_name, event)
        builder.fact(person, "role", " ".join(role.group(1).split()), event)
    for key, value in _preferences(text):
        person = builder.node("person", person_name, event)
        builder.fact(person, key, value, event)


def _preferences(text: str) -> list[tuple[str, str]]:
    """(fact key, value) pairs: `preference:<topic>` = how the person feels about it."""
    found: list[tuple[str, str]] = []
    for match in _PREFERENCE.finditer(text):
        verb = " ".join(match.group(1).lower().split())
        obj = " ".join(match.group(2).split())
        found.append(_preference_fact(_VALUE_OF_VERB[verb], obj))
    for match in _FAVOURITE.finditer(text):
        topic = " ".join(match.group(1).lower().split())
        found.append((f"preference:{topic}", f"favourite: {match.group(2).strip()}"))
    for match in _PREFERENCE_ZH.finditer(text):
        found.append(_preference_fact(_VALUE_OF_VERB[match.group(1)], match.group(2).strip()))
    return list(dict.fromkeys(found))


def _preference_fact(feeling: str, obj: str) -> tuple[str, str]:
    choices = slot_choices(obj)
    if choices:
        return f"preference:{choices[0].slot}", f"{feeling} {choices[0].value}"
    topic = _TOPIC_END.sub("", obj).strip()
    words = topic.split()
    topic = " ".join(words[:4]) if words else obj[:12]
    joiner = "" if re.match(r"[\u4e00-\u9fff]", obj) else " "
    return f"preference:{topic.lower()}", f"{feeling}{joiner}{obj}"


def project_events(events: Sequence[ProjectionEvent]) -> GraphProposal:
    """The offline graph proposal for one projection batch; deterministic, sources named.

    Events are applied in occurrence order; an event that no rule recognises contributes nothing
    (a plan such as "Finish the prototype next week" adds no fact).
    """
    builder = _Builder()
    ordered = sorted(events, key=lambda e: (e.valid_from, e.id))
    for event in ordered:
        text = f"{event.summary}\n{event.title}"
        _project_slots(builder, event, text)
        _project_person(builder, event, event.summary)
    reason = (
        f"offline rules: {len(builder.facts)} facts and {len(builder.edges)} edges "
        f"from {len(events)} events"
    )
    return builder.proposal(reason)
