"""Parse `stratagate.external-memory.v2` (and v1) documents by the rules of SPEC §11.2.

Errors name the problem (invalid JSON with its line and column, a wrong root type, an unsupported
schema version, a wrong sourceType, too many candidates or bytes) and are raised before anything
is written. Candidates without a title or summary are dropped and counted; enum fields outside
their set are dropped; a date whose precision or basis is `unknown` loses happened_* and keeps its
wording. The result is the normalised candidate in the v2 field names (the stored payload).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Final

from memory.engine.storable import INVALID_TEXT, unstorable_at, unstorable_message
from memory.errors import Invalid, TooLarge

SCHEMA_V2: Final = "stratagate.external-memory.v2"
SCHEMA_V1: Final = "stratagate.external-memory.v1"
SOURCE_TYPE: Final = "external_ai_memory_export"
MAX_IMPORT_BYTES: Final = 4 * 1024 * 1024
MAX_CANDIDATES: Final = 200

MEMORY_KINDS: Final = ("instruction", "preference", "fact", "event")
CATEGORIES: Final = ("instruction", "identity", "career", "project", "preference")
SCOPES: Final = ("user", "project", "session")
CRITICALITIES: Final = ("routine", "preference", "identity", "safety")
COVERAGES: Final = ("full", "partial", "limited")
PRECISIONS: Final = ("instant", "day", "month", "year", "range", "unknown")
BASES: Final = ("explicit", "relative", "inferred", "unknown")
TEMPORAL_STATUSES: Final = ("occurred", "planned", "cancelled", "ongoing", "unknown")
# Events exported by StrataGate carry their lifecycle; only active ones come back as memories.
INACTIVE_EXPORTED: Final = frozenset({"superseded", "forgotten", "archived"})

_FENCE: Final = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)\r?\n?```$", re.DOTALL)


@dataclass
class ParsedMemories:
    """A parsed external-memory document: header fields and the kept candidates."""

    schema_version: str
    source_system: str
    coverage: str
    meta: dict[str, Any]
    candidates: list[dict[str, Any]] = field(default_factory=list)
    dropped: int = 0
    skipped_inactive: int = 0


def check_size(text: str) -> None:
    size = len(text.encode("utf-8"))
    if size > MAX_IMPORT_BYTES:
        raise TooLarge(
            f"an import holds at most 4 MiB; this one has {size:,} bytes",
            code="import_too_large",
            details={"bytes": size, "limit": MAX_IMPORT_BYTES},
        )


def strip_fence(text: str) -> str:
    """The inside of a surrounding ```json … ``` fence, else the trimmed text."""
    stripped = text.strip()
    match = _FENCE.match(stripped)
    return match.group(1).strip() if match else stripped


def load_json(text: str) -> Any:
    """json.loads with an error that says where the JSON broke; nesting too deep for the parser
    (`[[[[…`, 10,000 levels) and text no database can store are refused the same way."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Invalid(
            f"the import is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
            code="invalid_import_json",
            details={"line": exc.lineno, "column": exc.colno, "problem": exc.msg},
        ) from exc
    except RecursionError as exc:
        raise too_deep() from exc
    check_storable(data)
    return data


def too_deep() -> Invalid:
    return Invalid(
        "the import is not valid JSON: it is nested too deeply",
        code="invalid_import_json",
        details={"problem": "nested too deeply"},
    )


def check_storable(data: Any, where: str = "") -> None:
    place = unstorable_at(data, where)
    if place is not None:
        raise Invalid(
            f"the import cannot be stored: {unstorable_message(place)}",
            code=INVALID_TEXT,
            details={"where": place},
        )


def type_name(value: object) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )


