"""The model's graph draft (SPEC §6, §12.1): the knowledge-graph items one block's events state,
asked for in the same call that extracts the events, so projection costs no call of its own.

The events do not exist yet when the model answers, so every item cites them by their 1-based
position in the answer's `events` list. `renumbered` keeps those positions pointing at the same
events when invalid events are dropped from the answer; `GraphDraft.to_proposal` turns positions
into the stored events' ids once they exist. An item citing a position that names no stored
event is rejected whole (SPEC §6.2), as is a fact or edge naming a node the draft does not
define. Node keys take the offline rules' form (`<type>:<normalised name>`), so the model's
nodes and the rules' nodes meet on the same rows across batches.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from memory.engine.event_types import normalize_key
from memory.engine.prompts.extraction import clean_ids
from memory.engine.prompts.graph import (
    NAME_MAX,
    Aliases,
    EdgeProposal,
    FactProposal,
    FactValue,
    GraphProposal,
    NodeName,
    NodeProposal,
    Relation,
    snake,
)

MODEL_CONFIDENCE: Final = 0.8
MAX_ITEMS: Final = 40  # per list; a block rarely states more than a handful
# Where a citation of a dropped event is moved: past any answer's end, so its item is rejected.
DROPPED: Final = 1_000_000

GRAPH_RULES: Final = """\
Also return `graph`: the lasting knowledge the events state about entities, for a knowledge graph.
- nodes: the people, projects, organizations, tools and places the events are about:
  {name, type (person | project | organization | tool | place), aliases, events}. Use a
  person's own name (the speaker's name when they speak of themselves), never "I" or "he".
- facts: a node's lasting attributes: {node (a node's name), key, value, events}. Keys are short
  and lower-case: employer, residence, role, name, package_manager, database, or
  preference:<thing> (value "loves <thing>", "dislikes <thing>"). The value names a real thing:
  never a pronoun, a function word or a clause fragment.
- edges: {from, to (node names), relation, slot, events}; relation such as works_at, lives_in,
  uses, participates_in, depends_on, member_of, knows; slot only for uses (what the tool is
  for, e.g. package_manager).
- events: the 1-based positions, in your `events` list, of the events that state the item;
  every item needs at least one.
