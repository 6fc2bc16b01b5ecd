"""A small conversation in the LoCoMo release's format, written for these tests (the real data
stays in ../shared/data and is never copied into the repository)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _u(speaker: str, dia: str, text: str, **extra: str) -> dict[str, str]:
    return {"speaker": speaker, "dia_id": dia, "text": text, **extra}


SAMPLE: dict[str, Any] = {
    "sample_id": "conv-t1",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            _u("Ana", "D1:1", "Hi Ben! How have you been lately?"),
            _u("Ben", "D1:2", "Busy! I adopted a greyhound named Pixel last weekend."),
            _u("Ana", "D1:3", "Lovely. I started learning the cello in April."),
            _u("Ben", "D1:4", "How are the kids liking the aquarium visit?"),
            _u("Ana", "D1:5", "They loved it and want to go back soon!"),
        ],
        "session_2_date_time": "9:10 am on 2 June, 2023",
        "session_2": [
            _u("Ben", "D2:1", "I ran a charity marathon in Lisbon on Sunday."),
            _u(
                "Ana",
                "D2:2",
                "Amazing. Look at this.",
                img_url="http://example.invalid/x.jpg",
                blip_caption="a photo of a cello on a stage",
            ),
            _u("Ben", "D2:3", "Pixel the greyhound joined me for the last kilometre."),
        ],
    },
    "qa": [
        {"question": "What is the name of Ben's greyhound?", "answer": "Pixel",
         "evidence": ["D1:2"], "category": 4},
        {"question": "When did Ben run the charity marathon?", "answer": "The Sunday before "
         "2 June 2023", "evidence": ["D:2:1"], "category": 2},
        {"question": "Which instrument does Ana play, and where did she perform?",
         "answer": "cello, on a stage", "evidence": ["D1:3; D2:2"], "category": 1},
        {"question": "Did the kids love the aquarium visit?", "answer": "yes",
         "evidence": ["D1:05", "D9:9"], "category": 3},
        {"question": "What did Ben say about a unicorn?", "answer": "nothing",
         "adversarial_answer": "x", "evidence": ["D1:2"], "category": 5},
        {"question": "Where does Ana work?", "answer": "unknown", "evidence": [],
         "category": 4},
    ],
}  # fmt: skip


def write_sample(directory: Path, items: list[dict[str, Any]] | None = None) -> Path:
    path = directory / "locomo_sample.json"
    path.write_text(json.dumps(items if items is not None else [SAMPLE]), encoding="utf-8")
    return path
