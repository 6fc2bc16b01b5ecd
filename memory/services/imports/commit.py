"""Import commit (SPEC §11.4): apply the previewed decisions in one transaction.

Refused with 409 when the preview is not finished, was already committed/undone, or the memory
its decisions looked at changed since (`import_stale`). What each action writes:
- memories: a synthetic source block holds the text; `add` creates an event; `merge` and
  `supersede` create one that supersedes the targets; `conflict` one linked both ways; `ignore`
  only the audit (the candidate row). New events are indexed now and projected to the graph by
  queued jobs (batches of 8). Everything undo needs is kept in `commit_record`.
- conversations: every chosen conversation is ingested through batch ingest
  (`turn_batch_ingest`, 200 turns a batch, original timestamps, the receipts one-by-one ingest
  used) and then processed like any conversation.
- a dump: restored into the (still empty) namespace.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from memory.engine.import_similarity import AUTO_APPLY_CONFIDENCE
from memory.engine.prompts.import_decision import TARGETED
from memory.errors import Conflict, Invalid
from memory.models import (
    Event,
    EventOrigin,
    ImportAction,
    ImportBatch,
    ImportCandidate,
    ImportStatus,
    Namespace,
    ProcessingJob,
    Session,
)
from memory.search import index_events
from memory.search.index import index_nodes_of_events
from memory.services.audit import admin_action
from memory.services.events import EventContext, event_conflict, event_create, event_supersede
from memory.services.imports import formats
from memory.services.imports.candidates import candidate_event, mention_time
from memory.services.imports.dumpfile import parse_dump
from memory.services.imports.fingerprint import memory_fingerprint
from memory.services.imports.graph_rollback import graph_jobs_queue
from memory.services.imports.restore import dump_restore
from memory.services.imports.source import source_block_create, source_views_write
from memory.services.ingest import MessageIn, TurnIn
from memory.services.ingest_batch import turn_batch_ingest, turn_batches
from memory.services.live import publish

COMMITTABLE = (ImportStatus.READY, ImportStatus.AWAITING_CONFIRMATION)


@dataclass(frozen=True)
class Choice:
    index: int
    action: str
    target_event_ids: list[int] | None = None


@dataclass(frozen=True)
class Planned:
    candidate: ImportCandidate
    action: str
    targets: list[int]
    reason: str


@dataclass(frozen=True)
class CommitResult:
    batch: ImportBatch
    created_event_ids: list[int]
    changed_event_ids: list[int]
    session_ids: list[str]


def choice_targets(
    kind: str, matches: Iterable[int], proposed: Sequence[int], choice: Choice, number: int = 0
) -> list[int]:
    """The events a person's or an agent's choice for one candidate applies to, or `Invalid`:
    the one rule for the API and the Memory UI. `matches`: the candidate's matched events (and
    its proposal's targets); `proposed`: the proposal's targets.

    - an unknown action, or one other than add/ignore in a conversations or dump import:
      `invalid_choice`;
    - merge, supersede and conflict need targets among the matches: given ones
      (`invalid_choice_target` when any is not a match), else the proposal's when the choice
      names none (`target_event_ids` omitted), else `choice_target_required`;
    - add and ignore take no target (given ones must still be matches, then are dropped)."""
    where = {"choice": number, "index": choice.index, "action": choice.action}
    if choice.action not in ImportAction.values:
        raise Invalid(
            f"choice {number}: unknown action {choice.action!r}",
            code="invalid_choice",
            details=where,
        )
    if kind != "memories" and choice.action not in (ImportAction.ADD, ImportAction.IGNORE):
        raise Invalid(
            f"choice {number}: a {kind} import only adds or ignores",
            code="invalid_choice",
            details=where,
        )
    allowed = {*matches, *proposed}
    targets = list(choice.target_event_ids) if choice.target_event_ids is not None else []
    if choice.target_event_ids is None and choice.action in TARGETED:
        targets = [t for t in proposed if t in allowed]
    if not set(targets) <= allowed:
        raise Invalid(
            f"choice {number}: targets must be among the candidate's matched events",
            code="invalid_choice_target",
            details={**where, "allowed": sorted(allowed)},
        )
    if choice.action not in TARGETED:
        return []
    if not targets:
        raise Invalid(
            f"choice {number}: {choice.action} needs a target among the candidate's matched events",
            code="choice_target_required",
            details={**where, "allowed": sorted(allowed)},
        )
    return targets


def _plan(batch: ImportBatch, choices: list[Choice]) -> list[Planned]:
    """Each candidate's effective action: the caller's choice (`choice_targets`), else the
    proposal when its confidence is ≥ 0.85, else ignore."""
    candidates = {c.index: c for c in batch.candidates.order_by("index")}
    kind = batch.meta.get("kind", "memories")
    chosen: dict[int, tuple[Choice, list[int]]] = {}
    for number, choice in enumerate(choices):
        candidate = candidates.get(choice.index)
        if candidate is None or choice.index in chosen:
            raise Invalid(
                f"choice {number}: no such candidate or a repeated index",
                code="invalid_choice",
                details={"choice": number, "index": choice.index},
            )
        targets = choice_targets(
            kind, candidate.match_event_ids, candidate.target_event_ids, choice, number
        )
        chosen[choice.index] = (choice, targets)
    plan: list[Planned] = []
    for index, candidate in candidates.items():
        if index in chosen:
            choice, targets = chosen[index]
            action, reason = choice.action, f"chosen: {choice.action}"
        elif (candidate.confidence or 0.0) >= AUTO_APPLY_CONFIDENCE:
            action, targets, reason = (
                candidate.action,
                list(candidate.target_event_ids),
                "auto-applied",
            )
            if action in TARGETED and not targets:  # a proposal the decider left without one
                action, reason = ImportAction.IGNORE, f"{action} had no target; ignored"
        else:
            action, targets, reason = ImportAction.IGNORE, [], "not confirmed; ignored"
        if action not in TARGETED:
            targets = []
        plan.append(Planned(candidate, action, targets, reason))
    return plan


def import_commit(
    *, batch: ImportBatch, choices: list[Choice] | None = None, actor: str
) -> CommitResult:
    """Apply the preview (see the module's docstring) and write the `import_commit` admin action
    naming `actor` (`user:<name>`, `token:<prefix>`, `command:<user>`), in one transaction: a
    refused commit (409, 422) writes neither memory nor an audit row."""
    with transaction.atomic():
        locked = ImportBatch.objects.select_for_update().get(pk=batch.pk)
        if locked.status not in COMMITTABLE:
            code = {
                ImportStatus.COMMITTED: "import_already_committed",
                ImportStatus.UNDONE: "import_undone",
            }.get(ImportStatus(locked.status), "import_not_ready")
            raise Conflict(
                f"import {locked.pk} is {locked.status}; it cannot be committed", code=code
            )
        if memory_fingerprint(locked) != locked.preview_fingerprint:
            raise Conflict(
                "memory the preview looked at changed since; preview the import again",
                code="import_stale",
            )
        plan = _plan(locked, choices or [])
        namespace = Namespace.objects.get(pk=locked.namespace_id)
        watermark = ProcessingJob.objects.aggregate(top=Max("pk"))["top"] or 0
        kind = locked.meta.get("kind", "memories")
        if kind == "memories":
            record, created, changed = _commit_memories(locked, namespace, plan)
            sessions: list[str] = []
        elif kind == "conversations":
            record, sessions = _commit_conversations(locked, namespace, plan)
            created, changed = [], []
        else:
            record = _commit_dump(locked, namespace, plan, actor)
            created, changed, sessions = [], [], []
        for row in plan:
            ImportCandidate.objects.filter(pk=row.candidate.pk).update(
                chosen_action=row.action,
                chosen_target_event_ids=row.targets,
                reason=row.candidate.reason if row.reason == "auto-applied" else row.reason,
            )
        locked.status = ImportStatus.COMMITTED
        locked.committed_at = timezone.now()
        locked.commit_record = {**record, "kind": kind, "job_watermark": watermark}
        locked.source_block_id = record.get("block_id")
        locked.save(update_fields=["status", "committed_at", "commit_record", "source_block"])
        admin_action(
            "import_commit",
            namespace_id=locked.namespace_id,
            actor=actor,
            target=f"import:{locked.pk}",
            details={
                "created": len(created),
                "changed": len(changed),
                "sessions": len(sessions),
                "choices": dict(sorted(Counter(c.action for c in choices or []).items())),
            },
        )
        publish(locked.namespace_id, "import.progress", import_id=locked.pk, status=locked.status)
        if created or changed:
            publish(
                locked.namespace_id,
                "event.changed",
                action="import",
                event_ids=sorted({*created, *changed}),
            )
    return CommitResult(locked, created, changed, sessions)


def _commit_memories(
    batch: ImportBatch, namespace: Namespace, plan: list[Planned]
) -> tuple[dict[str, Any], list[int], list[int]]:
    refs = source_block_create(batch=batch, namespace=namespace)
    context = EventContext(
        block=refs.block,
        formed_turn=namespace.current_turn,
        messages={refs.message.pk: refs.message},
        origin=EventOrigin.IMPORT,
    )
    created: list[Event] = []
    before: dict[int, dict[str, Any]] = {}
    conflicts: list[list[int]] = []
    for row in plan:
        if row.action == ImportAction.IGNORE:
            continue
        merged = row.candidate.payload.get("merged") if row.action == ImportAction.MERGE else None
        event = event_create(
            extracted=candidate_event(
                row.candidate.payload, message_id=refs.message.pk, merged=merged
            ),
            context=context,
        )
        said = mention_time(row.candidate.payload)
        if said is not None:
            Event.objects.filter(pk=event.pk).update(mentioned_at=said)
            event.mentioned_at = said
        targets = Event.objects.select_for_update().filter(namespace=namespace, pk__in=row.targets)
        for target in targets.order_by("pk"):
            before.setdefault(
                target.pk, {"status": target.status, "superseded_by": target.superseded_by_id}
            )
            if row.action == ImportAction.CONFLICT:
                event_conflict(event=event, other=target)
                conflicts.append([event.pk, target.pk])
            else:
                event_supersede(new=event, old=target)
        ImportCandidate.objects.filter(pk=row.candidate.pk).update(created_event=event)
        created.append(event)
    source_views_write(refs=refs, batch=batch, titles=[e.title for e in created])
    index_events(created)
    index_nodes_of_events(list(before))
    graph = graph_jobs_queue(namespace_id=namespace.pk, events=created)
    record = {
        "session_id": refs.session.pk,
        "turn_id": refs.turn.pk,
        "message_id": refs.message.pk,
        "block_id": refs.block.pk,
        "created_event_ids": [e.pk for e in created],
        "before": {str(k): v for k, v in before.items()},
        "conflicts": conflicts,
        **graph,
    }
    return record, [e.pk for e in created], sorted(before)


def _commit_conversations(
    batch: ImportBatch, namespace: Namespace, plan: list[Planned]
) -> tuple[dict[str, Any], list[str]]:
    wanted = {
        str(row.candidate.payload.get("session_id"))
        for row in plan
        if row.action == ImportAction.ADD
    }
    parsed = formats.parse_conversations(batch.source_text, batch.format)
    locked = Namespace.objects.select_for_update(no_key=True).get(pk=namespace.pk)
    turn_before, activity_before = locked.current_turn, locked.last_activity_at
    chosen = [c for c in parsed.conversations if c.session_id in wanted]
    turns = (
        TurnIn(
            session_id=conversation.session_id,
            receipt_id=f"{conversation.session_id}#{number}"[-200:],
            occurred_at=turn[0].created_at,
            messages=[
                MessageIn(
                    role=m.role,
                    content=m.content,
                    name=m.name,
                    created_at=m.created_at,
                    tool_calls=list(m.tool_calls),
                )
                for m in turn
            ],
        )
        for conversation in chosen
        for number, turn in enumerate(conversation.turns, start=1)
    )
    # Conversation after conversation, in batches that may span two of them.
    for chunk in turn_batches(turns):
        turn_batch_ingest(namespace=locked, turns=chunk)
    done = [c.session_id for c in chosen]
    locked.refresh_from_db()
    record = {
        "session_pks": list(
            Session.objects.filter(namespace=locked, external_id__in=done).values_list(
                "pk", flat=True
            )
        ),
        "turn_before": turn_before,
        "turn_after": locked.current_turn,
        "activity_before": activity_before.isoformat() if activity_before else None,
    }
    return record, done


def _commit_dump(
    batch: ImportBatch, namespace: Namespace, plan: list[Planned], actor: str
) -> dict[str, Any]:
    if not any(row.action == ImportAction.ADD for row in plan):
        return {"created": {}}
    namespace.refresh_from_db()
    before = {
        "current_turn": namespace.current_turn,
        "last_activity_at": namespace.last_activity_at.isoformat()
        if namespace.last_activity_at
        else None,
    }
    created = dump_restore(namespace=namespace, document=parse_dump(batch.source_text), actor=actor)
    return {"created": created, "before": before}
