"""Whose team "the team" is (issue 29: a real graph from ordinary talk). Pure rules.

"Bruno joined the team", "小刘上周加入了我们组": the team is the speaker's own, named when the
speaker said which one ("I run the fleet software team"). A `member_of` edge of a projection
batch whose target is such a bare team goes to the speaker's team: one the same batch says the
speaker leads or belongs to, else the one the namespace's graph already holds (`known`, asked by
the service), else the edge is dropped: a node called "team" would name nothing. The bare team
node goes with its last edge. Applies to the offline rules' proposals and a model's drafts alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, NamedTuple

from memory.engine.event_types import normalize_key
from memory.engine.prompts.graph import EdgeProposal, GraphProposal, NodeProposal

# Bare teams, as node keys name them ("the team", "our team", 我们组, 我们团队).
BARE_TEAMS: Final = frozenset(
    f"organization:{normalize_key(name)}"
    for name in ("team", "group", "squad", "组", "团队", "我们组", "我们团队", "本组", "我们部门")
)
# What says a person's team is theirs (here and in the namespace's graph, `services.graph`).
TEAM_RELATIONS: Final = frozenset({"member_of", "leads"})


def person_key(name: str) -> str:
    return f"person:{normalize_key(name)}"


class Team(NamedTuple):
    """A team node as the graph holds it."""

    key: str
    name: str
    type: str = "organization"


def teams_said(proposal: GraphProposal) -> dict[str, Team]:
    """person key → the named team `proposal` says that person leads or belongs to."""
    nodes = {n.key: n for n in proposal.nodes}
    return {
        e.from_key: Team(e.to_key, nodes[e.to_key].name)
        for e in proposal.edges
        if e.relation in TEAM_RELATIONS and e.to_key in nodes and e.to_key not in BARE_TEAMS
        and nodes[e.to_key].type == "organization"
    }  # fmt: skip


def own_team(
    proposal: GraphProposal,
    speakers: Mapping[int, str],
    known: Callable[[str], Team | None],
) -> GraphProposal:
    """`proposal` with each `member_of` edge to a bare team sent to the speaker's team.

    `speakers`: event id → the person key of who said it; `known(person_key)`: that person's
    team in the namespace's graph, or None."""
    if not any(e.to_key in BARE_TEAMS for e in proposal.edges):
        return proposal
    nodes = {n.key: n for n in proposal.nodes}
    said = teams_said(proposal)
    edges: list[EdgeProposal] = []
    for edge in proposal.edges:
        if edge.to_key not in BARE_TEAMS:
            edges.append(edge)
            continue
        speaker = speakers.get(edge.source_event_ids[0], "")
        team = said.get(speaker) or (known(speaker) if speaker else None)
        if team is None or edge.relation != "member_of":
            continue  # no team to name: better no edge than one to "team"
        if team.key not in nodes:
            nodes[team.key] = NodeProposal(
                key=team.key, name=team.name, type=team.type, source_event_ids=edge.source_event_ids
            )
        edges.append(edge.model_copy(update={"to_key": team.key}))
    cited = {k for e in edges for k in (e.from_key, e.to_key)} | {
        f.node_key for f in proposal.facts
    }
    kept = [n for k, n in nodes.items() if k not in BARE_TEAMS or k in cited]
    return GraphProposal(reason=proposal.reason, nodes=kept, facts=proposal.facts, edges=edges)
