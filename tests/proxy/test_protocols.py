"""The protocol adapters on their own: where the memory message goes (every other byte of the
agent's request unchanged), how requests, answers and streams are read, and error shapes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.conversation import ToolCall
from proxy.protocols import AnthropicAdapter, NotUnderstood, OpenAIAdapter
from proxy.splice import NotAnObject, body_parse
from proxy.sse import EventSplitter
from tests.fakes.model_upstream import Answer, Call, anthropic_events, openai_events

OPENAI = OpenAIAdapter()
ANTHROPIC = AnthropicAdapter()
MEMORY = "[Activated long-term memory]\nthe team uses PostgreSQL 16"


def inject(adapter, raw: str) -> tuple[str, dict]:
    text = adapter.inject(body_parse(raw.encode()), MEMORY)
    return text, json.loads(text)


def test_openai_memory_goes_right_after_the_leading_system_messages():
    raw = (
        '{"model": "m",  "messages": [{"role": "system", "content": "You are terse."},\n'
        ' {"role": "developer", "content": "Use tools."}, {"role": "user", "content": "hi"}],'
        ' "temperature": 0.2, "x_unknown": {"kept": [1, 2]}}'
    )
    text, body = inject(OPENAI, raw)
    assert [m["role"] for m in body["messages"]] == ["system", "developer", "system", "user"]
    assert body["messages"][2]["content"] == MEMORY
    # The agent's prefix is byte-identical, and so is everything after the insertion.
    cut = raw.index(', {"role": "user"')
    assert text.startswith(raw[:cut])
    assert text.endswith(raw[cut:])
    assert body["x_unknown"] == {"kept": [1, 2]} and body["temperature"] == 0.2


def test_openai_memory_goes_first_without_system_messages():
    raw = '{"messages":[{"role":"user","content":"hi"}],"model":"m"}'
    text, body = inject(OPENAI, raw)
    assert body["messages"][0] == {"role": "system", "content": MEMORY}
    assert text.endswith('{"role":"user","content":"hi"}],"model":"m"}')


def test_openai_memory_takes_the_developer_role_after_developer_messages():
    raw = '{"messages":[{"role":"developer","content":"d"},{"role":"user","content":"hi"}]}'
    _, body = inject(OPENAI, raw)
    assert body["messages"][1]["role"] == "developer"


def test_anthropic_memory_is_a_last_system_block_with_cache_control_untouched():
    raw = (
        '{"model":"claude","system":[{"type":"text","text":"You are Claude Code.",'
        '"cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}],'
        '"max_tokens":100}'
    )
    text, body = inject(ANTHROPIC, raw)
    assert body["system"] == [
        {"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": MEMORY},
    ]
    prefix = raw[: raw.index("]")]
    assert text.startswith(prefix)


def test_anthropic_string_system_becomes_blocks_with_its_text_as_sent():
    raw = '{"system": "Be brief \\u00e9.", "messages": [{"role": "user", "content": "hi"}]}'
    text, body = inject(ANTHROPIC, raw)
    assert body["system"] == [
        {"type": "text", "text": "Be brief é."},
        {"type": "text", "text": MEMORY},
    ]
    assert '"text":"Be brief \\u00e9."' in text  # the original escape, byte for byte


def test_anthropic_without_system_gets_one():
    raw = '{"model":"c","messages":[{"role":"user","content":"hi"}]}'
    text, body = inject(ANTHROPIC, raw)
    assert body["system"] == [{"type": "text", "text": MEMORY}]
    assert text.endswith('"model":"c","messages":[{"role":"user","content":"hi"}]}')


@settings(max_examples=60, deadline=None)
@given(
    extra=st.dictionaries(
        st.text(min_size=1, max_size=8).filter(lambda k: k not in ("messages", "system")),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=20),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=5), inner, max_size=3)
            ),
            max_leaves=8,
        ),
        max_size=4,
    ),
    indent=st.sampled_from([None, 1, 2]),
)
def test_injection_changes_nothing_but_the_memory(extra, indent):
    for adapter in (OPENAI, ANTHROPIC):
        original = {"messages": [{"role": "user", "content": "hi"}], **extra}
        raw = json.dumps(original, indent=indent, ensure_ascii=bool(indent))
        _, body = inject(adapter, raw)
        if adapter is OPENAI:
            assert body["messages"] == [
                {"role": "system", "content": MEMORY},
                *original["messages"],
            ]
        else:
            assert body.pop("system") == [{"type": "text", "text": MEMORY}]
        body["messages"] = original["messages"]
        assert body == original


def test_bodies_that_are_not_one_json_object_are_refused():
    for raw in (b"[1]", b'{"a": 1} x', b"\xff{}", b"", b'{"a" 1}'):
        with pytest.raises(NotAnObject):
            body_parse(raw)
    with pytest.raises(NotUnderstood):
        OPENAI.read_request(body_parse(b'{"model": "m"}'))


def test_openai_requests_are_read_with_media_as_placeholders():
    raw = {
        "model": "gpt",
        "stream": True,
        "messages": [
            {"role": "system", "content": "sys"},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is this?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"x":1}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
            {"role": "system", "content": "a reminder mid-way is not stored"},
        ],
    }
    request = OPENAI.read_request(body_parse(json.dumps(raw).encode()))
    assert request.system == "sys" and request.stream and request.model == "gpt"
    assert [(m.role, m.content) for m in request.messages] == [
        ("user", "what is this?\n\n[image]"),
        ("assistant", ""),
        ("tool", "done"),
    ]
    assert request.messages[1].tool_calls == (ToolCall("c1", "f", {"x": 1}),)


def test_anthropic_tool_results_continue_the_turn_and_thinking_is_dropped():
    raw = {
        "system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "list files"}]},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "s"},
                    {"type": "text", "text": "Looking."},
                    {"type": "tool_use", "id": "t1", "name": "ls", "input": {"p": "."}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "a.txt"}],
                    },
                    {"type": "text", "text": "also check b"},
                ],
            },
        ],
    }
    request = ANTHROPIC.read_request(body_parse(json.dumps(raw).encode()))
    assert request.system == "a\n\nb"
    assert [(m.role, m.content, m.opens_turn) for m in request.messages] == [
        ("user", "list files", True),
        ("assistant", "Looking.", False),
        ("tool", "a.txt", False),
        ("user", "also check b", False),
    ]


def _replay(adapter, events: list[bytes], cut: int = 7):
    """Feed a stream in awkward pieces (`cut` bytes at a time), as a network would."""
    stream = b"".join(events)
    reader, splitter, seen = adapter.stream_reader(), EventSplitter(), []
    for i in range(0, len(stream), cut):
        for event in splitter.feed(stream[i : i + cut]):
            seen.append(event.raw)
            if not adapter.stream_reader().is_terminal(event):
                reader.feed(event)
    assert b"".join(seen) == stream  # relayed bytes are exactly the upstream's
    return reader.reply()


@pytest.mark.parametrize("cut", [1, 5, 64, 100_000])
def test_streamed_openai_tool_calls_are_reassembled(cut):
    answer = Answer(
        "Let me look.", tool_calls=[Call("c1", "grep", {"q": "ab"}), Call("c2", "ls", {})]
    )
    reply = _replay(OPENAI, openai_events(answer, "gpt", usage=True), cut)
    assert not reply.final
    assert reply.messages[0].content == "Let me look."
    assert reply.messages[0].tool_calls == (
        ToolCall("c1", "grep", {"q": "ab"}),
        ToolCall("c2", "ls", {}),
    )
    assert (reply.prompt_tokens, reply.completion_tokens) == (11, 7)


@pytest.mark.parametrize("cut", [1, 9, 100_000])
def test_streamed_anthropic_input_json_deltas_are_reassembled(cut):
    answer = Answer("Checking.", tool_calls=[Call("t1", "read", {"path": "/etc/x", "n": 3})])
    reply = _replay(ANTHROPIC, anthropic_events(answer, "claude"), cut)
    assert not reply.final
    assert reply.messages[0].tool_calls == (ToolCall("t1", "read", {"path": "/etc/x", "n": 3}),)
    final = _replay(ANTHROPIC, anthropic_events(Answer("All good."), "claude"), cut)
    assert final.final and final.messages[0].content == "All good."


def test_a_stream_without_its_finish_is_incomplete():
    events = openai_events(Answer("half of it"), "gpt", usage=False)
    assert _replay(OPENAI, events[:3]) is None
    assert _replay(ANTHROPIC, anthropic_events(Answer("half"), "c")[:4]) is None


def test_crlf_streams_are_split_too():
    splitter = EventSplitter()
    events = list(splitter.feed(b"data: 1\r\n\r\ndata: 2\r\n\r"))
    assert [e.data for e in events] == ["1"]
    assert [e.data for e in splitter.feed(b"\n")] == ["2"]


def test_errors_are_written_in_each_protocols_shape():
    assert json.loads(OPENAI.error_body(404, "namespace_not_found", "nope")) == {
        "error": {
            "message": "nope",
            "type": "not_found_error",
            "param": None,
            "code": "namespace_not_found",
        }
    }
    assert json.loads(ANTHROPIC.error_body(401, "unauthorized", "who")) == {
        "type": "error",
        "error": {"type": "authentication_error", "message": "who", "code": "unauthorized"},
    }


def test_errors_inside_a_stream_are_recognised():
    from proxy.sse import parse_event

    anthropic_error = parse_event(
        b'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error"}}\n\n'
    )
    assert ANTHROPIC.stream_reader().is_error(anthropic_error)
    openai_error = parse_event(b'data: {"error": {"message": "boom"}}\n\n')
    assert OPENAI.stream_reader().is_error(openai_error)
    assert not OPENAI.stream_reader().is_error(parse_event(b'data: {"choices": []}\n\n'))
