"""Two workers storing blocks of one namespace at the same moment (PostgreSQL) still keep one
event per fact: the second finds the first's event and adds a mention. SQLite lets one writer
in at a time, so the race exists only on PostgreSQL; the test runs on both."""

from __future__ import annotations

import threading

import pytest
from django.db import connections, transaction

from memory.engine.prompts.extraction import ExtractedEvent, ExtractionOut
from memory.models import Block, Event, EventMention, Message
from memory.services.extraction import block_messages, extraction_store
from memory.services.jobs import jobs_drain
from tests.reliability.world import ingest_sessions

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 8


def _fact(block: Block, round_: int) -> ExtractionOut:
    """The same fact, said in `block` (its first message is the source)."""
    source = Message.objects.filter(turn__block=block).order_by("pk").first()
    assert source is not None
    summary = f"The nightly report {round_} runs on the reporting cluster."
    extracted = ExtractedEvent(
        title=f"Nightly report {round_} on the reporting cluster",
        summary=summary,
        quotes=[source.content[:80]],
        source_message_ids=[source.pk],
    )
    return ExtractionOut(should_extract=True, events=[extracted])


def test_two_blocks_stating_one_fact_at_once_make_one_event():
    namespace = ingest_sessions("mention-race", sessions=2, turns=6)
    jobs_drain()
    blocks = list(Block.objects.filter(namespace=namespace).order_by("pk"))
    assert len(blocks) == 2
    before = set(Event.objects.values_list("pk", flat=True))
    errors: list[BaseException] = []

    for round_ in range(ROUNDS):
        barrier = threading.Barrier(2)

        def store(block: Block, round_: int = round_, barrier: threading.Barrier = barrier) -> None:
            try:
                out, messages = _fact(block, round_), block_messages(block)
                barrier.wait()
                with transaction.atomic():
                    extraction_store(block=block, out=out, messages=messages)
            except BaseException as exc:  # reported below
                errors.append(exc)
            finally:
                connections.close_all()

        threads = [threading.Thread(target=store, args=(block,)) for block in blocks]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)

    assert errors == []
    made = Event.objects.exclude(pk__in=before)
    assert made.count() == ROUNDS  # one event per round's fact, not two
    assert EventMention.objects.filter(event__in=made).count() == ROUNDS  # the other block's
    assert all(e.mention_count == 2 for e in made)
