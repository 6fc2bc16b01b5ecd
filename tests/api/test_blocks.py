"""Blocks, display decay, expansion and λ over the API (SPEC §4)."""

from __future__ import annotations

import pytest

from memory.models import Block, BlockStatus
from tests.conftest import turn_body

pytestmark = pytest.mark.django_db


def _ingest_blocks(owner, drain, count: int, *, session: str = "s1", start: int = 1) -> None:
    for n in range(start, start + 6 * count):
        assert owner.post("/ns/proj/turns", turn_body(n, session=session)).status_code == 201
    drain()


def _levels(owner, session: str = "s1") -> list[int | None]:
    return [b["level"] for b in owner.get(f"/ns/proj/sessions/{session}/blocks").json()["blocks"]]


def test_levels_follow_the_lambda_030_schedule_as_blocks_are_added(owner, drain):
    # SPEC §4.4: by ready blocks after it, 0–1 → L5, 2 → L4, 3–4 → L3, 5–6 → L2, 7–8 → L1, ≥9 → L0.
    _ingest_blocks(owner, drain, 1)
    assert _levels(owner) == [5]
    _ingest_blocks(owner, drain, 2, start=7)
    assert _levels(owner) == [4, 5, 5]
    _ingest_blocks(owner, drain, 8, start=19)
    assert _levels(owner) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 5]


def test_block_content_is_the_view_at_its_level(owner, drain):
    _ingest_blocks(owner, drain, 10)
    blocks = owner.get("/ns/proj/sessions/s1/blocks").json()["blocks"]
    oldest = Block.objects.get(pk=blocks[0]["block_id"])
    assert blocks[0]["level"] == 0
    assert blocks[0]["content"] == oldest.views.get(level=0).content
    assert blocks[0]["content"].splitlines()[1].startswith("Tags: ")
    assert (
        blocks[-1]["content"]
        == oldest.__class__.objects.get(pk=blocks[-1]["block_id"]).views.get(level=5).content
    )


def test_expanding_an_old_block_re_anchors_it_and_it_decays_from_there(owner, drain):
    _ingest_blocks(owner, drain, 10)
    first = owner.get("/ns/proj/sessions/s1/blocks").json()["blocks"][0]
    assert first["level"] == 0
    response = owner.post(f"/ns/proj/blocks/{first['block_id']}/expand", {"target": "L4"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["level"] == 4
    assert body["ref"] == f"block:{first['block_id']}:L4"
    assert body["content"] == Block.objects.get(pk=first["block_id"]).views.get(level=4).content
    block = Block.objects.get(pk=first["block_id"])
    assert (block.anchor_level, block.anchor_position, block.last_lifted_by) == (4, 10, "agent")
    assert _levels(owner)[0] == 4
    # From anchor L4: one more block → w 0.741 → still L4; two more → w 0.549 → L3.
    _ingest_blocks(owner, drain, 1, start=61)
    assert _levels(owner)[0] == 4
    _ingest_blocks(owner, drain, 1, start=67)
    assert _levels(owner)[0] == 3


@pytest.mark.parametrize(
    ("target", "level"), [("L2", 2), (3, 3), ("raw", 5), ("next", 1), ("l5", 5), ("0", 0)]
)
def test_expand_targets(owner, drain, target, level):
    _ingest_blocks(owner, drain, 10)
    first = owner.get("/ns/proj/sessions/s1/blocks").json()["blocks"][0]
    response = owner.post(f"/ns/proj/blocks/{first['block_id']}/expand", {"target": target})
    assert response.status_code == 200
    assert response.json()["level"] == level


@pytest.mark.parametrize("target", ["L9", "bigger", 6, -1])
def test_invalid_expand_target_is_422_and_changes_nothing(owner, drain, target):
    _ingest_blocks(owner, drain, 1)
    block = Block.objects.get()
    response = owner.post(f"/ns/proj/blocks/{block.pk}/expand", {"target": target})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_target"
    block.refresh_from_db()
    assert block.last_lifted_at is None


def test_expanding_a_pending_block_is_409(owner):
    for n in range(1, 7):
        owner.post("/ns/proj/turns", turn_body(n))
    block = Block.objects.get()
    assert block.status == BlockStatus.PENDING
    response = owner.post(f"/ns/proj/blocks/{block.pk}/expand", {"target": "L4"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "block_not_ready"


def test_pending_blocks_show_raw_turns_and_do_not_advance_decay(owner, drain):
    _ingest_blocks(owner, drain, 3)
    for n in range(19, 25):
        owner.post("/ns/proj/turns", turn_body(n))
    blocks = owner.get("/ns/proj/sessions/s1/blocks").json()["blocks"]
    assert [b["status"] for b in blocks] == ["ready", "ready", "ready", "pending"]
    assert [b["level"] for b in blocks] == [4, 5, 5, None]
    assert blocks[-1]["content"].startswith("user: Question 19")


def test_foreign_block_is_404(owner, stranger, drain):
    _ingest_blocks(owner, drain, 1)
    block = Block.objects.get()
    assert stranger.post(f"/ns/proj/blocks/{block.pk}/expand", {"target": 5}).status_code == 404
    assert owner.post("/ns/proj/blocks/999999/expand", {"target": 5}).status_code == 404


def test_empty_block_lists_say_why(owner, drain):
    assert owner.get("/ns/proj/sessions/s1/blocks").json()["reason"] == "no_blocks_yet"
    owner.post("/ns/proj/turns", turn_body(1))
    assert owner.get("/ns/proj/sessions/s1/blocks").json()["reason"] == "open_tail_pending"
    _ingest_blocks(owner, drain, 1, session="other", start=100)
    assert (
        owner.get("/ns/proj/sessions/nobody/blocks").json()["reason"] == "blocks_in_other_sessions"
    )


def test_changing_lambda_recomputes_every_level_at_once(owner, admin, drain):
    _ingest_blocks(owner, drain, 10)
    _ingest_blocks(owner, drain, 1, session="s2", start=200)  # other sessions don't count
    assert _levels(owner) == [0, 1, 1, 2, 2, 3, 3, 4, 5, 5]
    response = admin.put("/settings", {"block_lambda": 0.10})
    assert response.status_code == 200, response.content
    assert response.json()["block_lambda"] == 0.10
    # λ 0.10: ages 0–3 L5, 4–6 L4, 7–9 L3 (w 0.497 … 0.407).
    assert _levels(owner) == [3, 3, 3, 4, 4, 4, 5, 5, 5, 5]
    assert admin.put("/settings", {"block_lambda": 0}).status_code == 200
    assert _levels(owner) == [5] * 10


def test_settings_survive_and_win_over_the_environment(admin, settings):
    admin.put("/settings", {"block_lambda": 0.45, "block_turns": 3})
    settings.STRATAGATE_BLOCK_LAMBDA = 0.9
    body = admin.get("/settings").json()
    assert (body["block_lambda"], body["block_turns"], body["saved"]) == (0.45, 3, True)
    assert body["level_schedule"][:3] == [5, 4, 3]  # w 1, 0.638, 0.407


def test_smaller_block_size_applies_to_future_sealing_only(owner, admin, drain):
    _ingest_blocks(owner, drain, 1)
    admin.put("/settings", {"block_turns": 2})
    for n in range(7, 11):
        owner.post("/ns/proj/turns", turn_body(n))
    drain()
    ranges = [b["turn_range"] for b in owner.get("/ns/proj/sessions/s1/blocks").json()["blocks"]]
    assert ranges == [[1, 6], [7, 8], [9, 10]]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"block_lambda": 0.33}, "invalid_block_lambda"),
        ({"block_lambda": 1.05}, "invalid_block_lambda"),
        ({"block_lambda": -0.05}, "invalid_block_lambda"),
        ({"block_lambda": "fast"}, "invalid_block_lambda"),
        ({"block_turns": 0}, "invalid_block_turns"),
        ({"block_turns": 101}, "invalid_block_turns"),
        ({"block_turns": 2.5}, "invalid_block_turns"),
    ],
)
def test_invalid_settings_are_422_and_keep_the_old_values(admin, body, code):
    admin.put("/settings", {"block_lambda": 0.25, "block_turns": 8})
    response = admin.put("/settings", body)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == code
    current = admin.get("/settings").json()
    assert (current["block_lambda"], current["block_turns"]) == (0.25, 8)


