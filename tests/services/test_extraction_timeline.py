"""The timeline an extraction may relate to (SPEC §5.5): the same events as the plain ORM
reading of its rule, now that the scan reads plain rows and only the chosen events in full."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.models import Block, BlockView, Event, EventStatus
from memory.services import extraction
from memory.services.extraction import TIMELINE_RECENT, TIMELINE_RELEVANT, extraction_timeline
from tests.conftest import turn_body

pytestmark = pytest.mark.django_db

TOPICS = ["Postgres", "Redis", "Kafka", "pnpm", "Docker", "Terraform", "Grafana", "Vault"]


def _orm_timeline(block: Block, text: str) -> list[Event]:
    """The rule read through the ORM, full events all the way (the previous implementation)."""
    visible = Event.objects.filter(
        namespace_id=block.namespace_id, status__in=VISIBLE_STATUSES
    ).exclude(source_block=block)
    recent = list(visible.order_by("-formed_turn", "-id")[:TIMELINE_RECENT])
    wanted = extraction._terms(text)
    scored = []
    for event in visible.order_by("-id")[: extraction.TIMELINE_SCAN]:
        have = extraction._terms(f"{event.title} {event.summary} {' '.join(event.tags)}")
        overlap = sum(min(wanted[t], have[t]) for t in have if t in wanted)
        if overlap:
            scored.append((-overlap, -event.pk, event))
    relevant = [e for *_, e in sorted(scored, key=lambda row: row[:2])[:TIMELINE_RELEVANT]]
    seen = {e.pk for e in relevant}
    return relevant + [e for e in recent if e.pk not in seen]


def test_the_timeline_equals_the_orm_reading_of_its_rule(owner, drain, admin, monkeypatch):
    assert admin.put("/settings", {"block_turns": 1}).status_code == 200
    for n, topic in enumerate(TOPICS * 3, start=1):
        user = f"We decided to use {topic} for the storage layer, version {n}."
        assert owner.post("/ns/proj/turns", turn_body(n, user=user)).status_code == 201
    drain()
    events = list(Event.objects.order_by("pk"))
    assert len(events) >= 12
    Event.objects.filter(pk=events[0].pk).update(status=EventStatus.FORGOTTEN)  # hidden
    monkeypatch.setattr(extraction, "TIMELINE_SCAN", 10)  # the scan's limit takes effect
    blocks = list(Block.objects.order_by("pk"))
    compared = 0
    for block in blocks:
        text = BlockView.objects.get(block=block, level=4).content
        for query in (text, "Postgres storage version", "nothing in common"):
            got = extraction_timeline(block=block, text=query)
            want = _orm_timeline(block, query)
            assert [e.pk for e in got] == [e.pk for e in want]
            assert [e.title for e in got] == [e.title for e in want]  # full events
            assert all(e.source_block_id != block.pk for e in got)
            assert events[0].pk not in {e.pk for e in got}
            compared += len(got)
    assert compared > 0


def test_the_most_recent_events_are_read_through_an_index(owner, drain, admin) -> None:
    """The timeline is read inside the extraction's write transaction: its recent events come
    off `event_ns_formed` in order, not from sorting all of the namespace's events (5 ms at
    20,000 events, with the database locked meanwhile)."""
    if connection.vendor != "sqlite":
        pytest.skip("the plan checked is SQLite's (PostgreSQL chooses by its statistics)")
    assert admin.put("/settings", {"block_turns": 1}).status_code == 200
    assert owner.post("/ns/proj/turns", turn_body(1, user="We use Kafka.")).status_code == 201
    drain()
    block = Block.objects.get()
    with CaptureQueriesContext(connection) as queries:
        extraction_timeline(block=block, text="Kafka")
    recent = [q["sql"] for q in queries.captured_queries if "formed_turn" in q["sql"]]
    assert len(recent) == 1
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {recent[0]}")
        plan = " | ".join(str(row[-1]) for row in cursor.fetchall())
    assert "event_ns_formed" in plan
    assert "TEMP B-TREE" not in plan
