"""The harness end to end on a small LoCoMo-format conversation: ingestion through the normal
pipeline, figures per path and category, idempotent re-runs, and nothing recorded by scoring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memory.evaluation.locomo.run import EvalOptions, locomo_evaluate
from memory.models import Activation, Message, RetrievalBatch, Turn
from tests.evaluation.locomo_sample import write_sample

pytestmark = pytest.mark.django_db


def test_ingestion_pairs_utterances_with_speaker_and_session_date(tmp_path: Path) -> None:
    report = locomo_evaluate(write_sample(tmp_path))

    # Session 1: 5 utterances → 3 turns; session 2: 3 → 2.
    assert report["ingest"]["turns"] == 5
    assert Turn.objects.count() == 5
    first = Message.objects.get(content__startswith="Busy! I adopted")
    assert (first.role, first.name, first.position) == ("assistant", "Ben", 1)
    assert first.created_at.date().isoformat() == "2023-05-08"
    alone = Message.objects.get(content__startswith="They loved it")
    assert (alone.role, alone.turn.messages.count()) == ("user", 1)
    caption = Message.objects.get(content__startswith="Amazing. Look at this.")
    assert "a photo of a cello on a stage" in caption.content
    assert caption.session.external_id == "session_2"
    assert report["conversations"]["conv-t1"]["ingest"]["blocks_failed"] == 0
    assert report["ingest"]["model_calls"] == 0


def test_report_has_figures_per_path_and_category(tmp_path: Path) -> None:
    report = locomo_evaluate(
        write_sample(tmp_path), options=EvalOptions(ks=(1, 5), budgets=(900, 2000))
    )

    assert report["questions"] == 4
    assert set(report["by_category"]) == {"1", "2", "3", "4"}
    assert set(report["paths"]) == {"raw", "events", "graph", "recommended"}
    assert set(report["overall"]) == {"R@1", "R@5", "budget@900", "budget@2000"}
    for figures in [report["overall"], *report["by_category"].values()]:
        assert all(0.0 <= v <= 1.0 for v in figures.values())
    # The greyhound's name and the marathon are each said in one place: found first.
    assert report["by_category"]["4"]["R@1"] == 1.0
    assert report["by_category"]["2"]["R@1"] == 1.0
    # One of the two evidence ids of the aquarium question names no utterance: at most 1/2.
    assert report["by_category"]["3"]["R@5"] == 0.5
    details = {d["index"]: d for d in report["conversations"]["conv-t1"]["details"]}
    assert details[0]["top10"][0] == "D1:2"
    assert details[3]["unfindable"] == ["D9:9"]
    assert report["activated_memory"]["passages"]["per_question"] > 0


def test_scoring_records_nothing_and_a_rerun_stores_nothing(tmp_path: Path) -> None:
    path = write_sample(tmp_path)
    first = locomo_evaluate(path)
    messages = Message.objects.count()

    again = locomo_evaluate(path)

    assert RetrievalBatch.objects.count() == 0
    assert Activation.objects.count() == 0
    assert Message.objects.count() == messages
    assert again["conversations"]["conv-t1"]["ingest"]["turns_stored_now"] == 0
    assert again["overall"] == first["overall"]


def test_command_writes_json_and_rejects_bad_options(tmp_path: Path, capsys) -> None:
    out = tmp_path / "result.json"
    call_command("locomo_eval", str(write_sample(tmp_path)), "--k", "1,10", "--json-out", str(out))

    report = json.loads(out.read_text())
    assert report["questions"] == 4 and "R@10" in report["overall"]
    assert "4 questions; recommended path:" in capsys.readouterr().out
    with pytest.raises(CommandError, match="--k"):
        call_command("locomo_eval", str(write_sample(tmp_path)), "--k", "ten")
    with pytest.raises(CommandError, match="invalid_budget"):
        call_command("locomo_eval", str(write_sample(tmp_path)), "--budget", "50")
    with pytest.raises(CommandError, match="locomo_unknown_conversation"):
        call_command("locomo_eval", str(write_sample(tmp_path)), "--conversations", "conv-9")
