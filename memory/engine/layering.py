"""Deterministic block views: L3/L4/L5 are built by code from the source messages, never by a model.

SPEC §3 fixes every rule here (role labels, filler allowlist, repeated-paste dedup, tool-record
summaries, length guard). The functions are pure: same messages in, same text out, on any machine,
so sealing can store the views and any later render can rebuild them byte-for-byte. L0–L2 are
model output; this module only renders them.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from memory.engine.tokens import estimate_tokens

# SPEC §3 "Filler removal": exactly these 26 entries, compared after normalisation.
FILLER_SENTENCES: frozenset[str] = frozenset(
    {
        "ok", "okay", "got it", "thanks", "thank you", "yes", "correct", "sure",
        "好", "好的", "嗯", "嗯嗯", "明白", "收到", "谢谢", "感谢", "辛苦了",
        "是", "是的", "对", "对的", "没错", "可以", "行", "同意", "就这样",
    }
)  # fmt: skip
REPEATED_PASTE_MARKER = "[repeated paste omitted; original remains in L5]"
# Measured in UTF-16 code units, as the original (JavaScript) did, so an emoji counts 2.
REPEATED_PASTE_MIN_UTF16_UNITS = 80
RESULT_SUMMARY_MAX_CHARS = 160
ERROR_SUMMARY_MAX_CHARS = 140
# Keys that carry what the agent *asked*, not what the tool *answered*: never summarised.
ARGUMENT_KEYS: frozenset[str] = frozenset({"arguments", "params", "input", "request"})

_ROLE_LABELS: dict[str, str] = {"user": "User", "assistant": "Assistant", "tool": "Tool"}
_FILLER_TRAILING_MARKS = "。！？，、,.!?～~"
_WHITESPACE = re.compile(r"\s+")
# A sentence ends after 。！？!? (the marks stay with it) or at a line break; ASCII "." is not a
# split point because it is too common inside sentences (versions, paths, abbreviations). A run
# of marks ends one sentence ("OK!!", "Really?!"), so dropping "OK!" never strands a lone "!".
_SENTENCE_BREAK = re.compile(r"(?<=[。！？!?])(?![。！？!?])|\n+")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n+")
_FENCED_CODE = re.compile(r"```.*?```", re.DOTALL)
_FENCE_OPEN = re.compile(r"```(?:json)?\s*", re.IGNORECASE)
_CODE_KEYWORD_LINE = re.compile(
    r"^\s*(?:const|let|var|function|class|import|export|def|SELECT|INSERT|UPDATE)(?![A-Za-z0-9_])",
    re.MULTILINE,
)
_CODE_PUNCTUATION = re.compile(r"=>|[{};]")
_TOOL_MENTION = re.compile(r'tool_calls|tool_call|"function"|"arguments"', re.IGNORECASE)
_RAW_TOOL_NAME = re.compile(r'"name"\s*:\s*"([^"\\]+)"')


@dataclass(frozen=True)
class ToolCallRecord:
    """One tool call attached to a message: what was called, with what, and what came back."""

    name: str
    arguments: object | None = None
    result: object | None = None


@dataclass(frozen=True)
class ViewMessage:
    """A stored source message, reduced to what the views need."""

    role: str
    content: str
    name: str | None = None
    tool_calls: tuple[ToolCallRecord, ...] = ()


@dataclass(frozen=True)
class DeterministicViews:
    """L3–L5 after the length guard, with their token estimates (tokens(L3) ≤ L4 ≤ L5)."""

    l3: str
    l4: str
    l5: str
    l3_tokens: int
    l4_tokens: int
    l5_tokens: int


class _Part(NamedTuple):
    text: str
    paste_candidate: bool


def role_label(role: str) -> str:
    """`user`→User, `assistant`→Assistant, `tool`→Tool, anything else→System (SPEC §3)."""
    return _ROLE_LABELS.get(role, "System")


# --- tool records -----------------------------------------------------------------------------


def _collapse(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def _cut(text: str, limit: int) -> str:
    # rstrip so a cut that lands on a space does not leave "(… )" in the summary line.
    return text[:limit].rstrip()


def _reject_constant(token: str) -> object:
    raise ValueError(f"not JSON: {token}")


def _parse_json(text: str) -> tuple[bool, object]:
    """Parse strict JSON; (False, None) when it is not JSON (incl. NaN and absurd nesting)."""
    try:
        return True, json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return False, None


def _number_text(value: int | float) -> str:
    # Mirror JavaScript's String(number) for the common cases, so 2.0 reads "2" not "2.0".
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    try:
        return str(value)
    except ValueError:  # beyond Python's int-to-str digit limit
        return "large number"


def _summarize_mapping(record: Mapping[object, object]) -> str:
    error = record.get("error")
    if isinstance(error, str) and (text := _collapse(error)):
        return "failed: " + _cut(text, ERROR_SUMMARY_MAX_CHARS)
    for key in ("summary", "message"):
        field = record.get(key)
        if isinstance(field, str) and (text := _collapse(field)):
            return _cut(text, RESULT_SUMMARY_MAX_CHARS)
    counts = [
        f"{key}: {len(item)}"
        for key, item in record.items()
        if str(key) not in ARGUMENT_KEYS and isinstance(item, list | tuple)
    ]
    if counts:
        return _cut(", ".join(counts), RESULT_SUMMARY_MAX_CHARS)
    ok = record.get("ok")
    if ok is True:
        return "completed"
    if ok is False:
        return "not completed"
    return "structured result returned"


def summarize_result(value: object) -> str:
    """Bounded (≤ 160 chars) summary of a tool result; "" when there is nothing to say."""
    if isinstance(value, str):
        text = _collapse(value)
        if not text:
            return ""
        parsed_ok, parsed = _parse_json(text)
        if parsed_ok:
            return summarize_result(parsed)
        return _cut(text, RESULT_SUMMARY_MAX_CHARS)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number_text(value)
    if isinstance(value, Mapping):
        return _summarize_mapping(value)
    if isinstance(value, list | tuple):
        return f"items: {len(value)}"
    return ""


def _tool_line(names: str, summary: str) -> str:
    return f"Tool call: {names} ({summary})" if summary else f"Tool call: {names}"


def tool_trace_line(call: ToolCallRecord) -> str:
    """`Tool call: <name> (<result summary>)`; the arguments are never rendered."""
    return _tool_line(call.name, summarize_result(call.result))


def _unique(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(name.strip() for name in names if name.strip()))


def _tool_names(value: object) -> list[str]:
    """Names of every tool-call-shaped object anywhere in a JSON value, first-seen order."""
    found: list[str] = []
    # Iterative pre-order walk: a hostile, deeply nested payload must not blow the stack.
    stack: list[object] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
            continue
        if not isinstance(item, dict):
            continue
        name = item.get("name")
        if isinstance(name, str) and ("arguments" in item or "parameters" in item):
            found.append(name)
        tool = item.get("tool")
        if isinstance(tool, str):
            found.append(tool)
        function = item.get("function")
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            found.append(function["name"])
        stack.extend(reversed(list(item.values())))
    return _unique(found)


def _strip_fence(text: str) -> str:
    opening = _FENCE_OPEN.match(text)
    if opening:
        text = text[opening.end() :]
    # Plain string ops, not a `\s*```$` regex, which backtracks quadratically on long spaces.
    if text.endswith("```"):
        text = text[:-3].rstrip()
    return text


def summarize_tool_text(text: str) -> str | None:
    """Recognise message content that is a tool record; None when it is ordinary text.

    JSON (optionally fenced) holding objects with `name` + `arguments`/`parameters`, a string
    `tool`, or `function.name` gives `Tool call: <names> (<summary of result|content>)`. Text that
    is not JSON but mentions tool_calls/"function"/"arguments" is treated as a garbled tool record
    whose payload is unsafe to show: only the names survive, with `(raw arguments omitted)`.
    """
    body = _strip_fence(text.strip())
    parsed_ok, parsed = _parse_json(body)
    if parsed_ok:
        names = _tool_names(parsed)
        if not names:
            return None
        outcome: object = None
        if isinstance(parsed, dict):
            outcome = parsed.get("result")
            if outcome is None:
                outcome = parsed.get("content")
        return _tool_line(", ".join(names), summarize_result(outcome))
    if not _TOOL_MENTION.search(body):
        return None
    raw_names = _unique(_RAW_TOOL_NAME.findall(body))
    if not raw_names:
        return "Tool call (raw arguments omitted)"
    return f"Tool call: {', '.join(raw_names)} (raw arguments omitted)"


# --- L3 helpers -------------------------------------------------------------------------------


def is_filler_sentence(sentence: str) -> bool:
    """True when the whole sentence is an allowlisted acknowledgement like "OK!" or "好的。"."""
    core = sentence.strip().rstrip(_FILLER_TRAILING_MARKS).strip().lower()
    return core in FILLER_SENTENCES


def remove_standalone_fillers(paragraph: str) -> str:
    """Drop filler sentences; a paragraph where nothing was dropped comes back as it was."""
    pieces = [piece.strip() for piece in _SENTENCE_BREAK.split(paragraph)]
    pieces = [piece for piece in pieces if piece]
    kept = [piece for piece in pieces if not is_filler_sentence(piece)]
    if len(kept) == len(pieces):
        return paragraph.strip()
    return "\n".join(kept)


def looks_like_code(paragraph: str) -> bool:
    """Multi-line and has a keyword-led line, `=>`, or braces/semicolons (SPEC §3)."""
    if "\n" not in paragraph:
        return False
    return bool(_CODE_KEYWORD_LINE.search(paragraph) or _CODE_PUNCTUATION.search(paragraph))


def _normalise(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip().lower()


def _utf16_units(text: str) -> int:
    # surrogatepass: content decoded from JSON may hold lone surrogates; they still count 1.
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _is_paste_candidate(paragraph: str) -> bool:
    return (
        looks_like_code(paragraph)
        or _utf16_units(_normalise(paragraph)) >= REPEATED_PASTE_MIN_UTF16_UNITS
    )


def _prose_and_code(source: str) -> Iterable[tuple[str, bool]]:
    cursor = 0
    for match in _FENCED_CODE.finditer(source):
        if match.start() > cursor:
            yield source[cursor : match.start()], False
        yield match.group(0), True
        cursor = match.end()
    if cursor < len(source):
        yield source[cursor:], False


def _condensed_parts(message: ViewMessage) -> list[_Part]:
    text = message.content.strip()
    # Tool-record recognition is limited to tool-role messages, as in L4: a user who merely
    # writes about "tool_calls" must not have their words replaced by a tool summary.
    summary = summarize_tool_text(text) if message.role == "tool" else None
    parts: list[_Part] = []
    if summary is not None:
        parts.append(_Part(summary, paste_candidate=False))
    else:
        for segment, is_code in _prose_and_code(text):
            if is_code:
                parts.append(_Part(segment.strip(), paste_candidate=True))
                continue
            for paragraph in _PARAGRAPH_BREAK.split(segment):
                kept = remove_standalone_fillers(paragraph)
                if kept:
                    parts.append(_Part(kept, paste_candidate=_is_paste_candidate(kept)))
    return parts


# --- views ------------------------------------------------------------------------------------


def _raw_tool_json(call: ToolCallRecord) -> str:
    record: dict[str, object] = {"name": call.name}
    if call.arguments is not None:
        record["arguments"] = call.arguments
    if call.result is not None:
        record["result"] = call.result
    try:
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):  # non-string keys or cycles from a Python caller
        fallback = {key: repr(value) for key, value in record.items()}
        return json.dumps(fallback, ensure_ascii=False, separators=(",", ":"))


def render_l5(messages: Sequence[ViewMessage]) -> str:
    """Every message as `<role>: <content>`, then `Tool call (raw): <json>` per tool call."""
    paragraphs: list[str] = []
    for message in messages:
        paragraphs.append(f"{message.role}: {message.content}")
        paragraphs.extend(f"Tool call (raw): {_raw_tool_json(call)}" for call in message.tool_calls)
    return "\n\n".join(paragraphs)


def render_l4(messages: Sequence[ViewMessage]) -> str:
    """Near-verbatim dialogue: no system messages, tool records reduced to summary lines."""
    paragraphs: list[str] = []
    for message in messages:
        if message.role == "system":
            continue
        text = message.content.strip()
        if message.role == "tool":
            text = summarize_tool_text(text) or text
        if text:
            paragraphs.append(f"{role_label(message.role)}: {text}")
        paragraphs.extend(tool_trace_line(call) for call in message.tool_calls)
    return "\n\n".join(paragraphs)


def render_l3(messages: Sequence[ViewMessage]) -> str:
    """L4 minus standalone fillers and later copies of pastes (dedup spans the whole block)."""
    seen: set[str] = set()
    paragraphs: list[str] = []
    for message in messages:
        if message.role == "system":
            continue
        rendered: list[str] = []
        for part in _condensed_parts(message):
            if not part.paste_candidate:
                rendered.append(part.text)
                continue
            key = _normalise(part.text)
            rendered.append(REPEATED_PASTE_MARKER if key in seen else part.text)
            seen.add(key)
        if rendered:
            paragraphs.append(f"{role_label(message.role)}: " + "\n\n".join(rendered))
        # Tool lines follow the text exactly as in L4, so a message that is only tool calls reads
        # "Tool call: …" in both views (the original prefixed an empty "Assistant: " in L3 only).
        paragraphs.extend(tool_trace_line(call) for call in message.tool_calls)
    return "\n\n".join(paragraphs)


def build_deterministic_views(messages: Sequence[ViewMessage]) -> DeterministicViews:
    """L3–L5 with the length guard: a processed view never costs more than the one above it.

    Ties keep the more processed view (`>` not `>=`), matching SPEC §3.
    """
    l5 = render_l5(messages)
    l5_tokens = estimate_tokens(l5)
    l4 = render_l4(messages)
    l4_tokens = estimate_tokens(l4)
    if l4_tokens > l5_tokens:
        l4, l4_tokens = l5, l5_tokens
    l3 = render_l3(messages)
    l3_tokens = estimate_tokens(l3)
    if l3_tokens > l4_tokens:
        l3, l3_tokens = l4, l4_tokens
    return DeterministicViews(
        l3=l3, l4=l4, l5=l5, l3_tokens=l3_tokens, l4_tokens=l4_tokens, l5_tokens=l5_tokens
    )


# --- L0–L2 (model output, rendered here so every surface shows them the same way) -------------


def render_l0(title: str, tags: Sequence[str]) -> str:
    """`<title>\\nTags: <t1, t2>`, or `Tags: none` when there are no (non-blank) tags."""
    shown = [tag.strip() for tag in tags if tag.strip()]
    return f"{title.strip()}\nTags: {', '.join(shown) if shown else 'none'}"


def render_l1(summary: str) -> str:
    """The short summary as stored (trimmed); its ≤ 2,000-char bound is enforced at write time."""
    return summary.strip()


def render_l2(points: Sequence[str], summary: str) -> str:
    """One `- point` line per key fact; the L1 summary when there are no points."""
    lines = [f"- {point.strip()}" for point in points if point.strip()]
    return "\n".join(lines) if lines else render_l1(summary)
