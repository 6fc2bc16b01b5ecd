"""Parameter schemas shared by several memory tools, with descriptions written for a model."""

from __future__ import annotations

from typing import Any

from memory.engine import event_types, gate

type JsonSchema = dict[str, Any]

SESSION_ID: JsonSchema = {
    "type": "string",
    "description": (
        "Conversation (session) id. Leave it out to use the current conversation; set it only "
        "to work with another conversation of this memory."
    ),
}
BATCH_ID: JsonSchema = {
    "type": "string",
    "description": (
        "The batch_id returned by the search or expansion whose results you are judging or "
        "using. Always pass it when you have made more than one retrieval."
    ),
}
LIMIT: JsonSchema = {
    "type": "integer",
    "minimum": 1,
    "maximum": 20,
    "description": "Maximum number of results (1–20).",
}
QUERY: JsonSchema = {
    "type": "string",
    "description": "What to look for, in the user's words (names, topics, dates).",
}
AS_OF: JsonSchema = {
    "type": "string",
    "description": (
        'Show the graph as it was at a past point: a turn number (e.g. "42") or an ISO date '
        '(e.g. "2024-05-01"). Leave it out for the current state.'
    ),
}
DATE_TIME: JsonSchema = {"type": "string", "format": "date-time"}
EVIDENCE_REFS: JsonSchema = {
    "type": "array",
    "items": {"type": "string"},
    "maxItems": 8,
    "description": (
        "Evidence refs exactly as the retrieval returned them (the `ref` of each result, e.g. "
        '"event:12", "node:3", "fact:7", "raw:88", "block:4:L2"); at most 8.'
    ),
}
RECEIPT_ID: JsonSchema = {
    "type": "string",
    "maxLength": 200,
    "description": (
        "Idempotency key: sending the same id again changes nothing. Leave it out and one is "
        "derived from this tool call."
    ),
}
VERDICTS = list(gate.VERDICTS)
STRATEGIES = list(gate.STRATEGIES)
EVENT_TYPES = list(event_types.EVENT_TYPES)
MESSAGE: JsonSchema = {
    "type": "object",
    "properties": {
        "role": {"type": "string", "enum": ["user", "assistant", "tool", "system"]},
        "content": {"type": "string"},
        "name": {"type": "string", "description": "Speaker or tool name (optional)."},
        "created_at": DATE_TIME,
        "tool_calls": {
            "type": "array",
            "description": "Tools the assistant called in this message (not memory_* tools).",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "arguments": {"type": ["object", "string", "null"]},
                    "result": {"type": ["object", "array", "string", "number", "boolean", "null"]},
                },
                "required": ["name"],
            },
        },
    },
    "required": ["role", "content"],
}

EVIDENCE_LOOP = (
    " Every search and expansion returns a batch_id and a `ref` per result: judge them with "
    "memory_assess, then cite what you used with memory_record_use."
)
