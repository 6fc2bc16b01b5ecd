"""The graph page in a real browser: the vis-network canvas under the strict CSP, history and
as-of controls, a real click on a node opening its panel, search-to-focus, neighbourhood
expansion, a narrow window, and hostile names drawn as text."""

from __future__ import annotations

import re
from typing import Any

import pytest

from memory.models import GraphNode, Namespace
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.settings import memory_settings_update
from tests.browser.conftest import PageWatch, assert_probes_inert, log_in, screenshot
from tests.browser.hostile import hostile_namespace_create
from tests.graphui.test_graph import graph_build

pytestmark = pytest.mark.browser

# Data fixtures come before `browser_page` in every signature: see tests/browser/conftest.py.

READY = "window.sgGraphReady === true"


@pytest.fixture
def proj(db: None) -> dict[str, int]:
    """SPEC §6.5 in namespace `proj`: npm, then pnpm, then a plan (one block per statement), and
    a teammate in Chinese. Returns node ids by lower-case name."""
    memory_settings_update(block_turns=1)
    namespace = namespace_get_or_create(name="proj")
    lines = (
        "Use npm for this project.",
        "Let's switch to pnpm.",
        "Finish the prototype next week.",
        "I work at Northwind Labs.",
        "我住在杭州",
    )
    for n, text in enumerate(lines, start=1):
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
    return {
        name.lower(): pk
        for pk, name in GraphNode.objects.filter(namespace=namespace).values_list("pk", "name")
    }


@pytest.fixture
def big(db: None) -> Namespace:
    return graph_build("big", 300)


@pytest.fixture
def hostile(db: None) -> dict[str, int]:
    namespace = hostile_namespace_create()
    return dict(GraphNode.objects.filter(namespace=namespace).values_list("key", "pk"))