def test_settings_need_admin_scope(owner):
    assert owner.get("/settings").status_code == 403
    assert owner.put("/settings", {"block_lambda": 0.5}).status_code == 403


def test_context_returns_layered_history_with_token_counts(owner, drain):
    _ingest_blocks(owner, drain, 3)
    for n in range(19, 22):
        owner.post("/ns/proj/turns", turn_body(n))
    body = owner.get("/ns/proj/context", session_id="s1", query="storage").json()
    history = body["history"]
    assert [b["level"] for b in history["blocks"]] == [4, 5, 5]
    assert history["open_tail_turns"] == 3
    assert [m["role"] for m in history["open_tail"]] == ["user", "assistant"] * 3
    tail_tokens = history["tokens"] - sum(b["tokens"] for b in history["blocks"])
    assert 0 < tail_tokens < 100
    assert body["total_tokens"] == history["tokens"] + body["activated"]["tokens"]


def test_health_reports_counts_jobs_and_mode(owner, drain):
    _ingest_blocks(owner, drain, 2)
    body = owner.get("/ns/proj/health").json()
    assert body["counts"]["turns"] == 12
    assert body["counts"]["blocks"] == {"ready": 2}
    assert body["jobs"]["block_views"] == {"succeeded": 2}
    assert body["model_mode"] == "offline"
    assert body["settings"] == {"block_lambda": 0.3, "block_turns": 6}


def test_context_history_reads_only_the_view_each_block_shows(owner, drain):
    """The context's history shows what the full read (the session page's) shows, from one
    view per block: ready blocks at L0–L5 by decay, and a pending block as its raw L5."""
    from memory.models import Session
    from memory.selectors.blocks import layered_history

    _ingest_blocks(owner, drain, 10)
    for n in range(61, 67):  # a sixth turn seals an 11th block, left pending (not drained)
        owner.post("/ns/proj/turns", turn_body(n))
    session = Session.objects.get(external_id="s1")

    full = layered_history(session=session, all_views=True)
    shown = layered_history(session=session)

    def seen(history):
        return [
            (d.block.pk, d.level, d.content, d.tokens) for d in history.blocks + history.pending
        ]

    assert seen(shown) == seen(full)
    assert {d.level for d in shown.blocks} >= {0, 5} and [d.level for d in shown.pending] == [None]
    assert all(len(d.views) == 1 for d in shown.blocks + shown.pending)
    assert all(len(d.views) == 6 for d in full.blocks)
    assert shown.tokens == full.tokens
