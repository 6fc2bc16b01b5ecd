"""The harness ingests through batch ingest with the utterances' receipts, so a re-run stores
nothing and the progress still advances once per turn."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memory.evaluation.locomo import ingest as locomo_ingest
from memory.evaluation.locomo.dataset import load
from memory.models import IngestReceipt, Message, Turn
from tests.evaluation.locomo_sample import write_sample

pytestmark = pytest.mark.django_db


def test_a_conversation_goes_in_as_batches_with_utterance_receipts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches: list[int] = []
    real = locomo_ingest.turn_batch_ingest

    def spy(**kwargs: Any) -> Any:
        batches.append(len(kwargs["turns"]))
        return real(**kwargs)

    monkeypatch.setattr(locomo_ingest, "turn_batch_ingest", spy)
    (conversation,) = load(write_sample(tmp_path))
    steps: list[int] = []

    first = locomo_ingest.conversation_ingest(conversation, on_turn=lambda: steps.append(1))

    assert batches == [5]
    assert len(steps) == first.turns_total == first.turns_stored == 5
    assert set(IngestReceipt.objects.values_list("receipt_id", flat=True)) == {
        "locomo:conv-t1:D1:1",
        "locomo:conv-t1:D1:3",
        "locomo:conv-t1:D1:5",
        "locomo:conv-t1:D2:1",
        "locomo:conv-t1:D2:3",
    }
    assert first.message_of["D1:2"] == Message.objects.get(content__startswith="Busy!").pk

    rows = (Turn.objects.count(), Message.objects.count(), IngestReceipt.objects.count())
    again = locomo_ingest.conversation_ingest(conversation)
    assert (again.turns_stored, again.turns_total) == (0, 5)
    assert (Turn.objects.count(), Message.objects.count(), IngestReceipt.objects.count()) == rows
    assert again.utterance_of == first.utterance_of
