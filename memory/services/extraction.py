"""Event extraction per block: the block's L5 is the only source, neighbours' L2 the context,
and a short timeline of existing events the only legal relation targets (SPEC §5.5)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache

from django.db import transaction
from django.utils import timezone

from memory.engine.lifecycle import VISIBLE_STATUSES
from memory.engine.offline_events import SourceMessage
from memory.engine.offline_events import extract_events as offline_extract_events
from memory.engine.prompts.extraction import (
    ExtractedEvent,
    ExtractionOut,
    ground_events,
)
from memory.engine.prompts.extraction_prompt import (
    SYSTEM_PROMPT,
    ExtractionGraphOut,
    PromptMessage,
    PromptTimelineEvent,
    build_user_prompt,
)
from memory.engine.prompts.graph import GraphProposal
from memory.engine.slot_supersession import TimelineEvent, detect_supersession
from memory.models import (
    Block,
    BlockView,
    Event,
    EventMention,
    EventStatus,
    JobKind,
    Message,
    ProcessingJob,
    Turn,
)
from memory.models.rows import columns_of, marks, read_by_id, read_models, read_values
from memory.services.block_ready import block_mark_ready
from memory.services.contradictions import denial_conflicts
from memory.services.db import namespace_events_lock
from memory.services.events import EventContext, event_create, event_relate, event_supersede
from memory.services.jobs import job_create, job_handler
from memory.services.live import publish
from memory.services.llm_runtime import llm_call, llm_client
from memory.services.mentions import event_mention_add, event_mention_target
from memory.services.supersession import changes_supersede

TIMELINE_RELEVANT = 8
TIMELINE_RECENT = 4
TIMELINE_SCAN = 500
PROJECTION_BATCH = 8
_WORD = re.compile(r"[a-z0-9]{3,}|[\u4e00-\u9fff]", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _terms(text: str) -> Mapping[str, int]:
    """The words of `text` with their counts. Cached (read-only to callers): the timeline scan
    meets the same recent events block after block, inside the extraction's write transaction,
    where counting them again was most of the time the database stayed locked."""
    return Counter(w.lower() for w in _WORD.findall(text))


def block_messages(block: Block) -> list[Message]:
    return list(
        Message.objects.filter(turn__block=block).order_by("turn__session_turn", "position")
    )


_SCANNED = columns_of(Event, ["id", "title", "summary", "tags"], "e")


def extraction_timeline(*, block: Block, text: str) -> list[Event]:
    """≤ 8 events relevant to `text` plus ≤ 4 most recent, all still visible (not hidden).
    The last TIMELINE_SCAN events are scored as plain rows (the words of their title, summary
    and tags); only the events chosen are read in full."""
    statuses = list(VISIBLE_STATUSES)
    visible = (
        f"WHERE e.namespace_id = %s AND e.status IN ({marks(statuses)}) AND e.source_block_id <> %s"
    )
    params = [block.namespace_id, *statuses, block.pk]
    recent = read_models(
        Event,
        "e",
        f"{visible} ORDER BY e.formed_turn DESC, e.id DESC LIMIT %s",
        [*params, TIMELINE_RECENT],
    )
    wanted = _terms(text)
    scored = []
    for pk, title, summary, tags in read_values(
        _SCANNED,
        f"FROM {Event._meta.db_table} e {visible} ORDER BY e.id DESC LIMIT %s",
        [*params, TIMELINE_SCAN],
    ):
        have = _terms(f"{title} {summary} {' '.join(tags)}")
        overlap = sum(min(wanted[t], have[t]) for t in have if t in wanted)
        if overlap:
            scored.append((-overlap, -pk))
    chosen = [-pk for _, pk in sorted(scored)[:TIMELINE_RELEVANT]]
    full = read_by_id(Event, chosen)
    relevant = [full[pk] for pk in chosen if pk in full]
    seen = set(chosen)
    return relevant + [e for e in recent if e.pk not in seen]


def neighbour_context(block: Block) -> str:
    views = BlockView.objects.filter(
        block__session_id=block.session_id,
        block__sequence__in=[block.sequence - 1, block.sequence + 1],
        level=2,
    ).select_related("block")
    return "\n\n".join(f"[block {v.block.sequence}]\n{v.content}" for v in views)


def _timeline_rows(events: list[Event]) -> list[TimelineEvent]:
    return [
        TimelineEvent(
            id=e.pk,
            title=e.title,
            summary=e.summary,
            event_type=e.event_type,
            tags=tuple(e.tags),
            status=e.status,
        )
        for e in events
    ]


def extract_for_block(
    job: ProcessingJob | None, block: Block, messages: list[Message], *, model: bool = True
) -> ExtractionOut:
    """The raw (ungrounded) extraction: prefetched by the views call, the model, or rules. The
    model's answers (an `ExtractionGraphOut`) also carry its graph draft. Messages are dated
    in the installation's time zone (STRATAGATE_TIME_ZONE): "tomorrow" said at 23:30 there is
    the day after that local date, not after the UTC one. `model=False` keeps to the rules
    even when a model is configured (a re-derivation that must not spend calls)."""
    prefetched = job.payload.get("prefetched") if job is not None else None
    if prefetched is not None:
        return ExtractionGraphOut.model_validate(prefetched)
    client = llm_client(block.namespace_id) if model else None
    if client is None:
        sources = [
            SourceMessage(
                id=m.pk,
                role=m.role,
                content=m.content,
                created_at=timezone.localtime(m.created_at),
                speaker=m.name or None,
            )
            for m in messages
        ]
        return offline_extract_events(sources)
    return llm_call(
        client,
        namespace_id=block.namespace_id,
        job=job,
        kind="extract_events",
        system=SYSTEM_PROMPT,
        user=extraction_user_prompt(block, messages),
        output_model=ExtractionGraphOut,
    )


def extraction_user_prompt(block: Block, messages: list[Message]) -> str:
    l4 = BlockView.objects.get(block=block, level=4).content
    return build_user_prompt(
        messages=[
            PromptMessage(
                id=m.pk,
                role=m.role,
                content=m.content,
                created_at=timezone.localtime(m.created_at),
                name=m.name,
            )
            for m in messages
        ],
        neighbours=neighbour_context(block),
        timeline=[
            PromptTimelineEvent(
                id=e.pk,
                title=e.title,
                summary=e.summary,
                event_type=e.event_type,
                status=e.status,
                happened_start=e.happened_start,
            )
            for e in extraction_timeline(block=block, text=l4)
        ],
    )


@job_handler(JobKind.BLOCK_EXTRACT)
def block_events_extract(job: ProcessingJob) -> None:
    """Extract, ground and store a block's events, then the block is ready (idempotent)."""
    block = job.block
    assert block is not None
    stored_before = (
        Event.objects.filter(source_block=block).exists()
        or EventMention.objects.filter(block=block).exists()
    )
    if stored_before:  # a re-run after a crash
        with transaction.atomic():
            block_mark_ready(block_id=block.pk)
        return
    messages = block_messages(block)
    out = extract_for_block(job, block, messages)
    with transaction.atomic():
        grounded, stored = extraction_store(block=block, out=out, messages=messages)
        created = list({e.pk: e for e, new in stored if new}.values())
        mentioned = sorted({e.pk for e, new in stored if not new} - {e.pk for e in created})
        drafted = _drafted_graph(out, grounded, [e for e, _ in stored])
        block_mark_ready(block_id=block.pk)
        if created:
            publish(
                block.namespace_id,
                "event.changed",
                action="extracted",
                event_ids=[e.pk for e in created],
            )
        if mentioned:
            publish(block.namespace_id, "event.changed", action="mentioned", event_ids=mentioned)
        # Only new events are projected: a mention adds no fact the event's graph items do not
        # already cite it for (the existing event stays their source).
        for start in range(0, len(created), PROJECTION_BATCH):
            batch = [e.pk for e in created[start : start + PROJECTION_BATCH]]
            payload: dict[str, object] = {"event_ids": batch}
            if drafted is not None:
                # The job applies the model's items for its batch instead of the rules.
                proposal = drafted.restricted_to(set(batch))
                payload["proposal"] = proposal.model_dump(mode="json")
            job_create(namespace_id=block.namespace_id, kind=JobKind.GRAPH_PROJECT, payload=payload)


