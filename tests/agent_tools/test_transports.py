"""In-process and HTTP transports give the same answers: same auth, validation and envelopes."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

from memory.agent_tools import ToolDispatcher, ToolResult
from memory.models import Event, Turn, UsageReceipt
from tests.agent_tools.conftest import raw_token
from tests.conftest import turn_body

# Ids that differ per call by design (each retrieval opens its own batch, etc.).
PER_CALL_KEYS = {
    "batch_id",
    "assessment_id",
    "activation_id",
    "receipt_id",
    "last_retrieved_at",
}


def normalised(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: normalised(v) for k, v in value.items() if k not in PER_CALL_KEYS}
    if isinstance(value, list):
        return [normalised(v) for v in value]
    return value


@pytest.fixture
def pair(live_server: Any, transactional_db: None) -> Callable[..., tuple[ToolDispatcher, ...]]:
    """Two dispatchers with the same token, namespace and session: in-process and HTTP."""

    def make(scope: str = "read-write", namespace: str = "proj") -> tuple[ToolDispatcher, ...]:
        token = raw_token(scope)
        return (
            ToolDispatcher.in_process(token, namespace=namespace, session_id="s1"),
            ToolDispatcher.over_http(live_server.url, token, namespace=namespace, session_id="s1"),
        )

    return make


def same(inproc: ToolResult, http: ToolResult) -> ToolResult:
    assert inproc.status == http.status
    assert normalised(inproc.body) == normalised(http.body)
    return inproc


def seed_block(dispatcher: ToolDispatcher, drain: Callable[[], int]) -> None:
    """Six turns in session `old` (one sealed block, processed) mentioning the package manager."""
    for n in range(1, 7):
        user = "We decided to switch the project from npm to pnpm." if n == 1 else None
        body = turn_body(n, session="old", user=user)
        result = dispatcher.call("memory_ingest_turn", body)
        assert result.status == 201, result.body
    drain()


def test_reads_and_errors_are_identical_over_both_transports(pair, drain) -> None:
    inproc, http = pair()
    seed_block(inproc, drain)
    block_id = Turn.objects.filter(session__external_id="old").first().block_id
    calls: list[tuple[str, dict[str, Any]]] = [
        ("memory_status", {}),
        ("memory_get_blocks", {"session_id": "old"}),
        ("memory_get_blocks", {}),
        ("memory_context", {"session_id": "old", "query": "package manager"}),
        ("memory_expand_block", {"block_id": block_id, "target": "L2"}),
        ("memory_expand_block", {"block_id": block_id, "target": "L9"}),
        ("memory_expand_block", {"block_id": 999}),
        ("memory_expand_event", {"event_id": 999}),
        ("memory_expand_graph_node", {"node_id": 999}),
        ("memory_search_events", {"query": "pnpm", "limit": 99}),
        ("memory_ingest_turn", {"messages": [{"role": "robot", "content": "x"}]}),
        ("memory_ingest_turn", {"messages": "not a list"}),
        ("memory_status", {"namespace": "other"}),
        ("memory_nonexistent", {}),
    ]
    statuses = [same(inproc.call(name, args), http.call(name, args)).status for name, args in calls]
    assert statuses[:5] == [200, 200, 200, 200, 200]
    assert statuses[5:] == [422, 404, 404, 404, 422, 422, 422, 422, 404]
    assert Turn.objects.count() == 6, "failed ingests wrote nothing"


def test_auth_failures_are_identical_over_both_transports(pair) -> None:
    inproc, http = pair(namespace="elsewhere")
    foreign = same(inproc.call("memory_status"), http.call("memory_status"))
    assert foreign.status == 404
    assert foreign.body["error"]["code"] == "namespace_not_found"
    inproc, http = pair(scope="read")
    arguments = {"messages": [{"role": "user", "content": "hi"}]}
    denied = same(
        inproc.call("memory_ingest_turn", arguments, call_id="c1"),
        http.call("memory_ingest_turn", arguments, call_id="c1"),
    )
    assert denied.status == 403 and denied.body["error"]["code"] == "insufficient_scope"
    assert Turn.objects.count() == 0


def test_an_ingest_over_http_is_a_duplicate_in_process(pair) -> None:
    inproc, http = pair()
    arguments = {"messages": [{"role": "user", "content": "hi"}]}
    created = http.call("memory_ingest_turn", arguments, call_id="call_1")
    assert created.status == 201
    replay = inproc.call("memory_ingest_turn", arguments, call_id="call_1")
    assert replay.status == 200 and replay.body["duplicate"] is True
    assert replay.body["turn_id"] == created.body["turn_id"]
    assert Turn.objects.count() == 1


def test_the_evidence_loop_is_identical_over_both_transports(pair, drain) -> None:
    # Needs the retrieval endpoints (search, assess, record-use).
    inproc, http = pair()
    seed_block(inproc, drain)
    event = Event.objects.get(title__icontains="pnpm")
    searches = {}
    for name, dispatcher in (("inproc", inproc), ("http", http)):
        searches[name] = dispatcher.call("memory_search_events", {"query": "package manager pnpm"})
    found = same(searches["inproc"], searches["http"])
    assert found.status == 200, found.body
    assert found.body["results"][0]["ref"] == f"event:{event.pk}"
    assert searches["inproc"].body["batch_id"] != searches["http"].body["batch_id"]
    assessments = {}
    for name, dispatcher in (("inproc", inproc), ("http", http)):
        assessments[name] = dispatcher.call(
            "memory_assess",
            {
                "batch_id": searches[name].body["batch_id"],
                "verdict": "sufficient",
                "evidence_refs": [f"event:{event.pk}", "event:999999"],
                "fit": "the decision names the package manager",
                "next_strategy": "answer",
            },
        )
    assessed = same(assessments["inproc"], assessments["http"])
    assert assessed.status == 200, assessed.body
    assert assessed.body["accepted_refs"] == [f"event:{event.pk}"]
    assert [r["reason"] for r in assessed.body["rejected_refs"]] == ["not_in_batch"]
    uses = {}
    for name, dispatcher in (("inproc", inproc), ("http", http)):
        uses[name] = dispatcher.call(
            "memory_record_use",
            {"batch_id": searches[name].body["batch_id"], "evidence_refs": []},
            call_id=f"use-{name}",
        )
    used = same(uses["inproc"], uses["http"])
    assert used.status == 200 and used.body["batch_closed"] is True
    assert used.body["reinforced_event_ids"] == []
    receipts = UsageReceipt.objects.order_by("receipt_id")
    assert [r.receipt_id for r in receipts] == ["use-http", "use-inproc"]
    assert all(r.evidence_refs == [] for r in receipts)


def test_python_values_travel_as_json_and_unserialisable_ones_are_refused(pair) -> None:
    inproc, http = pair()
    for transport, dispatcher in (("inproc", inproc), ("http", http)):
        arguments = {
            "receipt_id": f"dt-{transport}",
            "occurred_at": datetime(2024, 5, 6, 9, 30, tzinfo=UTC),
            "messages": [{"role": "user", "content": "hi"}],
        }
        assert dispatcher.call("memory_ingest_turn", arguments).status == 201
        refused = dispatcher.call("memory_search_raw", {"query": object()})
        assert refused.status == 400
        assert refused.body["error"]["code"] == "malformed_arguments"
    occurred = {t.occurred_at for t in Turn.objects.all()}
    assert occurred == {datetime(2024, 5, 6, 9, 30, tzinfo=UTC)}


def test_an_unreachable_server_is_reported_as_an_envelope() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dispatcher = ToolDispatcher.over_http(
        f"http://127.0.0.1:{port}", "sg_x", namespace="proj", timeout=2
    )
    result = dispatcher.call("memory_status")
    assert result.status == 503
    assert result.body["error"]["code"] == "stratagate_unreachable"


class HtmlGateway(BaseHTTPRequestHandler):
    """A proxy in front of StrataGate that fails with an HTML page (not the API's envelope)."""

    def do_GET(self) -> None:
        page = b"<html><body>502 Bad Gateway</body></html>"
        self.send_response(502)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, format: str, *args: Any) -> None:
        return


def test_a_non_json_answer_is_reported_as_an_envelope() -> None:
    server = HTTPServer(("127.0.0.1", 0), HtmlGateway)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        result = ToolDispatcher.over_http(url, "sg_x", namespace="p").call("memory_status")
    finally:
        server.shutdown()
        server.server_close()
    assert result.status == 502
    assert result.body["error"]["code"] == "http_502"
    assert "Bad Gateway" in result.body["error"]["message"]
