"""Event search: field weights (SPEC §8.2), statuses filtered at query time, dates and types."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from django.db import connection

from memory.models import Event, EventStatus
from memory.search import search_events
from memory.search.documents import EVENTS
from memory.services.events import event_lifecycle, event_supersede
from tests.search.conftest import index_ids

pytestmark = pytest.mark.django_db


def _distractors(w, count=6):
    # bm25's idf needs a term to be rarer than half the collection to weigh anything.
    for n in range(count):
        w.event(f"Routine note {n}", f"Nothing special happened, item {n}.")


def _ids(hits):
    return [h.object_id for h in hits]


def test_creating_an_event_indexes_it_in_the_same_transaction(world):
    w = world()
    event = w.event("Adopt Kubernetes", "The team adopts Kubernetes for deployment.")
    assert event.pk in index_ids(EVENTS.table)
    assert _ids(search_events(w.pk, "kubernetes")) == [event.pk]


def test_a_title_match_outranks_a_summary_only_match(world):
    w = world()
    _distractors(w)
    in_summary = w.event("Storage choice", "We will use Redis as the cache layer for sessions.")
    in_title = w.event("Redis cache", "We picked a cache layer for sessions.")
    assert _ids(search_events(w.pk, "redis")) == [in_title.pk, in_summary.pk]


def test_participants_and_event_type_weigh_more_than_the_summary(world):
    w = world()
    _distractors(w)
    said = w.event("Call notes", "Someone mentioned Melanie in passing during the call.")
    with_her = w.event("Painting class", "Signed up for a class.", participants=["Melanie"])
    assert _ids(search_events(w.pk, "Melanie")) == [with_her.pk, said.pk]
    migration = w.event("Move data", "Data moved.", event_type="migration")
    assert _ids(search_events(w.pk, "migration"))[0] == migration.pk


def test_forgotten_and_archived_events_are_not_returned_but_superseded_ones_are(world):
    w = world()
    _distractors(w)
    old = w.event("Use npm", "Use npm as the package manager.")
    new = w.event("Switch to pnpm", "Switch the package manager to pnpm.")
    gone = w.event("Temporary package manager", "Package manager trial, forgotten later.")
    archived = w.event("Archived package manager note", "Package manager note, archived.")
    event_supersede(new=new, old=old)
    event_lifecycle(event=gone, action="forget", actor="test")
    event_lifecycle(event=archived, action="archive", actor="test")
    found = set(_ids(search_events(w.pk, "package manager")))
    assert found == {old.pk, new.pk}
    assert Event.objects.get(pk=old.pk).status == EventStatus.SUPERSEDED
    only_active = _ids(search_events(w.pk, "package manager", statuses=["active"]))
    assert only_active == [new.pk]
    hidden = set(_ids(search_events(w.pk, "package manager", statuses=["forgotten", "archived"])))
    assert hidden == {gone.pk, archived.pk}
    assert search_events(w.pk, "package manager", statuses=[]) == []
    # Restore needs no re-index: status is read at query time.
    event_lifecycle(event=gone, action="restore", actor="test")
    assert gone.pk in _ids(search_events(w.pk, "package manager"))


def test_occurrence_dates_and_temporal_wording_are_searchable(world):
    w = world()
    _distractors(w)
    planned = w.event(
        "Finish the prototype",
        "Finish the prototype.",
        event_type="plan",
        original_text="next week",
        happened_start=datetime(2023, 5, 11, tzinfo=UTC),
        happened_end=datetime(2023, 5, 17, tzinfo=UTC),
        precision="range",
        basis="relative",
    )
    june = w.event(
        "Team offsite",
        "Offsite.",
        happened_start=datetime(2023, 6, 20, tzinfo=UTC),
        precision="day",
        basis="explicit",
    )
    assert _ids(search_events(w.pk, "2023-05-14")) == [planned.pk]
    assert _ids(search_events(w.pk, "next week")) == [planned.pk]
    assert _ids(search_events(w.pk, "in June")) == [june.pk]


def test_chinese_event_text_is_found_by_a_chinese_query(world):
    w = world()
    _distractors(w)
    decided = w.event("决定迁移数据库", "团队决定把数据库迁移到PostgreSQL。", event_type="决定")
    w.event("午饭", "今天中午吃面条。")
    assert _ids(search_events(w.pk, "数据库")) == [decided.pk]
    assert search_events(w.pk, "天气") == []


def test_event_search_is_confined_to_its_namespace(world):
    mine, theirs = world("mine"), world("theirs")
    a = mine.event("Shared lighthouse topic", "Lighthouse.")
    b = theirs.event("Shared lighthouse topic", "Lighthouse.")
    assert _ids(search_events(mine.pk, "lighthouse")) == [a.pk]
    assert _ids(search_events(theirs.pk, "lighthouse")) == [b.pk]


def test_fts_syntax_in_an_event_query_never_raises(world):
    w = world()
    w.event("Quoted", 'He said "deploy" NEAR(the) end: -rollback *')
    for query in ['"deploy', "NEAR(", "end:", "-rollback", "*", 'a" OR "b']:
        search_events(w.pk, query)
    assert search_events(w.pk, "the of") == []


def test_unindexed_events_are_not_found_and_index_events_brings_them_back(world):
    from memory.search import index_events, unindex_events

    w = world()
    event = w.event("Adopt Grafana", "Dashboards in Grafana.")
    unindex_events([event.pk])
    assert search_events(w.pk, "grafana") == []
    assert Event.objects.filter(pk=event.pk).exists()
    index_events([event])
    assert _ids(search_events(w.pk, "grafana")) == [event.pk]


@pytest.mark.skipif(
    connection.vendor != "sqlite", reason="SQLite checks statuses after ranking when few differ"
)
def test_statuses_checked_after_ranking_give_the_hits_of_a_status_join(world, monkeypatch):
    from memory.search import sqlite_fts5

    w = world()
    rng = random.Random(3)
    words = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "isle"]
    statuses = [EventStatus.ACTIVE] * 5 + [EventStatus.SUPERSEDED, EventStatus.FORGOTTEN]
    statuses += [EventStatus.ARCHIVED]
    for _ in range(60):
        event = w.event(" ".join(rng.choices(words, k=3)), " ".join(rng.choices(words, k=8)))
        Event.objects.filter(pk=event.pk).update(status=rng.choice(statuses))
    others = Event.objects.filter(namespace=w.namespace).exclude(status="active").count()
    assert 10 < others < 40
    wanted = [("active", "superseded"), ("active",), ("forgotten", "archived"), tuple(EventStatus)]
    cases = [(q, s, limit) for q in words[:6] for s in wanted for limit in (3, 50)]
    checked_last = [search_events(w.pk, q, statuses=s, limit=limit) for q, s, limit in cases]
    monkeypatch.setattr(sqlite_fts5, "MAX_SKIPPED", -1)  # every search joins the statuses
    joined = [search_events(w.pk, q, statuses=s, limit=limit) for q, s, limit in cases]
    assert checked_last == joined
    # Some small limits were filled past rows of other statuses that ranked above them.
    status = dict(Event.objects.values_list("pk", "status"))
    passed = 0
    for (q, s, limit), hits in zip(cases, joined, strict=True):
        if limit == 3 and len(hits) == 3:
            top = search_events(w.pk, q, statuses=tuple(EventStatus), limit=3)
            passed += any(status[h.object_id] not in s for h in top)
    assert passed >= 5
