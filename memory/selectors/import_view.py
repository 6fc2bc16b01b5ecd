"""Reads for the Memory UI's import pages (SPEC §13.7): the paginated list of past imports, one
import's preview with the titles of the events each row matched, its progress for polling, and
what an undo would remove — each in a fixed number of queries however many rows there are.

Everything comes out redacted (the decisions through `memory.selectors.imports`, event titles
through `linked_events`, session ids here) and typed; the templates only read attributes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.db.models import Count, Q

from memory.engine.import_similarity import AUTO_APPLY_CONFIDENCE
from memory.engine.prompts.import_decision import TARGETED
from memory.engine.redact import redact
from memory.models import (
    Event,
    ImportAction,
    ImportBatch,
    ImportStatus,
    JobStatus,
    Namespace,
    ProcessingJob,
    Session,
)
from memory.selectors.imports import (
    DecisionOut,
    ImportJobOut,
    ImportOut,
    ImportSummaryOut,
    import_out,
    import_status,
    import_summary,
)
from memory.selectors.out import Out
from memory.selectors.paging import Page, paginate
from memory.selectors.timeline import LinkedEventOut, linked_events

PAGE_SIZE = 50
COMMITTABLE = (ImportStatus.READY, ImportStatus.AWAITING_CONFIRMATION)
ALL_ACTIONS = tuple(ImportAction.values)  # add, merge, supersede, conflict, ignore
UNTARGETED = (ImportAction.ADD, ImportAction.IGNORE)
UNDO_TITLES_SHOWN = 200  # a conversations import can have extracted many events


# --- the list -------------------------------------------------------------------------------


class ImportRowOut(Out):
    """One past import in the list: its summary plus what commit and undo did, in counts."""

    summary: ImportSummaryOut
    created_count: int  # events created (memories) or sessions imported (conversations)
    changed_count: int
    removed_count: int | None  # after an undo
    job_error: str | None

    @property
    def import_id(self) -> int:
        return self.summary.import_id


def _jobs_of(batches: Sequence[ImportBatch]) -> dict[int, ProcessingJob]:
    ids = [int(b.meta["job_id"]) for b in batches if b.meta.get("job_id")]
    return ProcessingJob.objects.in_bulk(ids) if ids else {}


def _row(batch: ImportBatch, job: ProcessingJob | None) -> ImportRowOut:
    record = batch.commit_record or {}
    kind = batch.meta.get("kind", "memories")
    created = (
        len(record.get("session_pks", []))
        if kind == "conversations"
        else len(record.get("created_event_ids", []))
    )
    undo = record.get("undo")
    failed = job is not None and job.status == JobStatus.FAILED
    return ImportRowOut.model_construct(
        summary=_summary(batch, job),
        created_count=created,
        changed_count=len(record.get("before", {})),
        removed_count=len(undo.get("removed_event_ids", [])) if undo else None,
        job_error=(redact(job.error_preview) or None) if failed and job is not None else None,
    )


def _summary(batch: ImportBatch, job: ProcessingJob | None) -> ImportSummaryOut:
    # Without a job row (deleted) the stored status is all there is; passing a stand-in keeps
    # `import_summary` from querying once per such row.
    return import_summary(batch, job or _NO_JOB)


# A finished job: "no job row" reads as the stored status, never as failed.
_NO_JOB = ProcessingJob(status=JobStatus.SUCCEEDED)


def import_page_list(namespace: Namespace, *, page: int | str | None) -> Page[ImportRowOut]:
    """Past imports newest first, one page of them: a COUNT, the page's batches (without their
    source text, up to 4 MiB each) and their preview jobs — three queries."""
    rows = ImportBatch.objects.filter(namespace=namespace).order_by("-pk").defer("source_text")

    def convert(batches: Sequence[ImportBatch]) -> list[ImportRowOut]:
        jobs = _jobs_of(batches)
        return [_row(b, jobs.get(int(b.meta.get("job_id") or 0))) for b in batches]

    return paginate(rows, page=page, per_page=PAGE_SIZE, convert=convert)


# --- one import -----------------------------------------------------------------------------


class DecisionRowOut(Out):
    """A candidate's row: the decision, the titles of the events it matched or targets, and
    what a person may choose for it."""

    decision: DecisionOut
    matches: list[LinkedEventOut]  # matched events first, then any target not among them
    targets: list[LinkedEventOut]  # the proposal's targets
    chosen_targets: list[LinkedEventOut]
    created: LinkedEventOut | None  # the event commit created, while it exists
    auto_applied: bool  # confidence ≥ AUTO_APPLY_CONFIDENCE: applied without asking
    choices: list[str]  # the actions a person may pick (empty: no choice to make)

    @property
    def index(self) -> int:
        return self.decision.index

    @property
    def target_ids(self) -> list[int]:
        return [e.id for e in self.targets]


class ImportPageOut(Out):
    imp: ImportOut
    rows: list[DecisionRowOut]
    threshold: float
    committable: bool
    created_events: list[LinkedEventOut]
    changed_events: list[LinkedEventOut]
    sessions: list[str]  # conversations imported as sessions (while they exist)
    removed_count: int | None
    restored_events: list[LinkedEventOut]

    @property
    def choice_count(self) -> int:
        return sum(1 for r in self.rows if r.choices)

    @property
    def auto_count(self) -> int:
        return sum(1 for r in self.rows if r.auto_applied)


def _choices(kind: str, decision: DecisionOut, linked: list[LinkedEventOut]) -> list[str]:
    """What a person may choose for a low-confidence row: every action when the row has
    matched events to merge into, supersede or conflict with; otherwise add or ignore."""
    if not decision.requires_confirmation:
        return []
    if kind != "memories" or not linked:
        return list(UNTARGETED)
    return list(ALL_ACTIONS)


def _linked(ids: Iterable[int], found: dict[int, LinkedEventOut]) -> list[LinkedEventOut]:
    """Events by id in order, once each; an id that no longer exists shows as `#id`."""
    seen: dict[int, LinkedEventOut] = {}
    for i in ids:
        if i not in seen:
            seen[i] = found.get(i) or LinkedEventOut.model_construct(
                id=i, title=f"#{i}", status="", event_type="", formed_turn=None
            )
    return list(seen.values())


def _session_ids(namespace: Namespace, pks: list[int]) -> list[str]:
    if not pks:
        return []
    rows = Session.objects.filter(namespace=namespace, pk__in=pks).order_by("pk")
    return [redact(external) for external in rows.values_list("external_id", flat=True)]


def import_page_detail(namespace: Namespace, batch: ImportBatch) -> ImportPageOut:
    """The import page: summary, decisions with event titles, what commit created and changed,
    what undo removed — five queries at most, whatever the number of candidates."""
    imp = import_out(batch)
    kind = imp.kind
    record = batch.commit_record or {}
    undo: dict[str, Any] = imp.undo or {}
    wanted: set[int] = {*imp.created_event_ids, *imp.changed_event_ids}
    wanted |= set(undo.get("restored_event_ids", []))
    for d in imp.decisions:
        wanted |= {*d.match_event_ids, *d.target_event_ids, *d.chosen_target_event_ids}
        if d.created_event_id:
            wanted.add(d.created_event_id)
    found = linked_events(namespace, wanted) if wanted else {}
    rows = []
    for d in imp.decisions:
        matches = _linked([*d.match_event_ids, *d.target_event_ids], found)
        rows.append(
            DecisionRowOut.model_construct(
                decision=d,
                matches=matches,
                targets=_linked(d.target_event_ids, found),
                chosen_targets=_linked(d.chosen_target_event_ids, found),
                created=found.get(d.created_event_id) if d.created_event_id else None,
                auto_applied=d.processed and (d.confidence or 0.0) >= AUTO_APPLY_CONFIDENCE,
                choices=_choices(kind, d, matches) if imp.status in COMMITTABLE else [],
            )
        )
    return ImportPageOut.model_construct(
        imp=imp,
        rows=rows,
        threshold=AUTO_APPLY_CONFIDENCE,
        committable=imp.status in COMMITTABLE,
        created_events=[found[i] for i in imp.created_event_ids if i in found],
        changed_events=_linked(imp.changed_event_ids, found),
        sessions=_session_ids(namespace, [int(p) for p in record.get("session_pks", [])]),
        removed_count=len(undo.get("removed_event_ids", [])) if undo else None,
        restored_events=_linked(undo.get("restored_event_ids", []), found),
    )


def targeted(action: str) -> bool:
    """merge, supersede and conflict need a target among the row's matches."""
    return action in TARGETED


