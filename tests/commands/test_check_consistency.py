"""`manage.py check_consistency`: reports each violation with its ids (text or --json), exits
non-zero while violations remain, repairs what is safely fixable and says what it did."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from memory.models import Event, Message, Namespace, Session
from memory.search.documents import EVENTS, MESSAGES
from tests.services.consistency_world import World, build, index_row_delete

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def world() -> World:
    return build("proj")


def run(*args: str) -> tuple[str, int]:
    """The command's output and exit status (CommandError's return code, as manage.py exits)."""
    out = StringIO()
    try:
        call_command("check_consistency", *args, stdout=out)
    except CommandError as exc:
        return out.getvalue(), exc.returncode
    return out.getvalue(), 0


def test_a_clean_database_reports_nothing_and_exits_0(world):
    out, status = run()
    assert status == 0
    assert out == "all namespaces: consistent, no violations.\n"
    out, status = run("--namespace", "proj", "--json")
    body = json.loads(out)
    assert status == 0
    assert body == {
        "namespace": "proj",
        "repair": False,
        "clean": True,
        "found": [],
        "repairs": [],
        "violations": [],
        "counts": {},
    }


def test_violations_are_listed_with_their_ids_and_exit_1(world):
    message = Message.objects.filter(namespace=world.namespace).order_by("pk").first()
    assert message is not None
    index_row_delete(MESSAGES, message.pk)
    # Deleted by hand, behind the services: its receipts, graph items and nodes' index rows
    # are left pointing at nothing.
    event = world.cited_event.pk
    Event.objects.filter(pk=event).delete()

    out, status = run()
    assert status == 1
    assert out.startswith("all namespaces: 8 violations\n")
    assert (
        f"  receipts receipt_ref_missing (proj; receipt={world.receipt.pk}, "
        f"receipt_id=proj-use-event, ref=event:{event}): receipt 'proj-use-event' "
        f"(id {world.receipt.pk}) cites event:{event}, which does not exist\n"
    ) in out
    assert (
        f"  search_index index_row_missing (proj; message={message.pk}): message {message.pk}: "
        "no search index row  [fixable]\n"
    ) in out

    out, status = run("--json")
    body = json.loads(out)
    assert status == 1 and body["clean"] is False
    assert body["counts"] == {
        "edge_without_source_events": 1,
        "fact_without_source_events": 1,
        "index_row_missing": 1,
        "index_row_stale": 2,
        "receipt_ref_missing": 1,
        "receipt_reinforced_event_missing": 2,
    }
    missing = [v for v in body["violations"] if v["code"] == "index_row_missing"]
    assert missing == [
        {
            "kind": "search_index",
            "code": "index_row_missing",
            "namespace": "proj",
            "ids": {"message": message.pk},
            "message": f"message {message.pk}: no search index row",
            "fixable": True,
        }
    ]


def test_repair_says_what_it_did_and_a_second_run_is_clean(world):
    index_row_delete(EVENTS, world.cited_event.pk)
    Namespace.objects.filter(pk=world.namespace.pk).update(current_turn=2)
    messages = Message.objects.count()

    out, status = run("--repair")
    assert status == 0
    pk = world.namespace.pk
    assert out.splitlines() == [
        "all namespaces before repair: 2 violations",
        f"  search_index index_row_missing (proj; event={world.cited_event.pk}): "
        f"event {world.cited_event.pk}: no search index row  [fixable]",
        f"  counters namespace_turn_counter (proj; namespace={pk}): namespace {pk}'s "
        "current_turn is 2 but its highest turn is 7  [fixable]",
        "Repaired (2):",
        f"  proj: namespace {pk}: current_turn 2 → 7",
        f"  proj: re-indexed 1 events: {world.cited_event.pk}",
        "all namespaces after repair: consistent, no violations.",
    ]
    assert Message.objects.count() == messages
    assert run() == ("all namespaces: consistent, no violations.\n", 0)


def test_what_repair_cannot_fix_keeps_the_exit_status_non_zero(world):
    world.cited_event.source_messages.clear()
    out, status = run("--repair", "--json")
    body = json.loads(out)
    assert status == 1
    assert body["repairs"] == [] and body["found"] == body["violations"]
    assert [(v["code"], v["ids"]["event"], v["fixable"]) for v in body["violations"]] == [
        ("event_without_source_messages", world.cited_event.pk, False)
    ]
    out, status = run("--repair")
    assert status == 1 and "Repaired: nothing (no violation is safely fixable)." in out


def test_the_namespace_option_limits_the_scope(world):
    build("other")
    Session.objects.filter(namespace__name="other").update(turn_count=1)
    assert run("--namespace", "proj")[1] == 0
    out, status = run("--namespace", "other", "--repair")
    assert status == 0 and 'namespace "other" after repair: consistent' in out
    with pytest.raises(CommandError, match="'nowhere' does not exist") as raised:
        call_command("check_consistency", "--namespace", "nowhere")
    assert raised.value.returncode == 2


def _database_url() -> str:
    """The test database, for a manage.py process of its own."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def _manage(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "check_consistency", *args],
        env={**os.environ, "DATABASE_URL": _database_url()},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.django_db(transaction=True)
def test_manage_py_exits_1_while_violations_remain_and_0_after_repair():
    world = build("proj")
    index_row_delete(EVENTS, world.cited_event.pk)
    broken = _manage()
    assert broken.returncode == 1, broken.stderr
    assert f"index_row_missing (proj; event={world.cited_event.pk})" in broken.stdout
    assert "1 consistency violations remain" in broken.stderr
    repaired = _manage("--repair")
    assert repaired.returncode == 0, repaired.stderr
    assert "all namespaces after repair: consistent, no violations." in repaired.stdout
