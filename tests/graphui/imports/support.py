"""Data and helpers shared by the import pages' tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.urls import reverse

from memory.models import (
    AdminAction,
    Event,
    ImportBatch,
    ImportCandidate,
    Namespace,
    ProcessingJob,
    Session,
)
from memory.services.imports import import_create
from memory.services.jobs import jobs_drain

SAMPLES = Path(__file__).resolve().parents[2] / "imports" / "samples"
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
SECRET = "api_key=sk-abcdefghijklmnop1234"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


def v2(*candidates: dict[str, Any], source: str = "TestAI") -> str:
    return json.dumps(
        {
            "schemaVersion": "stratagate.external-memory.v2",
            "sourceType": "external_ai_memory_export",
            "sourceSystem": source,
            "candidates": list(candidates),
        }
    )


def cand(title: str, summary: str, **extra: Any) -> dict[str, Any]:
    return {"memoryKind": "fact", "title": title, "summary": summary, **extra}


TEA = cand("Prefers tea", "I prefer tea in the morning.")
CAT = cand("Owns a cat", "The user has a cat called Miso.")


def url(name: str, *args: Any, ns: str = "proj") -> str:
    return reverse(f"graphui:{name}", args=[ns, *args])


def previewed(namespace: Namespace, text: str, **kwargs: Any) -> ImportBatch:
    batch = import_create(namespace=namespace, text=text, created_by="user:ada", **kwargs)
    jobs_drain()
    batch.refresh_from_db()
    return batch


def counts() -> tuple[int, ...]:
    return (
        ImportBatch.objects.count(),
        ImportCandidate.objects.count(),
        ProcessingJob.objects.count(),
        Event.objects.count(),
        AdminAction.objects.count(),
        Session.objects.count(),
    )


def html_of(response: Any) -> str:
    return response.content.decode()
