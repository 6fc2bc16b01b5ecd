"""Parsing the LoCoMo release: dates, evidence ids, pairing, captions, scored questions."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory.errors import Invalid
from memory.evaluation.locomo.dataset import (
    load,
    normalise_evidence,
    paired_turns,
    parse_session_date,
)
from memory.evaluation.locomo.scoring import Tally, recall_at
from tests.evaluation.locomo_sample import SAMPLE, write_sample


def test_session_dates_read_as_written() -> None:
    assert parse_session_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_session_date("12:09 am on 13 September, 2023") == datetime(
        2023, 9, 13, 0, 9, tzinfo=UTC
    )
    assert parse_session_date("12:30 pm on 1 June 2023").hour == 12
    with pytest.raises(Invalid) as caught:
        parse_session_date("yesterday")
    assert caught.value.code == "locomo_invalid_date"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D1:3"], ["D1:3"]),
        (["D:11:26"], ["D11:26"]),
        (["D30:05"], ["D30:5"]),
        (["D8:6; D9:17"], ["D8:6", "D9:17"]),
        (["D1:2 D1:3", "D1:2"], ["D1:2", "D1:3"]),
        (["see above", ""], []),
    ],
)
def test_malformed_evidence_ids_are_normalised(raw: list[str], expected: list[str]) -> None:
    assert normalise_evidence(raw) == expected


def test_conversation_parsing(tmp_path: Path) -> None:
    (conversation,) = load(write_sample(tmp_path))
    assert conversation.speakers == ("Ana", "Ben")
    assert [s.number for s in conversation.sessions] == [1, 2]
    assert conversation.utterance_count == 8
    caption = conversation.sessions[1].utterances[1].content
    assert caption == "Amazing. Look at this. [shared an image: a photo of a cello on a stage]"
    # Five utterances: two pairs and one alone.
    assert [len(t) for t in paired_turns(conversation.sessions[0])] == [2, 2, 1]
    scored = conversation.scored_questions()
    # Category 5 and the question without evidence are not scored.
    assert [q.index for q in scored] == [0, 1, 2, 3]
    assert scored[1].evidence == ("D2:1",)
    assert scored[2].evidence == ("D1:3", "D2:2")
    assert scored[3].evidence == ("D1:5",)
    assert scored[3].unfindable == ("D9:9",)


def test_unknown_conversation_and_bad_files_are_errors(tmp_path: Path) -> None:
    with pytest.raises(Invalid) as caught:
        load(write_sample(tmp_path), ["conv-99"])
    assert caught.value.code == "locomo_unknown_conversation"
    broken = {**SAMPLE, "conversation": {"speaker_a": "A"}}
    with pytest.raises(Invalid) as caught:
        load(write_sample(tmp_path, [broken]))
    assert caught.value.code == "locomo_invalid_file"
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(Invalid) as caught:
        load(tmp_path / "bad.json")
    assert caught.value.code == "locomo_invalid_file"


def test_recall_counts_unfindable_evidence_as_missed() -> None:
    assert recall_at(["D1:2", "D1:3"], ["D1:3"], 0, 1) == 0.0
    assert recall_at(["D1:2", "D1:3"], ["D1:3"], 0, 2) == 1.0
    assert recall_at(["D1:5"], ["D1:5"], 1, 10) == 0.5
    assert recall_at([], [], 0, 10) == 0.0


def test_tally_means_per_category_and_overall() -> None:
    tally = Tally()
    tally.add(1, {"R@10": 1.0})
    tally.add(1, {"R@10": 0.0})
    tally.add(4, {"R@10": 1.0})
    assert tally.means("overall") == {"R@10": 0.6667}
    assert tally.means("1") == {"R@10": 0.5}
    assert tally.means("2") == {}
