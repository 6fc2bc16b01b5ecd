"""Searching events, the graph and raw messages through the API (SPEC §8.4–8.6, §9.1)."""

from __future__ import annotations

import pytest

from memory.models import BatchItem, Block, Event, RetrievalBatch
from tests.conftest import turn_body
from tests.retrieval.conftest import say, the_events

pytestmark = pytest.mark.django_db


def _refs(body: dict) -> list[str]:
    return [r["ref"] for r in body["results"]]


def test_event_search_returns_refs_and_records_a_batch_of_them(project):
    npm, pnpm, _ = the_events(project)
    response = project.post("/ns/proj/search/events", {"query": "package manager"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(_refs(body)) == {f"event:{npm['id']}", f"event:{pnpm['id']}"}
    assert body["evidence_refs"] == _refs(body)
    batch = RetrievalBatch.objects.get(public_id=body["batch_id"])
    assert batch.tool == "search_events" and batch.status == "open"
    assert list(batch.items.values_list("ref", flat=True)) == _refs(body)
    assert body["results"][0]["event"]["weight"]["adoptions"] == 1


def test_event_search_sets_last_retrieved_at_and_never_adoption(project):
    _, pnpm, plan = the_events(project)
    before = {e.pk: (e.adoptions, e.last_adopted_turn) for e in Event.objects.all()}
    project.post("/ns/proj/search/events", {"query": "pnpm"})
    after = {e.pk: (e.adoptions, e.last_adopted_turn) for e in Event.objects.all()}
    assert before == after
    assert Event.objects.get(pk=pnpm["id"]).last_retrieved_at is not None
    assert Event.objects.get(pk=plan["id"]).last_retrieved_at is None


@pytest.mark.parametrize(
    "path", ["/ns/proj/search/events", "/ns/proj/search/graph", "/ns/proj/search/raw"]
)
def test_an_unrelated_query_returns_nothing(project, path):
    # SPEC §8.4: "A query whose words match nothing and no filter returns nothing".
    response = project.post(path, {"query": "weather in Paris tomorrow"})
    assert response.status_code == 200
    assert response.json()["results"] == []
    batch = RetrievalBatch.objects.get(public_id=response.json()["batch_id"])
    assert batch.items.count() == 0


def test_an_empty_query_without_filters_returns_nothing(project):
    assert project.post("/ns/proj/search/events", {"query": ""}).json()["results"] == []


def test_a_filter_alone_lists_its_matches(project):
    _, _, plan = the_events(project)
    body = project.post("/ns/proj/search/events", {"query": "", "event_type": "计划"}).json()
    assert _refs(body) == [f"event:{plan['id']}"]
    assert body["results"][0]["matched_by"] == ["weight", "event_type"]


def test_filters_are_hard_even_when_the_query_matches_elsewhere(project):
    body = project.post("/ns/proj/search/events", {"query": "pnpm", "event_type": "plan"}).json()
    assert [r["event"]["event_type"] for r in body["results"]] == ["plan"]


def test_happened_window_selects_events_whose_occurrence_overlaps_it(project):
    _, _, plan = the_events(project)
    window = {"happened_from": "2023-05-10T00:00:00Z", "happened_to": "2023-05-11T00:00:00Z"}
    body = project.post("/ns/proj/search/events", {"query": "", **window}).json()
    assert _refs(body) == [f"event:{plan['id']}"]
    early = {"happened_from": "2023-04-01T00:00:00Z", "happened_to": "2023-05-07T00:00:00Z"}
    assert project.post("/ns/proj/search/events", {"query": "", **early}).json()["results"] == []


def test_participant_and_source_session_filters(project, owner):
    say(owner, 4, "Alice will review the pnpm lockfile.", session="s2")
    body = project.post("/ns/proj/search/events", {"query": "pnpm", "source_session_id": "s1"})
    assert all(r["event"]["source_block_id"] for r in body.json()["results"])
    assert "alice" not in str(body.json()).lower()
    people = project.post("/ns/proj/search/events", {"query": "", "participants": ["user"]})
    assert len(people.json()["results"]) == 3


@pytest.mark.parametrize(
    ("intent", "order"), [("first", ["npm", "pnpm"]), ("latest", ["pnpm", "npm"])]
)
def test_temporal_intent_orders_chronologically(project, intent, order):
    npm, pnpm, _ = the_events(project)
    ids = {"npm": f"event:{npm['id']}", "pnpm": f"event:{pnpm['id']}"}
    body = project.post(
        "/ns/proj/search/events", {"query": "package manager", "temporal_intent": intent}
    ).json()
    assert _refs(body) == [ids[name] for name in order]
    assert all("chronology" in r["matched_by"] for r in body["results"])


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"query": "npm", "limit": 0}, "invalid_limit"),
        ({"query": "npm", "limit": 21}, "invalid_limit"),
        ({"query": "npm", "temporal_intent": "soonest"}, "invalid_temporal_intent"),
        ({"query": "npm", "event_type": "party"}, "invalid_event_type"),
        (
            {
                "query": "npm",
                "happened_from": "2023-06-01T00:00:00Z",
                "happened_to": "2023-05-01T00:00:00Z",
            },
            "invalid_happened_range",
        ),
        ({"query": "x" * 4001}, "query_too_long"),
        ({"query": "npm", "session_id": "s" * 201}, "invalid_session_id"),
    ],
)
def test_invalid_search_input_is_422_and_writes_no_batch(project, body, code):
    response = project.post("/ns/proj/search/events", body)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == code
    assert RetrievalBatch.objects.count() == 0


