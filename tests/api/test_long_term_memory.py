"""Events, supersession, the graph's current/historical/as-of state and weights, via the API."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.models import Event, EventStatus, GraphFact
from tests.conftest import turn_body

pytestmark = pytest.mark.django_db

MAY_6 = datetime(2023, 5, 6, 10, 0, tzinfo=UTC)  # a Saturday


def _say(owner, n: int, text: str, *, reply: str = "Noted.") -> None:
    body = turn_body(n, user=text, assistant=reply, when=MAY_6.replace(minute=n))
    assert owner.post("/ns/proj/turns", body).status_code == 201


def _npm_pnpm_plan(owner, drain) -> None:
    # SPEC §6.5, one block per statement (block size 1) so each is its own extraction.
    _say(owner, 1, "Use npm for this project.")
    _say(owner, 2, "Let's switch to pnpm.")
    _say(owner, 3, "Finish the prototype next week.")
    drain()


@pytest.fixture
def one_turn_blocks(admin):
    assert admin.put("/settings", {"block_turns": 1}).status_code == 200


def _events(owner, **params) -> list[dict]:
    response = owner.get("/ns/proj/events", **params)
    assert response.status_code == 200, response.content
    return response.json()["events"]


def _project_node(owner) -> dict:
    nodes = owner.get("/ns/proj/graph").json()["nodes"]
    return next(n for n in nodes if n["type"] == "project")


def test_npm_then_pnpm_then_a_plan(owner, drain, one_turn_blocks):
    _npm_pnpm_plan(owner, drain)
    events = _events(owner)
    by_title = {e["title"]: e for e in events}
    assert len(events) == 3, [e["title"] for e in events]
    npm = next(
        e for e in events if "npm" in e["title"].lower() and "pnpm" not in e["title"].lower()
    )
    pnpm = next(e for e in events if "pnpm" in e["title"].lower())
    plan = next(e for e in events if e["event_type"] == "plan")
    assert npm["status"] == "superseded" and npm["superseded_by"] == pnpm["id"]
    assert pnpm["relations"]["supersedes"] == [npm["id"]]
    assert npm["weight"]["cap"] == 0.1 and npm["weight"]["value"] <= 0.1
    # The plan is planned for the week after 6 May 2023 and changes nothing else.
    assert plan["temporal"]["status"] == "planned"
    assert plan["temporal"]["happened_start"].startswith("2023-05-08")
    assert plan["temporal"]["happened_end"].startswith("2023-05-14")
    assert plan["temporal"]["mentioned_at"].startswith("2023-05-06")
    assert plan["relations"]["supersedes"] == [] and plan["status"] == "active"
    assert by_title  # titles are present and unique

    project = _project_node(owner)
    current = {f["key"]: f["value"] for f in project["current_facts"]}
    historical = {(f["key"], f["value"]) for f in project["historical_facts"]}
    assert current["package_manager"].lower() == "pnpm"
    assert ("package_manager", "npm") in {(k, v.lower()) for k, v in historical}
    uses = {(e["to_name"].lower(), e["state"]) for e in project["edges"] if e["relation"] == "uses"}
    assert uses == {("pnpm", "current"), ("npm", "historical")}
    assert GraphFact.objects.filter(key="package_manager").count() == 2


def test_graph_as_of_an_earlier_turn_shows_npm(owner, drain, one_turn_blocks):
    _npm_pnpm_plan(owner, drain)
    nodes = owner.get("/ns/proj/graph", as_of="1").json()["nodes"]
    project = next(n for n in nodes if n["type"] == "project")
    assert {f["key"]: f["value"].lower() for f in project["current_facts"]} == {
        "package_manager": "npm"
    }
    later = owner.get("/ns/proj/graph", as_of="3").json()["nodes"]
    project = next(n for n in later if n["type"] == "project")
    assert {f["key"]: f["value"].lower() for f in project["current_facts"]}[
        "package_manager"
    ] == "pnpm"
    assert owner.get("/ns/proj/graph", as_of="yesterday-ish").status_code == 422


def test_forgetting_an_event_moves_its_fact_out_of_the_current_state(
    owner, admin, drain, one_turn_blocks
):
    _npm_pnpm_plan(owner, drain)
    pnpm = Event.objects.get(title__icontains="pnpm")
    response = admin.post(f"/ns/proj/events/{pnpm.pk}/forget")
    assert response.status_code == 200
    assert response.json()["status"] == "forgotten"
    assert response.json()["weight"]["value"] == 0
    project = _project_node(owner)
    assert "package_manager" not in {f["key"] for f in project["current_facts"]}
    assert all(f["value"].lower() != "pnpm" for f in project["historical_facts"])
    assert pnpm.pk not in [e["id"] for e in _events(owner)]

    restored = admin.post(f"/ns/proj/events/{pnpm.pk}/restore")
    assert restored.json()["status"] == "active"
    project = _project_node(owner)
    assert {f["key"]: f["value"].lower() for f in project["current_facts"]}[
        "package_manager"
    ] == "pnpm"
    assert admin.post(f"/ns/proj/events/{pnpm.pk}/restore").status_code == 409


def test_lifecycle_actions_need_admin_and_stay_in_the_namespace(
    owner, stranger, drain, one_turn_blocks
):
    _npm_pnpm_plan(owner, drain)
    event = Event.objects.first()
    assert owner.post(f"/ns/proj/events/{event.pk}/forget").status_code == 403
    assert stranger.post(f"/ns/proj/events/{event.pk}/forget").status_code == 404
    event.refresh_from_db()
    assert event.status != EventStatus.FORGOTTEN


def test_pin_gives_weight_one_and_unpin_takes_it_back(owner, admin, drain, one_turn_blocks):
    _npm_pnpm_plan(owner, drain)
    plan = Event.objects.get(event_type="plan")
    for n in range(4, 9):  # five turns later the plan has decayed
        _say(owner, n, f"Small talk {n}?")
    assert admin.post(f"/ns/proj/events/{plan.pk}/pin").json()["weight"]["value"] == 1.0
    unpinned = admin.post(f"/ns/proj/events/{plan.pk}/unpin").json()
    assert unpinned["weight"]["pinned"] is False and unpinned["weight"]["value"] < 1.0


def test_weights_decay_with_namespace_turns(owner, drain, one_turn_blocks):
    _npm_pnpm_plan(owner, drain)
    plan_id = Event.objects.get(event_type="plan").pk
    before = owner.get(f"/ns/proj/events/{plan_id}").json()["event"]["weight"]
    for n in range(4, 14):  # ten more turns of small talk
        _say(owner, n, f"How is the weather today, round {n}?")
    after = owner.get(f"/ns/proj/events/{plan_id}").json()["event"]["weight"]
    assert before["value"] == 1.0  # t = 0
    assert after["value"] == pytest.approx(0.2231, abs=1e-4)  # n = 1, t = 10 (SPEC §7.4)


def test_expand_event_returns_sources_inside_its_block(owner, drain, one_turn_blocks):
    _npm_pnpm_plan(owner, drain)
    plan = Event.objects.get(event_type="plan")
    body = owner.get(f"/ns/proj/events/{plan.pk}").json()
    assert body["ref"] == f"event:{plan.pk}"
    assert [m["content"] for m in body["sources"]] == ["Finish the prototype next week."]
    assert body["source_block"]["block_id"] == plan.source_block_id
    assert owner.get("/ns/proj/events/999999").status_code == 404


def test_graph_node_expansion_has_history_neighbours_and_provenance(owner, drain, one_turn_blocks):
    _npm_pnpm_plan(owner, drain)
    project = _project_node(owner)
    body = owner.get(f"/ns/proj/graph/nodes/{project['id']}").json()
    assert body["ref"] == f"node:{project['id']}"
    assert {n["name"].lower() for n in body["neighbours"]} >= {"npm", "pnpm"}
    assert len(body["provenance_events"]) == 2
    assert body["node"]["current_state"]["package_manager"].lower() == "pnpm"


def test_timeline_filters_by_type_and_date(owner, drain, one_turn_blocks):
    _npm_pnpm_plan(owner, drain)
    plans = _events(owner, event_type="plan")
    assert [e["event_type"] for e in plans] == ["plan"]
    dated = _events(owner, happened_from="2023-05-10T00:00:00Z")
    assert [e["event_type"] for e in dated] == ["plan"]
    assert owner.get("/ns/proj/events", status="bogus").status_code == 422


def test_a_small_talk_block_yields_no_events_and_is_ready(owner, drain, one_turn_blocks):
    _say(owner, 1, "How is it going?", reply="All good, thanks.")
    drain()
    assert Event.objects.count() == 0
    assert owner.get("/ns/proj/sessions/s1/blocks").json()["blocks"][0]["status"] == "ready"


def test_timeline_and_graph_pages_do_not_query_per_item(
    owner, drain, one_turn_blocks, django_assert_max_num_queries
):
    _npm_pnpm_plan(owner, drain)
    for n, text in enumerate(
        ["I prefer tabs.", "We decided to use Postgres.", "I work at Acme."], start=4
    ):
        _say(owner, n, text)
    drain()
    assert len(_events(owner)) >= 5
    with django_assert_max_num_queries(8):
        assert owner.get("/ns/proj/events").status_code == 200
    with django_assert_max_num_queries(10):
        assert owner.get("/ns/proj/graph").status_code == 200
