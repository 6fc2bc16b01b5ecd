"""POST /ns/{ns}/turns/batch: many turns in one request, idempotent per receipt, all-or-nothing
on bad items, sealing exactly as one-by-one ingest does."""

from __future__ import annotations

from typing import Any

import pytest

from memory.models import (
    Block,
    BlockView,
    IngestReceipt,
    Message,
    Namespace,
    ProcessingJob,
    Session,
    Turn,
)
from tests.conftest import ApiClient, make_api, turn_body

pytestmark = pytest.mark.django_db

URL = "/ns/proj/turns/batch"


def _counts() -> tuple[int, int, int, int, int, int]:
    return (
        Session.objects.count(),
        Turn.objects.count(),
        Message.objects.count(),
        IngestReceipt.objects.count(),
        Block.objects.count(),
        ProcessingJob.objects.count(),
    )


def _batch(*turns: dict[str, Any]) -> dict[str, Any]:
    return {"turns": list(turns)}


def _current_turn(name: str = "proj") -> int:
    return Namespace.objects.get(name=name).current_turn


def test_a_batch_of_two_sessions_is_stored_in_order(owner: ApiClient) -> None:
    body = _batch(
        turn_body(1, session="a"),
        turn_body(1, session="b"),
        turn_body(2, session="a"),
        turn_body(3, session="a"),
        turn_body(2, session="b"),
    )
    response = owner.post(URL, body)
    assert response.status_code == 201, response.content
    out = response.json()
    assert (out["stored"], out["duplicates"], out["sealed_block_ids"]) == (5, 0, [])
    items = out["turns"]
    assert [i["index"] for i in items] == [0, 1, 2, 3, 4]
    assert [(i["session_id"], i["session_turn"]) for i in items] == [
        ("a", 1),
        ("b", 1),
        ("a", 2),
        ("a", 3),
        ("b", 2),
    ]
    assert [i["namespace_turn"] for i in items] == [1, 2, 3, 4, 5]
    assert [i["receipt_id"] for i in items] == ["a-r1", "b-r1", "a-r2", "a-r3", "b-r2"]
    assert not any(i["duplicate"] for i in items)
    assert _counts() == (2, 5, 10, 5, 0, 0)
    assert _current_turn() == 5
    assert dict(Session.objects.values_list("external_id", "turn_count")) == {"a": 3, "b": 2}
    stored = Turn.objects.get(pk=items[3]["turn_id"])
    assert (stored.session.external_id, stored.session_turn) == ("a", 3)
    assert list(stored.messages.values_list("position", "role", "content")) == [
        (0, "user", "Question 3 about the storage layer?"),
        (1, "assistant", "Answer 3: we keep it simple."),
    ]


def test_a_replayed_batch_stores_nothing(owner: ApiClient) -> None:
    body = _batch(*(turn_body(n) for n in range(1, 8)))
    first = owner.post(URL, body)
    before = _counts()
    again = owner.post(URL, body)
    assert (first.status_code, again.status_code) == (201, 200)
    assert _counts() == before == (1, 7, 14, 7, 1, 1)
    out = again.json()
    assert (out["stored"], out["duplicates"], out["sealed_block_ids"]) == (0, 7, [])
    assert all(i["duplicate"] for i in out["turns"])
    assert [i["turn_id"] for i in out["turns"]] == [i["turn_id"] for i in first.json()["turns"]]
    # A replay reports the block that now holds the turn, as the single endpoint does.
    block = first.json()["sealed_block_ids"][0]
    assert [i["sealed_block_id"] for i in out["turns"]] == [block] * 6 + [None]
    assert _current_turn() == 7


def test_a_half_new_batch_stores_only_its_new_turns(owner: ApiClient) -> None:
    old = owner.post(URL, _batch(*(turn_body(n) for n in range(1, 4)))).json()
    before = _counts()
    response = owner.post(URL, _batch(*(turn_body(n) for n in range(1, 7))))
    assert response.status_code == 201
    out = response.json()
    assert (out["stored"], out["duplicates"]) == (3, 3)
    assert [i["duplicate"] for i in out["turns"]] == [True] * 3 + [False] * 3
    assert [i["turn_id"] for i in out["turns"][:3]] == [i["turn_id"] for i in old["turns"]]
    assert [i["session_turn"] for i in out["turns"]] == [1, 2, 3, 4, 5, 6]
    # Three turns, six messages, three receipts, one block sealed with its one views job.
    assert tuple(a - b for a, b in zip(_counts(), before, strict=True)) == (0, 3, 6, 3, 1, 1)
    assert _current_turn() == 6


