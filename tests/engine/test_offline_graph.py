"""Offline graph projection (SPEC §6), including the §6.5 npm → pnpm example."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from memory.engine.offline_events import SourceMessage, extract_events
from memory.engine.offline_graph import (
    SINGLE_VALUED_RELATIONS,
    ProjectionEvent,
    edge_exclusivity_key,
    project_events,
)
from memory.engine.prompts.graph import GraphProposal

SAT_6_MAY_2023 = datetime(2023, 5, 6, 13, 56, tzinfo=UTC)


def projected(*contents: str, speaker: str | None = None) -> list[ProjectionEvent]:
    """Extract offline from one message per content, then view the events as projection input."""
    messages = [
        SourceMessage(i + 1, "user", c, SAT_6_MAY_2023 + timedelta(minutes=i), speaker)
        for i, c in enumerate(contents)
    ]
    events = []
    for index, event in enumerate(extract_events(messages).events):
        mentioned = SAT_6_MAY_2023 + timedelta(minutes=event.source_message_ids[0] - 1)
        events.append(
            ProjectionEvent(
                id=100 + index,
                title=event.title,
                summary=event.summary,
                event_type=event.event_type,
                participants=tuple(event.participants),
                happened_start=event.happened_start,
                mentioned_at=mentioned,
                temporal_status=event.temporal_status,
            )
        )
    return events


def facts(proposal: GraphProposal, node_key: str, key: str) -> list[str]:
    return [f.value for f in proposal.facts if f.node_key == node_key and f.key == key]


def test_spec_trio_projects_package_manager_history() -> None:
    events = projected(
        "Use npm for this project.", "Let's switch to pnpm.", "Finish the prototype next week"
    )
    npm_event, pnpm_event, plan_event = events
    proposal = project_events(events)

    assert facts(proposal, "project:project", "package_manager") == ["npm", "pnpm"]
    uses = [(e.to_key, e.source_event_ids, e.metadata) for e in proposal.edges]
    assert uses == [
        ("tool:npm", [npm_event.id], {"slot": "package_manager"}),
        ("tool:pnpm", [pnpm_event.id], {"slot": "package_manager"}),
    ]
    assert all(e.from_key == "project:project" and e.relation == "uses" for e in proposal.edges)
    project = next(n for n in proposal.nodes if n.key == "project:project")
    assert (project.name, project.type) == ("project", "project")
    # the plan adds no package-manager fact, and in fact nothing at all
    assert all(plan_event.id not in f.source_event_ids for f in proposal.facts)
    assert all(plan_event.id not in n.source_event_ids for n in proposal.nodes)


def test_every_proposal_item_names_its_source_events() -> None:
    events = projected(
        "Use npm for this project.",
        "I work at Acme Corp.",
        "I live in Berlin.",
        "I prefer Vim.",
        speaker="Alice",
    )
    proposal = project_events(events)
    ids = {e.id for e in events}
    sources = [
        *(n.source_event_ids for n in proposal.nodes),
        *(f.source_event_ids for f in proposal.facts),
        *(e.source_event_ids for e in proposal.edges),
    ]
    assert len(sources) >= 10
    assert all(named and set(named) <= ids for named in sources)


def test_facts_are_valid_from_the_events_time() -> None:
    events = projected("Use npm for this project.", "Let's switch to pnpm.")
    proposal = project_events(events)
    assert [f.valid_from for f in proposal.facts] == [e.mentioned_at for e in events]


def test_events_apply_in_occurrence_order_not_input_order() -> None:
    events = projected("Use npm for this project.", "Let's switch to pnpm.")
    proposal = project_events(list(reversed(events)))
    assert facts(proposal, "project:project", "package_manager") == ["npm", "pnpm"]


def test_named_project() -> None:
    proposal = project_events(projected("For the Atlas project we'll use PostgreSQL."))
    assert facts(proposal, "project:atlas", "database") == ["PostgreSQL"]
    [edge] = proposal.edges
    assert (edge.from_key, edge.relation, edge.to_key) == (
        "project:atlas",
        "uses",
        "tool:postgresql",
    )
    assert edge.exclusivity_key == "uses:database"


def test_works_at_and_lives_in() -> None:
    proposal = project_events(
        projected("I work at Acme Corp.", "I live in Berlin.", speaker="Alice")
    )
    edges = {(e.from_key, e.relation, e.to_key) for e in proposal.edges}
    assert edges == {
        ("person:alice", "works_at", "organization:acmecorp"),
        ("person:alice", "lives_in", "place:berlin"),
    }
    assert facts(proposal, "person:alice", "employer") == ["Acme Corp"]
    assert facts(proposal, "person:alice", "residence") == ["Berlin"]
    types = {n.key: n.type for n in proposal.nodes}
    assert types == {
        "person:alice": "person",
        "organization:acmecorp": "organization",
        "place:berlin": "place",
    }


def test_an_unnamed_speaker_is_the_user() -> None:
    proposal = project_events(projected("我在腾讯工作。"))
    assert {(e.from_key, e.relation, e.to_key) for e in proposal.edges} == {
        ("person:user", "works_at", "organization:腾讯")
    }


def test_preferences_become_person_facts() -> None:
    proposal = project_events(
        projected("I prefer tabs over spaces.", "I love Vim.", "我喜欢喝茶。", speaker="Bo")
    )
    keyed = {(f.key, f.value) for f in proposal.facts}
    assert ("preference:tabs", "prefers tabs over spaces") in keyed
    assert ("preference:editor", "loves Vim") in keyed
    assert ("preference:喝茶", "喜欢喝茶") in keyed
    # A liking is an edge only for a known technology (issue 29's "prefers"): tea and tabs are none.
    assert [(e.from_key, e.relation, e.to_key) for e in proposal.edges] == [
        ("person:bo", "prefers", "tool:vim")
    ]


def test_planned_choices_change_no_slot_fact() -> None:
    events = projected("We'll switch to pnpm next month.", "I will work at Initech next year.")
    assert all(e.temporal_status == "planned" for e in events)
    proposal = project_events(events)
    assert proposal.facts == [] and proposal.edges == []


def test_single_valued_edge_keys() -> None:
    assert {"works_at", "lives_in"} <= SINGLE_VALUED_RELATIONS
    assert edge_exclusivity_key("works_at") == "works_at"
    assert edge_exclusivity_key("uses", {"slot": "package_manager"}) == "uses:package_manager"
    assert edge_exclusivity_key("uses") is None
    assert edge_exclusivity_key("participates_in") is None


def test_proposal_validation_drops_dangling_and_foreign_items() -> None:
    proposal = GraphProposal.model_validate(
        {
            "nodes": [
                {"key": "p", "name": "project", "type": "project", "source_event_ids": [1]},
                {"key": "t", "name": "pnpm", "type": "tool", "source_event_ids": [2]},
                {"key": "x", "name": "Mars", "type": "planet", "source_event_ids": [1]},
                {"key": "y", "name": "nobody", "type": "person", "source_event_ids": []},
            ],
            "facts": [
                {"node_key": "p", "key": "package_manager", "value": "pnpm",
                 "source_event_ids": [2]},
                {"node_key": "x", "key": "k", "value": "v", "source_event_ids": [1]},
            ],
            "edges": [
                {"from_key": "p", "to_key": "t", "relation": "Uses", "source_event_ids": [2],
                 "confidence": "7"},
                {"from_key": "p", "to_key": "x", "relation": "orbits", "source_event_ids": [1]},
                {"from_key": "p", "to_key": "t", "relation": "uses", "source_event_ids": [9]},
            ],
        }
    )  # fmt: skip
    assert [n.key for n in proposal.nodes] == ["p", "t"]
    assert [f.node_key for f in proposal.facts] == ["p"]
    assert [(e.relation, e.confidence) for e in proposal.edges] == [("uses", 1.0), ("uses", 0.8)]

    batch = proposal.restricted_to({1, 2})
    assert [e.source_event_ids for e in batch.edges] == [[2]]  # the foreign-sourced edge is gone
    assert len(batch.nodes) == 2 and len(batch.facts) == 1


# --- what makes a fact ---------------------------------------------------------------------


def preference_facts(*contents: str) -> list[tuple[str, str]]:
    proposal = project_events(projected(*contents, speaker="Melanie"))
    return [(f.key, f.value) for f in proposal.facts if f.key.startswith("preference:")]


@pytest.mark.parametrize(
    ("content", "key", "value"),
    [
        ("I love live music.", "preference:live music", "loves live music"),
        ("I love camping trips with my fam, 'cause nature brings such peace.",
         "preference:camping trips", "loves camping trips with my fam"),
        ("I love being a mom.", "preference:being a mom", "loves being a mom"),
        ("I'm a big fan of pottery - the creativity and skill is awesome.",
         "preference:pottery", "likes pottery"),
        ("Painting landscapes and still life is my favorite!",
         "preference:painting landscapes", "favourite: Painting landscapes and still life"),
        ("我不喜欢吃香菜。", "preference:香菜", "不喜欢吃香菜"),
    ],
)  # fmt: skip
def test_facts_from_real_noun_phrases(content: str, key: str, value: str) -> None:
    assert preference_facts(content) == [(key, value)]


@pytest.mark.parametrize(
    "content",
    [
        "I love it!",
        "Yeah, I love to.",
        "I love how you use it to tell your stories and teach people about trans folks.",
        "I love that it teaches me to accept the beauty of imperfections.",
        "I love that you chose pottery for your art.",
        "I love how art lets us get our emotions out.",
        "I really like that idea.",
        "Being my own boss and doing something I love is awesome.",
        "我喜欢这个。",
    ],
)
def test_no_fact_from_pronouns_function_words_or_clauses(content: str) -> None:
    assert preference_facts(content) == []


def test_role_facts_need_a_role() -> None:
    proposal = project_events(
        projected(
            "I'm a mix of excited and scared to get into fashion.",
            "I'm a bit tired today.",
            "I'm a nurse at St. Mary's hospital.",
            speaker="Gina",
        )
    )
    assert facts(proposal, "person:gina", "role") == ["nurse"]


def test_a_repeated_fact_is_one_fact_citing_both_events() -> None:
    first = projected("I love live music.", speaker="Melanie")[0]
    again = projected("You know I love live music!", speaker="Melanie")[0]
    events = [first, replace(again, id=first.id + 1)]
    proposal = project_events(events)
    [fact] = [f for f in proposal.facts if f.key == "preference:live music"]
    assert fact.source_event_ids == [events[0].id, events[1].id]


def test_a_changed_value_stays_history_not_a_duplicate() -> None:
    proposal = project_events(
        projected("Use npm for this project.", "Let's switch to pnpm.", "Let's switch to pnpm.")
    )
    assert facts(proposal, "project:project", "package_manager") == ["npm", "pnpm"]


@pytest.mark.parametrize(
    ("content", "relation", "target"),
    [
        ("I moved to Lisbon and I love it.", "lives_in", "Lisbon"),
        ("I live in New York and work in Boston.", "lives_in", "New York"),
        ("I moved to Berlin In March.", "lives_in", "Berlin"),
        ("I live in the UK.", "lives_in", "UK"),
        ("I live in Rio de Janeiro now.", "lives_in", "Rio de Janeiro"),
        ("I work at Acme and it's great.", "works_at", "Acme"),
        ("I work for Google Monday to Friday.", "works_at", "Google"),
        ("I work at Acme Corp. I love it.", "works_at", "Acme Corp"),
        ("I work at Bank of America.", "works_at", "Bank of America"),
        ("I work at Johnson & Johnson.", "works_at", "Johnson & Johnson"),
        ("I work at St. Mary's Hospital.", "works_at", "St. Mary's Hospital"),
        ("我现在在一家创业公司做后端开发工作。", "works_at", "创业公司"),
        ("我搬到了上海工作。", "lives_in", "上海"),
        ("我们搬到了深圳生活，很开心。", "lives_in", "深圳"),
    ],
)
def test_names_stop_at_the_name(content: str, relation: str, target: str) -> None:
    proposal = project_events(projected(content, speaker="Ana"))
    fact_key = {"lives_in": "residence", "works_at": "employer"}[relation]
    assert facts(proposal, "person:ana", fact_key) == [target]
    assert [e.relation for e in proposal.edges] == [relation]


@pytest.mark.parametrize(
    ("content", "person", "relation", "target"),
    [
        ("Caroline lives in Boston with her dog.", "caroline", "lives_in", "place:boston"),
        ("Tom moved to Lisbon last year.", "tom", "lives_in", "place:lisbon"),
        (
            "Honestly, Priya Shah works at Globex now.",
            "priyashah",
            "works_at",
            "organization:globex",
        ),
    ],
)
def test_a_statement_about_someone_else_is_theirs(
    content: str, person: str, relation: str, target: str
) -> None:
    proposal = project_events(projected(content, speaker="Maya"))
    assert {(e.from_key, e.relation, e.to_key) for e in proposal.edges} == {
        (f"person:{person}", relation, target)
    }
    assert "person:maya" not in {n.key for n in proposal.nodes}


@pytest.mark.parametrize(
    "content", ["She lives in Oslo.", "They work at Initech.", "The team moved to Denver."]
)
def test_a_statement_about_no_one_named_is_no_ones(content: str) -> None:
    proposal = project_events(projected(content, speaker="Maya"))
    assert proposal.edges == [] and proposal.facts == []


@pytest.mark.parametrize(
    ("content", "edge"),
    [
        # "we" names the namespace's project; an unknown capitalised name used is a tool.
        ("We use Honeybadger for error tracking.",
         ("project:project", "uses", "tool:honeybadger")),
        # A change places its new value on the service it names, where it runs.
        ("We decided to move the search service from Heroku to Render.",
         ("project:searchservice", "runs_on", "tool:render")),
        ("我们把监控从Zabbix换成了Prometheus。", ("project:project", "uses", "tool:prometheus")),
        ("支付服务不再用Redis，改用Memcached。", ("project:支付服务", "uses", "tool:memcached")),
        ("We're switching Orion's CI from Travis to CircleCI.",
         ("project:orion", "uses", "tool:circleci")),
    ],
)  # fmt: skip
def test_what_a_statement_says_is_used_now_is_an_edge(
    content: str, edge: tuple[str, str, str]
) -> None:
    edges = [(e.from_key, e.relation, e.to_key) for e in project_events(projected(content)).edges]
    assert edges == [edge]


@pytest.mark.parametrize(
    "content",
    [
        "I use Vim every day.",  # the speaker's own tool, not the project's
        "We're going to migrate the API to Render next month.",  # planned
        "We moved to Lisbon last year.",  # a home, not a tool
        "Django uses Python.",  # a fact about technologies
    ],
)
def test_a_persons_tool_a_plan_a_home_or_a_technology_fact_is_no_project_edge(
    content: str,
) -> None:
    proposal = project_events(projected(content))
    assert [e for e in proposal.edges if e.from_key == "project:project"] == []
