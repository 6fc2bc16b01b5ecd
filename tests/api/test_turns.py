"""POST /ns/{ns}/turns: source-first, idempotent ingest with sealing and clean 4xx errors."""

from __future__ import annotations

import json

import pytest

from memory.models import Block, BlockView, IngestReceipt, Message, Namespace, ProcessingJob, Turn
from tests.conftest import turn_body

pytestmark = pytest.mark.django_db


def _counts() -> tuple[int, int, int, int]:
    return (
        Turn.objects.count(),
        Message.objects.count(),
        IngestReceipt.objects.count(),
        Block.objects.count(),
    )


def test_thirteen_turns_seal_two_blocks_and_leave_one_open(owner, drain):
    responses = [owner.post("/ns/proj/turns", turn_body(n)) for n in range(1, 14)]
    assert [r.status_code for r in responses] == [201] * 13
    sealed = [r.json()["sealed_block_id"] for r in responses]
    assert sealed[5] is not None and sealed[11] is not None
    assert sealed[:5] == [None] * 5 and sealed[12] is None
    assert responses[-1].json()["namespace_turn"] == 13
    assert responses[-1].json()["session_turn"] == 13

    drain()
    body = owner.get("/ns/proj/sessions/s1/blocks").json()
    assert [b["status"] for b in body["blocks"]] == ["ready", "ready"]
    assert [b["turn_range"] for b in body["blocks"]] == [[1, 6], [7, 12]]
    assert body["open_tail_turns"] == 1
    assert body["block_turns"] == 6
    # Six views per block: L3–L5 at sealing, L0–L2 by the offline processor.
    assert BlockView.objects.filter(block_id=sealed[5]).count() == 6


def test_replayed_turn_is_stored_once(owner):
    first = owner.post("/ns/proj/turns", turn_body(1))
    before = _counts()
    again = owner.post("/ns/proj/turns", turn_body(1))
    assert first.status_code == 201
    assert again.status_code == 200
    assert again.json()["duplicate"] is True
    assert again.json()["turn_id"] == first.json()["turn_id"]
    assert _counts() == before
    assert Namespace.objects.get(name="proj").current_turn == 1


def test_reused_receipt_with_other_content_is_409_and_writes_nothing(owner):
    owner.post("/ns/proj/turns", turn_body(1))
    before = _counts()
    response = owner.post("/ns/proj/turns", turn_body(1, user="Something else entirely"))
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "receipt_conflict"
    assert _counts() == before


def test_turn_numbers_are_per_namespace_and_per_session(owner):
    owner.post("/ns/proj/turns", turn_body(1, session="a"))
    owner.post("/ns/proj/turns", turn_body(1, session="b"))
    third = owner.post("/ns/proj/turns", turn_body(2, session="a")).json()
    assert third["namespace_turn"] == 3
    assert third["session_turn"] == 2


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (lambda b: b["messages"].append({"role": "robot", "content": "hi"}), "unknown_role"),
        (
            lambda b: b["messages"].__setitem__(0, {"role": "user", "content": "  "}),
            "empty_user_message",
        ),
        (lambda b: b.__setitem__("messages", []), "empty_turn"),
        (
            lambda b: b.__setitem__("messages", [{"role": "user", "content": "x"}] * 501),
            "too_many_messages",
        ),
        (
            lambda b: b["messages"].__setitem__(
                0, {"role": "user", "content": "x" * (1024 * 1024 + 1)}
            ),
            "turn_too_large",
        ),
        (lambda b: b.__setitem__("receipt_id", ""), "invalid_receipt_id"),
        (lambda b: b.pop("session_id"), "validation_error"),
        (lambda b: b.__setitem__("messages", "not a list"), "validation_error"),
    ],
)
def test_invalid_turns_get_422_and_nothing_is_written(owner, mutate, code):
    body = turn_body(1)
    mutate(body)
    response = owner.post("/ns/proj/turns", body)
    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"]
    assert _counts() == (0, 0, 0, 0)
    assert Namespace.objects.get(name="proj").current_turn == 0


def test_malformed_json_is_400_with_the_error_envelope(owner):
    response = owner.post("/ns/proj/turns", raw='{"session_id": "s1", ')
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_json"
    assert _counts() == (0, 0, 0, 0)


def test_missing_token_is_401(owner):
    owner.token = ""
    response = owner.post("/ns/proj/turns", turn_body(1))
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


def test_bad_token_is_401(owner):
    owner.token = "sg_deadbeef_not-a-real-token"
    assert owner.post("/ns/proj/turns", turn_body(1)).status_code == 401


def test_stranger_token_gets_404_like_an_unknown_namespace(stranger, owner):
    foreign = stranger.post("/ns/proj/turns", turn_body(1))
    unknown = owner.post("/ns/nowhere/turns", turn_body(1))
    assert foreign.status_code == unknown.status_code == 404
    assert (
        foreign.json()["error"]["code"] == unknown.json()["error"]["code"] == "namespace_not_found"
    )
    assert _counts() == (0, 0, 0, 0)


def test_read_token_cannot_ingest(reader):
    response = reader.post("/ns/proj/turns", turn_body(1))
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "insufficient_scope"


def test_own_memory_tool_calls_are_not_stored(owner):
    body = turn_body(1)
    body["messages"] = [
        {"role": "user", "content": "What did we decide about storage?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"name": "memory_search_events", "arguments": {"query": "storage"}}],
        },
        {"role": "tool", "name": "memory_search_events", "content": '{"results": ["old memory"]}'},
        {
            "role": "assistant",
            "content": "We chose Postgres.",
            "tool_calls": [
                {"name": "memory_record_use", "arguments": {}},
                {"name": "run_tests", "arguments": {"path": "."}, "result": "ok"},
            ],
        },
    ]
    assert owner.post("/ns/proj/turns", body).status_code == 201
    stored = list(Message.objects.order_by("position"))
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[1].tool_calls == [
        {"name": "run_tests", "arguments": {"path": "."}, "result": "ok"}
    ]
    assert "old memory" not in json.dumps([m.content for m in stored])


def test_ingest_queues_one_processing_job_per_sealed_block(owner):
    for n in range(1, 13):
        owner.post("/ns/proj/turns", turn_body(n))
    assert ProcessingJob.objects.filter(kind="block_views").count() == 2


def test_naive_timestamps_are_taken_as_utc(owner):
    body = turn_body(1)
    body["occurred_at"] = "2023-05-06T10:00:00"
    owner.post("/ns/proj/turns", body)
    assert Turn.objects.get().occurred_at.isoformat() == "2023-05-06T10:00:00+00:00"


def test_body_over_the_upload_limit_is_413(owner):
    body = turn_body(1)
    body["messages"][0]["content"] = "x" * (7 * 1024 * 1024)
    response = owner.post("/ns/proj/turns", body)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"
    assert _counts() == (0, 0, 0, 0)
