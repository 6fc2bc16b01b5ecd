"""L3/L4/L5 rendering rules and the token estimator, one test per SPEC §3 rule."""

from __future__ import annotations

import json

import pytest

from memory.engine.layering import (
    FILLER_SENTENCES,
    REPEATED_PASTE_MARKER,
    ToolCallRecord,
    ViewMessage,
    build_deterministic_views,
    looks_like_code,
    render_l0,
    render_l1,
    render_l2,
    render_l3,
    render_l4,
    render_l5,
    role_label,
    summarize_result,
    summarize_tool_text,
    tool_trace_line,
)
from memory.engine.tokens import estimate_tokens

MARKER = "[repeated paste omitted; original remains in L5]"

# SPEC §3 "Filler removal": the exact allowlist, 26 entries.
SPEC_FILLERS = [
    "ok", "okay", "got it", "thanks", "thank you", "yes", "correct", "sure",
    "好", "好的", "嗯", "嗯嗯", "明白", "收到", "谢谢", "感谢", "辛苦了",
    "是", "是的", "对", "对的", "没错", "可以", "行", "同意", "就这样",
]  # fmt: skip


def user(text: str) -> ViewMessage:
    return ViewMessage(role="user", content=text)


def assistant(text: str, *calls: ToolCallRecord) -> ViewMessage:
    return ViewMessage(role="assistant", content=text, tool_calls=calls)


def tool(text: str) -> ViewMessage:
    return ViewMessage(role="tool", content=text)


def system(text: str) -> ViewMessage:
    return ViewMessage(role="system", content=text)


# --- labels and tokens -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "label"),
    [("user", "User"), ("assistant", "Assistant"), ("tool", "Tool"), ("system", "System"),
     ("developer", "System"), ("USER", "System")],
)  # fmt: skip
def test_role_labels_follow_the_spec_table(role: str, label: str) -> None:
    assert role_label(role) == label


# SPEC §3 length guard: each maximal ASCII run costs ⌈len/4⌉, each non-ASCII code point 1.
TOKEN_EXAMPLES = [
    ("", 0),
    ("a", 1),
    ("abcd", 1),
    ("abcde", 2),
    ("abcdefgh", 2),
    ("你好", 2),
    ("ab你好cd", 1 + 2 + 1),
    ("abcde你", 2 + 1),
    ("😀", 1),
    ("a😀b", 3),
    ("\n\n", 1),
]


