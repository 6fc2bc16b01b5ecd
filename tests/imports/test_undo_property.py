"""Property: for any existing memory and any import, commit + undo leaves the namespace's
canonical dump exactly as it was before the import (SPEC §11.5) — events and their lifecycle,
relations, sources, blocks and views, turns, graph nodes/facts/edges, receipts, timestamps."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memory.models import Event, ImportBatch, Namespace
from memory.services.events import event_lifecycle
from memory.services.imports import Choice, import_commit, import_create, import_undo
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.settings import memory_settings_update
from tests.dumps import memory_dump

pytestmark = pytest.mark.django_db

START = datetime(2024, 1, 8, 9, 0, tzinfo=UTC)
TOOLS = ["npm", "pnpm", "Yarn"]
DATABASES = ["PostgreSQL", "MySQL", "SQLite"]
ORGS = ["Acme Corp", "Northwind Labs"]
CITIES = ["Lisbon", "Berlin"]
DRINKS = ["tea", "coffee"]

statement = st.one_of(
    st.sampled_from(TOOLS).map(lambda t: f"Use {t} for the Atlas project."),
    st.sampled_from(TOOLS).map(lambda t: f"Let's switch to {t} for Atlas."),
    st.sampled_from(DATABASES).map(lambda d: f"We decided to use {d} as the database."),
    st.sampled_from(ORGS).map(lambda o: f"I work at {o}."),
    st.sampled_from(CITIES).map(lambda c: f"I live in {c}."),
    st.sampled_from(DRINKS).map(lambda d: f"I prefer {d} in the morning."),
    st.just("Finish the prototype next week."),
)

imported = st.builds(
    lambda text, title_words, dated, typed: {
        "memoryKind": "event" if typed else "fact",
        "title": " ".join(text.rstrip(".").split()[:title_words]),
        "summary": text,
        **(
            {"temporal": {"mentionedAt": dated, **({"eventType": "decision"} if typed else {})}}
            if dated or typed
            else {}
        ),
    },
    statement,
    st.integers(min_value=2, max_value=6),
    st.one_of(st.none(), st.sampled_from(["2023-01-02", "2030-06-01", "2024-01-08T12:00:00Z"])),
    st.booleans(),
)

choice = st.tuples(
    st.sampled_from(["add", "merge", "supersede", "conflict", "ignore", None]),
    st.integers(min_value=0, max_value=3),
)

scenario = st.fixed_dictionaries(
    {
        "existing": st.lists(statement, min_size=0, max_size=5),
        "lifecycle": st.lists(
            st.tuples(st.integers(0, 10), st.sampled_from(["forget", "pin", "archive"])),
            max_size=2,
        ),
        "candidates": st.lists(imported, min_size=1, max_size=5),
        "copy_existing": st.booleans(),
        "choices": st.lists(choice, min_size=5, max_size=5),
        "project_before_undo": st.booleans(),
    }
)

_names = itertools.count(1)


def _ingest(namespace: Namespace, statements: list[str]) -> None:
    for n, text in enumerate(statements, start=1):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="chat",
                receipt_id=f"r{n}",
                occurred_at=START + timedelta(hours=n),
                messages=[
                    MessageIn(role="user", content=text),
                    MessageIn(role="assistant", content="Noted."),
                ],
            ),
        )
    jobs_drain()


def _choices(batch: ImportBatch, picks: list[tuple[str | None, int]]) -> list[Choice]:
    chosen: list[Choice] = []
    for candidate, (action, target_pick) in zip(
        batch.candidates.order_by("index"), picks, strict=False
    ):
        if action is None:
            continue  # leave it to the proposal (auto-applied or ignored)
        matches = list(candidate.match_event_ids)
        if action in ("merge", "supersede", "conflict") and not matches:
            action = "ignore"  # a targeted choice needs a match (422 choice_target_required)
        targets = [matches[target_pick % len(matches)]] if matches else None
        chosen.append(Choice(candidate.index, action, targets))
    return chosen


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=scenario)
def test_import_then_undo_restores_the_namespace_exactly(db: None, case: dict[str, Any]) -> None:
    memory_settings_update(block_turns=1)
    namespace = Namespace.objects.create(name=f"prop-{next(_names)}")
    _ingest(namespace, case["existing"])
    events = list(Event.objects.filter(namespace=namespace).order_by("pk"))
    for index, action in case["lifecycle"]:
        if events:
            event_lifecycle(event=events[index % len(events)], action=action, actor="test")
    candidates = list(case["candidates"])
    if case["copy_existing"] and events:
        candidates.append({"title": events[0].title, "summary": events[0].summary})
    before = memory_dump(namespace)

    batch = import_create(
        namespace=namespace,
        text=json.dumps({"sourceSystem": "PropAI", "candidates": candidates}),
    )
    jobs_drain()
    batch.refresh_from_db()
    assert batch.processed == batch.total == len(candidates)
    assert memory_dump(namespace) == before  # the preview writes no memory
    result = import_commit(batch=batch, choices=_choices(batch, case["choices"]), actor="test")
    for action in batch.candidates.values_list("chosen_action", flat=True):
        event(f"applied {action}")  # shown by --hypothesis-show-statistics
    event(f"{len(result.changed_event_ids)} existing events changed")
    if case["project_before_undo"]:
        jobs_drain()
    import_undo(batch=batch, actor="test")
    jobs_drain()

    assert memory_dump(namespace) == before
    batch.refresh_from_db()
    assert batch.status == "undone"
