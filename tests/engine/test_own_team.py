"""Whose team "the team" is: a member_of edge to a bare team goes to the speaker's team, named in
the batch or known to the namespace, or is dropped (memory.engine.own_team)."""

from __future__ import annotations

from memory.engine.offline_graph import project_events
from memory.engine.own_team import Team, own_team, person_key
from memory.engine.prompts.graph import GraphProposal
from tests.engine.test_offline_graph import projected


def _edges(proposal: GraphProposal) -> set[tuple[str, str, str]]:
    return {(e.from_key, e.relation, e.to_key) for e in proposal.edges}


def _speakers(proposal: GraphProposal, name: str) -> dict[int, str]:
    ids = {i for e in proposal.edges for i in e.source_event_ids}
    return {i: person_key(name) for i in ids}


def test_the_team_named_in_the_batch() -> None:
    proposal = project_events(
        projected("I run the fleet software team.", "Bruno joined the team.", speaker="Ines")
    )
    assert ("person:bruno", "member_of", "organization:team") in _edges(proposal)

    resolved = own_team(proposal, _speakers(proposal, "Ines"), lambda _: None)

    assert _edges(resolved) == {
        ("person:ines", "leads", "organization:fleetsoftwareteam"),
        ("person:bruno", "member_of", "organization:fleetsoftwareteam"),
    }
    assert "organization:team" not in {n.key for n in resolved.nodes}


def test_the_team_the_namespace_knows_and_no_team_at_all() -> None:
    proposal = project_events(projected("小刘上周加入了我们组。", speaker="李娜"))
    known = Team("organization:支付组", "支付组")

    resolved = own_team(
        proposal,
        _speakers(proposal, "李娜"),
        lambda person: known if person == "person:李娜" else None,
    )
    assert _edges(resolved) == {("person:小刘", "member_of", "organization:支付组")}
    node = next(n for n in resolved.nodes if n.key == "organization:支付组")
    assert (node.name, node.source_event_ids) == ("支付组", resolved.edges[0].source_event_ids)

    # Nobody says which team: no edge to a node called 我们组.
    dropped = own_team(proposal, _speakers(proposal, "李娜"), lambda _: None)
    assert _edges(dropped) == set()
    assert all(n.key != "organization:我们组" for n in dropped.nodes)


def test_named_teams_pass_untouched() -> None:
    proposal = project_events(projected("Tom joined the platform team.", speaker="Ines"))
    assert own_team(proposal, {}, lambda _: None) is proposal