@pytest.mark.parametrize(("text", "tokens"), TOKEN_EXAMPLES)
def test_token_estimate_charges_ascii_runs_and_other_code_points(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


# --- filler removal ----------------------------------------------------------------------------


def test_the_filler_allowlist_is_exactly_the_spec_list() -> None:
    assert len(SPEC_FILLERS) == 26
    assert frozenset(SPEC_FILLERS) == FILLER_SENTENCES


@pytest.mark.parametrize("filler", SPEC_FILLERS)
def test_a_standalone_filler_sentence_is_dropped(filler: str) -> None:
    text = f"{filler.upper()}!!\nWe deploy on Friday."
    assert render_l3([user(text)]) == "User: We deploy on Friday."


@pytest.mark.parametrize("filler", SPEC_FILLERS)
def test_a_filler_followed_by_a_cjk_terminator_is_dropped(filler: str) -> None:
    assert render_l3([user(f"{filler}～。我们周五上线。")]) == "User: 我们周五上线。"


@pytest.mark.parametrize(
    "text",
    [
        "ok, let's use Postgres",
        "Thanks. We deploy on Friday.",  # ASCII "." is not a sentence break
        "okay then",
        "好的呀",
        "yes sir!",
    ],
)
def test_a_sentence_that_merely_starts_with_a_filler_is_kept(text: str) -> None:
    assert render_l3([user(text)]) == f"User: {text}"


@pytest.mark.parametrize(
    "text",
    [
        "First line,  with  double spaces!\n   Indented second line?\tTab  stays",
        "第一句保持原样。第二句也保持原样。",
        "Is it fast? Yes it is! Really.",
    ],
)
def test_a_paragraph_with_nothing_dropped_is_kept_byte_for_byte(text: str) -> None:
    assert render_l3([user(f"  {text}\n")]) == f"User: {text}"


def test_a_paragraph_with_a_dropped_filler_is_rebuilt_line_by_line() -> None:
    assert render_l3([user("Okay.\nThe source must remain available.")]) == (
        "User: The source must remain available."
    )
    assert render_l3([user("好的。第一句。  第二句！")]) == "User: 第一句。\n第二句！"


def test_an_all_filler_paragraph_disappears_but_its_neighbours_stay() -> None:
    assert render_l3([user("Intro here.\n\nThanks!\n\nOutro here.")]) == (
        "User: Intro here.\n\nOutro here."
    )


def test_an_all_filler_message_is_omitted_entirely_from_l3_but_not_l4() -> None:
    messages = [user("Please deploy."), assistant("OK!\n\n好的。"), user("Thanks")]
    assert render_l3(messages) == "User: Please deploy."
    assert render_l4(messages) == "User: Please deploy.\n\nAssistant: OK!\n\n好的。\n\nUser: Thanks"


# --- repeated pastes ---------------------------------------------------------------------------

CODE = "```python\ndef total(items):\n    return sum(items)\n```"
LONG_PROSE = (
    "The deployment pipeline builds the image, runs the migrations and only then "
    "switches traffic to the new release."
)


def test_fenced_code_repeated_in_a_later_message_becomes_the_marker() -> None:
    messages = [user(f"Here is the helper:\n{CODE}"), assistant(f"I ran:\n{CODE}\nIt works.")]
    assert render_l3(messages) == (
        f"User: Here is the helper:\n\n{CODE}\n\nAssistant: I ran:\n\n{MARKER}\n\nIt works."
    )
    assert render_l4(messages).count(CODE) == 2


def test_long_prose_repeated_across_messages_is_deduplicated_after_normalising() -> None:
    assert len(LONG_PROSE) >= 80
    shouted = "  " + LONG_PROSE.upper().replace(" ", "   ") + "\n"
    messages = [user(LONG_PROSE), assistant(shouted)]
    assert render_l3(messages) == f"User: {LONG_PROSE}\n\nAssistant: {MARKER}"


def test_long_prose_pasted_twice_in_one_message_appears_once_then_the_marker() -> None:
    assert render_l3([user(f"{LONG_PROSE}\n\n{LONG_PROSE}")]) == (f"User: {LONG_PROSE}\n\n{MARKER}")


def test_short_prose_repeated_is_never_deduplicated() -> None:
    messages = [user("Let's use Postgres."), assistant("Sure."), user("Let's use Postgres.")]
    assert render_l3(messages) == "User: Let's use Postgres.\n\nUser: Let's use Postgres."


def test_a_short_code_like_paragraph_is_a_paste_candidate() -> None:
    snippet = "const a = 1\nconst b = 2"
    assert render_l3([user(snippet), assistant(snippet)]) == (
        f"User: {snippet}\n\nAssistant: {MARKER}"
    )


def test_the_80_character_rule_counts_utf16_units_like_the_original() -> None:
    emoji = "😀" * 40  # 40 code points, 80 UTF-16 units: a candidate
    cjk = "中" * 40  # 40 code points, 40 UTF-16 units: short prose
    assert render_l3([user(emoji), user(emoji)]) == f"User: {emoji}\n\nUser: {MARKER}"
    assert render_l3([user(cjk), user(cjk)]) == f"User: {cjk}\n\nUser: {cjk}"


def test_the_marker_constant_is_the_spec_text() -> None:
    assert REPEATED_PASTE_MARKER == MARKER


CODE_LIKE = [
    ("const a = 1\nconsole.log(a)", True),
    ("intro\nlet y = 2", True),
    ("  def f(x):\n    return x", True),
    ("SELECT *\nFROM t", True),
    ("import os\nprint(os.sep)", True),
    ("a\nb => c", True),
    ("a\nif (x) {", True),
    ("a\nb;", True),
    ("select *\nfrom t", False),  # keywords are case-sensitive
    ("constant values\nare nice", False),  # a keyword needs a word boundary
    ("We import goods\nfrom abroad", False),  # the keyword must start the line
    ("plain words\nmore words", False),
    ("const a = 1;", False),  # a single line is never code-like
    ("x => y", False),
    ("{}", False),
]


@pytest.mark.parametrize(("paragraph", "expected"), CODE_LIKE)
def test_code_like_heuristic(paragraph: str, expected: bool) -> None:
    assert looks_like_code(paragraph) is expected


# --- tool records ------------------------------------------------------------------------------

SECRET = "sk-do-not-show-7f3a"


def test_a_json_tool_record_in_a_tool_message_shows_name_and_summary_only() -> None:
    record = {
        "name": "search_events",
        "arguments": {"query": SECRET},
        "result": {"ok": True, "events": [{"id": 1}, {"id": 2}]},
    }
    for content in (json.dumps(record), f"```json\n{json.dumps(record, indent=2)}\n```"):
        messages = [tool(content)]
        assert render_l4(messages) == "Tool: Tool call: search_events (events: 2)"
        assert render_l3(messages) == "Tool: Tool call: search_events (events: 2)"
        assert SECRET in render_l5(messages)


GARBLED = 'tool_calls: [{"name": "search", "arguments": {"q": "' + SECRET
TOOL_TEXTS: list[tuple[str, str | None]] = [
    (
        '{"tool": "web_fetch", "content": "Fetched   page\\n text"}',
        "Tool call: web_fetch (Fetched page text)",
    ),
    ('{"name": "f", "parameters": {"x": 1}}', "Tool call: f"),
    (
        '{"tool_calls": [{"type": "function", "function": {"name": "read_file", "arguments": ""}},'
        ' {"function": {"name": "grep", "arguments": "{}"}}, {"function": {"name": "read_file"}}]}',
        "Tool call: read_file, grep",
    ),
    ('[{"tool": "a"}, {"tool": "b", "result": "x"}]', "Tool call: a, b"),
    ('{"tool": "a", "result": null, "content": {"ok": false}}', "Tool call: a (not completed)"),
    (GARBLED, "Tool call: search (raw arguments omitted)"),
    ('calling tool_call with "arguments" ' + SECRET, "Tool call (raw arguments omitted)"),
    ('{"status": "done"}', None),
    ('{"name": "no arguments key"}', None),
    ("Build finished in 3.2s", None),
    ("", None),
]


@pytest.mark.parametrize(("text", "expected"), TOOL_TEXTS)
def test_tool_record_recognition(text: str, expected: str | None) -> None:
    assert summarize_tool_text(text) == expected


def test_garbled_tool_json_never_shows_its_arguments() -> None:
    messages = [tool(GARBLED)]
    for view in (render_l3(messages), render_l4(messages)):
        assert view == "Tool: Tool call: search (raw arguments omitted)"


def test_tool_role_text_that_is_not_a_tool_record_is_kept_as_text() -> None:
    messages = [tool("Build finished in 3.2s"), tool('{"status": "done"}')]
    expected = 'Tool: Build finished in 3.2s\n\nTool: {"status": "done"}'
    assert render_l4(messages) == expected
    assert render_l3(messages) == expected


def test_a_user_writing_about_tool_calls_keeps_their_words() -> None:
    text = 'Why does "arguments" come back empty in tool_calls?'
    assert render_l3([user(text)]) == f"User: {text}"
    assert render_l4([user(text)]) == f"User: {text}"


def test_attached_tool_calls_show_a_bounded_summary_and_never_their_arguments() -> None:
    calls = (
        ToolCallRecord(
            name="search_events",
            arguments={"privateQuery": SECRET},
            result={"ok": True, "events": list(range(200)), "blob": "x" * 20_000},
        ),
        ToolCallRecord(name="shell", arguments={"command": SECRET}, result="word " * 5_000),
    )
    messages = [user("Find it."), assistant("Searching.", *calls)]
    views = build_deterministic_views(messages)
    trace_lines = [tool_trace_line(call) for call in calls]
    assert trace_lines[0] == "Tool call: search_events (events: 200)"
    assert len(trace_lines[1]) <= len("Tool call: shell ()") + 160
    expected = "User: Find it.\n\nAssistant: Searching.\n\n" + "\n\n".join(trace_lines)
    assert views.l4 == expected
    assert views.l3 == expected
    assert SECRET not in views.l3
    assert SECRET not in views.l4
    assert views.l5.count(SECRET) == 2


RESULT_LADDER: list[tuple[object, str]] = [
    ({"error": "boom\n  at line 3", "summary": "ignored"}, "failed: boom at line 3"),
    ({"error": "e" * 300}, "failed: " + "e" * 140),
    ({"summary": "  Found  3 items ", "message": "ignored"}, "Found 3 items"),
    ({"message": "m" * 300}, "m" * 160),
    (
        {"events": [1, 2, 3], "nodes": [], "arguments": [1], "params": [1], "input": [1],
         "request": [1], "ok": True},
        "events: 3, nodes: 0",
    ),
    ({"arguments": [1, 2], "ok": False}, "not completed"),
    ({"ok": True}, "completed"),
    ({"ok": False}, "not completed"),
    ({"ok": 1}, "structured result returned"),
    ({"data": {"a": 1}}, "structured result returned"),
    ({"error": "  ", "ok": True}, "completed"),
    ("  plain   text\nresult ", "plain text result"),
    ("x" * 500, "x" * 160),
    ('{"ok": true}', "completed"),
    ('"quoted"', "quoted"),
    ("NaN", "NaN"),
    (42, "42"),
    (2.5, "2.5"),
    (2.0, "2"),
    (True, "true"),
    (False, "false"),
    ([1, 2, 3], "items: 3"),
    (None, ""),
    ("", ""),
    ("   ", ""),
    ("null", ""),
]  # fmt: skip


@pytest.mark.parametrize(("value", "expected"), RESULT_LADDER)
def test_result_summary_ladder(value: object, expected: str) -> None:
    summary = summarize_result(value)
    assert summary == expected
    assert len(summary) <= 160


def test_deeply_nested_json_is_not_a_crash() -> None:
    assert summarize_tool_text("[" * 100_000 + "]" * 100_000) is None
    assert summarize_result("[" * 100_000 + "]" * 100_000) == "[" * 160


# --- system messages, L4 and L5 format ---------------------------------------------------------


def test_system_messages_appear_only_in_l5() -> None:
    messages = [system("You are terse."), user("hi")]
    views = build_deterministic_views(messages)
    assert views.l5 == "system: You are terse.\n\nuser: hi"
    assert views.l4 == "User: hi"
    assert views.l3 == "User: hi"


def test_l5_renders_role_content_and_raw_tool_json() -> None:
    call = ToolCallRecord(name="search", arguments={"q": "北京"}, result={"ok": True})
    messages = [user("  hi  "), assistant("", call), tool("done"), system("s")]
    assert render_l5(messages) == (
        "user:   hi  \n\nassistant: \n\n"
        'Tool call (raw): {"name":"search","arguments":{"q":"北京"},"result":{"ok":true}}'
        "\n\ntool: done\n\nsystem: s"
    )


def test_l5_omits_absent_arguments_and_result() -> None:
    assert render_l5([assistant("x", ToolCallRecord(name="ping"))]) == (
        'assistant: x\n\nTool call (raw): {"name":"ping"}'
    )


def test_l4_trims_labels_and_skips_empty_messages_but_keeps_their_tool_lines() -> None:
    call = ToolCallRecord(name="ping", result={"ok": True})
    messages = [user("  hello \n"), assistant("   ", call)]
    assert render_l4(messages) == "User: hello\n\nTool call: ping (completed)"


def test_a_message_with_only_tool_calls_renders_the_same_lines_in_l3_and_l4() -> None:
    call = ToolCallRecord(name="ping", arguments={"host": SECRET}, result={"ok": True})
    messages = [user("Ping it."), assistant("", call), assistant("Thanks!", call)]
    assert render_l4(messages) == (
        "User: Ping it.\n\nTool call: ping (completed)\n\nAssistant: Thanks!\n\n"
        "Tool call: ping (completed)"
    )
    assert render_l3(messages) == (
        "User: Ping it.\n\nTool call: ping (completed)\n\nTool call: ping (completed)"
    )


# --- length guard ------------------------------------------------------------------------------


def test_a_view_costing_more_than_the_one_above_is_replaced_by_it() -> None:
    # The "(raw arguments omitted)" summary is longer than the raw text it stands for.
    views = build_deterministic_views([tool("tool_call")])
    assert views.l5 == "tool: tool_call"
    assert views.l4 == views.l5
    assert views.l3 == views.l5
    assert views.l3_tokens == views.l4_tokens == views.l5_tokens == estimate_tokens(views.l5)


def test_l3_falls_back_to_l4_when_the_marker_is_longer_than_the_paste() -> None:
    snippet = "a;\nb"
    views = build_deterministic_views([user(snippet), assistant(snippet)])
    assert MARKER in render_l3([user(snippet), assistant(snippet)])
    assert views.l3 == views.l4 == f"User: {snippet}\n\nAssistant: {snippet}"


def test_ties_keep_the_more_processed_view() -> None:
    views = build_deterministic_views([user("hi")])
    assert (views.l3, views.l4, views.l5) == ("User: hi", "User: hi", "user: hi")
    assert views.l4_tokens == views.l5_tokens


# --- L0–L2 -------------------------------------------------------------------------------------


def test_l0_is_title_then_tags_or_none() -> None:
    assert render_l0("Database choice", ["postgres", "decision"]) == (
        "Database choice\nTags: postgres, decision"
    )
    assert render_l0("Database choice", []) == "Database choice\nTags: none"
    assert render_l0("Database choice", [" ", ""]) == "Database choice\nTags: none"


def test_l1_is_the_summary() -> None:
    assert render_l1("  We chose Postgres.\n") == "We chose Postgres."


def test_l2_is_one_point_per_line_and_falls_back_to_l1() -> None:
    assert render_l2(["Use Postgres", "Ship Friday"], "summary") == "- Use Postgres\n- Ship Friday"
    assert render_l2([], "We chose Postgres.") == "We chose Postgres."
    assert render_l2(["  "], "We chose Postgres.") == "We chose Postgres."
