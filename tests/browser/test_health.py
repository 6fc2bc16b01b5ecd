"""Namespaces list and namespace health in a real browser: the numbers, the three charts, an
empty namespace, a failed job, a long name and a narrow window; screenshots for people."""

from __future__ import annotations

from typing import Any

import pytest

from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.settings import memory_settings_update
from tests.browser.conftest import assert_probes_inert, log_in, screenshot
from tests.browser.hostile import hostile_namespace_create
from tests.graphui.test_health import SECRET, project, say

pytestmark = pytest.mark.browser

LONG_NAME = ("very-long-namespace-name." * 8)[:200]
CHINESE_TURNS = ("我们决定使用 PostgreSQL 作为数据库。", "下周完成原型。")


def _demo() -> bool:
    """The shared demo namespace when its loader is there (screenshots look like real use)."""
    try:
        from memory.demo import demo_load
    except ImportError:
        return False
    demo_load(name="demo")
    return True


@pytest.fixture
def namespaces(db: None, settings: Any, fake_openai: Any) -> dict[str, str]:
    """shop (processed, one forgotten event, one receipt), broken (a failed job whose error
    carries an API key), quiet (no turns), a 200-character name, hostile, and the demo."""
    demo = _demo()
    memory_settings_update(block_turns=1, block_lambda=0.30)
    shop = project("shop")
    for text in CHINESE_TURNS:
        say(shop, text, session="s3")
    jobs_drain()

    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    settings.STRATAGATE_LLM_API_KEY = "sk-test"
    fake_openai.default = f"garbage answer {SECRET}"
    broken = namespace_get_or_create(name="broken")
    say(broken, "Question about the storage layer?")
    jobs_drain()
    settings.STRATAGATE_LLM_MODEL = ""  # the pages run with the offline processor

    long = namespace_get_or_create(name=LONG_NAME)
    say(long, "A turn in a namespace with a very long name.")
    jobs_drain()
    namespace_get_or_create(name="quiet")
    hostile_namespace_create()
    memory_settings_update(block_turns=6)
    return {
        "shop": shop.name,
        "broken": broken.name,
        "quiet": "quiet",
        "demo": "demo" if demo else "",
    }


def _cells(page: Any, name: str) -> list[str]:
    row = page.locator("#namespaces tbody tr", has_text=name)
    assert row.count() == 1
    return [c.strip() for c in row.locator("th, td").all_inner_texts()]


def test_the_namespaces_table_shows_each_namespace_with_its_counts(
    staff_user: Any, namespaces: dict[str, str], live_server: Any, browser_page: Any, watch: Any
) -> None:
    page = browser_page
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/")
    assert page.locator("h1").inner_text() == "Namespaces"

    cells = _cells(page, "shop")
    # Namespace, sessions, turns, blocks ready/pending/failed, events active/superseded/
    # forgotten/archived, nodes, edges, receipts, adoptions, jobs running/failed, last activity
    assert cells[:4] == ["shop", "3", "6", "6"]
    assert cells[4:6] == ["0", "0"]
    assert cells[7:10] == ["1", "1", "0"]  # superseded npm, forgotten plan, none archived
    assert cells[12:16] == ["1", "1", "0", "0"]  # receipts, adoptions, jobs
    broken = _cells(page, "broken")
    assert "⚠ 1 failed block" in broken[0] and "⚠ 1 failed job" in broken[0]
    assert (broken[5], broken[15]) == ("1", "1")
    assert _cells(page, "quiet")[1:16] == ["0"] * 15

    screenshot(page, "namespaces")
    assert_probes_inert(page)
    watch.assert_clean()


def test_a_namespace_health_page_has_its_numbers_and_three_charts(
    staff_user: Any, namespaces: dict[str, str], live_server: Any, browser_page: Any, watch: Any
) -> None:
    page = browser_page
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/")
    with page.expect_navigation():
        page.locator("#namespaces a", has_text="shop").click()
    assert page.url == f"{live_server.url}/ns/shop/"
    assert page.locator("h1").inner_text() == "shop"

    charts = page.locator("svg.chart")
    assert charts.count() == 3
    titles = [charts.nth(i).locator("title").text_content() for i in range(3)]
    assert titles == ["Blocks by display level", "Events by weight band", "Adoptions over turns"]
    legend = page.locator("#chart-levels .chart-legend").inner_text()
    assert legend.startswith("6 ready blocks:")
    assert "receipts: 1" in page.locator("#chart-adoptions").inner_text()
    forgotten = page.locator("a[href='/ns/shop/events/?status=forgotten']")
    assert forgotten.locator("xpath=../..").locator(".value").inner_text() == "1"
    screenshot(page, "health")

    page.goto(f"{live_server.url}/ns/quiet/")
    assert page.locator("svg.chart").count() == 0
    assert "No answer has used memory yet" in page.locator("#chart-adoptions").inner_text()
    screenshot(page, "health-empty")

    page.goto(f"{live_server.url}/ns/broken/")
    # The processing page's own failed-job cards (one markup), with their copy button.
    failed = page.locator("#failed-jobs ol.failed-jobs").inner_text()
    assert "[REDACTED]" in failed and "sk-abcdefghijklmnop1234" not in failed
    assert page.locator("#failed-jobs button.copy-error").first.is_visible()
    assert page.locator("#model-calls table#calls-failed").count() == 1
    assert "Needs attention" in page.locator("main").inner_text()
    screenshot(page, "health-failed")

    if namespaces["demo"]:
        page.goto(f"{live_server.url}/ns/demo/")
        assert page.locator("svg.chart").count() == 3
        screenshot(page, "health-demo")

    page.goto(f"{live_server.url}/ns/hostile/")
    assert_probes_inert(page)
    watch.assert_clean()


def test_a_narrow_window_scrolls_the_table_and_keeps_the_names_readable(
    staff_user: Any, namespaces: dict[str, str], live_server: Any, browser_page: Any, watch: Any
) -> None:
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, live_server.url)
    page.goto(f"{live_server.url}/")

    wrap = page.locator(".table-wrap").first
    assert wrap.evaluate("el => el.scrollWidth > el.clientWidth")  # scrolls inside its box
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the page does not
    name = page.locator("#namespaces tbody th", has_text="very-long-namespace-name").first
    box = name.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert box["width"] >= 120 and box["height"] > 40  # wrapped over several lines
    wrap.evaluate("el => { el.scrollLeft = 400; }")
    after = name.bounding_box()
    assert after is not None and abs(after["x"] - box["x"]) < 2  # the name column stays
    wrap.evaluate("el => { el.scrollLeft = 0; }")
    screenshot(page, "namespaces-narrow")

    page.goto(f"{live_server.url}/ns/shop/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "health-narrow")
    page.goto(f"{live_server.url}/ns/quiet/")  # the curl example scrolls inside its box
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.goto(f"{live_server.url}/ns/broken/")  # failed-job cards and the model-call tables
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    screenshot(page, "health-failed-narrow")
    watch.assert_clean()
