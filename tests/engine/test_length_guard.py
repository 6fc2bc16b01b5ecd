"""Property tests: the SPEC §3 length guard holds and the views are deterministic for any block."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.engine.layering import ToolCallRecord, ViewMessage, build_deterministic_views
from memory.engine.tokens import estimate_tokens

_FRAGMENTS = st.sampled_from(
    [
        "ok",
        "OK!",
        "Thanks.",
        "好的。",
        "嗯嗯",
        "ok, let's use Postgres",
        "```python\ndef f():\n    return 1\n```",
        "```\nconst a = 1;\n```",
        "```unclosed fence",
        "const a = 1\nlet b = a => a;",
        "a;\nb",
        "The deployment pipeline builds the image, runs the migrations and then switches traffic.",
        "部署流程先构建镜像，然后运行迁移，最后把流量切换到新版本。这是一个很长的中文段落。" * 2,
        "😀" * 40,
        '{"name": "search", "arguments": {"q": "x"}, "result": {"ok": true}}',
        '{"tool": "fetch", "content": "page text"}',
        'tool_calls: [{"name": "broken", "arguments": {',
        "tool_call",
        '{"status": "done"}',
        "Is it fast?! Yes.",
        "\n",
        "\n\n",
        "   ",
        "。",
    ]
)
_FREE_TEXT = st.text(
    alphabet=st.sampled_from(list("abc XYZ;{}=>`\n\t.!?。！？，～好的是中文😀\"':[]")),
    max_size=60,
)
_CONTENT = st.lists(st.one_of(_FRAGMENTS, _FREE_TEXT), max_size=6).map("".join)

_JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1000, 1000),
    st.text(max_size=30),
)
_JSON = st.recursive(
    _JSON_LEAF,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(
            st.sampled_from(["ok", "error", "summary", "message", "events", "arguments", "x"]),
            children,
            max_size=4,
        ),
    ),
    max_leaves=12,
)
_RESULT = st.one_of(_JSON, _JSON.map(json.dumps), _CONTENT)
_TOOL_CALL = st.builds(
    ToolCallRecord,
    name=st.sampled_from(["search_events", "shell", "读取文件", "x"]),
    arguments=st.one_of(st.none(), st.dictionaries(st.text(max_size=8), _JSON, max_size=3)),
    result=st.one_of(st.none(), _RESULT),
)
_MESSAGE = st.builds(
    ViewMessage,
    role=st.sampled_from(["user", "assistant", "tool", "system", "developer"]),
    content=_CONTENT,
    tool_calls=st.lists(_TOOL_CALL, max_size=3).map(tuple),
)
# Short garbled tool records summarise to *more* text than they hold, which is what makes the
# L4 := L5 branch of the guard fire; mixed in small blocks so it is actually exercised.
_GARBLED_TOOL = st.builds(
    ViewMessage,
    role=st.just("tool"),
    content=st.sampled_from(["tool_call", '"arguments"', "tool_calls x", '{"tool":"a"}']),
)
_BLOCK = st.one_of(
    st.lists(_MESSAGE, max_size=10),
    st.lists(st.one_of(_GARBLED_TOOL, _MESSAGE), min_size=1, max_size=3),
)

_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_BLOCK)
def test_tokens_of_l3_never_exceed_l4_and_l4_never_exceeds_l5(messages: list[ViewMessage]) -> None:
    views = build_deterministic_views(messages)
    assert views.l3_tokens <= views.l4_tokens <= views.l5_tokens
    assert views.l3_tokens == estimate_tokens(views.l3)
    assert views.l4_tokens == estimate_tokens(views.l4)
    assert views.l5_tokens == estimate_tokens(views.l5)


@_SETTINGS
@given(_BLOCK)
def test_building_the_views_twice_gives_identical_text(messages: list[ViewMessage]) -> None:
    assert build_deterministic_views(messages) == build_deterministic_views(list(messages))


@_SETTINGS
@given(_BLOCK)
def test_l5_keeps_every_message_verbatim(messages: list[ViewMessage]) -> None:
    l5 = build_deterministic_views(messages).l5
    for message in messages:
        assert f"{message.role}: {message.content}" in l5