- Plans and cancelled things change no facts. Leave the lists empty when nothing lasting about
  an entity was said."""


def _positions(value: object) -> list[int]:
    return [p for p in clean_ids(value, limit=24) if p >= 1]


Positions = Annotated[
    list[int],
    BeforeValidator(_positions),
    Field(min_length=1, description="1-based positions in `events`"),
]


class DraftNode(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: NodeName
    type: Literal["person", "project", "organization", "tool", "place"]
    aliases: Aliases = Field(default_factory=list)
    events: Positions

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: object) -> str:
        return str(value).strip().lower() if value is not None else ""


class DraftFact(BaseModel):
    model_config = ConfigDict(extra="ignore")

    node: NodeName
    # "Package Manager" and "package_manager" are one key; "preference:jazz" keeps its colon.
    key: Annotated[
        str,
        BeforeValidator(lambda value: snake(value, NAME_MAX)),
        Field(min_length=1, max_length=NAME_MAX),
    ]
    value: FactValue
    events: Positions


class DraftEdge(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    from_: NodeName = Field(alias="from")
    to: NodeName
    relation: Relation
    slot: str | None = None
    events: Positions

    @field_validator("slot", mode="before")
    @classmethod
    def _slot(cls, value: object) -> str | None:
        return snake(value, 60) or None


def _valid_items[M: BaseModel](model: type[M], value: object) -> list[M]:
    """Each item validated alone: one bad item must not discard the good ones."""
    kept: list[M] = []
    for item in value if isinstance(value, list) else []:
        try:
            kept.append(model.model_validate(item))
        except ValidationError:
            continue
    return kept[:MAX_ITEMS]


class GraphDraft(BaseModel):
    """What the model proposes for the graph, citing events by position in its answer."""

    model_config = ConfigDict(extra="ignore")

    nodes: list[DraftNode] = Field(default_factory=list)
    facts: list[DraftFact] = Field(default_factory=list)
    edges: list[DraftEdge] = Field(default_factory=list)

    @field_validator("nodes", mode="before")
    @classmethod
    def _nodes(cls, value: object) -> list[DraftNode]:
        return _valid_items(DraftNode, value)

    @field_validator("facts", mode="before")
    @classmethod
    def _facts(cls, value: object) -> list[DraftFact]:
        return _valid_items(DraftFact, value)

    @field_validator("edges", mode="before")
    @classmethod
    def _edges(cls, value: object) -> list[DraftEdge]:
        return _valid_items(DraftEdge, value)

    def to_proposal(self, events: Sequence[tuple[int, datetime]]) -> GraphProposal:
        """The draft as a proposal over stored events, `events[i]` being (id, valid from) of the
        answer's event at position i + 1. Items citing a position past the end are dropped."""

        def cited(positions: list[int]) -> list[int] | None:
            if any(p > len(events) for p in positions):
                return None
            return list(dict.fromkeys(events[p - 1][0] for p in positions))

        def since(positions: list[int]) -> datetime:
            return max(events[p - 1][1] for p in positions)

        key_of: dict[str, str] = {}
        nodes: list[NodeProposal] = []
        for node in self.nodes:
            sources = cited(node.events)
            if sources is None:
                continue
            key = f"{node.type}:{normalize_key(node.name)}"
            for name in (node.name, *node.aliases):
                key_of.setdefault(name.casefold(), key)
            nodes.append(
                NodeProposal(
                    key=key,
                    name=node.name,
                    type=node.type,
                    aliases=node.aliases,
                    source_event_ids=sources,
                )
            )
        facts: list[FactProposal] = []
        for fact in self.facts:
            sources, node_key = cited(fact.events), key_of.get(fact.node.casefold())
            if sources is None or node_key is None:
                continue
            facts.append(
                FactProposal(
                    node_key=node_key,
                    key=fact.key,
                    value=fact.value,
                    valid_from=since(fact.events),
                    confidence=MODEL_CONFIDENCE,
                    source_event_ids=sources,
                )
            )
        edges: list[EdgeProposal] = []
        for edge in self.edges:
            sources = cited(edge.events)
            ends = key_of.get(edge.from_.casefold()), key_of.get(edge.to.casefold())
            if sources is None or ends[0] is None or ends[1] is None:
                continue
            edges.append(
                EdgeProposal(
                    from_key=ends[0],
                    to_key=ends[1],
                    relation=edge.relation,
                    valid_from=since(edge.events),
                    confidence=MODEL_CONFIDENCE,
                    source_event_ids=sources,
                    metadata={"slot": edge.slot} if edge.slot else {},
                )
            )
        return GraphProposal(
            reason=f"model draft: {len(facts)} facts and {len(edges)} edges",
            nodes=nodes,
            facts=facts,
            edges=edges,
        )


def renumbered(data: Any, is_valid_event: Callable[[object], bool], limit: int) -> Any:
    """The raw answer with the graph's event positions counted among the events that survive
    validation (the first `limit` valid ones); a citation of a dropped event becomes `DROPPED`,
    which no event has, so the item citing it is rejected whole. Anything not shaped as
    expected is returned unchanged for the models' own validation to judge."""
    if not isinstance(data, dict):
        return data
    raw_events, graph = data.get("events"), data.get("graph")
    if not isinstance(raw_events, list) or not isinstance(graph, dict):
        return data
    new_position: dict[int, int] = {}
    for index, event in enumerate(raw_events, start=1):
        if len(new_position) < limit and is_valid_event(event):
            new_position[index] = len(new_position) + 1

    def moved(items: object) -> object:
        if not isinstance(items, list):
            return items
        out: list[object] = []
        for item in items:
            if isinstance(item, dict) and "events" in item:
                cites = [new_position.get(p, DROPPED) for p in _positions(item["events"])]
                item = {**item, "events": cites}
            out.append(item)
        return out

    return {**data, "graph": {k: moved(v) for k, v in graph.items()}}
