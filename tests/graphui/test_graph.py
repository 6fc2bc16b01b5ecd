"""The graph page, its JSON twin and the node page (SPEC §6, §13.4): pruning to the most
connected nodes, neighbourhoods on demand, history and as-of, fixed query counts, plain-text
labels, and no retrieval batch from a person browsing."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from graphui.templatetags.events import lifecycle_badge
from memory.engine.prompts.extraction import ExtractedEvent
from memory.engine.prompts.graph import GraphProposal
from memory.models import Block, Event, GraphNode, Message, Namespace, RetrievalBatch
from memory.selectors.graph import graph_networkx, node_neighbours
from memory.services.events import EventContext, event_create
from memory.services.graph import graph_apply
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.settings import memory_settings_update
from tests.browser.hostile import IMG, PROBES, SCRIPT, hostile_namespace_create
from tests.worlds import module_world

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
TYPES = ("person", "project", "organization", "tool", "place")
SECRET = "api_key=sk-abcdefghijklmnop1234"
HUBS = 10


def graph_build(name: str, count: int, *, extra_nodes: list[dict[str, Any]] = ()) -> Namespace:
    """`count` nodes through the real services: one sealed block, one event citing it, and one
    projection. Node i (i ≥ 10) depends on hub i % 10, and every third node also on the next
    one, so degrees differ; even nodes get a current fact."""
    namespace = namespace_get_or_create(name=name)
    for n in range(1, 7):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="g",
                receipt_id=f"{name}-{n}",
                messages=[
                    MessageIn(role="user", content=f"Directory part {n}."),
                    MessageIn(role="assistant", content="Stored."),
                ],
            ),
        )
    jobs_drain()
    block = Block.objects.filter(namespace=namespace).order_by("pk").first()
    assert block is not None
    messages = {m.pk: m for m in Message.objects.filter(turn__block=block)}
    with transaction.atomic():
        event = event_create(
            extracted=ExtractedEvent(
                title="Directory export",
                summary="The directory lists who depends on what.",
                source_message_ids=list(messages)[:1],
            ),
            context=EventContext(block=block, formed_turn=6, messages=messages),
        )
        src = [event.pk]
        nodes = [
            {"key": f"n{i}", "name": f"Node {i}", "type": TYPES[i % 5], "source_event_ids": src}
            for i in range(count)
        ] + [dict(node, source_event_ids=src) for node in extra_nodes]
        edges = [
            {"from_key": f"n{i}", "to_key": f"n{i % HUBS}", "relation": "depends_on",
             "source_event_ids": src}
            for i in range(HUBS, count)
        ] + [
            {"from_key": f"n{i}", "to_key": f"n{i + 1}", "relation": "related_to",
             "source_event_ids": src}
            for i in range(HUBS, count - 1, 3)
        ]  # fmt: skip
        facts = [
            {"node_key": f"n{i}", "key": "note", "value": f"value {i}", "source_event_ids": src}
            for i in range(0, count, 2)
        ] + [
            {"node_key": node["key"], "key": "note", "value": node["name"], "source_event_ids": src}
            for node in extra_nodes
        ]
        graph_apply(
            namespace_id=namespace.pk,
            events=[event],
            proposal=GraphProposal.model_validate({"nodes": nodes, "facts": facts, "edges": edges}),
        )
    return namespace


def node_id(namespace: Namespace, key: str) -> int:
    return GraphNode.objects.get(namespace=namespace, key=key).pk


@pytest.fixture
def ui(django_user_model: Any) -> Client:
    client = Client()
    client.force_login(
        django_user_model.objects.create_user(username="ada", password="x", is_staff=True)
    )
    return client


@pytest.fixture(scope="module")
def _worlds(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Namespace]]:
    """Both graphs, built once for the module (the 300-node one took ~3 s per test)."""
    with module_world(django_db_blocker):
        yield {"big": graph_build("big", 300), "small": graph_build("small", 30)}


@pytest.fixture
def big(db: None, _worlds: dict[str, Namespace]) -> Namespace:
    return Namespace.objects.get(pk=_worlds["big"].pk)


@pytest.fixture
def small(db: None, _worlds: dict[str, Namespace]) -> Namespace:
    return Namespace.objects.get(pk=_worlds["small"].pk)


def data(ui: Client, ns: str, **params: Any) -> dict[str, Any]:
    response = ui.get(f"/ns/{ns}/graph/data.json", params)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    return dict(response.json())


# --- npm → pnpm (SPEC §6.5) --------------------------------------------------------------------


@pytest.fixture
def npm_pnpm() -> Namespace:
    """One block per statement, so each is its own extraction and projection."""
    memory_settings_update(block_turns=1)
    namespace = namespace_get_or_create(name="proj")
    for n, text in enumerate(("Use npm for this project.", "Let's switch to pnpm."), start=1):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="s1",
                receipt_id=f"r{n}",
                messages=[
                    MessageIn(role="user", content=text),
                    MessageIn(role="assistant", content="Noted."),
                ],
            ),
        )
    jobs_drain()
    return namespace


def _by_label(payload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n.get("name", n["label"]).lower(): n for n in payload["nodes"]}


def _uses(payload: dict[str, Any]) -> set[tuple[str, str, bool]]:
    names = {n["id"]: n.get("name", n["label"]).lower() for n in payload["nodes"]}
    return {
        (names[e["to"]], e["state"], bool(e.get("dashes")))
        for e in payload["edges"]
        if e["label"].startswith("uses")
    }


# --- access and errors -------------------------------------------------------------------------


def test_anonymous_visitors_are_sent_to_login(client: Client, small: Namespace) -> None:
    hub = node_id(small, "n0")
    for path in ("/ns/small/graph/", "/ns/small/graph/data.json", f"/ns/small/graph/nodes/{hub}/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"] == f"/accounts/login/?next={path}"


def test_unknown_namespace_and_node_are_404(ui: Client, small: Namespace, big: Namespace) -> None:
    page = ui.get("/ns/nowhere/graph/")
    assert page.status_code == 404
    assert b"namespace_not_found" in page.content
    response = ui.get("/ns/nowhere/graph/data.json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "namespace_not_found"
    missing = ui.get("/ns/small/graph/nodes/999999/")
    assert missing.status_code == 404
    assert b"node_not_found" in missing.content
    # A node of another namespace is not found here either.
    foreign = ui.get(f"/ns/small/graph/nodes/{node_id(big, 'n0')}/")
    assert foreign.status_code == 404


def test_garbage_as_of_is_422_on_the_page_and_in_the_json(ui: Client, small: Namespace) -> None:
    response = ui.get("/ns/small/graph/data.json", {"as_of": "yesterday-ish"})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_as_of"
    assert "42" in error["message"] and "2026-10-01" in error["message"]

    page = ui.get("/ns/small/graph/", {"as_of": "yesterday-ish"})
    assert page.status_code == 422
    html = page.content.decode()
    assert "invalid_as_of" in html
    assert "yesterday-ish" in html and 'aria-invalid="true"' in html
    assert 'id="graph-controls"' in html  # the form is still there to correct it

    node = ui.get(f"/ns/small/graph/nodes/{node_id(small, 'n0')}/", {"as_of": "soon"})
    assert node.status_code == 422


# --- shape and pruning ---------------------------------------------------------------------------


def test_graph_data_has_the_documented_shape(ui: Client, small: Namespace) -> None:
    payload = data(ui, "small")
    assert set(payload) == {
        "nodes", "edges", "options", "total_nodes", "shown_nodes", "as_of", "history",
        "limit", "depth", "focus", "search",
    }  # fmt: skip
    assert payload["total_nodes"] == payload["shown_nodes"] == len(payload["nodes"]) == 30
    assert payload["as_of"] is None and payload["history"] is False and payload["search"] is None
    node = payload["nodes"][0]
    assert {"id", "label", "group", "shape", "size", "x", "y", "degree", "facts"} <= set(node)
    assert node["group"] in TYPES
    edge = payload["edges"][0]
    assert {"id", "from", "to", "label", "state", "arrows"} <= set(edge)
    assert payload["options"]["physics"]["stabilization"]["enabled"] is True
    assert set(payload["options"]["groups"]) == set(TYPES)


def test_300_nodes_are_pruned_to_the_150_most_connected(ui: Client, big: Namespace) -> None:
    payload = data(ui, "big")
    assert payload["total_nodes"] == 300
    assert payload["shown_nodes"] == len(payload["nodes"]) == 150

    degree = dict(graph_networkx(big).degree())
    shown = {n["id"] for n in payload["nodes"]}
    hidden = set(degree) - shown
    assert min(degree[n] for n in shown) >= max(degree[n] for n in hidden)
    assert {node_id(big, f"n{i}") for i in range(HUBS)} <= shown
    assert all(n["degree"] == degree[n["id"]] for n in payload["nodes"])
    # Only edges between shown nodes travel.
    assert all(e["from"] in shown and e["to"] in shown for e in payload["edges"])

    assert data(ui, "big", limit=500)["shown_nodes"] == 300
    assert data(ui, "big", limit=10)["shown_nodes"] == 10
    assert data(ui, "big", limit="lots")["shown_nodes"] == 150


def test_focus_adds_a_nodes_neighbourhood(ui: Client, big: Namespace) -> None:
    top = {n["id"] for n in data(ui, "big")["nodes"]}
    far = next(
        pk
        for pk in GraphNode.objects.filter(namespace=big)
        .order_by("-pk")
        .values_list("pk", flat=True)
        if pk not in top
    )
    graph = graph_networkx(big).to_undirected()
    neighbours = set(graph.neighbors(far))

    payload = data(ui, "big", focus=far)
    shown = {n["id"] for n in payload["nodes"]}
    assert payload["focus"] == [far]
    assert top | {far} | neighbours == shown
    centre = next(n for n in payload["nodes"] if n["id"] == far)
    assert centre["borderWidth"] == 3

    two_steps = {n["id"] for n in data(ui, "big", focus=far, depth=2)["nodes"]}
    assert two_steps > shown
    # Unknown and hidden focus ids are ignored, not errors.
    assert data(ui, "big", focus=999999)["focus"] == []


def test_history_adds_historical_edges_drawn_dashed(ui: Client, npm_pnpm: Namespace) -> None:
    now = data(ui, "proj")
    assert _uses(now) == {("pnpm", "current", False)}
    assert "npm" not in _by_label(now)  # npm only has a historical edge

    with_history = data(ui, "proj", history=1)
    assert with_history["history"] is True
    assert _uses(with_history) == {("pnpm", "current", False), ("npm", "historical", True)}
    old = next(e for e in with_history["edges"] if e["state"] == "historical")
    assert old["label"] == "uses (historical)"


def test_as_of_shows_the_graph_as_it_was(ui: Client, npm_pnpm: Namespace) -> None:
    then = data(ui, "proj", as_of="1")
    assert then["as_of"] == "1"
    assert _uses(then) == {("npm", "current", False)}
    assert "pnpm" not in _by_label(then)  # later facts and edges are hidden
    assert _uses(data(ui, "proj", as_of="2")) == {("pnpm", "current", False)}
    assert data(ui, "proj", as_of="2000-01-01")["nodes"] == []


def test_search_focuses_the_best_hit(ui: Client, big: Namespace) -> None:
    target = node_id(big, "n287")
    payload = data(ui, "big", q="Node 287")
    assert payload["search"] == {"query": "Node 287", "node": target}
    assert target in payload["focus"] and target in {n["id"] for n in payload["nodes"]}
    assert data(ui, "big", q="zebra crossing")["search"] == {
        "query": "zebra crossing",
        "node": None,
    }

    page = ui.get("/ns/big/graph/", {"q": "Node 287"})  # the same without JavaScript
    assert page.status_code == 200
    assert f'/ns/big/graph/nodes/{target}/">Node 287</a> <span class="badge accent">' in (
        page.content.decode()
    )
    missing = ui.get("/ns/big/graph/", {"q": "zebra crossing"}).content.decode()
    assert "No node matches “zebra crossing”." in missing


# --- the page without JavaScript -----------------------------------------------------------------


def test_graph_page_lists_the_shown_nodes_in_a_table(ui: Client, big: Namespace) -> None:
    response = ui.get("/ns/big/graph/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Showing 150 of 300 nodes" in html
    assert html.count('<th scope="row" class="name">') == 150
    hub = node_id(big, "n0")
    assert f'<a href="/ns/big/graph/nodes/{hub}/">Node 0</a>' in html
    # The canvas and its scripts come from this server only.
    assert "/static/vendor/vis-network/vis-network.min.js" in html
    assert "/static/vendor/vis-data/vis-data.min.js" in html
    assert "cdn" not in html.lower() and "<style" not in html
    embedded = re.search(r'<script id="graph-data" type="application/json">(.*?)</script>', html)
    assert embedded and json.loads(embedded.group(1))["shown_nodes"] == 150


def test_empty_namespace_says_so(ui: Client) -> None:
    namespace_get_or_create(name="empty")
    response = ui.get("/ns/empty/graph/")
    assert response.status_code == 200
    assert "The graph is empty." in response.content.decode()
    assert data(ui, "empty")["nodes"] == []


# --- the node page -------------------------------------------------------------------------------


def test_node_page_splits_current_and_historical_facts(ui: Client, npm_pnpm: Namespace) -> None:
    project = GraphNode.objects.get(namespace=npm_pnpm, node_type="project")
    response = ui.get(f"/ns/proj/graph/nodes/{project.pk}/")
    assert response.status_code == 200
    detail = response.context["detail"]
    current = {(r.fact.key, r.fact.value.lower()) for r in detail.current_facts}
    historical = {(r.fact.key, r.fact.value.lower()) for r in detail.historical_facts}
    assert ("package_manager", "pnpm") in current
    assert ("package_manager", "npm") in historical
    assert {(r.other_name.lower(), r.outgoing) for r in detail.current_edges.rows} >= {
        ("pnpm", True)
    }
    assert {r.other_name.lower() for r in detail.historical_edges.rows} == {"npm"}

    html = response.content.decode()
    current_html = html[html.index("Current facts") : html.index("Historical facts")]
    historical_html = html[html.index("Historical facts") : html.index('aria-label="Edges"')]
    assert re.search(r"package_manager:</span> <span class=\"fact-value\">pnpm", current_html, re.I)
    assert re.search(
        r"package_manager:</span> <span class=\"fact-value\">npm", historical_html, re.I
    )
    assert "from turn 1" in historical_html and "to turn 2" in historical_html
    # Provenance: the events (linked to the event page) and their source messages.
    events = list(
        Event.objects.filter(namespace=npm_pnpm, nodes=project).values_list("pk", flat=True)
    )
    for event in events:
        assert f'href="/ns/proj/events/{event}/"' in html
    source = Message.objects.get(namespace=npm_pnpm, content="Let's switch to pnpm.")
    assert f'href="/ns/proj/messages/{source.pk}/"' in html
    assert "Let&#x27;s switch to pnpm." in html

    then = ui.get(f"/ns/proj/graph/nodes/{project.pk}/", {"as_of": "1"}).context["detail"]
    assert {(r.fact.key, r.fact.value.lower()) for r in then.current_facts} == {
        ("package_manager", "npm")
    }


def test_provenance_events_show_their_lifecycle_with_the_shared_badge(
    ui: Client, npm_pnpm: Namespace
) -> None:
    project = GraphNode.objects.get(namespace=npm_pnpm, node_type="project")
    html = ui.get(f"/ns/proj/graph/nodes/{project.pk}/").content.decode()

    provenance = re.findall(r'<p class="prov-meta">.*?</p>', html, re.S)
    statuses = list(
        Event.objects.filter(namespace=npm_pnpm, nodes=project)
        .order_by("-pk")
        .values_list("status", flat=True)
    )
    assert sorted(statuses) == ["active", "superseded"]
    for status in statuses:
        assert sum(str(lifecycle_badge(status)) in p for p in provenance) == 1
    source = (ROOT / "templates/graphui/partials/_node_detail.html").read_text()
    assert "{% lifecycle_badge event.status %}" in source and "{{ event.status }}" not in source


def test_partial_is_the_same_fragment_the_page_shows(ui: Client, npm_pnpm: Namespace) -> None:
    project = GraphNode.objects.get(namespace=npm_pnpm, node_type="project")
    fragment = ui.get(f"/ns/proj/graph/nodes/{project.pk}/", {"partial": "detail"}).content.decode()
    page = ui.get(f"/ns/proj/graph/nodes/{project.pk}/").content.decode()
    assert "<html" not in fragment and fragment.lstrip().startswith('<article class="node-detail"')
    assert '<article class="node-detail"' in page
    assert 'data-expand="' in fragment  # the panel can expand the neighbourhood

    # Same facts, edges and sources markup in both.
    def facts(html: str) -> list[str]:
        return re.findall(r'<li class="fact[^"]*">.*?</li>', html, re.S)

    assert facts(fragment) == facts(page) != []
    # The panel is asked for by name, like every partial; the old `?partial=1` is a 404.
    old = ui.get(f"/ns/proj/graph/nodes/{project.pk}/", {"partial": "1"})
    assert old.status_code == 404 and b"partial_not_found" in old.content


def test_node_neighbours_match_the_graph_selector(ui: Client, big: Namespace) -> None:
    hub = GraphNode.objects.get(namespace=big, key="n3")
    detail = ui.get(f"/ns/big/graph/nodes/{hub.pk}/").context["detail"]
    expected = [(n.id, n.name, n.type) for n in node_neighbours(hub)]
    assert [(n.id, n.name, n.type) for n in detail.neighbours] == expected
    assert detail.neighbours_shown.total == len(expected) and len(expected) > 0


# --- cost, writes, safety ------------------------------------------------------------------------


def _queries(ui: Client, path: str, **params: Any) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert ui.get(path, params).status_code == 200
    return len(captured)


def test_query_counts_do_not_grow_with_the_graph(
    ui: Client, small: Namespace, big: Namespace
) -> None:
    for path, params in (
        ("/ns/{ns}/graph/data.json", {}),
        ("/ns/{ns}/graph/data.json", {"history": "1", "as_of": "2999-01-01", "focus": "{hub}"}),
        ("/ns/{ns}/graph/", {}),
        ("/ns/{ns}/graph/nodes/{hub}/", {}),
        ("/ns/{ns}/graph/nodes/{hub}/", {"partial": "detail"}),
    ):
        counts = []
        for namespace in (small, big):
            hub = node_id(namespace, "n0")
            filled = {k: v.format(hub=hub) for k, v in params.items()}
            counts.append(_queries(ui, path.format(ns=namespace.name, hub=hub), **filled))
        assert counts[0] == counts[1], (path, params, counts)
        assert counts[0] <= 20, (path, counts)


def test_browsing_the_graph_records_no_retrieval_batch(ui: Client, npm_pnpm: Namespace) -> None:
    project = GraphNode.objects.get(namespace=npm_pnpm, node_type="project")
    before = RetrievalBatch.objects.count()
    events = list(Event.objects.values_list("pk", "last_retrieved_at", "adoptions"))
    for path, params in (
        ("/ns/proj/graph/", {}),
        ("/ns/proj/graph/", {"q": "pnpm", "history": "1"}),
        ("/ns/proj/graph/data.json", {"q": "pnpm", "focus": project.pk}),
        (f"/ns/proj/graph/nodes/{project.pk}/", {}),
        (f"/ns/proj/graph/nodes/{project.pk}/", {"partial": "detail", "as_of": "1"}),
    ):
        assert ui.get(path, params).status_code == 200
    assert RetrievalBatch.objects.count() == before
    assert list(Event.objects.values_list("pk", "last_retrieved_at", "adoptions")) == events


def test_hostile_names_stay_plain_text(ui: Client) -> None:
    hostile_namespace_create()
    payload = data(ui, "hostile")
    names = {n.get("name", n["label"]) for n in payload["nodes"]}
    assert names == {f"Tool {IMG}", f"Project {SCRIPT}"}
    for node in payload["nodes"]:
        assert "title" not in node and "&lt;" not in node["label"]
    for edge in payload["edges"]:
        assert "title" not in edge
    assert "multi" not in json.dumps(payload["options"])  # labels are never parsed as HTML

    page = ui.get("/ns/hostile/graph/").content.decode()
    project = GraphNode.objects.get(namespace__name="hostile", key="hostile-project")
    node = ui.get(f"/ns/hostile/graph/nodes/{project.pk}/").content.decode()
    panel = ui.get(f"/ns/hostile/graph/nodes/{project.pk}/", {"partial": "detail"}).content.decode()
    for html in (page, node, panel):
        for probe in PROBES[:2]:
            assert probe not in html
        assert "&lt;script&gt;" in html or "&lt;img" in html
    assert "javascript:alert" not in re.findall(r'href="([^"]*)"', node + panel)


def test_secrets_are_redacted_everywhere(ui: Client) -> None:
    namespace = graph_build(
        "leaky", 12, extra_nodes=[{"key": "leak", "name": f"Vault {SECRET}", "type": "tool"}]
    )
    leak = node_id(namespace, "leak")
    payload = json.dumps(data(ui, "leaky", q="Vault", focus=leak))
    page = ui.get("/ns/leaky/graph/", {"focus": leak}).content.decode()
    node = ui.get(f"/ns/leaky/graph/nodes/{leak}/").content.decode()
    for text in (payload, page, node):
        assert "sk-abcdefghijklmnop1234" not in text
        assert "[REDACTED]" in text


def test_pyvis_is_imported_only_by_graph_render() -> None:
    importers = []
    for folder in ("memory", "graphui", "stratagate_site", "benchmarks", "scripts", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                if any(n.split(".")[0] == "pyvis" for n in names):
                    importers.append(str(path.relative_to(ROOT)))
    assert sorted(set(importers)) == ["graphui/graph_render.py"]


def test_the_graph_pages_only_read(ui: Client, small: Namespace) -> None:
    hub = node_id(small, "n0")
    for path in ("/ns/small/graph/", "/ns/small/graph/data.json", f"/ns/small/graph/nodes/{hub}/"):
        assert ui.post(path).status_code == 405
