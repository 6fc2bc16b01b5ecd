"""benchmarks/history_tokens.py measures what `context` gives the agent: its history tokens are
the endpoint's, its transcript every message, its levels the decay of SPEC §4.4."""

from __future__ import annotations

from typing import Any

import history_tokens
import pytest

from memory.engine.tokens import estimate_tokens
from memory.evaluation.locomo.dataset import parse_conversation
from memory.services.settings import memory_settings_update
from tests.conftest import make_api

WORDS = ("pottery", "hiking", "violin", "garden", "museum", "concert", "recipe", "marathon")


def _conversation() -> dict[str, Any]:
    """Two sessions, 60 utterances: 30 turns, so five blocks of six and no open tail."""
    body: dict[str, Any] = {"speaker_a": "Ana", "speaker_b": "Ben"}
    n = 0
    for session, (date, count) in enumerate(
        [("1:56 pm on 8 May, 2023", 24), ("9:10 am on 2 June, 2023", 36)], start=1
    ):
        body[f"session_{session}_date_time"] = date
        rows = []
        for i in range(count):
            n += 1
            word = WORDS[n % len(WORDS)]
            rows.append(
                {
                    "speaker": ("Ana", "Ben")[i % 2],
                    "dia_id": f"D{session}:{i + 1}",
                    "text": f"Message {n}: I spent the weekend on {word} with my cousin "
                    f"and we want to try {WORDS[(n * 3) % len(WORDS)]} next month.",
                }
            )
        body[f"session_{session}"] = rows
    return {"sample_id": "conv-h", "conversation": body, "qa": []}


@pytest.mark.django_db
def test_history_is_what_context_reports_against_the_whole_transcript() -> None:
    # The installation's λ decides the levels. At 0.30 five blocks only reach L3, which for
    # plain chat costs what L5 does; at 1.00 they decay far enough to show the saving.
    memory_settings_update(block_lambda=1.0)
    raw = _conversation()
    row = history_tokens.conversation_history(parse_conversation(raw))
    assert (row["sessions"], row["utterances"], row["turns"]) == (2, 60, 30)
    assert (row["blocks_ready"], row["blocks_pending"], row["open_tail_turns"]) == (5, 0, 0)
    assert (row["block_turns"], row["block_lambda"]) == (6, 1.0)
    # w = e^(-newer blocks): 0 → L5, 1 → L3, 2 → L1, 3 and 4 → L0 (SPEC §4.3).
    assert row["blocks_by_level"] == {"L0": 2, "L1": 1, "L3": 1, "L5": 1}
    assert sum(row["tokens_by_part"].values()) == row["history_tokens"]

    api = make_api(namespaces=("history-conv-h",))
    context = api.get("/ns/history-conv-h/context", session_id="conversation").json()
    assert row["history_tokens"] == context["history"]["tokens"]

    utterances = [u for s in (1, 2) for u in raw["conversation"][f"session_{s}"]]
    transcript = "\n\n".join(
        f"{('user', 'assistant')[i % 2]}: {u['text']}" for i, u in enumerate(utterances)
    )
    assert row["transcript_tokens"] == estimate_tokens(transcript)
    assert 0 < row["history_tokens"] < row["transcript_tokens"]
    assert row["ratio"] == round(row["history_tokens"] / row["transcript_tokens"], 4)
    assert row["goal_met"] is (row["ratio"] <= 1 / 8)