# --- progress (polled while the socket is down) ---------------------------------------------


class ImportProgressOut(Out):
    status: str
    processed: int
    total: int
    requires_confirmation_count: int
    job: ImportJobOut | None


def import_progress(batch: ImportBatch) -> ImportProgressOut:
    """Status and counts of a preview, for `status.json`: two queries (job, count)."""
    job_id = batch.meta.get("job_id")
    job = ProcessingJob.objects.filter(pk=job_id).first() if job_id else None
    low = batch.candidates.filter(processed=True).filter(
        Q(confidence__lt=AUTO_APPLY_CONFIDENCE) | Q(confidence__isnull=True)
    )
    return ImportProgressOut.model_construct(
        status=import_status(batch, job or _NO_JOB),
        processed=batch.processed,
        total=batch.total,
        requires_confirmation_count=low.count(),
        job=None
        if job is None
        else ImportJobOut.model_construct(
            id=job.pk,
            status=job.status,
            attempts=job.attempts,
            error=redact(job.error_preview) or None,
        ),
    )


# --- what an undo would remove --------------------------------------------------------------


class UndoSessionOut(Out):
    session_id: str
    turns: int
    messages: int


class UndoPreviewOut(Out):
    """What `import_undo` will take away and give back, named for the confirmation page."""

    import_id: int
    kind: str
    status: str
    committed_at: datetime | None
    undone_at: datetime | None
    removed_events: list[LinkedEventOut]  # at most UNDO_TITLES_SHOWN of them
    removed_total: int
    restored_events: list[LinkedEventOut]  # superseded by the import; active again after
    unlinked_events: list[LinkedEventOut]  # linked to the import's events as conflicts
    source_session: str | None  # the synthetic session holding the imported text
    source_block_id: int | None
    sessions: list[UndoSessionOut]  # conversation imports: the sessions they created
    restored_rows: dict[str, int]  # dump restores: rows per section


