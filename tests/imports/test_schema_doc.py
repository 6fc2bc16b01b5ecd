"""docs/external-memory-v2.schema.json stays honest: it is a valid JSON Schema, it accepts what
our own v2 export writes and the prompt's example shape, and rejects what the parser refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory.models import Namespace
from memory.services.imports import export_v2, import_commit, import_create
from memory.services.imports.parser import parse_memories
from memory.services.jobs import jobs_drain
from tests.imports.conftest import sample

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "external-memory-v2.schema.json").read_text()
)


def _errors(document: object) -> list[str]:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    return [e.message for e in validator.iter_errors(document)]


def test_the_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_the_parsed_sample_candidates_satisfy_the_schema():
    parsed = parse_memories(sample("v2_export.json"))
    document = {
        "schemaVersion": "stratagate.external-memory.v2",
        "sourceType": "external_ai_memory_export",
        "candidates": parsed.candidates,
    }
    assert _errors(document) == []


@pytest.mark.django_db
def test_our_own_v2_export_satisfies_the_schema():
    namespace = Namespace.objects.create(name="proj")
    batch = import_create(namespace=namespace, text=sample("v2_export.json"))
    jobs_drain()
    batch.refresh_from_db()
    import_commit(batch=batch, actor="test")
    document = export_v2(namespace=namespace)
    assert len(document["candidates"]) == 7
    assert _errors(document) == []


@pytest.mark.parametrize(
    "broken",
    [
        {"sourceType": "notes"},
        {"schemaVersion": "stratagate.external-memory.v3"},
        {"candidates": [{"title": "only a title"}]},
        {"candidates": [{"title": "t", "summary": "s", "confidence": 1.5}]},
    ],
)
def test_the_schema_rejects_what_the_format_forbids(broken):
    document = {
        "schemaVersion": "stratagate.external-memory.v2",
        "sourceType": "external_ai_memory_export",
        "candidates": [],
        **broken,
    }
    assert _errors(document)
