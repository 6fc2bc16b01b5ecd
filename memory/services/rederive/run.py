"""Re-derive one namespace's events with the current extraction rules (issue 29), keeping what
people and records hold on to. Namespaces processed before the rules improved keep duplicates,
assistant echoes and missing supersessions; this replays extraction over every ready block and
reconciles the result with what is stored.

How, in one transaction per namespace (an error anywhere leaves the namespace as it was):

1. Every event of the namespace is hidden for the run (`REPLAYING`, a status no committed row
   ever has), so the replay sees only its own events, exactly as a first extraction would, and
   cannot supersede or relate to events that are not derived from blocks.
2. Every ready conversation block, in sealing order, goes through normal extraction
   (`services.extraction.extract_for_block` and `extraction_store`): the rules, or the model
   only when asked (`use_model`), grounding, one event per fact with mentions, supersessions.
3. Each replayed event that continues an old one hands it its provenance (`reconcile`); old
   events derived from blocks that nothing continues are deleted, unless a person or a record
   holds on to them (`keep`): those, and every event not derived from blocks, get their status
   back and stay exactly as they were.
4. When any event changed, the graph is rebuilt from the events (`graph_rebuild`). When none
   did, everything the run wrote is rolled back to a savepoint, the replay's projection with
   it: the namespace keeps every row and id — its graph's too (a rebuild keeps the ids of
   what it makes again, but edges and anything no longer made are new rows) — so a second run
   writes nothing but its audit row. One admin audit row per run and namespace carries the counts.

Step 2 projects each block's new events as the block's graph jobs would, before the next block
is extracted: projection supersedes and links events too (`services.contradictions`), and
leaving that out would make the replay disagree with normal processing, and every run with the
one before.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Final

from django.db import transaction

from memory.errors import Conflict, Invalid
from memory.models import (
    Block,
    BlockStatus,
    BlockView,
    Event,
    EventMention,
    EventOrigin,
    EventStatus,
    GraphEdge,
    GraphNode,
    JobStatus,
    ModelCall,
    Namespace,
    ProcessingJob,
    Turn,
    ViewSource,
)
from memory.models.rows import in_chunks
from memory.search.index import unindex_events
from memory.services.audit import admin_action
from memory.services.extraction import block_messages, extract_for_block, extraction_store
from memory.services.graph import PROJECTION_BATCH, graph_apply, graph_propose, graph_rebuild
from memory.services.live import publish
from memory.services.llm_runtime import llm_client
from memory.services.rederive.keep import CITED, FORGOTTEN, PINNED, keep_reasons
from memory.services.rederive.reconcile import events_fold, events_match, stored_events

# Never committed: every row that has it at the end of a run gets its status back first.
REPLAYING: Final = "replaying"


@dataclass(frozen=True)
class RederiveReport:
    """What one namespace's run did (or, dry, would do)."""

    namespace: str
    blocks: int
    kept: int
    updated: int
    created: int
    removed: int
    kept_pinned: int
    kept_forgotten: int
    kept_cited: int
    mentions_before: int
    mentions_after: int
    superseded_before: int
    superseded_after: int
    nodes_before: int
    nodes_after: int
    edges_before: int
    edges_after: int
    graph_rebuilt: bool
    dry_run: bool

    @property
    def changed(self) -> bool:
        return bool(self.updated or self.created or self.removed)


class _DryRun(Exception):
    def __init__(self, report: RederiveReport) -> None:
        self.report = report


def namespace_rederive(
    *,
    namespace: Namespace,
    actor: str,
    use_model: bool = False,
    dry_run: bool = False,
    force_graph: bool = False,
    rules_over_model: bool = False,
) -> RederiveReport:
    """Re-derive `namespace`'s events and, when any of them changed (or `force_graph`),
    rebuild its graph. `dry_run` does all of it and rolls it back.

    Raises Conflict while a worker is processing the namespace, or when a model processed some
    of its blocks and neither `use_model` nor `rules_over_model` says what to do (the rules
    would replace the model's events). Raises Invalid when `use_model` finds no model, and for
    a dry run with the model: its calls would be paid for, then rolled back with their
    `ModelCall` rows — spent without a record."""
    if dry_run and use_model:
        raise Invalid(
            "a dry run keeps to the rules: the model's calls would cost without being recorded",
            code="dry_run_with_model",
        )
    if use_model and llm_client(namespace.pk) is None:
        raise Invalid("no model is configured for this namespace", code="no_model")
    if not (use_model or rules_over_model):
        by_model = BlockView.objects.filter(
            block__in=_blocks(namespace), level=1, produced_by=ViewSource.MODEL
        ).count()
        if by_model:
            raise Conflict(
                f"a model processed {by_model} block(s) of {namespace.name!r}: re-derive them "
                "with the model (one call per block) or accept the rules' events instead",
                code="processed_by_model",
                details={"blocks": by_model},
            )
    try:
        with transaction.atomic():
            report = _rederive(
                namespace,
                actor=actor,
                use_model=use_model,
                dry_run=dry_run,
                force_graph=force_graph,
            )
            if dry_run:
                raise _DryRun(report)
    except _DryRun as rolled_back:
        return rolled_back.report
    return report


def _counts(namespace: Namespace) -> tuple[int, int, int, int]:
    derived = Event.objects.filter(namespace=namespace, origin=EventOrigin.EXTRACTION)
    return (
        EventMention.objects.filter(namespace=namespace).count(),
        derived.filter(status=EventStatus.SUPERSEDED).count(),
        GraphNode.objects.filter(namespace=namespace).count(),
        GraphEdge.objects.filter(namespace=namespace).count(),
    )