def open_graph(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_function(READY)


def labels(page: Any) -> set[str]:
    script = "() => window.sgGraph.nodes.map(n => (n.name || n.label).toLowerCase())"
    return set(page.evaluate(script))


def panel_text(page: Any) -> str:
    return str(page.locator("#node-panel").inner_text())


def test_canvas_history_as_of_and_a_clicked_node(
    staff_user: Any, proj: dict[str, int], live_server: Any, browser_page: Any, watch: PageWatch
) -> None:
    page = browser_page
    log_in(page, live_server.url)
    open_graph(page, f"{live_server.url}/ns/proj/graph/")
    count = len(labels(page))
    assert page.locator("#graph-counts").inner_text() == f"Showing {count} of {count} nodes"
    assert "pnpm" in labels(page) and "npm" not in labels(page)
    assert page.locator(".node-table tbody tr").count() == len(labels(page))
    # The peer build takes its CSS from our static file: no injected <style>, no inline styles
    # set through markup (vis-network sets element.style properties, which CSP allows).
    assert page.evaluate("() => document.querySelectorAll('style').length") == 0
    assert page.locator("#graph-canvas canvas").count() == 1
    screenshot(page, "graph")

    # A real click on the project node, at the position vis-network drew it.
    groups = page.evaluate(
        "() => Object.fromEntries(window.sgGraph.nodes.map(n => [n.id, n.group]))"
    )
    project = next(pk for pk in proj.values() if groups.get(str(pk)) == "project")
    spot = page.evaluate(f"() => window.sgGraph.domPosition({project})")
    page.mouse.click(spot["x"], spot["y"])
    page.wait_for_selector(f'#node-panel .node-detail[data-node-id="{project}"]')
    assert page.evaluate("() => window.sgGraph.selected()") == project
    text = panel_text(page)
    current = text[text.index("Current facts") : text.index("Historical facts")]
    historical = text[text.index("Historical facts") : text.index("Edges")]
    assert re.search(r"package_manager:\s*pnpm", current, re.I)
    assert re.search(r"package_manager:\s*npm", historical, re.I)
    screenshot(page, "graph-node-panel")

    # History: a checkbox that reloads the page with ?history=1; the old edge is dashed.
    with page.expect_navigation():
        page.check("#g-history")
    page.wait_for_function(READY)
    assert "history=1" in page.url
    assert "npm" in labels(page)
    dashed = page.evaluate(
        "() => window.sgGraph.edges.get({filter: e => e.state === 'historical'})"
    )
    assert dashed and all(e["dashes"] is True and "historical" in e["label"] for e in dashed)
    screenshot(page, "graph-history")

    # As of turn 1: npm is current, pnpm did not exist yet; the panel follows the as-of.
    page.fill("#g-as-of", "1")
    with page.expect_navigation():
        page.click("#graph-controls button[type=submit]")
    page.wait_for_function(READY)
    assert "as_of=1" in page.url
    assert "npm" in labels(page) and "pnpm" not in labels(page)
    assert page.evaluate(f"() => window.sgGraph.select({project})") is True
    text = panel_text(page)
    assert "as of 1" in text
    assert re.search(r"package_manager:\s*npm", text[: text.index("Historical facts")], re.I)

    watch.assert_clean()

    # A bad as-of is explained on the page (422), and the canvas is not drawn.
    page.fill("#g-as-of", "next tuesday-ish")
    with page.expect_navigation():
        page.click("#graph-controls button[type=submit]")
    assert (
        "a namespace turn like 42 or a date like 2026-10-01"
        in page.locator("#g-as-of-error").inner_text()
    )
    assert page.locator("#graph-canvas").count() == 0
    # The 422 itself is the only thing Chromium reports.
    assert [f.split(" ")[0] for f in watch.failed] == ["422"]
    assert len(watch.console_errors) == 1 and "422" in watch.console_errors[0]
    watch.console_errors.clear()
    watch.assert_clean(allow_status=(422,))


def test_search_focuses_and_expand_adds_a_neighbourhood(
    staff_user: Any, big: Namespace, live_server: Any, browser_page: Any, watch: PageWatch
) -> None:
    page = browser_page
    log_in(page, live_server.url)
    open_graph(page, f"{live_server.url}/ns/big/graph/")
    assert page.locator("#graph-counts").inner_text() == "Showing 150 of 300 nodes"
    shown = page.evaluate("() => window.sgGraph.nodes.length")
    assert shown == 150

    # Typing matches loaded nodes at once; Enter asks the server and focuses the best hit.
    page.fill("#g-q", "Node 1")
    assert page.locator("#g-matches li").count() > 0
    page.fill("#g-q", "Node 298")
    page.press("#g-q", "Enter")
    page.wait_for_selector('#node-panel .node-name:text("Node 298")')
    assert "Focused the best match" in page.locator("#g-q-status").inner_text()
    assert page.evaluate("() => window.sgGraph.nodes.length") > shown
    assert "focus=" in page.url

    # Expanding from the panel adds that node's neighbours to the canvas.
    before = page.evaluate("() => window.sgGraph.nodes.length")
    page.click('#node-panel button[data-depth="2"]')
    page.wait_for_function(f"() => window.sgGraph.nodes.length > {before}")
    counts = page.locator("#graph-counts").inner_text()
    assert counts == f"Showing {page.evaluate('() => window.sgGraph.nodes.length')} of 300 nodes"

    page.fill("#g-q", "zebra crossing")
    page.press("#g-q", "Enter")
    page.wait_for_function(
        "() => document.getElementById('g-q-status').textContent.includes('No node matches')"
    )
    watch.assert_clean()


def test_narrow_window(
    staff_user: Any, proj: dict[str, int], live_server: Any, browser_page: Any, watch: PageWatch
) -> None:
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, live_server.url)
    open_graph(page, f"{live_server.url}/ns/proj/graph/")
    assert page.evaluate(f"() => window.sgGraph.select({proj['pnpm']})") is True
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    screenshot(page, "graph-narrow")
    watch.assert_clean()


def test_hostile_names_are_drawn_as_text(
    staff_user: Any, hostile: dict[str, int], live_server: Any, browser_page: Any, watch: PageWatch
) -> None:
    page = browser_page
    log_in(page, live_server.url)
    open_graph(page, f"{live_server.url}/ns/hostile/graph/")
    assert page.evaluate(f"() => window.sgGraph.select({hostile['hostile-project']})") is True
    assert "<script>" in panel_text(page)  # shown as text
    assert_probes_inert(page)
    screenshot(page, "graph-hostile")

    page.goto(f"{live_server.url}/ns/hostile/graph/nodes/{hostile['hostile-tool']}/")
    assert "<img src=x" in page.locator("h1").inner_text()
    assert_probes_inert(page)
    screenshot(page, "graph-node-hostile")
    watch.assert_clean()
