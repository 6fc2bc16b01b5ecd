"""The dispatcher maps tool arguments onto REST calls and hands every failure back as data."""

from __future__ import annotations

import json

import pytest
from openai.types.chat.chat_completion_message_function_tool_call import (
    ChatCompletionMessageFunctionToolCall,
    Function,
)

from memory.agent_tools import TOOLS_BY_NAME, ToolDispatcher, ToolRequest, ToolResult, build_request
from memory.models import IngestReceipt, Message, Turn
from tests.agent_tools.conftest import raw_token


def request_for(name: str, arguments: dict, **kwargs) -> ToolRequest:
    built = build_request(
        TOOLS_BY_NAME[name], arguments, namespace=kwargs.pop("namespace", "proj"), **kwargs
    )
    assert isinstance(built, ToolRequest), built
    return built


def error_for(name: str, arguments: dict, **kwargs) -> ToolResult:
    built = build_request(TOOLS_BY_NAME[name], arguments, namespace="proj", **kwargs)
    assert isinstance(built, ToolResult), built
    return built


def turn_arguments(user: str = "Which database do we use?") -> dict:
    return {
        "messages": [
            {"role": "user", "content": user},
            {"role": "assistant", "content": "PostgreSQL in production."},
        ]
    }


# -- argument mapping (no database) ------------------------------------------------------------


def test_ingest_goes_to_the_turns_path_with_the_current_session_and_the_call_id_as_receipt() -> (
    None
):
    request = request_for("memory_ingest_turn", turn_arguments(), session_id="s1", call_id="c-1")
    assert (request.method, request.path, request.query) == ("POST", "/ns/proj/turns", {})
    assert request.body == {"session_id": "s1", "receipt_id": "c-1", **turn_arguments()}


def test_an_explicit_session_and_receipt_win_over_the_defaults() -> None:
    request = request_for(
        "memory_ingest_turn",
        {**turn_arguments(), "session_id": "other", "receipt_id": "mine"},
        session_id="s1",
        call_id="c-1",
    )
    assert request.body is not None
    assert (request.body["session_id"], request.body["receipt_id"]) == ("other", "mine")


def test_without_a_call_id_each_receipt_is_fresh() -> None:
    first = request_for("memory_record_use", {"evidence_refs": []}).body
    second = request_for("memory_record_use", {"evidence_refs": []}).body
    assert first and second
    assert first["receipt_id"].startswith("auto-") and first["receipt_id"] != second["receipt_id"]


def test_context_sends_session_and_query_in_the_query_string() -> None:
    request = request_for("memory_context", {"query": "pnpm?"}, session_id="s1")
    assert (request.method, request.path, request.body) == ("GET", "/ns/proj/context", None)
    assert request.query == {"session_id": "s1", "query": "pnpm?"}
    assert request.target == "/ns/proj/context?session_id=s1&query=pnpm%3F"


def test_path_values_are_percent_encoded() -> None:
    request = request_for("memory_get_blocks", {"session_id": "a/b c"}, namespace="team:x")
    assert request.path == "/ns/team%3Ax/sessions/a%2Fb%20c/blocks"


def test_expand_event_puts_the_id_in_the_path_and_batch_and_session_in_the_query() -> None:
    request = request_for(
        "memory_expand_event", {"event_id": 12, "batch_id": "b-1"}, session_id="s1"
    )
    assert (request.method, request.path) == ("GET", "/ns/proj/events/12")
    assert request.query == {"batch_id": "b-1", "session_id": "s1"}


def test_expand_graph_node_accepts_a_digit_string_id() -> None:
    request = request_for(
        "memory_expand_graph_node", {"node_id": "7", "as_of": "2024-05-01"}, session_id="s1"
    )
    assert request.path == "/ns/proj/graph/nodes/7"
    assert request.query == {"session_id": "s1", "as_of": "2024-05-01"}


def test_expand_block_sends_target_in_the_body() -> None:
    request = request_for("memory_expand_block", {"block_id": 3, "target": "L4"}, session_id="s1")
    assert (request.method, request.path) == ("POST", "/ns/proj/blocks/3/expand")
    assert request.body == {"target": "L4", "session_id": "s1"}


def test_searches_send_everything_in_the_body_and_raw_search_is_not_narrowed_to_the_session() -> (
    None
):
    events = request_for(
        "memory_search_events",
        {"query": "pnpm", "limit": 3, "participants": ["Ann"], "temporal_intent": "latest"},
        session_id="s1",
    )
    assert events.path == "/ns/proj/search/events" and events.query == {}
    assert events.body == {
        "query": "pnpm",
        "limit": 3,
        "session_id": "s1",
        "participants": ["Ann"],
        "temporal_intent": "latest",
    }
    graph = request_for("memory_search_graph", {"query": "pnpm"}, session_id="s1")
    assert graph.body == {"query": "pnpm", "session_id": "s1"}
    raw = request_for("memory_search_raw", {"query": "pnpm"}, session_id="s1")
    assert raw.body == {"query": "pnpm"}


def test_assess_and_record_use_map_to_their_paths() -> None:
    assess = request_for(
        "memory_assess",
        {
            "batch_id": "b-1",
            "verdict": "sufficient",
            "evidence_refs": ["event:1"],
            "fit": "direct",
            "missing": None,
            "next_strategy": "answer",
        },
        session_id="s1",
    )
    assert (assess.method, assess.path) == ("POST", "/ns/proj/assess")
    assert assess.body == {
        "batch_id": "b-1",
        "session_id": "s1",
        "verdict": "sufficient",
        "evidence_refs": ["event:1"],
        "fit": "direct",
        "next_strategy": "answer",
    }
    use = request_for(
        "memory_record_use", {"batch_id": "b-1", "evidence_refs": ["event:1"]}, call_id="c9"
    )
    assert use.path == "/ns/proj/record-use"
    assert use.body == {"batch_id": "b-1", "evidence_refs": ["event:1"], "receipt_id": "c9"}


