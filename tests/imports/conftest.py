"""Helpers for import tests: sample files, seeded memory, and an import driven through the API."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory.models import Event, ImportBatch
from tests.conftest import ApiClient, turn_body

SAMPLES = Path(__file__).resolve().parent / "samples"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


def v2(*candidates: dict[str, Any], **header: Any) -> str:
    return json.dumps(
        {
            "schemaVersion": "stratagate.external-memory.v2",
            "sourceType": "external_ai_memory_export",
            "sourceSystem": "TestAI",
            **header,
            "candidates": list(candidates),
        }
    )


def candidate(title: str, summary: str, **extra: Any) -> dict[str, Any]:
    return {"memoryKind": "fact", "title": title, "summary": summary, **extra}


@pytest.fixture
def one_turn_blocks(admin: ApiClient) -> None:
    assert admin.put("/settings", {"block_turns": 1}).status_code == 200


@pytest.fixture
def say(owner: ApiClient) -> Callable[..., None]:
    """Ingest one user statement as its own turn (with one-turn blocks it becomes a block)."""
    counter = {"n": 0}

    def post(text: str, *, session: str = "s1", reply: str = "Noted.") -> None:
        counter["n"] += 1
        body = turn_body(counter["n"], session=session, user=text, assistant=reply)
        response = owner.post("/ns/proj/turns", body)
        assert response.status_code == 201, response.content

    return post


def run_import(
    owner: ApiClient, drain: Callable[[], int], text: str, **params: Any
) -> dict[str, Any]:
    """POST the import, run its preview job, and return the preview."""
    response = owner.post("/ns/proj/imports", {"text": text, **params})
    assert response.status_code == 202, response.content
    import_id = response.json()["import_id"]
    drain()
    preview = owner.get(f"/ns/proj/imports/{import_id}")
    assert preview.status_code == 200, preview.content
    return preview.json()


def event_titles() -> list[str]:
    return list(Event.objects.order_by("pk").values_list("title", flat=True))


def batch(import_id: int) -> ImportBatch:
    return ImportBatch.objects.get(pk=import_id)