def test_a_receipt_repeated_inside_the_batch_is_a_replay_of_its_first_item(
    owner: ApiClient,
) -> None:
    out = owner.post(URL, _batch(turn_body(1), turn_body(2), turn_body(1))).json()
    assert (out["stored"], out["duplicates"]) == (2, 1)
    assert [i["duplicate"] for i in out["turns"]] == [False, False, True]
    assert out["turns"][2]["turn_id"] == out["turns"][0]["turn_id"]
    assert _counts()[1:4] == (2, 4, 2)


@pytest.mark.parametrize("bad_index", [0, 3, 6])
def test_an_invalid_item_at_index_k_writes_nothing(owner: ApiClient, bad_index: int) -> None:
    owner.post(URL, _batch(turn_body(1, session="old")))
    before = _counts()
    turns = [turn_body(n) for n in range(1, 8)]
    turns[bad_index]["messages"][0]["content"] = "   "
    response = owner.post(URL, _batch(*turns))
    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid_batch"
    assert error["message"]
    assert error["details"]["errors"] == [
        {
            "index": bad_index,
            "code": "empty_user_message",
            "message": "message 0 is an empty user message",
            "details": {"index": 0},
        }
    ]
    assert _counts() == before
    assert _current_turn() == 1


def test_every_bad_item_is_reported_with_its_index_and_code(owner: ApiClient) -> None:
    turns = [turn_body(n) for n in range(1, 6)]
    turns[1]["messages"].append({"role": "robot", "content": "beep"})
    turns[2]["messages"] = []
    turns[4]["receipt_id"] = ""
    response = owner.post(URL, _batch(*turns))
    assert response.status_code == 422
    errors = response.json()["error"]["details"]["errors"]
    assert [(e["index"], e["code"]) for e in errors] == [
        (1, "unknown_role"),
        (2, "empty_turn"),
        (4, "invalid_receipt_id"),
    ]
    assert _counts() == (0, 0, 0, 0, 0, 0)


def test_a_receipt_reused_inside_the_batch_with_other_content_is_422(owner: ApiClient) -> None:
    turns = [turn_body(1), turn_body(2), turn_body(1, user="Something else entirely?")]
    response = owner.post(URL, _batch(*turns))
    assert response.status_code == 422
    (error,) = response.json()["error"]["details"]["errors"]
    assert (error["index"], error["code"]) == (2, "receipt_reused_in_batch")
    assert error["details"] == {"receipt_id": "s1-r1", "first_index": 0}
    assert _counts() == (0, 0, 0, 0, 0, 0)


def test_a_stored_receipt_reused_with_other_content_is_409_and_writes_nothing(
    owner: ApiClient,
) -> None:
    first = owner.post("/ns/proj/turns", turn_body(2)).json()
    before = _counts()
    turns = [turn_body(1), turn_body(2, user="Changed my mind?"), turn_body(3)]
    response = owner.post(URL, _batch(*turns))
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "receipt_conflict"
    assert error["details"]["errors"] == [
        {
            "index": 1,
            "code": "receipt_conflict",
            "message": "receipt_id was already used for a turn with different content",
            "details": {"receipt_id": "s1-r2", "turn_id": first["turn_id"]},
        }
    ]
    assert _counts() == before
    assert _current_turn() == 1


def test_more_than_200_turns_are_refused_whole(owner: ApiClient) -> None:
    response = owner.post(URL, _batch(*(turn_body(n) for n in range(1, 202))))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "too_many_turns"
    assert error["details"] == {"turns": 201, "limit": 200}
    assert _counts() == (0, 0, 0, 0, 0, 0)


def test_exactly_200_turns_are_accepted(owner: ApiClient) -> None:
    response = owner.post(URL, _batch(*(turn_body(n) for n in range(1, 201))))
    assert response.status_code == 201
    assert response.json()["stored"] == 200
    assert _counts()[1:5] == (200, 400, 200, 33)


def test_an_empty_batch_is_422(owner: ApiClient) -> None:
    response = owner.post(URL, {"turns": []})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "empty_batch"


