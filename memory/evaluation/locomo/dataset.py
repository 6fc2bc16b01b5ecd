"""The LoCoMo release as plain data: conversations, sessions with their dates, utterances, and
questions with normalised evidence ids. Pure parsing; nothing here touches the database."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory.errors import Invalid
from memory.search.text import MONTHS

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DATE = re.compile(
    r"^\s*(?P<h>\d{1,2}):(?P<m>\d{2})\s*(?P<ampm>am|pm)\s+on\s+(?P<d>\d{1,2})\s+"
    r"(?P<month>[A-Za-z]+),?\s+(?P<y>\d{4})\s*$",
    re.IGNORECASE,
)
_MONTHS = {name: n for n, name in enumerate(MONTHS, start=1)}
# A well-formed id, and the malformed shapes of the release: "D:11:26", "D30:05".
_EVIDENCE = re.compile(r"^D:?(\d+):0*(\d+)$")


@dataclass(frozen=True)
class Utterance:
    dia_id: str
    speaker: str
    text: str

    @property
    def content(self) -> str:
        """The text as stored: a shared image's caption is kept as text."""
        return self.text


@dataclass(frozen=True)
class LocomoSession:
    number: int
    started_at: datetime
    utterances: tuple[Utterance, ...]


@dataclass(frozen=True)
class Question:
    index: int
    question: str
    answer: str
    category: int
    evidence: tuple[str, ...]  # normalised ids, in the release's order
    unfindable: tuple[str, ...]  # ids that name no utterance of the conversation


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[LocomoSession, ...]
    questions: tuple[Question, ...]

    @property
    def utterance_count(self) -> int:
        return sum(len(s.utterances) for s in self.sessions)

    def scored_questions(self) -> list[Question]:
        """Categories 1–4 with at least one findable evidence utterance."""
        return [q for q in self.questions if q.category in CATEGORIES and q.evidence]


def parse_session_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → 2023-05-08T13:56Z (the release gives no time zone)."""
    match = _DATE.match(text or "")
    month = _MONTHS.get(match.group("month").lower()) if match else None
    if match is None or month is None:
        raise Invalid(f"unreadable session date {str(text)[:60]!r}", code="locomo_invalid_date")
    hour = int(match.group("h")) % 12 + (12 if match.group("ampm").lower() == "pm" else 0)
    return datetime(
        int(match.group("y")), month, int(match.group("d")), hour, int(match.group("m")), tzinfo=UTC
    )


def normalise_evidence(raw: Iterable[object]) -> list[str]:
    """Split ids given several to a string (';' or spaces) and repair the malformed shapes:
    'D:11:26' → 'D11:26', 'D30:05' → 'D30:5'. Pieces that are no id at all are dropped."""
    ids: list[str] = []
    for item in raw:
        for piece in re.split(r"[;,\s]+", str(item)):
            match = _EVIDENCE.match(piece.strip())
            if match and f"D{match.group(1)}:{match.group(2)}" not in ids:
                ids.append(f"D{match.group(1)}:{match.group(2)}")
    return ids


def _utterance(raw: dict[str, Any]) -> Utterance:
    text = str(raw.get("text") or "").strip()
    caption = str(raw.get("blip_caption") or "").strip()
    if caption:
        text = f"{text} [shared an image: {caption}]".strip()
    return Utterance(dia_id=str(raw["dia_id"]), speaker=str(raw.get("speaker") or ""), text=text)


def parse_conversation(raw: dict[str, Any]) -> Conversation:
    try:
        body = raw["conversation"]
        sessions: list[LocomoSession] = []
        for key, value in body.items():
            number = _SESSION_KEY.match(key)
            if number is None or not value:
                continue
            sessions.append(
                LocomoSession(
                    number=int(number.group(1)),
                    started_at=parse_session_date(body[f"{key}_date_time"]),
                    utterances=tuple(_utterance(u) for u in value),
                )
            )
        sessions.sort(key=lambda s: s.number)
        known = {u.dia_id for s in sessions for u in s.utterances}
        questions = []
        for index, qa in enumerate(raw.get("qa") or []):
            ids = normalise_evidence(qa.get("evidence") or [])
            questions.append(
                Question(
                    index=index,
                    question=str(qa["question"]),
                    answer=str(qa.get("answer", qa.get("adversarial_answer", ""))),
                    category=int(qa["category"]),
                    evidence=tuple(i for i in ids if i in known),
                    unfindable=tuple(i for i in ids if i not in known),
                )
            )
        return Conversation(
            sample_id=str(raw["sample_id"]),
            speakers=(str(body["speaker_a"]), str(body["speaker_b"])),
            sessions=tuple(sessions),
            questions=tuple(questions),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise Invalid(
            f"not a LoCoMo conversation: {exc!s:.120}", code="locomo_invalid_file"
        ) from exc


def load(path: Path, only: Iterable[str] = ()) -> list[Conversation]:
    """The conversations of a LoCoMo JSON file, optionally only the named sample ids (in the
    file's order); an unknown name is an error rather than a silently smaller run."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise Invalid(f"cannot read {path}: {exc!s:.120}", code="locomo_invalid_file") from exc
    if not isinstance(data, list):
        raise Invalid("a LoCoMo file is a JSON list of conversations", code="locomo_invalid_file")
    conversations = [parse_conversation(item) for item in data]
    wanted = [name for name in only if name]
    if wanted:
        missing = sorted(set(wanted) - {c.sample_id for c in conversations})
        if missing:
            raise Invalid(
                f"no conversation {', '.join(missing)} in {Path(path).name}",
                code="locomo_unknown_conversation",
            )
        conversations = [c for c in conversations if c.sample_id in wanted]
    return conversations


def paired_turns(session: LocomoSession) -> list[tuple[Utterance, ...]]:
    """Consecutive utterances paired into turns: (1st, 2nd), (3rd, 4th)…; an odd last one alone."""
    items = session.utterances
    return [tuple(items[i : i + 2]) for i in range(0, len(items), 2)]
