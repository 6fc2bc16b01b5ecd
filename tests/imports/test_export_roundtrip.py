"""The JSONL export is lossless: restoring it into an empty namespace reproduces the canonical
dump (ids remapped); and usage receipts that cited an undone import are cleaned up."""

from __future__ import annotations

import json

import pytest

from memory.models import (
    AdminAction,
    Event,
    ImportBatch,
    IngestReceipt,
    Namespace,
    RetrievalBatch,
    UsageItem,
    UsageReceipt,
)
from memory.search import search_events
from memory.services.events import event_lifecycle
from tests.conftest import make_api, turn_body
from tests.dumps import memory_dump
from tests.imports.conftest import candidate, run_import, v2

pytestmark = pytest.mark.django_db


def _use(owner, query: str, receipt: str, pick=None) -> dict:
    found = owner.post("/ns/proj/search/events", {"query": query, "session_id": "s1"}).json()
    refs = [r["ref"] for r in found["results"]]
    if pick is not None:
        refs = [r for r in refs if pick(r)]
    assessed = owner.post(
        "/ns/proj/assess",
        {
            "batch_id": found["batch_id"],
            "verdict": "sufficient",
            "evidence_refs": refs[:2],
            "fit": "answers it",
            "missing": "",
            "next_strategy": "answer",
        },
    )
    assert assessed.status_code == 200, assessed.content
    used = owner.post(
        "/ns/proj/record-use",
        {"batch_id": found["batch_id"], "receipt_id": receipt, "evidence_refs": refs[:2]},
    )
    assert used.status_code == 200, used.content
    return used.json()


def _rich_namespace(owner, admin, drain) -> None:
    assert admin.put("/settings", {"block_turns": 2}).status_code == 200
    statements = [
        "Use npm for the Atlas project.",
        "I work at Acme Corp.",
        "Let's switch to pnpm for Atlas.",
        "I prefer coffee in the morning.",
        "Finish the prototype next week.",
    ]
    for n, text in enumerate(statements, start=1):
        body = turn_body(n, user=text, assistant="Noted.")
        body["messages"][1]["tool_calls"] = [{"name": "lookup", "arguments": {"q": n}}]
        assert owner.post("/ns/proj/turns", body).status_code == 201
    drain()
    preview = run_import(
        owner, drain, v2(candidate("Owns a cat", "The user has a cat called Miso."))
    )
    owner.post(f"/ns/proj/imports/{preview['import_id']}/commit", {})
    drain()
    first = Event.objects.order_by("pk").first()
    assert first is not None
    assert admin.post(f"/ns/proj/events/{first.pk}/pin").status_code == 200
    block = owner.get("/ns/proj/sessions/s1/blocks").json()["blocks"][0]
    expanded = owner.post(f"/ns/proj/blocks/{block['block_id']}/expand", {"target": "L3"})
    assert expanded.status_code == 200
    _use(owner, "Atlas package manager", "answer-1")


def test_jsonl_export_restored_into_an_empty_namespace_gives_the_same_dump(owner, admin, drain):
    _rich_namespace(owner, admin, drain)
    source = Namespace.objects.get(name="proj")
    expected = memory_dump(source)
    assert expected["usage_receipts"] and expected["graph_facts"] and expected["assessments"]

    exported = owner.get("/ns/proj/export", format="jsonl")
    assert exported.status_code == 200
    assert exported["Content-Type"] == "application/x-ndjson"
    text = b"".join(exported.streaming_content).decode()
    header = json.loads(text.splitlines()[0])
    assert header["format"] == "stratagate.namespace-dump.v1"

    copy = make_api("admin", namespaces=("copy",))
    created = copy.post("/ns/copy/imports", {"text": text})
    assert created.status_code == 202, created.content
    drain()
    preview = copy.get(f"/ns/copy/imports/{created.json()['import_id']}").json()
    assert (preview["format"], preview["kind"], preview["status"]) == ("jsonl", "dump", "ready")
    assert copy.post(f"/ns/copy/imports/{preview['import_id']}/commit", {}).status_code == 200
    restored = Namespace.objects.get(name="copy")
    assert memory_dump(restored) == expected
    # The dump's admin log comes back as the restoring token's `restored:` entries: a file
    # cannot put words in anyone's mouth.
    logged = list(
        AdminAction.objects.filter(namespace=restored).values_list("actor", "action", "details")
    )
    copy_actor = f"token:{copy.token.split('_')[1]}"
    restored_rows = [row for row in logged if row[1].startswith("restored:")]
    assert restored_rows and {a for a, _, _ in logged} == {copy_actor}
    originals = {row[2]["restored"]["actor"] for row in restored_rows}
    assert originals and copy_actor not in originals
    assert set(Event.objects.filter(namespace=restored).values_list("pk", flat=True)).isdisjoint(
        Event.objects.filter(namespace=source).values_list("pk", flat=True)
    )
    assert search_events(restored.pk, "pnpm"), "restored events are indexed"

    undone = copy.post(f"/ns/copy/imports/{preview['import_id']}/undo")
    assert undone.status_code == 200
    assert not Event.objects.filter(namespace=restored).exists()
    assert memory_dump(restored) == memory_dump(Namespace.objects.create(name="empty"))