def test_limit_defaults_to_6_for_events_and_raw(owner, drain, one_turn_blocks):
    for n in range(1, 10):
        say(owner, n, f"Deploy step {n} uses the staging cluster.")
    drain()
    raw = owner.post("/ns/proj/search/raw", {"query": "staging cluster"}).json()
    assert len(raw["results"]) == 6
    assert (
        len(owner.post("/ns/proj/search/raw", {"query": "staging", "limit": 20}).json()["results"])
        == 9
    )


def test_chinese_query_finds_chinese_memory(owner, drain, one_turn_blocks):
    # SPEC §8.1: Han text is indexed as bigrams, so a Chinese query finds Chinese content.
    say(owner, 1, "我们决定用 PostgreSQL 作为数据库。", session="zh", reply="好的，记下了。")
    say(owner, 2, "下周三和王伟开会讨论发布计划。", session="zh", reply="好的。")
    drain()
    events = owner.post("/ns/proj/search/events", {"query": "数据库"}).json()["results"]
    assert [r["event"]["summary"] for r in events] == ["我们决定用 PostgreSQL 作为数据库。"]
    raw = owner.post("/ns/proj/search/raw", {"query": "王伟开会"}).json()["results"]
    assert [r["message"]["content"] for r in raw] == ["下周三和王伟开会讨论发布计划。"]


def test_graph_search_says_current_historical_or_both(project):
    body = project.post("/ns/proj/search/graph", {"query": "package manager"}).json()
    by_name = {r["node"]["name"]: r for r in body["results"]}
    project_node = by_name["project"]
    assert project_node["match_type"] == "both"
    assert [f["value"] for f in project_node["current_facts"]] == ["pnpm"]
    assert [f["value"] for f in project_node["historical_facts"]] == ["npm"]
    assert {f["ref"] for f in project_node["current_facts"]} <= set(body["evidence_refs"])
    assert len(project_node["provenance_event_ids"]) <= 6
    assert [t["title"] for t in project_node["timeline"]] == [
        "Use npm as package manager",
        "Use pnpm as package manager",
    ]
    assert by_name["npm"]["match_type"] == "historical"
    assert by_name["pnpm"]["match_type"] == "current"
    kinds = set(
        BatchItem.objects.filter(batch__public_id=body["batch_id"]).values_list("kind", flat=True)
    )
    assert kinds == {"node", "fact", "event"}


