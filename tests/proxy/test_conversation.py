"""The neutral conversation: where the current turn starts, how earlier turns are cut, which
differences between what an agent sends back and what was answered leave the digest alone, and
how a turn is folded for storage."""

from __future__ import annotations

from proxy.conversation import (
    SEED,
    Message,
    Reply,
    Request,
    ToolCall,
    chain,
    completed_turn,
    conversation_of,
    fold,
    message_digest,
)


def user(text: str) -> Message:
    return Message("user", text, opens_turn=True)


def assistant(text: str = "", *calls: ToolCall) -> Message:
    return Message("assistant", text, tool_calls=calls)


def result(call_id: str, text: str, *, error: bool = False) -> Message:
    return Message("tool", text, tool_call_id=call_id, is_error=error)


def request(*messages: Message, system: str = "") -> Request:
    return Request(model="m", stream=False, system=system, messages=messages)


def test_the_current_turn_starts_at_the_last_user_message_and_keeps_its_tool_loop():
    call = ToolCall("c1", "ls", {"path": "."})
    conversation = conversation_of(
        request(user("a"), assistant("b"), user("c"), assistant("", call), result("c1", "x"))
    )
    assert [m.content for m in conversation.current] == ["c", "", "x"]
    assert [[m.content for m in s] for s in conversation.earlier] == [["a", "b"]]
    assert conversation.query == "c"
    assert conversation.history == (SEED, chain(SEED, conversation.earlier[0]))


def test_messages_before_the_first_user_message_form_a_prelude_segment():
    conversation = conversation_of(request(assistant("How can I help?"), user("hi")))
    assert [[m.content for m in s] for s in conversation.earlier] == [["How can I help?"]]
    assert len(conversation.history) == 2


def test_a_request_without_a_user_message_has_no_current_turn():
    conversation = conversation_of(request(assistant("hello")))
    assert conversation.current == ()
    assert conversation.opener_digest == ""


def test_the_digest_of_an_answer_equals_the_digest_of_the_same_answer_sent_back():
    # What a client echoes may differ in whitespace, names, error flags and argument spacing.
    answered = Message("assistant", "Sure. ", tool_calls=(ToolCall("c1", "f", '{"a": 1}'),))
    echoed = Message("assistant", "Sure.", name="bot", tool_calls=(ToolCall("c1", "f", {"a": 1}),))
    assert message_digest(answered) == message_digest(echoed)


def test_the_digest_changes_with_content_role_call_id_and_arguments():
    base = message_digest(Message("assistant", "x", tool_calls=(ToolCall("c1", "f", {"a": 1}),)))
    assert base != message_digest(
        Message("assistant", "y", tool_calls=(ToolCall("c1", "f", {"a": 1}),))
    )
    assert base != message_digest(
        Message("assistant", "x", tool_calls=(ToolCall("c2", "f", {"a": 1}),))
    )
    assert base != message_digest(
        Message("assistant", "x", tool_calls=(ToolCall("c1", "f", {"a": 2}),))
    )
    assert base != message_digest(Message("user", "x", tool_calls=(ToolCall("c1", "f", {"a": 1}),)))


def test_the_next_requests_history_ends_where_the_completed_turn_left_it():
    first = conversation_of(request(user("q1")))
    reply = Reply(messages=(assistant("a1"),), final=True)
    after = chain(first.earlier_digest, completed_turn(first, reply))
    second = conversation_of(request(user("q1"), assistant("a1"), user("q2")))
    assert second.earlier_digest == after


def test_fold_puts_each_tool_result_on_its_call():
    calls = (ToolCall("c1", "read", {"f": "a"}), ToolCall("c2", "read", {"f": "b"}))
    stored = fold(
        [
            user("read both"),
            assistant("reading", *calls),
            result("c1", "alpha"),
            result("c2", "boom", error=True),
            assistant("done"),
        ]
    )
    assert [s.role for s in stored] == ["user", "assistant", "assistant"]
    assert stored[1].tool_calls == (
        {"id": "c1", "name": "read", "arguments": {"f": "a"}, "result": "alpha"},
        {
            "id": "c2",
            "name": "read",
            "arguments": {"f": "b"},
            "result": {"ok": False, "error": "boom"},
        },
    )


def test_fold_keeps_a_result_without_its_call_as_a_tool_message():
    stored = fold([user("go on"), result("elsewhere", "42")])
    assert [(s.role, s.content) for s in stored] == [("user", "go on"), ("tool", "42")]
