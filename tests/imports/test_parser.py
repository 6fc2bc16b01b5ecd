"""The v2 parser's rules (SPEC §11.2; original notes §11.2), one behaviour per test."""

from __future__ import annotations

import json

import pytest

from memory.errors import Invalid, TooLarge
from memory.services.imports.parser import MAX_IMPORT_BYTES, parse_memories, strip_fence


def _doc(*candidates, **header) -> str:
    return json.dumps({**header, "candidates": list(candidates)})


def _one(**fields):
    parsed = parse_memories(_doc({"title": "T", "summary": "S", **fields}))
    assert len(parsed.candidates) == 1
    return parsed.candidates[0]


def test_a_surrounding_fence_is_stripped_with_or_without_a_language():
    body = _doc({"title": "T", "summary": "S"})
    assert strip_fence(f"```json\n{body}\n```") == body
    assert strip_fence(f"  ```\n{body}\n```  ") == body
    assert strip_fence(body) == body
    assert len(parse_memories(f"```json\n{body}\n```").candidates) == 1


@pytest.mark.parametrize(
    "version", ["stratagate.external-memory.v2", "stratagate.external-memory.v1", None]
)
def test_v1_v2_and_an_absent_schema_version_are_accepted(version):
    header = {"schemaVersion": version} if version else {}
    assert len(parse_memories(_doc({"title": "T", "summary": "S"}, **header)).candidates) == 1


@pytest.mark.parametrize(
    ("text", "code", "needle"),
    [
        ("{,}", "invalid_import_json", "line 1, column 2"),
        ("[]", "invalid_import_root", "not an array"),
        ("42", "invalid_import_root", "not a number"),
        ('{"schemaVersion": "v9"}', "unsupported_schema_version", "'v9'"),
        ('{"sourceType": "notes"}', "invalid_source_type", "'notes'"),
        ('{"candidates": "many"}', "invalid_candidates", "not a string"),
    ],
)
def test_each_problem_has_its_own_code_and_message(text, code, needle):
    with pytest.raises(Invalid) as caught:
        parse_memories(text)
    assert caught.value.code == code and caught.value.http_status == 422
    assert needle in caught.value.message


def test_candidates_without_title_or_summary_and_non_objects_are_dropped_and_counted():
    parsed = parse_memories(
        _doc(
            {"title": "T", "summary": "S"},
            {"title": "  ", "summary": "S"},
            {"title": "T"},
            "a string",
            None,
        )
    )
    assert (len(parsed.candidates), parsed.dropped) == (1, 4)


def test_a_top_level_events_array_is_read_when_candidates_is_missing():
    parsed = parse_memories(json.dumps({"events": [{"title": "T", "summary": "S"}]}))
    assert [c["title"] for c in parsed.candidates] == ["T"]


def test_enum_fields_outside_their_set_are_dropped_not_errors():
    candidate = _one(memoryKind="rumour", category="hobby", scope="galaxy", criticality="HIGH")
    assert not {"memoryKind", "category", "scope", "criticality"} & set(candidate)
    kept = _one(memoryKind="Event", category="project", scope="user", criticality="safety")
    assert (kept["memoryKind"], kept["category"], kept["scope"]) == ("event", "project", "user")


def test_text_fields_are_trimmed_and_cut():
    candidate = _one(title=" " + "t" * 300, summary="s" * 3000, narrative="n" * 9000)
    assert len(candidate["title"]) == 160 and len(candidate["summary"]) == 2000
    assert len(candidate["narrative"]) == 8000


def test_tags_are_cleaned_and_the_category_leads():
    candidate = _one(category="career", tags=["job", "job", "", 7, *[f"t{i}" for i in range(20)]])
    assert candidate["tags"][:3] == ["career", "job", "t0"]
    assert len(candidate["tags"]) == 12
    assert len(_one(tags=["x" * 300])["tags"][0]) == 200


def test_quotes_are_capped():
    candidate = _one(quotes=["q" * 600] * 15)
    assert len(candidate["quotes"]) == 12 and len(candidate["quotes"][0]) == 500


@pytest.mark.parametrize(("given", "kept"), [(0.7, 0.7), (1.7, 1.0), (-1, 0.0), (True, None)])
def test_confidence_is_clamped_and_must_be_a_number(given, kept):
    assert _one(confidence=given).get("confidence") == kept


@pytest.mark.parametrize("unknown", [{"precision": "unknown"}, {"basis": "unknown"}])
def test_an_unknown_precision_or_basis_drops_the_dates_but_keeps_the_wording(unknown):
    temporal = {"happenedStart": "2024-05-01", "happenedEnd": "2024-05-02", "originalText": "soon"}
    kept = _one(temporal={**temporal, **unknown})["temporal"]
    assert "happenedStart" not in kept and "happenedEnd" not in kept
    assert kept["originalText"] == "soon"


def test_temporal_fields_are_validated_one_by_one():
    temporal = _one(
        temporal={
            "mentionedAt": "2024-02-12",
            "precision": "fortnight",
            "status": "Planned",
            "eventType": "决定",
            "participants": ["Atlas", ""] + [f"p{i}" for i in range(30)],
            "happenedStart": None,
        }
    )["temporal"]
    assert temporal["mentionedAt"] == "2024-02-12" and temporal["status"] == "planned"
    assert "precision" not in temporal and "happenedStart" not in temporal
    assert temporal["eventType"] == "决定" and len(temporal["participants"]) == 24
    assert "temporal" not in _one(temporal="yesterday")


def test_header_fields_are_kept():
    parsed = parse_memories(
        _doc(
            {"title": "T", "summary": "S"},
            sourceSystem="Gemini",
            coverage="LIMITED",
            coverageNote="only saved info",
            uncertainItems=["a", 3],
        )
    )
    assert (parsed.source_system, parsed.coverage) == ("Gemini", "limited")
    assert parsed.meta["coverage_note"] == "only saved info"
    assert parsed.meta["uncertain_items"] == ["a"]
    assert parse_memories(_doc()).source_system == "unknown"


def test_stratagate_exports_come_back_active_only():
    parsed = parse_memories(
        _doc(
            {"title": "A", "summary": "a", "stratagate": {"status": "active"}},
            {"title": "B", "summary": "b", "stratagate": {"status": "superseded"}},
            {"title": "C", "summary": "c", "stratagate": {"status": "forgotten"}},
        )
    )
    assert [c["title"] for c in parsed.candidates] == ["A"] and parsed.skipped_inactive == 2


def test_limits_are_200_candidates_and_4_mib():
    assert len(parse_memories(_doc(*[{"title": "T", "summary": "S"}] * 200)).candidates) == 200
    with pytest.raises(TooLarge) as caught:
        parse_memories(_doc(*[{"title": "T", "summary": "S"}] * 201))
    assert caught.value.code == "too_many_candidates" and caught.value.http_status == 413
    with pytest.raises(TooLarge) as caught:
        parse_memories(" " * (MAX_IMPORT_BYTES + 1))
    assert caught.value.code == "import_too_large"
