"""One past import from "ChatGPT" (SPEC §11): a `stratagate.external-memory.v2` document with
new memories, an exact duplicate, a newer release date that supersedes the planned one and a
launch-party venue that conflicts with what Maya said — previewed, then committed with choices
for the low-confidence rows, through `import_create` → drain the preview job → `import_commit`.

Runs once per namespace: a committed (or undone) import created by `load_demo` means the step is
done. (A load interrupted between preview and commit leaves that preview behind, uncommitted.)
"""

from __future__ import annotations

import json
from typing import Any, Final

from memory.demo.conversation import jobs_settle
from memory.models import ImportBatch, ImportStatus, Namespace
from memory.services.imports import Choice, import_commit, import_create

SOURCE_SYSTEM: Final = "ChatGPT"
CREATED_BY: Final = "load_demo"


def _candidate(
    kind: str, category: str, title: str, summary: str, confidence: float, **extra: Any
) -> dict[str, Any]:
    return {
        "memoryKind": kind,
        "category": category,
        "title": title,
        "summary": summary,
        "tags": [category, *extra.pop("tags", [])],
        "confidence": confidence,
        **extra,
    }


DOCUMENT: Final[dict[str, Any]] = {
    "schemaVersion": "stratagate.external-memory.v2",
    "sourceType": "external_ai_memory_export",
    "sourceSystem": SOURCE_SYSTEM,
    "exportedAt": "2026-10-08T18:30:00Z",
    "coverage": "partial",
    "coverageNote": "Memories saved in ChatGPT since August 2026; chat history not included.",
    "uncertainItems": ["Whether the launch party is in the Lisbon or the Porto office."],
    "candidates": [
        _candidate(
            "instruction", "instruction", "Short answers, code first",
            "Maya wants short answers: code first, then at most three bullet points.", 0.9,
            quotes=["Code first, then at most three bullets."],
            temporal={"mentionedAt": "2026-08-12"},
        ),
        _candidate(
            "fact", "career", "Maya is learning Rust",
            "Maya is learning Rust in her spare time to write a faster route optimiser.", 0.8,
            tags=["rust", "learning"],
            temporal={"mentionedAt": "2026-08-20", "status": "ongoing"},
        ),
        _candidate(
            "preference", "preference", "Maya prefers tabs over spaces for indentation",
            "Maya: I prefer tabs over spaces for indentation.", 0.95,
            tags=["indentation"], quotes=["I prefer tabs over spaces for indentation."],
        ),
        _candidate(
            "event", "project", "Atlas 1.0 release moved to 2026-10-22",
            "The Atlas 1.0 release moved from 2026-10-15 to 2026-10-22 because the production "
            "data migration needs another week.", 0.85,
            tags=["atlas", "release"],
            temporal={
                "mentionedAt": "2026-10-06", "happenedStart": "2026-10-22",
                "originalText": "moved to October 22", "precision": "day", "basis": "explicit",
                "status": "planned", "participants": ["Maya", "Atlas"], "eventType": "plan",
            },
        ),
        _candidate(
            "event", "project", "Launch party in the Porto office",
            "The Atlas launch party is on October 16 in the Porto office.", 0.6,
            tags=["atlas", "launch party"],
            temporal={
                "mentionedAt": "2026-10-03", "happenedStart": "2026-10-16",
                "originalText": "on October 16", "precision": "day", "basis": "inferred",
                "status": "planned", "participants": ["Maya"], "eventType": "meeting",
            },
        ),
        _candidate(
            "preference", "preference", "Maya's Neovim setup",
            "Maya likes Neovim with the LazyVim configuration and a light colour theme.", 0.7,
            tags=["editor"],
        ),
    ],
}  # fmt: skip
# Choices for the rows the offline decider is not sure about (< 0.85): what a person would pick.
CHOICES: Final = {1: "add", 3: "supersede", 4: "conflict", 5: "add"}


def demo_import(namespace: Namespace) -> bool:
    """Preview and commit the demo import; True when it was committed now, False when an
    earlier load did (or a person undid it since: that choice stands)."""
    done = ImportBatch.objects.filter(
        namespace=namespace,
        created_by=CREATED_BY,
        status__in=(ImportStatus.COMMITTED, ImportStatus.UNDONE),
    )
    if done.exists():
        return False
    batch = import_create(
        namespace=namespace, text=json.dumps(DOCUMENT, ensure_ascii=False), created_by=CREATED_BY
    )
    jobs_settle(namespace)  # the preview job decides each candidate
    batch.refresh_from_db()
    choices = [Choice(index=index, action=action) for index, action in CHOICES.items()]
    import_commit(batch=batch, choices=choices, actor=CREATED_BY)
    jobs_settle(namespace)  # graph projection of the imported events
    return True
