"""The graph-projection answer (SPEC §6): nodes, facts and edges proposed from a batch of events.

Shared by the model path and the offline rules. Every node, fact and edge names its source
events (≥ 1); items that fail validation are dropped one by one, and facts or edges that point at
a node the proposal does not define are dropped too. `restricted_to` applies SPEC §6.2: an item
whose sources are not all in the projected batch is rejected whole.

Single-valued edges (a decision recorded here, where SPEC §6.3 says "an edge relation is
single-valued per source node"): the exclusivity key of an edge is `edge_exclusivity_key`.
`works_at`, `lives_in` and where a service runs (`runs_on`, `deployed_on`, one key "runs_on":
"is deployed on Fly.io" then "now runs on Render" closes the Fly.io edge) are single-valued
per source node; `uses` is single-valued per source
node *and slot* (the slot travels in `metadata["slot"]`, e.g. "uses:package_manager"), so a
project can use npm and PostgreSQL at once while pnpm still displaces npm. Every other relation
(and a `uses` edge without a slot) is multi-valued: a person may participate in many projects.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Annotated, Final, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from memory.engine.prompts.extraction import clean_ids, clean_list

NODE_TYPES: Final = ("person", "project", "organization", "tool", "place")
SINGLE_VALUED_RELATIONS: Final = frozenset({"works_at", "lives_in", "runs_on", "deployed_on"})
# Relations that share one exclusivity key: where a service runs is one place, however said.
SHARED_KEYS: Final = {"deployed_on": "runs_on"}
SLOTTED_RELATIONS: Final = frozenset({"uses"})
DEFAULT_CONFIDENCE: Final = 0.8
KEY_MAX: Final = 120
NAME_MAX: Final = 160
RELATION_MAX: Final = 100
VALUE_MAX: Final = 1_200


def edge_exclusivity_key(relation: str, metadata: dict[str, str] | None = None) -> str | None:
    """The key under which an edge is single-valued per source node, or None (multi-valued).

    "works_at" → "works_at"; "uses" with metadata slot "package_manager" → "uses:package_manager";
    anything else → None. A new active edge closes the older active edge from the same source node
    with the same key and a different target.
    """
    if relation in SINGLE_VALUED_RELATIONS:
        return SHARED_KEYS.get(relation, relation)
    slot = (metadata or {}).get("slot")
    if relation in SLOTTED_RELATIONS and slot:
        return f"{relation}:{slot}"
    return None


def _text(value: object, limit: int) -> str:
    return " ".join(str(value).split())[:limit] if value is not None else ""


def _confidence(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return DEFAULT_CONFIDENCE
    try:
        number = float(value)
    except ValueError:
        return DEFAULT_CONFIDENCE
    return min(1.0, max(0.0, number)) if math.isfinite(number) else DEFAULT_CONFIDENCE


def _aware(value: datetime | None) -> datetime | None:
    if value is None or value.tzinfo is None or value.utcoffset() is None:
        return None
    return value.astimezone(UTC)


def snake(value: object, limit: int) -> str:
    """ "Works At" → "works_at": whitespace-separated words, lower-cased, joined by "_"."""
    return "_".join(_text(value, limit).lower().split())


def _text_field(limit: int) -> BeforeValidator:
    return BeforeValidator(lambda value: _text(value, limit))


# Field types shared by the proposals here and the model's draft (prompts/graph_draft.py): each
# cleans what a model may send (whitespace, lists, out-of-range numbers) before validating.
NodeKey = Annotated[str, _text_field(KEY_MAX), Field(min_length=1, max_length=KEY_MAX)]
NodeName = Annotated[str, _text_field(NAME_MAX), Field(min_length=1, max_length=NAME_MAX)]
FactValue = Annotated[str, _text_field(VALUE_MAX), Field(min_length=1, max_length=VALUE_MAX)]
Relation = Annotated[
    str,
    BeforeValidator(lambda value: snake(value, RELATION_MAX)),
    Field(min_length=1, max_length=RELATION_MAX),
]
Aliases = Annotated[list[str], BeforeValidator(lambda value: clean_list(value, 20, 240))]
Confidence = Annotated[float, BeforeValidator(_confidence)]
ValidFrom = Annotated[datetime | None, AfterValidator(_aware)]
SourceEventIds = Annotated[list[int], BeforeValidator(clean_ids), Field(min_length=1)]


class NodeProposal(BaseModel):
    """An entity; `key` is a batch-local handle that facts and edges refer to."""

    model_config = ConfigDict(extra="ignore")

    key: NodeKey
    name: NodeName
    type: str
    aliases: Aliases = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    source_event_ids: SourceEventIds

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: object) -> str:
        kind = str(value).strip().lower() if value is not None else ""
        if kind not in NODE_TYPES:
            raise ValueError(f"unknown node type {value!r}")
        return kind

    @field_validator("tags", mode="before")
    @classmethod
    def _tags(cls, value: object) -> list[str]:
        return clean_list(value, 12, 240)

    @model_validator(mode="after")
    def _aliases_differ_from_name(self) -> Self:
        self.aliases = [a for a in self.aliases if a.casefold() != self.name.casefold()]
        return self


class FactProposal(BaseModel):
    """A keyed attribute of a node (`package_manager: pnpm`); a new value closes the old one."""

    model_config = ConfigDict(extra="ignore")

    node_key: NodeKey
    key: NodeName
    value: FactValue
    valid_from: ValidFrom = None
    confidence: Confidence = DEFAULT_CONFIDENCE
    source_event_ids: SourceEventIds

    @field_validator("value", mode="before")
    @classmethod
    def _value(cls, value: object) -> object:
        # A list of values ("jazz", "blues") is one value; the field's own cleaning follows.
        return "、".join(str(v) for v in value[:40]) if isinstance(value, list) else value


class EdgeProposal(BaseModel):
    """A directed relation between two proposed nodes; see `edge_exclusivity_key`."""

    model_config = ConfigDict(extra="ignore")

    from_key: NodeKey
    to_key: NodeKey
    relation: Relation
    valid_from: ValidFrom = None
    confidence: Confidence = DEFAULT_CONFIDENCE
    source_event_ids: SourceEventIds
    metadata: dict[str, str] = Field(default_factory=dict)

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, value: object) -> dict[str, str]:
        if not isinstance(value, dict):
            return {}
        return {str(k)[:40]: _text(v, 240) for k, v in list(value.items())[:8] if v is not None}

    @property
    def exclusivity_key(self) -> str | None:
        return edge_exclusivity_key(self.relation, self.metadata)


def _valid_items[M: BaseModel](model: type[M], value: object) -> list[M]:
    if not isinstance(value, list):
        return []
    kept: list[M] = []
    for item in value:
        try:
            kept.append(model.model_validate(item))
        except ValidationError:
            continue
    return kept


class GraphProposal(BaseModel):
    """Everything one projection batch proposes; applied by the graph service (SPEC §6.2–6.3)."""

    model_config = ConfigDict(extra="ignore")

    reason: str = ""
    nodes: list[NodeProposal] = Field(default_factory=list)
    facts: list[FactProposal] = Field(default_factory=list)
    edges: list[EdgeProposal] = Field(default_factory=list)

    @field_validator("reason", mode="before")
    @classmethod
    def _reason(cls, value: object) -> str:
        return _text(value, 500)

    @field_validator("nodes", mode="before")
    @classmethod
    def _nodes(cls, value: object) -> list[NodeProposal]:
        return _valid_items(NodeProposal, value)

    @field_validator("facts", mode="before")
    @classmethod
    def _facts(cls, value: object) -> list[FactProposal]:
        return _valid_items(FactProposal, value)

    @field_validator("edges", mode="before")
    @classmethod
    def _edges(cls, value: object) -> list[EdgeProposal]:
        return _valid_items(EdgeProposal, value)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        merged: dict[str, NodeProposal] = {}
        for node in self.nodes:
            known = merged.get(node.key)
            if known is None:
                merged[node.key] = node
            elif known.type == node.type:
                merged[node.key] = known.model_copy(
                    update={
                        "aliases": clean_list([*known.aliases, *node.aliases], 20, 240),
                        "tags": clean_list([*known.tags, *node.tags], 12, 240),
                        "source_event_ids": clean_ids(
                            [*known.source_event_ids, *node.source_event_ids]
                        ),
                    }
                )
        self.nodes = list(merged.values())
        self.facts = [f for f in self.facts if f.node_key in merged]
        self.edges = [
            e
            for e in self.edges
            if e.from_key in merged and e.to_key in merged and e.from_key != e.to_key
        ]
        return self

    def restricted_to(self, event_ids: set[int] | frozenset[int]) -> GraphProposal:
        """Only the items whose sources all lie in `event_ids` (SPEC §6.2); the rest whole."""

        def inside(ids: list[int]) -> bool:
            return all(i in event_ids for i in ids)

        return GraphProposal.model_validate(
            {
                "reason": self.reason,
                "nodes": [n for n in self.nodes if inside(n.source_event_ids)],
                "facts": [f for f in self.facts if inside(f.source_event_ids)],
                "edges": [e for e in self.edges if inside(e.source_event_ids)],
            }
        )
