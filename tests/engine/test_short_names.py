"""memory.engine.short_names: a person said by a short name is the one person known by the full
name it fits; two who fit, or none, leave it as said."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from memory.engine.own_team import person_key
from memory.engine.prompts.graph import EdgeProposal, GraphProposal, NodeProposal
from memory.engine.short_names import fits, short_form, with_full_names


@pytest.mark.parametrize(
    ("short", "full", "expected"),
    [
        ("Dev", "Dev Malhotra", True),
        ("Dev", "Devika Rao", False),  # a first word, not a prefix
        ("Dev", "Dev", False),
        ("老周", "周海涛", True),
        ("小刘", "刘思琪", True),
        ("老周", "小周", False),  # another short name
        ("老周", "周", False),
        ("老周", "周海涛涛涛", False),  # not a person's name
        ("Dev Malhotra", "Dev Malhotra Jr", False),  # a full name is no short one
        ("the", "the team", False),
    ],
)
def test_what_fits(short: str, full: str, expected: bool) -> None:
    assert fits(short, full) is expected


def test_short_forms() -> None:
    assert short_form("Kwame") == "Kwame "
    assert short_form("老黄") == "黄"
    assert short_form("Kwame Asante") is None
    assert short_form("黄德胜") is None


def _proposal(*names: str) -> GraphProposal:
    nodes = [
        NodeProposal(key=person_key(n), name=n, type="person", source_event_ids=[1]) for n in names
    ]
    nodes.append(
        NodeProposal(key="organization:gensler", name="Gensler", type="organization",
                     source_event_ids=[2])
    )  # fmt: skip
    edges = [
        EdgeProposal(from_key=person_key(names[0]), to_key="organization:gensler",
                     relation="works_at", source_event_ids=[2])
    ]  # fmt: skip
    return GraphProposal(nodes=nodes, edges=edges)


class _Graph:
    """The graph's people, as `with_full_names` asks for them; remembers what it was asked."""

    def __init__(self, *people: tuple[str, str]) -> None:
        self.people = people
        self.asked: list[Sequence[str]] = []

    def __call__(self, starts: Sequence[str]) -> list[tuple[str, str]]:
        self.asked.append(starts)
        return [p for p in self.people if any(p[1].startswith(s) for s in starts)]


def test_a_first_name_moves_onto_the_one_person_the_graph_knows() -> None:
    known = _Graph(("person:devmalhotra", "Dev Malhotra"), ("person:ana", "Ana"))
    moved = with_full_names(_proposal("Dev"), known)

    assert known.asked == [["Dev "]]
    assert [(n.key, n.name, n.aliases) for n in moved.nodes if n.type == "person"] == [
        ("person:devmalhotra", "Dev Malhotra", ["Dev"])
    ]
    assert [(e.from_key, e.relation, e.to_key) for e in moved.edges] == [
        ("person:devmalhotra", "works_at", "organization:gensler")
    ]


def test_the_batch_own_full_name_comes_first_and_two_who_fit_leave_it() -> None:
    # Named in full in the same batch: the graph's other Devs are not asked for.
    other = _Graph(("person:devpatel", "Dev Patel"))
    both = with_full_names(_proposal("Dev", "Dev Malhotra"), other)
    assert {n.key for n in both.nodes if n.type == "person"} == {"person:devmalhotra"}
    assert other.asked == []
    # Two Devs known, none in the batch: which one is not said.
    two = _Graph(("person:devmalhotra", "Dev Malhotra"), ("person:devpatel", "Dev Patel"))
    kept = with_full_names(_proposal("Dev"), two)
    assert kept == _proposal("Dev")
    # Nobody fits: as said.
    assert with_full_names(_proposal("Dev"), _Graph()) == _proposal("Dev")


def test_an_edge_that_would_join_a_person_to_themselves_is_dropped() -> None:
    proposal = GraphProposal(
        nodes=[
            NodeProposal(key="person:dev", name="Dev", type="person", source_event_ids=[1]),
            NodeProposal(key="person:devmalhotra", name="Dev Malhotra", type="person",
                         source_event_ids=[1]),
        ],
        edges=[EdgeProposal(from_key="person:dev", to_key="person:devmalhotra",
                            relation="member_of", source_event_ids=[1])],
    )  # fmt: skip
    moved = with_full_names(proposal, _Graph())
    assert moved.edges == []
    assert [n.aliases for n in moved.nodes] == [["Dev"]]


def test_the_speaker_is_never_moved_onto_someone_else() -> None:
    # The user is called Sam; a colleague is Sam Carter.
    graph = _Graph(("person:samcarter", "Sam Carter"))
    kept = with_full_names(_proposal("Sam"), graph, {"person:sam"})
    assert kept == _proposal("Sam")
    assert graph.asked == []  # nobody to look up
