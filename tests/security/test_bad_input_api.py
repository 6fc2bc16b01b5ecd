"""Bad input to the agent API (issue 11 item 5): malformed and oversized turns and imports,
invalid settings, unknown enums, huge query strings, invalid UTF-8, text no database can store,
deeply nested JSON, wrong content types. Every one is a 4xx with the stable error envelope and
its code, and writes nothing: the rows of every model of the memory app are counted before and
after (`row_counts`), on a namespace that already holds one object of every kind."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from memory.models import MemorySettings
from memory.services.tokens import token_create
from tests.conftest import BASE_TIME
from tests.security.world import World, row_counts, world_build

pytestmark = pytest.mark.django_db

NS = "proj"
MiB = 1024 * 1024
DEEP = "[" * 10_000 + "]" * 10_000  # json.loads gives up long before the end
DEEP_OBJECT = '{"a":' * 10_000 + "1" + "}" * 10_000


@pytest.fixture
def world() -> World:
    """One object of every kind, for the cases that name a block, an event or an import."""
    return world_build(NS)


@pytest.fixture
def send(db: None) -> Callable[..., Any]:
    """send(method, path, body | raw=bytes/str, content_type=…, query=…) with an admin token
    of `proj` (an empty namespace: any row a refused request wrote would show in the counts)."""
    return _sender(installation=False)


@pytest.fixture
def send_installation(db: None) -> Callable[..., Any]:
    """`send` with an installation token (admin of `proj`), which may change the settings."""
    return _sender(installation=True)


def _sender(*, installation: bool) -> Callable[..., Any]:
    _, raw = token_create(namespaces=[NS], scope="admin", installation=installation)
    client = Client()

    def call(
        method: str,
        path: str,
        body: Any = None,
        *,
        raw_body: str | bytes | None = None,
        content_type: str = "application/json",
        query: dict[str, str] | None = None,
    ) -> Any:
        headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
        if method == "GET":
            return client.get(f"/api/v1{path}", query or {}, **headers)
        data = raw_body if raw_body is not None else json.dumps(body)
        return client.generic(method, f"/api/v1{path}", data, content_type=content_type, **headers)

    return call


def _refused(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content[:400]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    return dict(body["error"])


def turn(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "session_id": "bad-input",
        "receipt_id": "bad-1",
        "occurred_at": BASE_TIME.isoformat(),
        "messages": [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}],
    }
    return body | overrides


def user(content: str, **extra: Any) -> list[dict[str, Any]]:
    return [{"role": "user", "content": content, **extra}]


def v2(*candidates: dict[str, Any], **header: Any) -> str:
    return json.dumps(
        {
            "schemaVersion": "stratagate.external-memory.v2",
            "sourceType": "external_ai_memory_export",
            "sourceSystem": "OtherAI",
            **header,
            "candidates": list(candidates),
        }
    )


def cand(n: int = 0, **extra: Any) -> dict[str, Any]:
    return {"memoryKind": "fact", "title": f"Fact {n}", "summary": f"Summary {n}.", **extra}


TURNS: dict[str, tuple[Any, int, str]] = {
    # name: (body, status, code)
    "empty object": ({}, 422, "validation_error"),
    "messages not a list": (turn(messages="hello"), 422, "validation_error"),
    "message not an object": (turn(messages=["hello"]), 422, "validation_error"),
    "content a number": (turn(messages=user(42)), 422, "validation_error"),  # type: ignore[arg-type]
    "unknown role": (turn(messages=[{"role": "wizard", "content": "x"}]), 422, "unknown_role"),
    "role missing": (turn(messages=[{"content": "x"}]), 422, "validation_error"),
    "empty user message": (turn(messages=user("   ")), 422, "empty_user_message"),
    "no messages": (turn(messages=[]), 422, "empty_turn"),
    "501 messages": (turn(messages=user("x") * 501), 422, "too_many_messages"),
    "over 1 MiB of text": (turn(messages=user("x" * (MiB + 1))), 422, "turn_too_large"),
    "1 MiB over eight messages": (
        turn(messages=user("y" * (MiB // 8 + 1)) * 8),
        422,
        "turn_too_large",
    ),
    "session id too long": (turn(session_id="s" * 201), 422, "invalid_session_id"),
    "empty session id": (turn(session_id=""), 422, "invalid_session_id"),
    "receipt id too long": (turn(receipt_id="r" * 201), 422, "invalid_receipt_id"),
    "not a date": (turn(occurred_at="next Tuesday"), 422, "validation_error"),
    "before year 1 in UTC": (
        turn(occurred_at="0001-01-01T00:00:00+14:00"),
        422,
        "validation_error",
    ),
    "after 9999 in UTC": (turn(occurred_at="9999-12-31T23:59:00-14:00"), 422, "validation_error"),
    "message time before year 1": (
        turn(messages=user("x", created_at="0001-01-01T01:00:00+02:00")),
        422,
        "validation_error",
    ),
    "tool name too long": (
        turn(messages=user("x", tool_calls=[{"name": "t" * 201}])),
        422,
        "validation_error",
    ),
    "NUL in content": (turn(messages=user("a\x00b")), 422, "invalid_text"),
    "NUL in session id": (turn(session_id="s\x00"), 422, "invalid_text"),
    "NUL in a tool argument key": (
        turn(messages=user("x", tool_calls=[{"name": "t", "arguments": {"k\x00": 1}}])),
        422,
        "invalid_text",
    ),
}


@pytest.mark.parametrize("name", list(TURNS))
def test_a_bad_turn_is_refused_and_writes_nothing(send: Callable[..., Any], name: str) -> None:
    body, status, code = TURNS[name]
    before = row_counts()
    _refused(send("POST", f"/ns/{NS}/turns", body), status, code)
    assert row_counts() == before


@pytest.mark.parametrize(
    ("raw", "status", "code"),
    [
        pytest.param("{not json", 400, "malformed_json", id="broken json"),
        pytest.param(DEEP, 400, "malformed_json", id="10,000 nested arrays"),
        pytest.param(DEEP_OBJECT, 400, "malformed_json", id="10,000 nested objects"),
        pytest.param(
            b'{"session_id": "s\xff\xfe", "receipt_id": "r", "messages": []}',
            400,
            "malformed_json",
            id="invalid utf-8",
        ),
        pytest.param(
            json.dumps(turn(messages=user("half \ud800 a pair")), ensure_ascii=True),
            422,
            "invalid_text",
            id="lone surrogate escape",
        ),
        pytest.param(
            json.dumps(turn(messages=user("x", tool_calls=[{"name": "t", "arguments": "\udfff"}]))),
            422,
            "invalid_text",
            id="lone low surrogate in a tool argument",
        ),
    ],
)
def test_a_body_that_is_not_storable_json_is_refused(
    send: Callable[..., Any], raw: str | bytes, status: int, code: str
) -> None:
    before = row_counts()
    _refused(send("POST", f"/ns/{NS}/turns", raw_body=raw), status, code)
    assert row_counts() == before


def test_a_surrogate_pair_escape_is_a_character_and_is_stored(send: Callable[..., Any]) -> None:
    """The guard against half pairs leaves whole ones alone (Python clients escape emoji so)."""
    body = json.dumps(turn(messages=user("deploy 🚀 now")), ensure_ascii=True)
    assert "\\ud83d\\ude80" in body
    assert send("POST", f"/ns/{NS}/turns", raw_body=body).status_code == 201


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "text/xml",
    ],
)
def test_a_body_that_is_not_declared_json_is_415(
    send: Callable[..., Any], content_type: str
) -> None:
    before = row_counts()
    body = json.dumps(turn())
    error = _refused(
        send("POST", f"/ns/{NS}/turns", raw_body=body, content_type=content_type),
        415,
        "unsupported_media_type",
    )
    assert error["details"]["expected"] == "application/json"
    assert row_counts() == before


@pytest.mark.parametrize(
    "content_type", ["application/json; charset=utf-8", "application/vnd.x+json"]
)
def test_json_content_types_are_read(send: Callable[..., Any], content_type: str) -> None:
    body = json.dumps(turn())
    response = send("POST", f"/ns/{NS}/turns", raw_body=body, content_type=content_type)
    assert response.status_code == 201, response.content


def test_a_body_over_6_mib_is_413(send: Callable[..., Any]) -> None:
    before = row_counts()
    body = json.dumps(turn(messages=user("z" * (6 * MiB))))
    _refused(send("POST", f"/ns/{NS}/turns", raw_body=body), 413, "request_too_large")
    assert row_counts() == before


def test_a_reused_receipt_with_other_content_is_409(send: Callable[..., Any]) -> None:
    assert send("POST", f"/ns/{NS}/turns", turn()).status_code == 201
    before = row_counts()
    changed = turn(messages=user("something else"))
    _refused(send("POST", f"/ns/{NS}/turns", changed), 409, "receipt_conflict")
    assert row_counts() == before


# --- imports ----------------------------------------------------------------------------------

IMPORTS: dict[str, tuple[dict[str, Any], int, str]] = {
    "empty text": ({"text": "  "}, 422, "empty_import"),
    "not json": ({"text": "{oops"}, 422, "invalid_import_json"),
    "10,000 nested arrays": ({"text": DEEP}, 422, "invalid_import_json"),
    "10,000 nested objects": ({"text": DEEP_OBJECT}, 422, "invalid_import_json"),
    "10,000 nested in a candidate": (
        {"text": v2(cand()).replace('"Fact 0"', DEEP)},
        422,
        "invalid_import_json",
    ),
    "array root": ({"text": "[1, 2]", "format": "v2"}, 422, "invalid_import_root"),
    "unknown schema version": (
        {"text": v2(cand(), schemaVersion="stratagate.external-memory.v9")},
        422,
        "unsupported_schema_version",
    ),
    "wrong source type": ({"text": v2(cand(), sourceType="diary")}, 422, "invalid_source_type"),
    "candidates not a list": (
        {"text": v2().replace('"candidates": []', '"candidates": {"a": 1}')},
        422,
        "invalid_candidates",
    ),
    "201 candidates": ({"text": v2(*[cand(n) for n in range(201)])}, 413, "too_many_candidates"),
    "over 4 MiB": ({"text": v2(cand(narrative="n" * (4 * MiB)))}, 413, "import_too_large"),
    "unknown format": ({"text": v2(cand()), "format": "xml"}, 422, "invalid_format"),
    "top_k 0": ({"text": v2(cand()), "top_k": 0}, 422, "invalid_top_k"),
    "top_k 21": ({"text": v2(cand()), "top_k": 21}, 422, "invalid_top_k"),
    "top_k not a number": ({"text": v2(cand()), "top_k": "five"}, 422, "validation_error"),
    "text not a string": ({"text": {"candidates": []}}, 422, "validation_error"),
    "unrecognised format": ({"text": '{"hello": "world"}'}, 422, "unrecognized_format"),
    "NUL escape inside the import": (
        {"text": v2(cand()).replace("Fact 0", "Fact \\u0000")},
        422,
        "invalid_text",
    ),
    "half a surrogate pair inside the import": (
        {"text": v2(cand()).replace("Summary 0.", "Summary \\ud800")},
        422,
        "invalid_text",
    ),
    "NUL in the import text itself": ({"text": v2(cand()) + "\x00"}, 422, "invalid_text"),
    "chatgpt export 10,000 deep": ({"text": DEEP, "format": "chatgpt"}, 422, "invalid_import_json"),
    "dump with a NUL escape": (
        {
            "text": '{"type": "header", "format": "stratagate.namespace-dump.v1"}\n'
            '{"type": "sessions", "key": "s\\u0000", "external_id": "x"}',
            "format": "jsonl",
        },
        422,
        "invalid_text",
    ),
    "dump 10,000 deep": (
        {
            "text": '{"type": "header", "format": "stratagate.namespace-dump.v1"}\n' + DEEP_OBJECT,
            "format": "jsonl",
        },
        422,
        "invalid_import_json",
    ),
}


@pytest.mark.parametrize("name", list(IMPORTS))
def test_a_bad_import_is_refused_and_writes_nothing(send: Callable[..., Any], name: str) -> None:
    body, status, code = IMPORTS[name]
    before = row_counts()
    _refused(send("POST", f"/ns/{NS}/imports", body), status, code)
    assert row_counts() == before


def test_a_bad_commit_choice_is_refused_and_writes_nothing(
    send: Callable[..., Any], world: World, drain: Callable[[], int]
) -> None:
    created = send("POST", f"/ns/{NS}/imports", {"text": v2(cand(1), cand(2))})
    assert created.status_code == 202, created.content
    drain()
    import_id = created.json()["import_id"]
    before = row_counts()
    for choices, code in [
        ([{"index": 0, "action": "explode"}], "invalid_choice"),
        ([{"index": 99, "action": "add"}], "invalid_choice"),
        ([{"index": 0, "action": "merge", "target_event_ids": [world.event_id]}], ""),
        ([{"index": "first", "action": "add"}], "validation_error"),
    ]:
        response = send("POST", f"/ns/{NS}/imports/{import_id}/commit", {"choices": choices})
        assert 400 <= response.status_code < 500, response.content
        if code:
            assert response.json()["error"]["code"] == code
    assert row_counts() == before


# --- settings ---------------------------------------------------------------------------------

SETTINGS: list[tuple[dict[str, Any], str]] = [
    ({"block_lambda": 0.33}, "invalid_block_lambda"),  # not a 0.05 step
    ({"block_lambda": -0.05}, "invalid_block_lambda"),
    ({"block_lambda": 1.05}, "invalid_block_lambda"),
    ({"block_lambda": "NaN"}, "invalid_block_lambda"),
    ({"block_lambda": "Infinity"}, "invalid_block_lambda"),
    ({"block_lambda": 1e308}, "invalid_block_lambda"),
    ({"block_lambda": "0.3; DROP TABLE"}, "invalid_block_lambda"),
    ({"block_turns": 0}, "invalid_block_turns"),
    ({"block_turns": 101}, "invalid_block_turns"),
    ({"block_turns": 10**30}, "invalid_block_turns"),
    ({"block_turns": 1.5}, "invalid_block_turns"),
    ({"block_turns": True}, "invalid_block_turns"),
    ({"block_turns": "six"}, "invalid_block_turns"),
    ({"block_lambda": 0.5, "block_turns": 0}, "invalid_block_turns"),  # all or nothing
]


@pytest.mark.parametrize(("body", "code"), SETTINGS, ids=[json.dumps(b) for b, _ in SETTINGS])
def test_invalid_settings_are_refused_and_change_nothing(
    send_installation: Callable[..., Any], body: dict[str, Any], code: str
) -> None:
    send = send_installation  # PUT /settings needs an installation token; these values do not
    current = send("GET", "/settings").json()
    before = row_counts()
    response = send("PUT", "/settings", body)
    assert response.status_code == 422, response.content
    assert response.json()["error"]["code"] in (code, "validation_error")
    assert row_counts() == before
    assert not MemorySettings.objects.exists()
    assert send("GET", "/settings").json() == current


# --- unknown enums, huge queries, and the rest of the operations -------------------------------

ENUMS: list[tuple[str, str, Any, str]] = [
    (
        "POST",
        "/search/events",
        {"query": "x", "event_type": "explosion", "session_id": "new"},
        "invalid_event_type",
    ),
    (
        "POST",
        "/search/events",
        {"query": "x", "temporal_intent": "middle", "session_id": "new"},
        "invalid_temporal_intent",
    ),
    ("POST", "/search/events", {"query": "x", "limit": 21, "session_id": "new"}, "invalid_limit"),
    (
        "POST",
        "/search/graph",
        {"query": "x", "as_of": "yesterday-ish", "session_id": "new"},
        "invalid_as_of",
    ),
    ("POST", "/search/raw", {"query": "x", "limit": 0, "session_id": "new"}, "invalid_limit"),
    ("GET", "/events", {"status": "gone"}, "invalid_status"),
    ("GET", "/events", {"limit": "99999999999999999999"}, "invalid_limit"),
    ("GET", "/events", {"happened_from": "0001-01-01T00:00:00+14:00"}, "validation_error"),
    ("GET", "/graph", {"as_of": "-5"}, "invalid_as_of"),
    ("GET", "/export", {"format": "xml"}, "invalid_format"),
    ("GET", "/context", {"session_id": "s", "budget": "10"}, "invalid_budget"),
    ("GET", "/context", {"session_id": "s" * 201}, "invalid_session_id"),
    ("GET", "/context", {"session_id": "s\x00"}, "invalid_text"),
    ("GET", "/events", {"participant": "a\x00b"}, "invalid_text"),
    ("GET", "/audit", {"receipt_id": "r\x00"}, "invalid_text"),
    ("GET", "/sessions/a%00b/blocks", {}, "invalid_text"),
    ("POST", "/search/events", {"query": "x" * 4001, "session_id": "new"}, "query_too_long"),
    ("POST", "/search/raw", {"query": "y " * 2001}, "query_too_long"),
    ("POST", "/search/graph", {"query": "z" * 100_000}, "query_too_long"),
    ("POST", "/search/raw", {"query": "a\x00b"}, "invalid_text"),
    (
        "POST",
        "/search/events",
        {"query": "x", "happened_from": "0001-01-01T00:00:00+14:00"},
        "validation_error",
    ),
    (
        "POST",
        "/record-use",
        {"session_id": "s", "receipt_id": "r" * 201, "evidence_refs": []},
        "invalid_receipt_id",
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "code"), ENUMS, ids=[f"{m} {p} {c}" for m, p, _, c in ENUMS]
)
def test_unknown_values_and_huge_queries_are_422_and_write_nothing(
    send: Callable[..., Any], method: str, path: str, body: Any, code: str
) -> None:
    path = f"/ns/{NS}{path}"
    before = row_counts()
    response = send("GET", path, query=body) if method == "GET" else send(method, path, body)
    _refused(response, 422, code)
    assert row_counts() == before


def test_bad_values_for_existing_objects_are_4xx_and_write_nothing(
    send: Callable[..., Any], world: World
) -> None:
    """Unknown verdicts and strategies for a real batch, unknown expand targets for a real block
    (with a new caller session, which must not be created), ids past any integer column."""
    found = send("POST", f"/ns/{NS}/search/events", {"query": "Orion", "session_id": "agent"})
    assert found.status_code == 200
    batch = found.json()["batch_id"]
    block = f"/ns/{NS}/blocks/{world.block_id}/expand"
    cases: list[tuple[str, Any, int, str]] = [
        (
            f"/ns/{NS}/assess",
            {"verdict": "maybe", "next_strategy": "answer"},
            422,
            "invalid_verdict",
        ),
        (
            f"/ns/{NS}/assess",
            {"verdict": "sufficient", "next_strategy": "pray"},
            422,
            "invalid_next_strategy",
        ),
        (
            f"/ns/{NS}/assess",
            {"verdict": "x" * 100_000, "next_strategy": "answer"},
            422,
            "invalid_verdict",
        ),
        (block, {"target": "L9", "session_id": "new"}, 422, "invalid_target"),
        (block, {"target": 10**30, "session_id": "new"}, 422, "invalid_target"),
        (f"/ns/{NS}/blocks/{10**30}/expand", {}, 404, "block_not_found"),
        (f"/ns/{NS}/imports/{world.import_id}/commit", {}, 409, "import_already_committed"),
        (f"/ns/{NS}/jobs/{10**30}/retry", {}, 404, "job_not_found"),
    ]
    before = row_counts()
    for path, body, status, code in cases:
        if path.endswith("/assess"):
            body = {"batch_id": batch, "evidence_refs": [], **body}
        _refused(send("POST", path, body), status, code)
    assert row_counts() == before


def test_the_import_prompt_refuses_an_unknown_language(send: Callable[..., Any]) -> None:
    _refused(send("GET", "/import-prompt", query={"lang": "fr" * 5000}), 422, "invalid_lang")


def test_too_many_query_parameters_are_a_400_envelope(send: Callable[..., Any]) -> None:
    before = row_counts()
    query = {f"p{n}": "1" for n in range(1500)}  # over Django's 1,000 fields
    response = send("GET", f"/ns/{NS}/events", query=query)
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["code"] == "too_many_parameters"
    assert row_counts() == before