def test_a_schema_mismatch_names_the_item_in_its_location(owner: ApiClient) -> None:
    turns = [turn_body(1), turn_body(2), turn_body(3)]
    del turns[2]["session_id"]
    response = owner.post(URL, _batch(*turns))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert [e["loc"][2:5] for e in error["details"]["errors"]] == [["turns", 2, "session_id"]]
    assert _counts() == (0, 0, 0, 0, 0, 0)


def test_no_token_is_401(owner: ApiClient) -> None:
    owner.token = ""
    response = owner.post(URL, _batch(turn_body(1)))
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert _counts() == (0, 0, 0, 0, 0, 0)


def test_a_foreign_token_gets_404_whatever_the_body(stranger: ApiClient) -> None:
    for body in (_batch(turn_body(1)), {"turns": "nope"}, _batch(*([{}] * 300))):
        response = stranger.post(URL, body)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "namespace_not_found"
    assert _counts() == (0, 0, 0, 0, 0, 0)


def test_a_read_token_gets_403_before_the_body_is_read(reader: ApiClient) -> None:
    for body in (_batch(turn_body(1)), {"turns": "nope"}):
        response = reader.post(URL, body)
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "insufficient_scope"
    assert _counts() == (0, 0, 0, 0, 0, 0)


def _blocks(namespace: str) -> list[tuple[str, int, int, int, list[tuple[int, str]]]]:
    return [
        (
            b.session.external_id,
            b.sequence,
            b.first_turn,
            b.last_turn,
            list(
                BlockView.objects.filter(block=b).order_by("level").values_list("level", "content")
            ),
        )
        for b in Block.objects.filter(namespace__name=namespace).order_by("pk")
    ]


def test_sealing_matches_one_by_one_ingest(owner: ApiClient, drain: Any) -> None:
    twin = make_api("read-write", namespaces=("twin",))
    turns = [turn_body(n, session="a") for n in range(1, 10)]
    turns += [turn_body(n, session="b") for n in range(1, 8)]
    turns += [turn_body(n, session="a") for n in range(10, 14)]
    one_by_one = [twin.post("/ns/twin/turns", t).json() for t in turns]
    out = owner.post(URL, _batch(*turns)).json()

    assert _blocks("proj") == _blocks("twin")
    assert [(b[0], b[2], b[3]) for b in _blocks("proj")] == [
        ("a", 1, 6),
        ("b", 1, 6),
        ("a", 7, 12),
    ]
    # The same turns report a sealed block; ids differ only by namespace.
    sealed_by = [i["sealed_block_id"] is not None for i in out["turns"]]
    assert sealed_by == [r["sealed_block_id"] is not None for r in one_by_one]
    assert [i for i, s in enumerate(sealed_by) if s] == [5, 14, 18]
    assert out["sealed_block_ids"] == [out["turns"][i]["sealed_block_id"] for i in (5, 14, 18)]
    assert ProcessingJob.objects.filter(namespace__name="proj").count() == 3
    assert [(i["session_turn"], i["namespace_turn"]) for i in out["turns"]] == [
        (r["session_turn"], r["namespace_turn"]) for r in one_by_one
    ]

    drain()
    blocks = owner.get("/ns/proj/sessions/a/blocks").json()
    assert [b["status"] for b in blocks["blocks"]] == ["ready", "ready"]
    assert blocks["open_tail_turns"] == 1


def test_a_batch_completes_the_open_tail_left_by_single_turns(owner: ApiClient) -> None:
    for n in range(1, 5):
        assert owner.post("/ns/proj/turns", turn_body(n)).status_code == 201
    out = owner.post(URL, _batch(*(turn_body(n) for n in range(5, 13)))).json()
    assert [i["session_turn"] for i in out["turns"]] == list(range(5, 13))
    assert [i["sealed_block_id"] is not None for i in out["turns"]] == [False, True] + [
        False
    ] * 5 + [True]
    assert list(Block.objects.order_by("sequence").values_list("first_turn", "last_turn")) == [
        (1, 6),
        (7, 12),
    ]
    assert not Turn.objects.filter(block__isnull=True).exists()


def test_batch_turns_are_searchable_at_once(owner: ApiClient) -> None:
    owner.post(URL, _batch(turn_body(1, user="Where does the flamingo parade start?")))
    found = owner.post("/ns/proj/search/raw", {"query": "flamingo parade"}).json()
    assert [r["message"]["content"] for r in found["results"]][:1] == [
        "Where does the flamingo parade start?"
    ]
