"""The import formats beyond v2 (SPEC §11.6) and format detection.

- ChatGPT `conversations.json` and Claude's conversations export become *conversations*: sessions
  of turns (a user message opens a turn; the replies and tool output that follow belong to it),
  with the original timestamps, later ingested through batch ingest like any conversation.
- A Mem0 memories export (`{"results": [...]}` or a bare list of `{memory, created_at, …}`)
  becomes v2 *candidates* and is decided like any other external memory.
- `jsonl` is StrataGate's own lossless namespace dump (see services.imports.export).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from memory.errors import Invalid
from memory.services.imports.dumpfile import DUMP_FORMAT
from memory.services.imports.parser import (
    ParsedMemories,
    check_candidate_count,
    check_size,
    load_json,
    normalize_candidate,
    parse_memories_root,
    strip_fence,
    type_name,
)

FORMATS: Final = ("auto", "v2", "chatgpt", "claude", "mem0", "jsonl")
CONVERSATION_FORMATS: Final = frozenset({"chatgpt", "claude"})
MAX_TURN_BYTES: Final = 1024 * 1024
MAX_TURN_MESSAGES: Final = 500
_SENTENCE_END: Final = re.compile(r"(?<=[.!?。！？])\s+|\n")


@dataclass(frozen=True)
class ImportedMessage:
    role: str
    content: str
    created_at: datetime
    name: str = ""
    tool_calls: tuple[dict[str, Any], ...] = ()


@dataclass
class ImportedConversation:
    """One conversation of a chat export, as the turns it will be ingested as."""

    source_id: str
    title: str
    session_id: str
    turns: list[list[ImportedMessage]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        times = [m.created_at for turn in self.turns for m in turn]
        return {
            "kind": "conversation",
            "title": self.title,
            "summary": f"{len(self.turns)} turns, {sum(len(t) for t in self.turns)} messages",
            "session_id": self.session_id,
            "source_id": self.source_id,
            "turns": len(self.turns),
            "messages": sum(len(t) for t in self.turns),
            "started_at": min(times).isoformat() if times else None,
            "ended_at": max(times).isoformat() if times else None,
        }


@dataclass
class ParsedConversations:
    format: str
    source_system: str
    conversations: list[ImportedConversation] = field(default_factory=list)
    dropped: int = 0


# --- detection ----------------------------------------------------------------------------------


def detect_format(text: str) -> str:
    """v2 | chatgpt | claude | mem0 | jsonl, from the document's shape (never from its name)."""
    stripped = strip_fence(text)
    first_line = stripped.split("\n", 1)[0]
    if DUMP_FORMAT in first_line and first_line.lstrip().startswith("{"):
        return "jsonl"
    root = load_json(stripped)
    items = root if isinstance(root, list) else None
    if isinstance(root, dict):
        if "mapping" in root:
            return "chatgpt"
        if "chat_messages" in root:
            return "claude"
        if any(k in root for k in ("schemaVersion", "sourceType", "candidates", "events")):
            return "v2"
        for key in ("results", "memories"):
            if isinstance(root.get(key), list):
                items = root[key]
    if items is not None:
        first = next((i for i in items if isinstance(i, dict)), None)
        if first is None:
            return "v2" if isinstance(root, dict) else "chatgpt"
        if "mapping" in first:
            return "chatgpt"
        if "chat_messages" in first:
            return "claude"
        if "memory" in first:
            return "mem0"
    raise Invalid(
        "unrecognised import format: expected a stratagate.external-memory.v2 object, a ChatGPT "
        "or Claude conversations export, a Mem0 memories export or a StrataGate JSONL dump",
        code="unrecognized_format",
        details={"root_type": type_name(root), "formats": list(FORMATS[1:])},
    )


# --- time ---------------------------------------------------------------------------------------