def extraction_store(
    *, block: Block, out: ExtractionOut, messages: list[Message]
) -> tuple[list[ExtractedEvent], list[tuple[Event, bool]]]:
    """Ground a block's raw extraction against its messages and timeline, and store its events
    (`_store_events`): the grounded events, and each stored event with whether it is new. The
    one path of normal extraction and of re-derivation (`services.rederive`). Runs inside the
    caller's transaction."""
    l4 = BlockView.objects.get(block=block, level=4).content
    timeline = extraction_timeline(block=block, text=l4)
    grounded = ground_events(
        out.events,
        block_messages={m.pk: m.content for m in messages},
        timeline_ids={e.pk for e in timeline},
    )
    formed_turn = (
        Turn.objects.filter(block=block)
        .order_by("-namespace_turn")
        .values_list("namespace_turn", flat=True)
        .first()
        or 0
    )
    return grounded, _store_events(block, grounded, timeline, messages, formed_turn)


def _drafted_graph(
    out: ExtractionOut, grounded: list[ExtractedEvent], stored: list[Event]
) -> GraphProposal | None:
    """The model's graph draft over the stored events, or None (offline, or no draft given).

    Its positions count the answer's events, each stored (or added as a mention of an existing
    event) one for one and in order; should grounding ever have dropped one, the positions
    would be off, so the rules serve. Items about mentioned events fall outside every
    projection batch (`restricted_to`), so they are not applied again."""
    draft = out.graph if isinstance(out, ExtractionGraphOut) else None
    if draft is None or len(grounded) != len(out.events) or len(stored) != len(grounded):
        return None
    return draft.to_proposal([(e.pk, e.happened_start or e.mentioned_at) for e in stored])