def test_undo_of_a_restore_is_refused_once_the_namespace_has_new_memory(owner, drain):
    assert owner.post("/ns/proj/turns", turn_body(1)).status_code == 201
    text = b"".join(owner.get("/ns/proj/export", format="jsonl").streaming_content).decode()
    copy = make_api("admin", namespaces=("copy",))
    import_id = copy.post("/ns/copy/imports", {"text": text}).json()["import_id"]
    drain()
    assert copy.post(f"/ns/copy/imports/{import_id}/commit", {}).status_code == 200
    assert copy.post("/ns/copy/turns", turn_body(2)).status_code == 201
    response = copy.post(f"/ns/copy/imports/{import_id}/undo")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "namespace_changed"
    assert Namespace.objects.get(name="copy").current_turn == 2


def test_restoring_a_dump_needs_an_admin_token(owner, drain):
    assert owner.post("/ns/proj/turns", turn_body(1)).status_code == 201
    text = b"".join(owner.get("/ns/proj/export", format="jsonl").streaming_content).decode()
    writer = make_api("read-write", namespaces=("copy",))
    for fmt in ("jsonl", "auto"):
        response = writer.post("/ns/copy/imports", {"text": text, "format": fmt})
        assert response.status_code == 403, fmt
        assert response.json()["error"]["code"] == "restore_needs_admin"
    assert not ImportBatch.objects.exists()


def test_a_dump_is_refused_by_a_namespace_that_has_memory(owner, drain):
    assert owner.post("/ns/proj/turns", turn_body(1)).status_code == 201
    text = b"".join(owner.get("/ns/proj/export", format="jsonl").streaming_content).decode()
    response = owner.post("/ns/proj/imports", {"text": text})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "namespace_not_empty"
    assert not ImportBatch.objects.exists()


def test_jsonl_export_redacts_secrets(owner):
    body = turn_body(1, user="my key is sk-abcdefghijklmnopqrstuvwx, keep it")
    assert owner.post("/ns/proj/turns", body).status_code == 201
    text = b"".join(owner.get("/ns/proj/export", format="jsonl").streaming_content).decode()
    assert "sk-abcdefghijklmnopqrstuvwx" not in text and "[REDACTED]" in text


def test_jsonl_export_redacts_identifiers_and_actors_and_still_restores(
    owner, drain, one_turn_blocks
):
    """A client that used a secret as its receipt id, and an actor name holding one: the file
    shows neither, the two receipts stay distinct, and the file restores."""
    secret = "sk-abcdefghijklmnopqrstuvwx"
    for n, text in enumerate(("We decided to use pnpm for Atlas.", "I prefer tea."), start=1):
        body = {**turn_body(n, user=text), "receipt_id": f"{secret}-{n}"}
        assert owner.post("/ns/proj/turns", body).status_code == 201
    drain()
    event = Event.objects.filter(namespace__name="proj").first()
    assert event is not None
    event_lifecycle(event=event, action="pin", actor=f"ops token={secret}")
    text = b"".join(owner.get("/ns/proj/export", format="jsonl").streaming_content).decode()
    assert secret not in text and "abcdefghijklmnopqrstuvwx" not in text
    records = [json.loads(line) for line in text.splitlines()]
    ids = {r["receipt_id"] for r in records if r["type"] == "ingest_receipts"}
    assert len(ids) == 2 and all(i.startswith("redacted-") for i in ids)

    copy = make_api("admin", namespaces=("copy",))
    created = copy.post("/ns/copy/imports", {"text": text})
    assert created.status_code == 202, created.content
    drain()
    committed = copy.post(f"/ns/copy/imports/{created.json()['import_id']}/commit", {})
    assert committed.status_code == 200, committed.content
    assert IngestReceipt.objects.filter(namespace__name="copy").count() == 2


def test_undo_removes_receipts_left_empty_and_strips_the_others(owner, drain, one_turn_blocks, say):
    say("I prefer coffee in the morning.")
    drain()
    text = v2(candidate("Morning tea", "The user drinks tea every morning."))
    preview = run_import(owner, drain, text)
    choices = {"choices": [{"index": 0, "action": "add"}]}
    committed = owner.post(f"/ns/proj/imports/{preview['import_id']}/commit", choices).json()
    imported = committed["created_event_ids"][0]
    only_import = _use(owner, "tea", "only-import", pick=lambda r: r == f"event:{imported}")
    assert only_import["reinforced_event_ids"] == [imported]
    both = _use(owner, "morning", "both")
    assert set(both["reinforced_event_ids"]) == {imported, Event.objects.first().pk}
    batches = RetrievalBatch.objects.count()

    owner.post(f"/ns/proj/imports/{preview['import_id']}/undo")
    assert set(UsageReceipt.objects.values_list("receipt_id", flat=True)) == {"both"}
    kept = UsageReceipt.objects.get()
    assert kept.reinforced_event_ids == [Event.objects.get().pk]
    assert kept.evidence_refs == [f"event:{Event.objects.get().pk}"]
    assert UsageItem.objects.filter(receipt=kept).count() == 1
    assert RetrievalBatch.objects.count() == batches  # retrieval history stays