def parse_time(value: object) -> datetime | None:
    """Epoch seconds (ChatGPT) or ISO 8601 (Claude, Mem0); naive times are UTC."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value.strip():
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


# --- conversations ------------------------------------------------------------------------------


def _as_turns(messages: list[ImportedMessage]) -> list[list[ImportedMessage]]:
    """A user message opens a turn; anything before the first one joins the first turn."""
    turns: list[list[ImportedMessage]] = []
    for message in messages:
        opens = not turns or (message.role == "user" and any(m.role == "user" for m in turns[-1]))
        if opens:
            turns.append([message])
        else:
            turns[-1].append(message)
    return turns


def _check_turns(conversation: ImportedConversation) -> None:
    for number, turn in enumerate(conversation.turns, start=1):
        size = sum(len(m.content.encode()) for m in turn)
        if size > MAX_TURN_BYTES or len(turn) > MAX_TURN_MESSAGES:
            raise Invalid(
                f"turn {number} of conversation {conversation.title!r} exceeds a turn's limits "
                "(1 MiB of text, 500 messages)",
                code="turn_too_large",
                details={"conversation": conversation.source_id, "turn": number, "bytes": size},
            )


def _stable_id(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:24]


def _chatgpt_text(content: object) -> str:
    if not isinstance(content, dict):
        return ""
    kind = content.get("content_type")
    if kind == "user_editable_context":
        return ""  # custom instructions: account settings, not conversation
    if kind == "code" or kind == "execution_output":
        text = str(content.get("text") or "")
        return f"```\n{text}\n```" if kind == "code" and text.strip() else text
    parts = content.get("parts")
    if isinstance(parts, list):
        shown = []
        for part in parts:
            if isinstance(part, str):
                shown.append(part)
            elif isinstance(part, dict):
                shown.append(part.get("text") or f"[{part.get('content_type', 'attachment')}]")
        return "\n".join(p for p in shown if p)
    return str(content.get("text") or content.get("result") or "")


def _chatgpt_branch(mapping: dict[str, Any], current: object) -> list[dict[str, Any]]:
    """The conversation as shown: from `current_node` back to the root, then reversed."""
    if not isinstance(current, str) or current not in mapping:
        leaves = [
            node for node in mapping.values() if isinstance(node, dict) and not node.get("children")
        ]
        leaves.sort(key=lambda n: (n.get("message") or {}).get("create_time") or 0)
        current = leaves[-1].get("id") if leaves else None
    branch: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(current, str) and current in mapping and current not in seen:
        seen.add(current)
        node = mapping[current]
        branch.append(node)
        current = node.get("parent")
    return list(reversed(branch))


def _chatgpt_conversation(raw: dict[str, Any], index: int) -> ImportedConversation | None:
    mapping = raw.get("mapping")
    if not isinstance(mapping, dict):
        return None
    fallback = parse_time(raw.get("create_time")) or datetime(1970, 1, 1, tzinfo=UTC)
    source_id = str(
        raw.get("conversation_id") or raw.get("id") or _stable_id(raw.get("title"), fallback)
    )
    messages: list[ImportedMessage] = []
    for node in _chatgpt_branch(mapping, raw.get("current_node")):
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        metadata = message.get("metadata") or {}
        if isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation"):
            continue
        author = message.get("author") or {}
        role = author.get("role") if isinstance(author, dict) else None
        text = _chatgpt_text(message.get("content"))
        if role not in ("user", "assistant", "system", "tool") or not text.strip():
            continue
        when = parse_time(message.get("create_time")) or fallback
        name = str(author.get("name") or "")[:200] if role == "tool" else ""
        messages.append(ImportedMessage(role=role, content=text, created_at=when, name=name))
    if not messages:
        return None
    title = str(raw.get("title") or f"ChatGPT conversation {index + 1}")[:200]
    return ImportedConversation(
        source_id=source_id,
        title=title,
        session_id=f"chatgpt:{source_id}"[:200],
        turns=_as_turns(messages),
    )


def _claude_message(raw: dict[str, Any], fallback: datetime) -> ImportedMessage | None:
    role = {"human": "user", "user": "user", "assistant": "assistant"}.get(str(raw.get("sender")))
    if role is None:
        return None
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    content = raw.get("content")
    if isinstance(content, list) and content:
        for part in content:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and part.get("text"):
                texts.append(str(part["text"]))
            elif part.get("type") == "tool_use":
                calls.append(
                    {"name": str(part.get("name") or "tool"), "arguments": part.get("input")}
                )
            elif part.get("type") == "tool_result":
                named = [c for c in calls if c["name"] == part.get("name")] or calls[-1:]
                if named:
                    named[-1]["result"] = part.get("content")
    elif raw.get("text"):
        texts.append(str(raw["text"]))
    for attachment in raw.get("attachments") or []:
        if isinstance(attachment, dict) and attachment.get("extracted_content"):
            name = attachment.get("file_name") or "attachment"
            texts.append(f"[attachment {name}]\n{attachment['extracted_content']}")
    text = "\n\n".join(t for t in texts if t.strip())
    if not text.strip() and not calls:
        return None
    when = parse_time(raw.get("created_at")) or fallback
    return ImportedMessage(role=role, content=text, created_at=when, tool_calls=tuple(calls))


def _claude_conversation(raw: dict[str, Any], index: int) -> ImportedConversation | None:
    chat = raw.get("chat_messages")
    if not isinstance(chat, list):
        return None
    fallback = parse_time(raw.get("created_at")) or datetime(1970, 1, 1, tzinfo=UTC)
    messages = [m for m in (_claude_message(c, fallback) for c in chat if isinstance(c, dict)) if m]
    # An empty user message cannot be stored (SPEC §1.6); a tool-only user message is dropped.
    messages = [m for m in messages if m.role != "user" or m.content.strip()]
    if not messages:
        return None
    source_id = str(raw.get("uuid") or _stable_id(raw.get("name"), fallback))
    return ImportedConversation(
        source_id=source_id,
        title=str(raw.get("name") or f"Claude conversation {index + 1}")[:200],
        session_id=f"claude:{source_id}"[:200],
        turns=_as_turns(messages),
    )


def parse_conversations(text: str, fmt: str) -> ParsedConversations:
    check_size(text)
    root = load_json(strip_fence(text))
    items = root if isinstance(root, list) else [root] if isinstance(root, dict) else None
    if items is None:
        raise Invalid(
            f"a {fmt} export is a JSON array of conversations, not {type_name(root)}",
            code="invalid_import_root",
            details={"root_type": type_name(root)},
        )
    convert = _chatgpt_conversation if fmt == "chatgpt" else _claude_conversation
    parsed = ParsedConversations(
        format=fmt, source_system="ChatGPT" if fmt == "chatgpt" else "Claude"
    )
    seen: set[str] = set()
    for index, raw in enumerate(items):
        conversation = convert(raw, index) if isinstance(raw, dict) else None
        if conversation is None or conversation.session_id in seen:
            parsed.dropped += 1
            continue
        seen.add(conversation.session_id)
        _check_turns(conversation)
        parsed.conversations.append(conversation)
    check_candidate_count(len(parsed.conversations), "conversations")
    parsed.conversations.sort(key=lambda c: (c.turns[0][0].created_at, c.session_id))
    return parsed


# --- Mem0 ---------------------------------------------------------------------------------------


def _first_sentence(text: str, limit: int = 80) -> str:
    first = _SENTENCE_END.split(text.strip(), maxsplit=1)[0].strip()
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def parse_mem0(text: str) -> ParsedMemories:
    """Mem0 memories as v2 candidates: the memory text is the summary, its first sentence the
    title, categories the tags, created_at (else updated_at) the mention time."""
    check_size(text)
    root = load_json(strip_fence(text))
    items = root if isinstance(root, list) else None
    if isinstance(root, dict):
        items = next(
            (root[k] for k in ("results", "memories") if isinstance(root.get(k), list)), None
        )
    if items is None:
        raise Invalid(
            f'a Mem0 export is a list of memories (or {{"results": [...]}}), not {type_name(root)}',
            code="invalid_import_root",
            details={"root_type": type_name(root)},
        )
    raw_candidates: list[dict[str, Any]] = []
    dropped = 0
    for item in items:
        memory = item.get("memory") if isinstance(item, dict) else None
        if not isinstance(memory, str) or not memory.strip():
            dropped += 1
            continue
        categories = item.get("categories") or (item.get("metadata") or {}).get("categories")
        when = parse_time(item.get("created_at")) or parse_time(item.get("updated_at"))
        raw: dict[str, Any] = {
            "memoryKind": "fact",
            "title": _first_sentence(memory),
            "summary": memory,
            "tags": ["mem0", *(categories if isinstance(categories, list) else [])],
        }
        if when is not None:
            raw["temporal"] = {"mentionedAt": when.isoformat()}
        raw_candidates.append(raw)
    parsed = parse_memories_root({"sourceSystem": "Mem0", "candidates": raw_candidates})
    parsed.dropped += dropped
    parsed.meta["mem0_items"] = len(items)
    return parsed


__all__ = [
    "CONVERSATION_FORMATS",
    "FORMATS",
    "ImportedConversation",
    "ImportedMessage",
    "ParsedConversations",
    "detect_format",
    "normalize_candidate",
    "parse_conversations",
    "parse_mem0",
    "parse_time",
]