def test_status_is_a_plain_get_of_health() -> None:
    request = request_for("memory_status", {}, session_id="s1")
    assert (request.method, request.path, request.query, request.body) == (
        "GET",
        "/ns/proj/health",
        {},
        None,
    )


# -- failures found before the API is called ---------------------------------------------------


def test_a_namespace_argument_is_refused_not_obeyed() -> None:
    result = error_for("memory_status", {"namespace": "other"})
    assert result.status == 422
    assert result.body["error"]["code"] == "unexpected_argument"
    assert result.body["error"]["details"]["unexpected"] == ["namespace"]


@pytest.mark.parametrize("bad", [0, -3, "abc", True, 1.5, "", None])
def test_a_path_id_must_be_a_positive_integer(bad) -> None:
    result = error_for("memory_expand_block", {"block_id": bad})
    assert result.status == 422
    expected = "missing_argument" if bad is None else "invalid_argument"
    assert result.body["error"]["code"] == expected
    assert result.body["error"]["details"] == {
        "tool": "memory_expand_block",
        "argument": "block_id",
    }


def test_blocks_without_any_session_ask_for_one() -> None:
    result = error_for("memory_get_blocks", {})
    assert result.status == 422 and result.body["error"]["code"] == "missing_argument"
    assert "session_id" in result.body["error"]["message"]


def test_unknown_tools_and_malformed_arguments_come_back_as_envelopes(db: None) -> None:
    dispatcher = ToolDispatcher.in_process("sg_unused", namespace="proj")
    unknown = dispatcher.call("memory_delete_everything", {})
    assert unknown.status == 404 and unknown.body["error"]["code"] == "unknown_tool"
    assert "memory_status" in unknown.body["error"]["details"]["tools"]
    for arguments in ("{not json", "[1, 2]", "42"):
        result = dispatcher.call("memory_status", arguments)
        assert result.status == 400
        assert result.body["error"]["code"] == "malformed_arguments"
    assert Turn.objects.count() == 0


# -- through the API, in-process ----------------------------------------------------------------


def test_ingest_through_the_dispatcher_writes_the_turn_once(dispatcher: ToolDispatcher) -> None:
    first = dispatcher.call("memory_ingest_turn", json.dumps(turn_arguments()), call_id="call_1")
    assert first.status == 201 and first.ok
    assert first.body["duplicate"] is False and first.body["session_turn"] == 1
    replay = dispatcher.call("memory_ingest_turn", turn_arguments(), call_id="call_1")
    assert replay.status == 200 and replay.body["duplicate"] is True
    assert Turn.objects.count() == 1 and Message.objects.count() == 2
    assert IngestReceipt.objects.get().receipt_id == "call_1"
    assert Turn.objects.get().session.external_id == "s1"


def test_api_errors_are_returned_as_the_envelope_and_write_nothing(
    dispatcher: ToolDispatcher,
) -> None:
    empty_user = dispatcher.call("memory_ingest_turn", turn_arguments(user="   "))
    assert empty_user.status == 422
    assert empty_user.body["error"]["code"] == "empty_user_message"
    not_a_list = dispatcher.call("memory_ingest_turn", {"messages": "hello"})
    assert not_a_list.status == 422
    assert not_a_list.body["error"]["code"] == "validation_error"
    missing_block = dispatcher.dispatch("memory_expand_block", {"block_id": 99})
    assert missing_block["error"]["code"] == "block_not_found"
    assert Turn.objects.count() == 0 and Message.objects.count() == 0


def test_the_bound_namespace_and_scope_are_enforced_by_the_api(db: None) -> None:
    foreign = ToolDispatcher.in_process(raw_token(), namespace="elsewhere", session_id="s1")
    result = foreign.call("memory_ingest_turn", turn_arguments())
    assert result.status == 404 and result.body["error"]["code"] == "namespace_not_found"
    reader = ToolDispatcher.in_process(raw_token("read"), namespace="proj", session_id="s1")
    result = reader.call("memory_ingest_turn", turn_arguments())
    assert result.status == 403 and result.body["error"]["code"] == "insufficient_scope"
    assert reader.call("memory_status").status == 200
    nobody = ToolDispatcher.in_process("sg_0000_not-a-token", namespace="proj")
    result = nobody.call("memory_status")
    assert result.status == 401 and result.body["error"]["code"] == "unauthorized"
    assert Turn.objects.count() == 0


def test_openai_tool_calls_are_run_and_answered_as_tool_messages(
    dispatcher: ToolDispatcher,
) -> None:
    sdk_call = ChatCompletionMessageFunctionToolCall(
        id="call_abc",
        type="function",
        function=Function(name="memory_ingest_turn", arguments=json.dumps(turn_arguments())),
    )
    message = dispatcher.tool_message(sdk_call)
    assert message["role"] == "tool" and message["tool_call_id"] == "call_abc"
    assert json.loads(message["content"])["duplicate"] is False
    assert IngestReceipt.objects.get().receipt_id == "call_abc"
    as_dict = {"id": "call_def", "function": {"name": "memory_get_blocks", "arguments": "{}"}}
    blocks = dispatcher.dispatch_tool_call(as_dict)
    assert blocks["open_tail_turns"] == 1 and blocks["reason"] == "open_tail_pending"