def _blocks(namespace: Namespace) -> list[Block]:
    """Ready blocks of conversations, in sealing order; an import's synthetic source block is
    not a conversation (its events are the import's)."""
    synthetic = Turn.objects.filter(
        namespace=namespace, synthetic=True, block__isnull=False
    ).values("block_id")  # no NULL: `NOT IN` a list holding NULL would exclude every block
    return list(
        Block.objects.filter(namespace=namespace, status=BlockStatus.READY)
        .exclude(pk__in=synthetic)
        .order_by("pk")
    )


def _replay(blocks: list[Block], *, use_model: bool) -> list[Event]:
    """Normal processing of each block in turn: its extraction, then the projection of the
    events it created, as the block's graph jobs would (with the rules, as `graph_rebuild`):
    projection too supersedes and links events (`services.contradictions`), and the next
    block's extraction sees that. Returns the events created (the rows as stored)."""
    created: list[int] = []
    for block in blocks:
        messages = block_messages(block)
        out = extract_for_block(None, block, messages, model=use_model)
        _, stored = extraction_store(block=block, out=out, messages=messages)
        new = list(dict.fromkeys(e.pk for e, is_new in stored if is_new))
        for start in range(0, len(new), PROJECTION_BATCH):
            batch = list(
                Event.objects.filter(pk__in=new[start : start + PROJECTION_BATCH]).order_by(
                    "formed_turn", "pk"
                )
            )
            graph_apply(
                namespace_id=block.namespace_id, events=batch, proposal=graph_propose(batch)
            )
        created += new
    return list(Event.objects.filter(pk__in=created))


def _statuses_restore(events: list[Event]) -> None:
    """Give hidden rows their status from before the run (rows deleted since match nothing)."""
    back: dict[str, list[int]] = {}
    for event in events:
        back.setdefault(event.status, []).append(event.pk)
    for status, ids in back.items():
        for chunk in in_chunks(ids):
            Event.objects.filter(pk__in=chunk).update(status=status)


def _rederive(
    namespace: Namespace, *, actor: str, use_model: bool, dry_run: bool, force_graph: bool
) -> RederiveReport:
    Namespace.objects.select_for_update().filter(pk=namespace.pk).first()
    if ProcessingJob.objects.filter(namespace=namespace, status=JobStatus.RUNNING).exists():
        raise Conflict(
            f"namespace {namespace.name!r} is being processed; try again when its jobs are done",
            code="namespace_busy",
        )
    mentions_before, superseded_before, nodes_before, edges_before = _counts(namespace)
    # The replay projects into the graph; when the events come out as they were, all of it is
    # rolled back to here, so an unchanged namespace keeps every row and id, its graph's too.
    before_replay = transaction.savepoint_create()
    last_call = ModelCall.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    blocks = _blocks(namespace)
    everything = list(Event.objects.filter(namespace=namespace))
    origins = {e.pk: e.origin for e in everything}
    block_ids = {b.pk for b in blocks}
    old_events = [
        e
        for e in everything
        if e.origin == EventOrigin.EXTRACTION and e.source_block_id in block_ids
    ]
    old = stored_events(old_events)
    keep = keep_reasons(namespace_id=namespace.pk, events=old_events)
    Event.objects.filter(namespace=namespace).update(status=REPLAYING)

    replayed = stored_events(_replay(blocks, use_model=use_model))
    matched = events_match(replayed=replayed, old=old, keep=keep)
    folded = events_fold(matched=matched, replayed=replayed, old=old, origins=origins)
    created = len(replayed) - len(matched)

    continued = set(matched.values())
    unmatched = [pk for pk in old if pk not in continued]
    removed = [pk for pk in unmatched if pk not in keep]
    unindex_events(removed)
    Event.objects.filter(pk__in=removed).delete()
    _statuses_restore([e for e in everything if e.pk not in continued])

    held = [keep[pk] for pk in unmatched if pk in keep]
    changed = bool(folded.updated or created or removed)
    if changed or force_graph:
        graph_rebuild(namespace=namespace)  # the replay's projection cites rows folded away
    else:
        # The model's calls were made and paid for: their records stay (SPEC §12.3).
        calls = list(ModelCall.objects.filter(namespace=namespace, pk__gt=last_call).values())
        transaction.savepoint_rollback(before_replay)
        ModelCall.objects.bulk_create([ModelCall(**row) for row in calls])
    mentions_after, superseded_after, nodes_after, edges_after = _counts(namespace)
    report = RederiveReport(
        namespace=namespace.name,
        blocks=len(blocks),
        kept=len(continued - folded.updated),
        updated=len(folded.updated & continued),
        created=created,
        removed=len(removed),
        kept_pinned=held.count(PINNED),
        kept_forgotten=held.count(FORGOTTEN),
        kept_cited=held.count(CITED),
        mentions_before=mentions_before,
        mentions_after=mentions_after,
        superseded_before=superseded_before,
        superseded_after=superseded_after,
        nodes_before=nodes_before,
        nodes_after=nodes_after,
        edges_before=edges_before,
        edges_after=edges_after,
        graph_rebuilt=changed or force_graph,
        dry_run=dry_run,
    )
    details = {k: v for k, v in asdict(report).items() if k not in ("namespace", "dry_run")}
    admin_action(
        "rederive_events",
        actor=actor,
        target=f"namespace:{namespace.name}",
        namespace_id=namespace.pk,
        details={**details, "use_model": use_model},
    )
    if changed:  # counts, not ids: a whole namespace's ids would not be a small payload
        publish(
            namespace.pk,
            "event.changed",
            action="rederived",
            created=report.created,
            updated=report.updated,
            removed=report.removed,
        )
    return report
