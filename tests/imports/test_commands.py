"""manage.py import_memory and export_memory: preview table, confirmation, progress, undo."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memory.models import Event, ImportBatch, Namespace
from tests.dumps import memory_dump
from tests.imports.conftest import SAMPLES, candidate, v2

# The preview runs in a worker thread with its own connection: it must see committed rows.
pytestmark = pytest.mark.django_db(transaction=True)


def _run(*args: str, answer: str | None = None, monkeypatch=None) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    if monkeypatch is not None:
        monkeypatch.setattr("builtins.input", lambda prompt="": answer or "")
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_import_memory_with_yes_previews_and_commits(tmp_path: Path):
    out, err = _run("import_memory", "--namespace", "cli", str(SAMPLES / "v2_export.json"), "--yes")
    import_id = ImportBatch.objects.get().pk
    assert f"import {import_id}: 7 candidates (v2)" in out
    assert "Atlas switched to PostgreSQL" in out  # the preview table
    assert "7/7" in err  # the progress bar
    assert f"committed import {import_id}: 7 events created" in out
    assert Event.objects.filter(namespace__name="cli").count() == 7
    assert ImportBatch.objects.get().status == "committed"


def test_import_memory_asks_and_a_no_commits_nothing(monkeypatch):
    out, _ = _run(
        "import_memory",
        "--namespace",
        "cli",
        str(SAMPLES / "mem0_memories.json"),
        answer="n",
        monkeypatch=monkeypatch,
    )
    assert "not committed" in out
    assert not Event.objects.exists()
    assert ImportBatch.objects.get().status == "ready"


def test_low_confidence_rows_are_applied_only_with_accept_proposed(tmp_path: Path):
    namespace = Namespace.objects.create(name="cli")
    seed = tmp_path / "seed.json"
    seed.write_text(v2(candidate("Prefers coffee", "I prefer coffee in the morning.")))
    _run("import_memory", "--namespace", "cli", str(seed), "--yes")
    tea = tmp_path / "tea.json"
    tea.write_text(v2(candidate("Prefers tea", "I prefer tea in the morning.")))
    out, _ = _run("import_memory", "--namespace", "cli", str(tea), "--yes")
    assert "have confidence < 0.85" in out and "0 events created" in out
    out, _ = _run("import_memory", "--namespace", "cli", str(tea), "--yes", "--accept-proposed")
    assert "1 events created" in out
    assert Event.objects.filter(namespace=namespace).count() == 2


def test_undo_by_id_and_a_bad_file_is_a_command_error(tmp_path: Path):
    before = memory_dump(Namespace.objects.create(name="cli"))
    _run("import_memory", "--namespace", "cli", str(SAMPLES / "v2_export.json"), "--yes")
    import_id = str(ImportBatch.objects.get().pk)
    out, _ = _run("import_memory", "--namespace", "cli", "--undo", import_id)
    assert f"undone import {import_id}: 7 events removed" in out
    assert memory_dump(Namespace.objects.get(name="cli")) == before
    bad = tmp_path / "bad.json"
    bad.write_text('{"candidates": [}')
    with pytest.raises(CommandError, match="invalid_import_json"):
        _run("import_memory", "--namespace", "cli", str(bad), "--yes")
    with pytest.raises(CommandError, match="import_already_undone"):
        _run("import_memory", "--namespace", "cli", "--undo", import_id)


def test_export_memory_writes_v2_and_a_jsonl_that_restores(tmp_path: Path):
    _run("import_memory", "--namespace", "cli", str(SAMPLES / "v2_export.json"), "--yes")
    out, _ = _run("export_memory", "--namespace", "cli")
    assert len(json.loads(out)["candidates"]) == 7
    dump = tmp_path / "cli.jsonl"
    _, err = _run("export_memory", "--namespace", "cli", "--format", "jsonl", "--output", str(dump))
    assert "lines to" in err
    _run("import_memory", "--namespace", "restored", str(dump), "--yes")
    assert memory_dump(Namespace.objects.get(name="restored")) == memory_dump(
        Namespace.objects.get(name="cli")
    )
    with pytest.raises(CommandError, match="does not exist"):
        _run("export_memory", "--namespace", "nowhere")


def test_a_conversation_import_can_be_processed_in_process(settings):
    out, _ = _run(
        "import_memory",
        "--namespace",
        "cli",
        str(SAMPLES / "claude_conversations.json"),
        "--yes",
        "--drain",
    )
    assert "2 sessions" in out
    assert Namespace.objects.get(name="cli").current_turn == 3


def test_import_memory_uses_the_model_when_one_is_configured(settings, fake_openai, tmp_path):
    seed = tmp_path / "seed.json"
    seed.write_text(v2(candidate("Prefers coffee", "I prefer coffee in the morning.")))
    _run("import_memory", "--namespace", "cli", str(seed), "--yes")
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    coffee = Event.objects.get()
    fake_openai.script(
        [
            json.dumps(
                {
                    "action": "supersede",
                    "target_event_ids": [coffee.pk],
                    "confidence": 0.95,
                    "reason": "the user switched to tea",
                }
            )
        ]
    )
    tea = tmp_path / "tea.json"
    tea.write_text(v2(candidate("Prefers tea", "I prefer tea in the morning now.")))
    out, _ = _run("import_memory", "--namespace", "cli", str(tea), "--yes")
    assert "supersede" in out and "1 events created, 1 changed" in out
    assert fake_openai.calls == 1
    coffee.refresh_from_db()
    assert coffee.status == "superseded"
