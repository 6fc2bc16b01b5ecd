"""'What the model saw' in a real browser: the panel opens from the usage audit's link, long
and Chinese text wraps, and nothing overflows a wide or a 380 px window (screenshots under
test-artifacts/screenshots/ for people to judge)."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import ProxyExchange, Session
from memory.selectors.blocks import block_display_list
from tests.browser.conftest import log_in, screenshot
from tests.graphui.proxy_support import proxied_session_create
from tests.graphui.test_model_saw import ROUNDS, talked  # noqa: F401  (the data fixture)

pytestmark = pytest.mark.django_db(transaction=True)

LONG_ARGUMENT = {"query": "迁移计划 " + "billing-shard-frankfurt-" * 30}


@pytest.fixture
def saw_data(talked: Session, staff_user: Any) -> int:  # noqa: F811
    shown = block_display_list(session=talked)
    rounds = [
        *ROUNDS,
        {"calls": [{"id": "c9", "name": "memory_search_raw", "arguments": LONG_ARGUMENT,
                    "status": 200, "ok": True, "result": {"passages": ["长文本" * 200]}}]},
    ]  # fmt: skip
    proxied_session_create(
        talked.namespace,
        "s1",
        system=("你是一个细心的助手。" * 60,),
        exchanges=(
            {"turn": 4},
            {
                "turn": 5,
                "injected_text": "历史背景：" + "我们使用 PostgreSQL 16，账单分片在法兰克福。" * 30,
                "injected_tokens": 420,
                "history_blocks": [
                    {"block_id": b.block.pk, "level": b.level, "first_turn": b.turn_range[0],
                     "last_turn": b.turn_range[1], "tokens": 50}
                    for b in shown[:2]
                ],
                "history_native_tokens": 3120,
                "history_sent_tokens": 980,
                "memory_rounds": rounds,
            },
        ),
    )  # fmt: skip
    return int(ProxyExchange.objects.get(turn__session_turn=5).pk)


def test_the_panel_reads_well_wide_and_narrow(saw_data: int, live_server: Any, browser_page: Any):
    page = browser_page
    base = live_server.url
    log_in(page, base)
    page.goto(f"{base}/ns/proj/sessions/s1?saw={saw_data}#saw-{saw_data}")
    panel = page.locator(f"#saw-{saw_data}")
    assert panel.get_attribute("open") is not None
    panel.locator("details.injected summary").click()
    assert "What the model saw" in panel.inner_text()
    panel.scroll_into_view_if_needed()
    screenshot(page, "model-saw-wide")
    panel.screenshot(
        path=str(screenshot(page, "model-saw-wide").with_name("model-saw-panel-wide.png"))
    )
    page.set_viewport_size({"width": 380, "height": 900})
    panel.scroll_into_view_if_needed()
    screenshot(page, "model-saw-narrow")
    panel.screenshot(
        path=str(screenshot(page, "model-saw-narrow").with_name("model-saw-panel-narrow.png"))
    )
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1
    empty = page.locator("details.model-saw").first
    empty.locator("summary").click()
    assert "No memory rounds." in empty.inner_text()