def import_undo_preview(namespace: Namespace, batch: ImportBatch) -> UndoPreviewOut:
    """Read from `commit_record` what undo will remove: the events the import created (or, for
    conversations, extracted from its sessions), the events it superseded and will restore,
    conflict links it will remove, and its source session/block. Fixed query count."""
    record: dict[str, Any] = batch.commit_record or {}
    kind = str(record.get("kind") or batch.meta.get("kind", "memories"))
    status = str(batch.status)
    sessions: list[UndoSessionOut] = []
    removed_filter = Q(pk__in=[])
    if kind == "memories":
        removed_filter = Q(pk__in=[int(i) for i in record.get("created_event_ids", [])])
        if record.get("block_id"):
            removed_filter |= Q(source_block_id=record["block_id"])
    elif kind == "conversations":
        pks = [int(p) for p in record.get("session_pks", [])]
        rows = (
            Session.objects.filter(namespace=namespace, pk__in=pks)
            .annotate(message_count=Count("messages", distinct=True))
            .order_by("pk")
            .values_list("external_id", "turn_count", "message_count")
        )
        sessions = [
            UndoSessionOut.model_construct(session_id=redact(s), turns=t, messages=m)
            for s, t, m in rows
        ]
        removed_filter = Q(source_block__session_id__in=pks)
    removed = Event.objects.filter(namespace=namespace).filter(removed_filter)
    removed_total = removed.count()
    shown = list(removed.order_by("pk").values_list("pk", flat=True)[:UNDO_TITLES_SHOWN])
    conflicted = {int(pair[1]) for pair in record.get("conflicts", []) if len(pair) == 2}
    before = [int(k) for k in record.get("before", {})]
    restored_ids = [i for i in before if i not in conflicted]
    found = linked_events(namespace, {*shown, *before}) if shown or before else {}
    source_session = None
    if kind == "memories" and record.get("session_id"):
        ids = _session_ids(namespace, [int(record["session_id"])])
        source_session = ids[0] if ids else None
    created = record.get("created") if kind == "dump" else None
    return UndoPreviewOut.model_construct(
        import_id=batch.pk,
        kind=kind,
        status=status,
        committed_at=batch.committed_at,
        undone_at=batch.undone_at,
        removed_events=[found[i] for i in shown if i in found],
        removed_total=removed_total,
        restored_events=[found[i] for i in restored_ids if i in found],
        unlinked_events=[found[i] for i in sorted(conflicted) if i in found],
        source_session=source_session,
        source_block_id=record.get("block_id") if kind == "memories" else None,
        sessions=sessions,
        restored_rows={k: len(v) for k, v in (created or {}).items() if v},
    )