def _text(value: object, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text[:limit] if text else None


def _strings(value: object, *, limit: int, item_max: int) -> list[str]:
    if not isinstance(value, list):
        return []
    out: list[str] = []
    for item in value:
        text = _text(item, item_max)
        if text:
            out.append(text)
        if len(out) == limit:
            break
    return out


def _enum(value: object, allowed: tuple[str, ...]) -> str | None:
    text = value.strip().lower() if isinstance(value, str) else None
    return text if text in allowed else None


def _confidence(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return min(1.0, max(0.0, number)) if math.isfinite(number) else None


def _temporal(value: object) -> dict[str, Any]:
    if not isinstance(value, dict):
        return {}
    out: dict[str, Any] = {}
    for key in ("mentionedAt", "happenedStart", "happenedEnd", "originalText"):
        text = _text(value.get(key), 200)
        if text:
            out[key] = text
    for key, allowed in (
        ("precision", PRECISIONS),
        ("basis", BASES),
        ("status", TEMPORAL_STATUSES),
    ):
        chosen = _enum(value.get(key), allowed)
        if chosen:
            out[key] = chosen
    event_type = _text(value.get("eventType"), 80)
    if event_type:
        out["eventType"] = event_type
    participants = _strings(value.get("participants"), limit=24, item_max=200)
    if participants:
        out["participants"] = participants
    if out.get("precision") == "unknown" or out.get("basis") == "unknown":
        out.pop("happenedStart", None)
        out.pop("happenedEnd", None)
    return out


def normalize_candidate(raw: object) -> dict[str, Any] | None:
    """One candidate in v2 field names, or None when it lacks a title or summary."""
    if not isinstance(raw, dict):
        return None
    title, summary = _text(raw.get("title"), 160), _text(raw.get("summary"), 2_000)
    if not title or not summary:
        return None
    candidate: dict[str, Any] = {"title": title, "summary": summary}
    for key, allowed in (
        ("memoryKind", MEMORY_KINDS),
        ("category", CATEGORIES),
        ("scope", SCOPES),
        ("criticality", CRITICALITIES),
    ):
        chosen = _enum(raw.get(key), allowed)
        if chosen:
            candidate[key] = chosen
    narrative = _text(raw.get("narrative"), 8_000)
    if narrative:
        candidate["narrative"] = narrative
    tags = list(dict.fromkeys(_strings(raw.get("tags"), limit=12, item_max=200)))
    if candidate.get("category"):
        tags = list(dict.fromkeys([candidate["category"], *tags]))[:12]
    candidate["tags"] = tags
    candidate["quotes"] = _strings(raw.get("quotes"), limit=12, item_max=500)
    temporal = _temporal(raw.get("temporal"))
    if temporal:
        candidate["temporal"] = temporal
    confidence = _confidence(raw.get("confidence"))
    if confidence is not None:
        candidate["confidence"] = confidence
    return candidate


def _header(root: dict[str, Any]) -> str:
    version = root.get("schemaVersion")
    if version is not None:
        shown = str(version).strip()[:80]
        if shown not in (SCHEMA_V1, SCHEMA_V2):
            raise Invalid(
                f"unsupported schemaVersion {shown!r}: expected {SCHEMA_V2!r} (or v1)",
                code="unsupported_schema_version",
                details={"schema_version": shown, "supported": [SCHEMA_V2, SCHEMA_V1]},
            )
    source_type = root.get("sourceType")
    if source_type is not None and source_type != SOURCE_TYPE:
        raise Invalid(
            f"sourceType must be {SOURCE_TYPE!r}, not {str(source_type)[:80]!r}",
            code="invalid_source_type",
            details={"source_type": str(source_type)[:80], "expected": SOURCE_TYPE},
        )
    return str(version).strip() if version is not None else SCHEMA_V2


def check_candidate_count(count: int, what: str = "candidates") -> None:
    if count > MAX_CANDIDATES:
        raise TooLarge(
            f"an import holds at most {MAX_CANDIDATES} {what}; this one has {count} "
            "(split it into several imports)",
            code="too_many_candidates",
            details={"count": count, "limit": MAX_CANDIDATES},
        )


def parse_memories_root(root: object) -> ParsedMemories:
    """Validate an already-decoded v2/v1 document."""
    if not isinstance(root, dict):
        raise Invalid(
            f"an external-memory export is a JSON object, not {type_name(root)}",
            code="invalid_import_root",
            details={"root_type": type_name(root)},
        )
    version = _header(root)
    raw_candidates = root.get("candidates", root.get("events", []))
    if not isinstance(raw_candidates, list):
        raise Invalid(
            f"candidates must be an array, not {type_name(raw_candidates)}",
            code="invalid_candidates",
            details={"candidates_type": type_name(raw_candidates)},
        )
    parsed = ParsedMemories(
        schema_version=version,
        source_system=_text(root.get("sourceSystem"), 200) or "unknown",
        coverage=_enum(root.get("coverage"), COVERAGES) or "",
        meta={
            "exported_at": _text(root.get("exportedAt"), 80),
            "coverage_note": _text(root.get("coverageNote"), 2_000),
            "uncertain_items": _strings(root.get("uncertainItems"), limit=50, item_max=500),
        },
    )
    for raw in raw_candidates:
        candidate = normalize_candidate(raw)
        if candidate is None:
            parsed.dropped += 1
            continue
        exported = raw.get("stratagate") if isinstance(raw, dict) else None
        if isinstance(exported, dict) and exported.get("status") in INACTIVE_EXPORTED:
            parsed.skipped_inactive += 1
            continue
        parsed.candidates.append(candidate)
    check_candidate_count(len(parsed.candidates))
    return parsed


def parse_memories(text: str) -> ParsedMemories:
    """SPEC §11.2 end to end: size, fence, JSON, header, candidates."""
    check_size(text)
    return parse_memories_root(load_json(strip_fence(text)))
