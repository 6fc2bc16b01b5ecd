"""A person said by a short name is the person already known by the full one.

Conversations name someone in full once ("the box office is run by Dev Malhotra", "高新店的店长是
周海涛") and afterwards by first name ("Dev's leaving us") or, in Chinese, by 老/小 and the
surname ("老周跳槽去了铁馆"). Projected alone, the later statement makes a second person
("Dev", "老周") and the edges hang on the wrong node. A short name is read as the full one when
exactly one person the graph (or the same batch) knows fits it: a full Latin name whose first
word it is, or a Han name of two or three characters with that surname. Two people who fit
(two Devs) leave it as said. The full node takes the short name as an alias.

The same for a project said with or without its "service" ("fraud scoring is Mei's baby now"
after "Tomás maintains the fraud-scoring service"): the graph's project of the other form.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Final

from memory.engine.prompts.graph import GraphProposal, NodeProposal

# "Dev", "Kwame": one Latin word. "老周", "小刘": 老/小 and a one-character surname.
_LATIN_FIRST: Final = re.compile(r"[A-Z][a-z][\w'-]*")
_HAN_SHORT: Final = re.compile(r"[老小]([\u4e00-\u9fff])")
_HAN_FULL: Final = re.compile(r"[\u4e00-\u9fff]{2,3}")

Known = tuple[str, str]  # (node key, name) of a person the graph holds


def short_form(name: str) -> str | None:
    """What a full name must start with for `name` to be said short of it, or None when
    `name` is not a short name: "Dev" → "Dev ", "老周" → "周"."""
    if _LATIN_FIRST.fullmatch(name):
        return f"{name} "
    if han := _HAN_SHORT.fullmatch(name):
        return han.group(1)
    return None


def fits(short: str, full: str) -> bool:
    """Whether a person called `full` may be said `short` ("Dev" of "Dev Malhotra", "老周"
    of "周海涛"; not "老周" of "周" nor of "小周", who is a short name too)."""
    start = short_form(short)
    if start is None or not full.startswith(start):
        return False
    if start.endswith(" "):
        return len(full) > len(start)
    return _HAN_FULL.fullmatch(full) is not None and _HAN_SHORT.fullmatch(full) is None


def with_full_names(
    proposal: GraphProposal,
    known: Callable[[Sequence[str]], list[Known]],
    speakers: AbstractSet[str] = frozenset(),
) -> GraphProposal:
    """`proposal` with each short-named person moved onto the one person it fits: the
    proposal's own full-named people first, else those `known(starts)` returns (the graph's
    people whose names begin with one of `starts`). The batch's speakers (node keys) stay who
    they are: a user called Sam is not the colleague Sam Carter. Edges that would join a person
    to themselves are dropped."""
    people = [n for n in proposal.nodes if n.type == "person"]
    short = [n for n in people if short_form(n.name) is not None and n.key not in speakers]
    if not short:
        return proposal
    batch = [(n.key, n.name) for n in people if short_form(n.name) is None]
    graph: list[Known] | None = None  # asked for once, and only if the batch names no one

    def fitting(node: NodeProposal, pool: list[Known]) -> dict[str, str]:
        return {key: name for key, name in pool if key != node.key and fits(node.name, name)}

    moved: dict[str, Known] = {}
    for node in short:
        found = fitting(node, batch)
        if not found:
            if graph is None:
                graph = known(sorted({start for n in short if (start := short_form(n.name))}))
            found = fitting(node, graph)
        if len(found) == 1:  # two people who fit: it stays as said
            moved[node.key] = next(iter(found.items()))
    if not moved:
        return proposal
    return _moved(proposal, moved)


_SERVICE_KEY: Final = re.compile(r"^project:(.+?)(?:service)?$")


def service_forms(key: str) -> tuple[str, ...]:
    """The other key a project's may have, with or without "service": "project:fraudscoring"
    ↔ "project:fraudscoringservice"; none for any other node."""
    found = _SERVICE_KEY.fullmatch(key)
    if found is None:
        return ()
    bare = f"project:{found.group(1)}"
    return tuple(k for k in (bare, f"{bare}service") if k != key)


def with_service_names(
    proposal: GraphProposal, known: Callable[[Sequence[str]], list[Known]]
) -> GraphProposal:
    """`proposal` with each project the graph knows in its other form (`service_forms`) moved
    onto that node; `known(keys)` returns the graph's nodes among `keys`."""
    others = {n.key: service_forms(n.key) for n in proposal.nodes if n.type == "project"}
    wanted = sorted({k for keys in others.values() for k in keys} - set(others))
    graph = dict(known(wanted)) if wanted else {}
    moved = {
        key: (other, graph[other])
        for key, keys in others.items()
        for other in keys
        if other in graph
    }
    return _moved(proposal, moved) if moved else proposal


def _moved(proposal: GraphProposal, moved: dict[str, Known]) -> GraphProposal:
    def key(old: str) -> str:
        return moved[old][0] if old in moved else old

    nodes: dict[str, NodeProposal] = {}
    for node in proposal.nodes:
        if node.key not in moved:
            nodes.setdefault(node.key, node)
    for node in proposal.nodes:
        if node.key not in moved:
            continue
        target_key, target_name = moved[node.key]
        target = nodes.get(target_key) or NodeProposal(
            key=target_key,
            name=target_name,
            type=node.type,
            source_event_ids=node.source_event_ids,
        )
        nodes[target_key] = target.model_copy(
            update={
                "aliases": list(dict.fromkeys([*target.aliases, node.name, *node.aliases]))[:20],
                "tags": list(dict.fromkeys([*target.tags, *node.tags]))[:12],
                "source_event_ids": sorted({*target.source_event_ids, *node.source_event_ids}),
            }
        )
    facts = [f.model_copy(update={"node_key": key(f.node_key)}) for f in proposal.facts]
    edges = [
        e.model_copy(update={"from_key": key(e.from_key), "to_key": key(e.to_key)})
        for e in proposal.edges
        if key(e.from_key) != key(e.to_key)
    ]
    return proposal.model_copy(
        update={"nodes": list(nodes.values()), "facts": facts, "edges": edges}
    )
