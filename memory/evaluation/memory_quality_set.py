"""The labelled memory-quality set: conversations → sessions → turns, each message labelled with
what a careful human expects stored (format: tests/evaluation/memory_quality_set.json, "about").

Parsing only: `quality_set_load` / `quality_set_parse` turn the JSON into frozen dataclasses or
raise `Invalid(code="invalid_labelled_set")` naming the first bad place, so a malformed set fails
before anything is ingested.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.engine.event_types import EVENT_TYPES, TEMPORAL_STATUSES
from memory.errors import Invalid

__all__ = [
    "CATEGORIES",
    "NODE_TYPES",
    "RELATIONS",
    "Conversation",
    "ExpectedEvent",
    "QualitySet",
    "Session",
    "Statement",
    "quality_set_load",
    "quality_set_parse",
]

LANGUAGES: Final = ("en", "zh")
CATEGORIES: Final = (
    "fact",
    "decision",
    "preference",
    "plan",
    "deadline",
    "negation",
    "change",
    "third_person",
    "relative_date",
    "result",
    "repeat_same_session",
    "repeat_later_session",
    "echo",
    "smalltalk",
    "assistant_new",
    "assistant_general",
)
# The relations offline projection stores (memory.engine.offline_relations, offline_graph).
RELATIONS: Final = (
    "owns",
    "leads",
    "maintains",
    "uses",
    "runs_on",
    "deployed_on",
    "depends_on",
    "works_at",
    "lives_in",
    "prefers",
    "member_of",
)
NODE_TYPES: Final = ("person", "project", "organization", "tool", "place")


@dataclass(frozen=True, slots=True)
class ExpectedEvent:
    key: str
    types: tuple[str, ...]  # any of these is a fitting type
    status: str | None = None
    day: date | None = None  # in the session's time zone


@dataclass(frozen=True, slots=True)
class Statement:
    """One labelled message. `index` numbers the conversation's messages from 0."""

    index: int
    role: str
    text: str
    lang: str
    category: str
    events: tuple[ExpectedEvent, ...] = ()
    supersedes: tuple[str, ...] = ()
    edges: tuple[tuple[str, str, str], ...] = ()  # relation may be "a|b"
    nodes: tuple[tuple[str, str], ...] = ()
    repeats: str | None = None


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    at: datetime  # aware, in `zone`
    zone: ZoneInfo
    turns: tuple[tuple[Statement, Statement], ...]  # (user, assistant)


@dataclass(frozen=True, slots=True)
class Conversation:
    id: str
    user_name: str
    sessions: tuple[Session, ...]

    def statements(self) -> list[Statement]:
        return [m for s in self.sessions for turn in s.turns for m in turn]


@dataclass(frozen=True, slots=True)
class QualitySet:
    conversations: tuple[Conversation, ...]

    def statement_count(self) -> int:
        return sum(len(c.statements()) for c in self.conversations)


def quality_set_load(path: Path) -> QualitySet:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise _bad(f"cannot read {path}: {exc}") from exc
    except ValueError as exc:
        raise _bad(f"{path} is not JSON: {exc}") from exc
    return quality_set_parse(raw)


def quality_set_parse(raw: object) -> QualitySet:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("conversations"), list):
        raise _bad("the set must be an object with a `conversations` list")
    if not raw["conversations"]:
        raise _bad("the set has no conversations")
    conversations = tuple(
        _conversation(f"conversation {i}", value) for i, value in enumerate(raw["conversations"])
    )
    ids = [c.id for c in conversations]
    if len(set(ids)) != len(ids):
        raise _bad("conversation ids must be unique")
    return QualitySet(conversations=conversations)


def _conversation(where: str, value: object) -> Conversation:
    if not isinstance(value, Mapping):
        raise _bad(f"{where} is not an object")
    cid, lang, user = value.get("id"), value.get("lang", "en"), value.get("user_name", "")
    if not isinstance(cid, str) or not cid.strip():
        raise _bad(f"{where}: `id` must be a non-empty string")
    where = f"conversation {cid!r}"
    if lang not in LANGUAGES or not isinstance(user, str):
        raise _bad(f"{where}: `lang` must be en or zh and `user_name` a string")
    sessions_raw = value.get("sessions")
    if not isinstance(sessions_raw, list) or not sessions_raw:
        raise _bad(f"{where}: `sessions` must be a non-empty list")
    counter = _Counter()
    sessions = tuple(
        _session(f"{where}, session {i}", s, str(lang), counter) for i, s in enumerate(sessions_raw)
    )
    conversation = Conversation(id=cid, user_name=user, sessions=sessions)
    _check_keys(where, conversation)
    return conversation


class _Counter:
    def __init__(self) -> None:
        self.next = 0

    def take(self) -> int:
        self.next += 1
        return self.next - 1


