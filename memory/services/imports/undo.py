"""Import undo (SPEC §11.5): one transaction that puts the namespace back exactly as it was.

For memories: the import's events go (unindexed), events they superseded are restored (to the
state commit recorded when nothing else supersedes them now, else superseded by whatever still
does), conflict links go with the events, graph items that depended only on them go (closed
items they displaced reopen; touched nodes are re-indexed), usage receipts left empty go, and so
do the source block, turn, message and session and the queued/finished projection jobs.
For conversations: their sessions with every turn, message, block, block job, ingest receipt and
the events extracted from them (with the same restoration), and the namespace turn counter when
nothing was ingested since. For a dump: everything it restored, if nothing was added since.
Undoing twice is a 409.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from memory.engine.gate import parse_ref
from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.errors import Conflict
from memory.models import (
    Block,
    Event,
    EventRelation,
    EventStatus,
    ImportBatch,
    ImportStatus,
    JobKind,
    Message,
    Namespace,
    ProcessingJob,
    RelationKind,
    Session,
    Turn,
    UsageItem,
    UsageReceipt,
)
from memory.search import index_nodes, unindex_events, unindex_messages
from memory.search.index import index_nodes_of_events
from memory.services.audit import admin_action
from memory.services.imports.graph_rollback import graph_detach_events
from memory.services.imports.restore import dump_unrestore
from memory.services.live import publish
from memory.services.mentions import mentions_remove


@dataclass(frozen=True)
class UndoResult:
    batch: ImportBatch
    removed_event_ids: list[int]
    restored_event_ids: list[int]


def _restore_superseded(removed: set[int], before: dict[str, dict[str, Any]]) -> list[int]:
    """Events whose superseder is being removed: back to what still supersedes them, or to
    their recorded state (active unless they were superseded before the import)."""
    restored: list[int] = []
    affected = Event.objects.select_for_update().filter(superseded_by_id__in=removed)
    for event in affected.exclude(pk__in=removed).order_by("pk"):
        still = set(
            EventRelation.objects.filter(kind=RelationKind.SUPERSEDES, to_event=event)
            .exclude(from_event_id__in=removed)
            .values_list("from_event_id", flat=True)
        )
        recorded = before.get(str(event.pk)) or {}
        earlier = recorded.get("superseded_by")
        pointer = earlier if earlier in still else (max(still) if still else None)
        if event.status in VISIBLE_STATUSES:
            if pointer is not None:
                event.status = EventStatus.SUPERSEDED
            elif earlier is None and recorded.get("status") in VISIBLE_STATUSES:
                event.status = recorded["status"]
            else:
                event.status = EventStatus.ACTIVE
        event.superseded_by_id = pointer
        event.save(update_fields=["status", "superseded_by"])
        restored.append(event.pk)
    return restored


def _receipts_detach(
    namespace_id: int, gone: dict[str, set[int]], *, since: datetime | None
) -> None:
    """Usage items citing removed memory go, and so do receipts they leave empty (SPEC §11.5).
    Only receipts written after the import was committed can cite it (`since`)."""
    removed = gone["event"]

    def cites_gone(raw: object) -> bool:
        ref = parse_ref(raw)  # a block is gone at every level
        return ref is not None and ref.object_id in gone.get(ref.kind, set())

    receipts = UsageReceipt.objects.filter(namespace_id=namespace_id)
    if since is not None:
        receipts = receipts.filter(created_at__gte=since)
    for receipt in receipts.prefetch_related("items__events"):
        items = list(receipt.items.all())
        doomed = [
            item.pk
            for item in items
            if item.object_id in gone.get(item.kind, set())
            or (item.events.all() and all(e.pk in removed for e in item.events.all()))
        ]
        kept_ids = [i for i in receipt.reinforced_event_ids if i not in removed]
        kept_refs = [r for r in receipt.evidence_refs if not cites_gone(r)]
        if (
            not doomed
            and kept_ids == receipt.reinforced_event_ids
            and kept_refs == receipt.evidence_refs
        ):
            continue
        UsageItem.objects.filter(pk__in=doomed).delete()
        emptied = (items and len(doomed) == len(items)) or (receipt.evidence_refs and not kept_refs)
        if emptied:
            receipt.delete()
            continue
        receipt.reinforced_event_ids, receipt.evidence_refs = kept_ids, kept_refs
        receipt.save(update_fields=["reinforced_event_ids", "evidence_refs"])


def events_remove(
    *,
    namespace_id: int,
    removed: set[int],
    before: dict[str, dict[str, Any]],
    node_snapshot: dict[str, Any] | None,
    messages: set[int],
    blocks: set[int],
    since: datetime | None,
) -> list[int]:
    """Remove events and undo their effects; returns the restored event ids."""
    restored = _restore_superseded(removed, before)
    touched, facts, nodes = graph_detach_events(
        namespace_id=namespace_id, removed=removed, node_snapshot=node_snapshot
    )
    gone = {"event": removed, "fact": facts, "node": nodes, "raw": messages, "block": blocks}
    _receipts_detach(namespace_id, gone, since=since)
    unindex_events(sorted(removed))
    Event.objects.filter(pk__in=removed).delete()
    index_nodes(touched)
    index_nodes_of_events(restored)
    return restored


def _graph_jobs_remove(namespace_id: int, watermark: int, removed: set[int]) -> None:
    jobs = ProcessingJob.objects.filter(
        namespace_id=namespace_id, kind=JobKind.GRAPH_PROJECT, pk__gt=watermark
    )
    doomed = [
        job.pk
        for job in jobs.only("pk", "payload")
        if {int(i) for i in job.payload.get("event_ids", [])} & removed
    ]
    ProcessingJob.objects.filter(pk__in=doomed).delete()


def _sources_remove(session_pks: list[int]) -> tuple[set[int], set[int]]:
    """Delete sessions with their turns, messages, blocks (and block jobs) — events first."""
    messages = set(Message.objects.filter(session_id__in=session_pks).values_list("pk", flat=True))
    blocks = set(Block.objects.filter(session_id__in=session_pks).values_list("pk", flat=True))
    unindex_messages(sorted(messages))
    Turn.objects.filter(session_id__in=session_pks).delete()
    Block.objects.filter(pk__in=blocks).delete()
    Session.objects.filter(pk__in=session_pks).delete()
    return messages, blocks


def import_undo(*, batch: ImportBatch, actor: str) -> UndoResult:
    """Take a committed import back out (SPEC §11.5) and write the `import_undo` admin action
    naming `actor`, in one transaction: a refused undo (409) writes nothing."""
    with transaction.atomic():
        locked = ImportBatch.objects.select_for_update().get(pk=batch.pk)
        if locked.status != ImportStatus.COMMITTED:
            code = (
                "import_already_undone"
                if locked.status == ImportStatus.UNDONE
                else "import_not_committed"
            )
            raise Conflict(
                f"import {locked.pk} is {locked.status}; only a committed import can be undone",
                code=code,
            )
        record = locked.commit_record
        kind = record.get("kind", "memories")
        namespace = Namespace.objects.select_for_update(no_key=True).get(pk=locked.namespace_id)
        removed: set[int] = set()
        restored: list[int] = []
        if kind == "memories":
            removed = {int(i) for i in record.get("created_event_ids", [])}
            removed |= set(
                Event.objects.filter(source_block_id=record.get("block_id")).values_list(
                    "pk", flat=True
                )
            )
            sessions = [record["session_id"]] if record.get("session_id") else []
            messages = {record["message_id"]} if record.get("message_id") else set()
            restored = events_remove(
                namespace_id=namespace.pk,
                removed=removed,
                before=record.get("before", {}),
                node_snapshot=record.get("graph_nodes"),
                messages=messages,
                blocks={record["block_id"]} if record.get("block_id") else set(),
                since=locked.committed_at,
            )
            _graph_jobs_remove(namespace.pk, int(record.get("job_watermark", 0)), removed)
            _sources_remove(sessions)
        elif kind == "conversations":
            sessions = [int(i) for i in record.get("session_pks", [])]
            blocks = set(Block.objects.filter(session_id__in=sessions).values_list("pk", flat=True))
            removed = set(
                Event.objects.filter(source_block_id__in=blocks).values_list("pk", flat=True)
            )
            # The imported sessions' statements of facts already known were added to those
            # events as mentions (issue 29): take them back out of the events that stay.
            mentions_remove(block_ids=blocks, except_events=removed)
            messages = set(
                Message.objects.filter(session_id__in=sessions).values_list("pk", flat=True)
            )
            restored = events_remove(
                namespace_id=namespace.pk,
                removed=removed,
                before={},
                node_snapshot=None,
                messages=messages,
                blocks=blocks,
                since=locked.committed_at,
            )
            _graph_jobs_remove(namespace.pk, int(record.get("job_watermark", 0)), removed)
            _sources_remove(sessions)
            if namespace.current_turn == record.get("turn_after"):
                activity = record.get("activity_before")
                namespace.current_turn = int(record.get("turn_before", 0))
                namespace.last_activity_at = parse_datetime(activity) if activity else None
                namespace.save(update_fields=["current_turn", "last_activity_at"])
        elif record.get("created"):
            dump_unrestore(
                namespace=namespace, created=record["created"], before=record.get("before", {})
            )
        locked.status = ImportStatus.UNDONE
        locked.undone_at = timezone.now()
        locked.commit_record = {
            **record,
            "undo": {"removed_event_ids": sorted(removed), "restored_event_ids": restored},
        }
        locked.save(update_fields=["status", "undone_at", "commit_record"])
        admin_action(
            "import_undo",
            namespace_id=locked.namespace_id,
            actor=actor,
            target=f"import:{locked.pk}",
            details={"removed": len(removed), "restored": len(restored)},
        )
        publish(locked.namespace_id, "import.progress", import_id=locked.pk, status=locked.status)
        publish(
            locked.namespace_id,
            "event.changed",
            action="import_undo",
            event_ids=sorted({*removed, *restored}),
        )
    return UndoResult(locked, sorted(removed), restored)