def _store_events(
    block: Block,
    grounded: list[ExtractedEvent],
    timeline: list[Event],
    messages: list[Message],
    formed_turn: int,
) -> list[tuple[Event, bool]]:
    """Each grounded event stored, in order, as (event, True) when created, or (the existing
    event, False) when it restates an active event's fact and was added as its mention (one
    event per fact, `services.mentions`). Relations and supersessions proposed for a restated
    fact apply to the existing event, and a change statement supersedes the earlier events
    stating the use it ends (`services.supersession`)."""
    namespace_events_lock(block.namespace_id)  # the candidate reads below see every stored fact
    context = EventContext(
        block=block, formed_turn=formed_turn, messages={m.pk: m for m in messages}
    )
    by_id = {e.pk: e for e in timeline}
    stored: list[tuple[Event, bool]] = []
    for extracted in grounded:
        event = event_mention_target(namespace_id=block.namespace_id, extracted=extracted)
        new = event is None
        if event is not None:
            event_mention_add(
                event=event,
                extracted=extracted,
                block_id=block.pk,
                formed_turn=formed_turn,
                messages=context.messages,
            )
            if event.pk in by_id:
                by_id[event.pk] = event  # the row just locked and updated, not the stale one
        else:
            event = event_create(extracted=extracted, context=context)
        for relation in extracted.relations:
            target = by_id.get(relation.target_event_id)
            if target is not None:
                event_relate(event=event, other=target, kind=relation.kind)
        # Rules catch what the extractor did not say: a new value for the same slot supersedes.
        earlier = [e for e, _ in stored]
        candidates = _timeline_rows(
            [e for e in [*timeline, *earlier] if e.status == EventStatus.ACTIVE and e != event]
        )
        for old_id in detect_supersession(extracted, candidates):
            old = by_id.get(old_id) or next((e for e in earlier if e.pk == old_id), None)
            if old is not None:
                event_supersede(new=event, old=old)
        # And a change statement ends the earlier uses it names, slot or not.
        ended = {old.pk: old for old in changes_supersede(event=event, extracted=extracted)}
        for shown in [*timeline, *earlier]:
            if shown.pk in ended:  # the rows just written, so later events see them superseded
                shown.status, shown.superseded_by = EventStatus.SUPERSEDED, event
        # What is not a change but denies an active statement (or is denied by it) conflicts.
        if new:
            denial_conflicts(event=event, extracted=extracted)
        stored.append((event, new))
    return stored