def _session(where: str, value: object, lang: str, counter: _Counter) -> Session:
    if not isinstance(value, Mapping):
        raise _bad(f"{where} is not an object")
    try:
        zone = ZoneInfo(str(value.get("tz", "")))
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise _bad(f"{where}: `tz` must be an IANA time zone") from exc
    try:
        at = datetime.fromisoformat(str(value.get("at", "")))
    except ValueError as exc:
        raise _bad(f"{where}: `at` must be an ISO date-time") from exc
    at = at.replace(tzinfo=zone) if at.tzinfo is None else at.astimezone(zone)
    turns_raw = value.get("turns")
    if not isinstance(turns_raw, list) or not turns_raw:
        raise _bad(f"{where}: `turns` must be a non-empty list")
    turns = []
    for i, turn in enumerate(turns_raw):
        if not isinstance(turn, Mapping):
            raise _bad(f"{where}, turn {i} is not an object")
        user = _statement(f"{where}, turn {i}, user", turn.get("user"), "user", lang, counter)
        said = _statement(
            f"{where}, turn {i}, assistant", turn.get("assistant"), "assistant", lang, counter
        )
        turns.append((user, said))
    return Session(id=str(value.get("id") or where), at=at, zone=zone, turns=tuple(turns))


def _statement(where: str, value: object, role: str, lang: str, counter: _Counter) -> Statement:
    if not isinstance(value, Mapping):
        raise _bad(f"{where} must be an object")
    text, category = value.get("text"), value.get("category")
    if not isinstance(text, str) or not text.strip():
        raise _bad(f"{where}: `text` must be a non-empty string")
    if category not in CATEGORIES:
        raise _bad(f"{where}: `category` must be one of {', '.join(CATEGORIES)}")
    lang = value.get("lang", lang)
    if lang not in LANGUAGES:
        raise _bad(f"{where}: `lang` must be en or zh")
    repeats = value.get("repeats")
    if repeats is not None and not isinstance(repeats, str):
        raise _bad(f"{where}: `repeats` must be a fact key")
    return Statement(
        index=counter.take(),
        role=role,
        text=text,
        lang=str(lang),
        category=str(category),
        events=tuple(_event(where, e) for e in _list(where, value, "events")),
        supersedes=tuple(_key(where, k) for k in _list(where, value, "supersedes")),
        edges=tuple(_edge(where, e) for e in _list(where, value, "edges")),
        nodes=tuple(_node(where, n) for n in _list(where, value, "nodes")),
        repeats=repeats,
    )


def _list(where: str, value: Mapping[str, Any], key: str) -> list[Any]:
    found = value.get(key, [])
    if not isinstance(found, list):
        raise _bad(f"{where}: `{key}` must be a list")
    return found


def _key(where: str, raw: object) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise _bad(f"{where}: a fact key must be a non-empty string")
    return raw


def _event(where: str, raw: object) -> ExpectedEvent:
    if not isinstance(raw, Mapping):
        raise _bad(f"{where}: each expected event must be an object")
    types = raw.get("type")
    types = [types] if isinstance(types, str) else types
    if not isinstance(types, list) or not types or any(t not in EVENT_TYPES for t in types):
        raise _bad(f"{where}: `type` must be SPEC event types ({', '.join(EVENT_TYPES)})")
    status = raw.get("status")
    if status is not None and status not in TEMPORAL_STATUSES:
        raise _bad(f"{where}: `status` {status!r} is not a SPEC temporal status")
    day = raw.get("day")
    try:
        parsed = date.fromisoformat(day) if isinstance(day, str) else None
    except ValueError as exc:
        raise _bad(f"{where}: `day` must be YYYY-MM-DD") from exc
    if day is not None and parsed is None:
        raise _bad(f"{where}: `day` must be YYYY-MM-DD")
    return ExpectedEvent(
        key=_key(where, raw.get("key")), types=tuple(types), status=status, day=parsed
    )


def _edge(where: str, raw: object) -> tuple[str, str, str]:
    if not isinstance(raw, list) or len(raw) != 3 or not all(isinstance(x, str) for x in raw):
        raise _bad(f"{where}: an edge is [subject, relation, object]")
    if any(r not in RELATIONS for r in raw[1].split("|")):
        raise _bad(f"{where}: relation {raw[1]!r} is not one of {', '.join(RELATIONS)}")
    return (raw[0], raw[1], raw[2])


def _node(where: str, raw: object) -> tuple[str, str]:
    if not isinstance(raw, list) or len(raw) != 2 or raw[1] not in NODE_TYPES:
        raise _bad(f"{where}: a node is [name, type] with a SPEC node type")
    return (str(raw[0]), str(raw[1]))


def _check_keys(where: str, conversation: Conversation) -> None:
    """Fact keys are unique; `repeats` and `supersedes` name a key stated earlier."""
    seen: set[str] = set()
    for statement in conversation.statements():
        for key in (statement.repeats, *statement.supersedes):
            if key is not None and key not in seen:
                raise _bad(f"{where}: {key!r} is repeated or superseded before it is stated")
        if statement.supersedes and not statement.events:
            raise _bad(f"{where}: a statement that supersedes must expect an event")
        for event in statement.events:
            if event.key in seen:
                raise _bad(f"{where}: fact key {event.key!r} is used twice")
            seen.add(event.key)


def _bad(message: str) -> Invalid:
    return Invalid(message, code="invalid_labelled_set")
