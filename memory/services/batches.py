"""Retrieval batches: every explicit search or expand records exactly what it showed (SPEC §9.1).

A batch's refs are the only refs an assessment may accept. `params["behind"]` keeps, per ref,
the events that ref stood for when it was shown (an event itself; a fact's or node's source
events; the events extracted from a raw message or a block), so a later usage receipt reinforces
what the agent actually saw, even if the graph moved on in between.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from memory.engine.gate import Ref
from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.errors import Invalid, NotFound
from memory.models import (
    BatchItem,
    Event,
    Namespace,
    RetrievalBatch,
    Session,
)
from memory.models.rows import insert_rows, insert_values
from memory.selectors.namespaces import namespace_turn

BATCH_ID_PREFIX = "b_"


@dataclass(frozen=True)
class BatchEntry:
    """One ref shown to the agent and the events it stands for. Its kind, object id and block
    level are the ref's own (`target`), so the recorded row cannot disagree with its ref."""

    target: Ref
    score: float = 0.0
    expanded: bool = False
    events: tuple[int, ...] = ()

    @property
    def ref(self) -> str:
        return str(self.target)


def new_batch_id() -> str:
    return BATCH_ID_PREFIX + secrets.token_hex(10)


def caller_session(namespace: Namespace, session_id: str | None) -> Session | None:
    """The caller's session, created if it has no turns yet (a batch may precede the first
    ingested turn of a new session); None when no session_id is given."""
    if session_id is None:
        return None
    if not session_id or len(session_id) > 200:
        raise Invalid("session_id must be 1–200 characters", code="invalid_session_id")
    session, _ = Session.objects.get_or_create(namespace=namespace, external_id=session_id)
    return session


_ITEM_FIELDS = (
    "batch_id",
    "ref",
    "kind",
    "object_id",
    "block_level",
    "expanded",
    "rank",
    "score",
)


def batch_create(
    *,
    namespace: Namespace,
    session: Session | None,
    tool: str,
    query: str,
    params: dict[str, Any],
    entries: Sequence[BatchEntry],
) -> RetrievalBatch:
    """Persist a batch and its refs (first occurrence of a ref wins); always a new batch."""
    unique: dict[str, BatchEntry] = {}
    for entry in entries:
        unique.setdefault(entry.ref, entry)
    # Every search records one, in plain inserts: the batch with insert_rows, its refs with
    # insert_values (the ORM's insert compilation was a third of a graph search, which
    # records ~70 refs, and their instances cost more than the INSERT).
    with transaction.atomic():
        turn = namespace_turn(namespace)
        (batch,) = insert_rows(
            [
                RetrievalBatch(
                    public_id=new_batch_id(),
                    namespace=namespace,
                    session=session,
                    tool=tool,
                    query=query,
                    params={
                        **params,
                        "behind": {ref: list(e.events) for ref, e in unique.items()},
                    },
                    namespace_turn=turn,
                )
            ]
        )
        insert_values(
            BatchItem,
            _ITEM_FIELDS,
            [
                (
                    batch.pk,
                    ref,
                    entry.target.kind,
                    entry.target.object_id,
                    entry.target.level,
                    entry.expanded,
                    rank,
                    entry.score,
                )
                for rank, (ref, entry) in enumerate(unique.items(), start=1)
            ],
        )
    return batch


def batch_get(namespace: Namespace, batch_id: str) -> RetrievalBatch:
    batch = (
        RetrievalBatch.objects.filter(namespace=namespace, public_id=batch_id)
        .select_related("session")
        .first()
    )
    if batch is None:
        raise NotFound(
            f"batch {batch_id[:60]!r} not found",
            code="batch_not_found",
            details={"batch_id": batch_id[:60]},
        )
    return batch


def batch_resolve(
    *, namespace: Namespace, batch_id: str | None, session_id: str | None
) -> RetrievalBatch:
    """The named batch, or — for strictly sequential use — the session's latest (SPEC §9.5).

    Without either a 422 `batch_id_required`. A named batch that belongs to another session
    than the one given is a 422 `batch_session_mismatch` (interleaved use must be explicit).
    """
    if batch_id:
        batch = batch_get(namespace, batch_id)
        if session_id and batch.session is not None and batch.session.external_id != session_id:
            raise Invalid(
                f"batch {batch_id} belongs to another session",
                code="batch_session_mismatch",
                details={"batch_id": batch_id, "session_id": session_id[:200]},
            )
        return batch
    if not session_id:
        raise Invalid(
            "batch_id is required unless session_id names a session with a latest batch",
            code="batch_id_required",
        )
    latest = (
        RetrievalBatch.objects.filter(namespace=namespace, session__external_id=session_id)
        .select_related("session")
        .order_by("-id")
        .first()
    )
    if latest is None:
        raise NotFound(
            f"session {session_id[:200]!r} has no retrieval batch",
            code="batch_not_found",
            details={"session_id": session_id[:200]},
        )
    return latest


def batch_items(batch: RetrievalBatch) -> dict[str, BatchItem]:
    return {item.ref: item for item in BatchItem.objects.filter(batch=batch).order_by("rank")}


def batch_refs(batch: RetrievalBatch) -> list[str]:
    """The refs a batch showed, in rank order (what `evidence_refs` answers)."""
    return list(
        BatchItem.objects.filter(batch=batch).order_by("rank").values_list("ref", flat=True)
    )


def batch_behind(batch: RetrievalBatch) -> dict[str, list[int]]:
    behind = batch.params.get("behind", {}) if isinstance(batch.params, dict) else {}
    return {str(ref): [int(i) for i in ids] for ref, ids in behind.items()}


def visible_events_for_messages(message_ids: Iterable[int]) -> dict[int, list[int]]:
    """message id → ids of the visible events that cite it as a source."""
    through = Event.source_messages.through
    rows = through.objects.filter(
        message_id__in=list(message_ids), event__status__in=VISIBLE_STATUSES
    ).values_list("message_id", "event_id")
    found: dict[int, list[int]] = {}
    for message_id, event_id in rows:
        found.setdefault(message_id, []).append(event_id)
    return {m: sorted(ids) for m, ids in found.items()}


def visible_events_for_block(block_id: int) -> list[int]:
    return list(
        Event.objects.filter(source_block_id=block_id, status__in=VISIBLE_STATUSES)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