def test_graph_search_as_of_an_earlier_turn(project):
    body = project.post("/ns/proj/search/graph", {"query": "package manager", "as_of": "1"}).json()
    project_node = next(r for r in body["results"] if r["node"]["name"] == "project")
    assert [f["value"] for f in project_node["current_facts"]] == ["npm"]
    bad = project.post("/ns/proj/search/graph", {"query": "npm", "as_of": "yesterday-ish"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_as_of"


def test_raw_search_returns_neighbours_block_and_turn_range(project):
    body = project.post("/ns/proj/search/raw", {"query": "switch pnpm"}).json()
    hit = body["results"][0]
    assert hit["message"]["content"] == "Let's switch to pnpm."
    assert [m["content"] for m in hit["neighbours"]] == ["Noted."]
    assert hit["sealed"] is True and hit["block_id"] and hit["turn_range"] == [2, 2]
    assert hit["ref"] == f"raw:{hit['message']['id']}"


def test_raw_search_sees_the_open_tail_right_after_ingest(owner):
    # SPEC §12.4: a search right after ingest sees the turn's raw messages.
    owner.post(
        "/ns/proj/turns",
        turn_body(1, user="The Redis password rotation is on Friday.", assistant="Got it, Friday."),
    )
    hit = owner.post("/ns/proj/search/raw", {"query": "redis rotation"}).json()["results"][0]
    assert hit["sealed"] is False and hit["block_id"] is None and hit["turn_range"] == [1, 1]
    assert [m["role"] for m in hit["neighbours"]] == ["assistant"]


def test_raw_search_can_be_limited_to_one_session(project, owner):
    say(owner, 4, "pnpm workspaces are set up.", session="s2")
    everywhere = project.post("/ns/proj/search/raw", {"query": "pnpm"}).json()["results"]
    assert {r["message"]["session_id"] for r in everywhere} == {"s1", "s2"}
    only = project.post("/ns/proj/search/raw", {"query": "pnpm", "session_id": "s2"}).json()
    assert {r["message"]["session_id"] for r in only["results"]} == {"s2"}
    assert RetrievalBatch.objects.get(public_id=only["batch_id"]).session.external_id == "s2"


@pytest.mark.parametrize(
    "path", ["/ns/proj/search/events", "/ns/proj/search/graph", "/ns/proj/search/raw"]
)
def test_a_stranger_gets_404_and_a_reader_may_search(project, stranger, reader, path):
    response = stranger.post(path, {"query": "pnpm"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "namespace_not_found"
    assert reader.post(path, {"query": "pnpm"}).status_code == 200
    assert RetrievalBatch.objects.count() == 1


def test_expansions_create_batches_marked_expanded(project):
    _, pnpm, _ = the_events(project)
    found = project.post("/ns/proj/search/events", {"query": "pnpm", "session_id": "s9"}).json()
    expanded = project.get(
        f"/ns/proj/events/{pnpm['id']}", batch_id=found["batch_id"], session_id="s9"
    )
    assert expanded.status_code == 200
    body = expanded.json()
    assert body["batch_id"] and body["batch_id"] != found["batch_id"]
    batch = RetrievalBatch.objects.get(public_id=body["batch_id"])
    assert batch.tool == "expand_event" and batch.params["from_batch"] == found["batch_id"]
    assert batch.session.external_id == "s9"
    items = {i.ref: i for i in batch.items.all()}
    assert items[f"event:{pnpm['id']}"].expanded
    assert {f"raw:{m['id']}" for m in body["sources"]} <= set(items)

    node_id = next(
        r["node"]["id"]
        for r in project.post("/ns/proj/search/graph", {"query": "project"}).json()["results"]
        if r["node"]["name"] == "project"
    )
    node = project.get(f"/ns/proj/graph/nodes/{node_id}").json()
    node_batch = RetrievalBatch.objects.get(public_id=node["batch_id"])
    assert node_batch.tool == "expand_graph_node"
    assert {f["ref"] for f in node["current_facts"]} <= set(
        node_batch.items.values_list("ref", flat=True)
    )

    block_id = pnpm["source_block_id"]
    block = project.post(f"/ns/proj/blocks/{block_id}/expand", {"target": "L5"}).json()
    assert block["ref"] == f"block:{block_id}:L5"
    block_batch = RetrievalBatch.objects.get(public_id=block["batch_id"])
    assert block_batch.session.external_id == "s1"  # the block's own session by default
    item = block_batch.items.get(ref=block["ref"])
    assert item.expanded and item.block_level == 5


def test_expanding_from_an_unknown_batch_is_404_and_writes_nothing(project):
    _, pnpm, _ = the_events(project)
    response = project.get(f"/ns/proj/events/{pnpm['id']}", batch_id="b_nope")
    assert response.status_code == 404 and response.json()["error"]["code"] == "batch_not_found"
    anchor = Block.objects.values_list("anchor_level", "anchor_position", "last_lifted_by").get(
        pk=pnpm["source_block_id"]
    )
    block = project.post(
        f"/ns/proj/blocks/{pnpm['source_block_id']}/expand", {"target": "L1", "batch_id": "b_x"}
    )
    assert block.status_code == 404
    too_long = project.post(
        f"/ns/proj/blocks/{pnpm['source_block_id']}/expand",
        {"target": "L1", "session_id": "s" * 201},
    )
    assert too_long.status_code == 422
    assert RetrievalBatch.objects.count() == 0
    assert (
        Block.objects.values_list("anchor_level", "anchor_position", "last_lifted_by").get(
            pk=pnpm["source_block_id"]
        )
        == anchor
    )


def _recorded(batch_id: str, **kind: str) -> list[str]:
    items = BatchItem.objects.filter(batch__public_id=batch_id, **kind).order_by("rank")
    return list(items.values_list("ref", flat=True))


def test_every_search_and_expand_returns_the_ref_its_batch_recorded(project):
    # The API hands back the ref the batch recorded for each hit, never a rebuilt one.
    _, pnpm, _ = the_events(project)
    for path, query in [("events", "package manager"), ("raw", "pnpm")]:
        body = project.post(f"/ns/proj/search/{path}", {"query": query}).json()
        assert _refs(body) and _refs(body) == _recorded(body["batch_id"])
    graph = project.post("/ns/proj/search/graph", {"query": "package manager"}).json()
    assert _refs(graph) and _refs(graph) == _recorded(graph["batch_id"], kind="node")

    node_id = graph["results"][0]["node"]["id"]
    for expanded in (
        project.get(f"/ns/proj/events/{pnpm['id']}").json(),
        project.get(f"/ns/proj/graph/nodes/{node_id}").json(),
        project.post(f"/ns/proj/blocks/{pnpm['source_block_id']}/expand", {"target": "L3"}).json(),
    ):
        assert expanded["ref"] == _recorded(expanded["batch_id"])[0]
