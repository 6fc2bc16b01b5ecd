"""Expansions as retrieval batches (SPEC §9.1): expanding an event, a graph node or a block shows
the agent new evidence, so each expand records a new batch of what it showed, marked expanded.

The optional `from_batch` is the batch in which the agent found what it expands; it is kept in
the new batch's params for the audit trail and must exist in the namespace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memory.engine.gate import Ref
from memory.models import Block, Event, Message, Namespace, RetrievalBatch
from memory.selectors.graph import NodeStateOut
from memory.services.batches import (
    BatchEntry,
    batch_create,
    batch_get,
    caller_session,
    visible_events_for_block,
    visible_events_for_messages,
)

RAW_REFS_PER_BLOCK = 200


@dataclass(frozen=True)
class Expanded:
    """An expansion's batch and the ref it recorded for what was expanded (its first entry):
    the API returns this ref, so the response and the batch can never disagree."""

    batch: RetrievalBatch
    ref: str


def _origin(namespace: Namespace, from_batch: str | None) -> RetrievalBatch | None:
    return batch_get(namespace, from_batch) if from_batch else None


def _session_for(
    namespace: Namespace, session_id: str | None, origin: RetrievalBatch | None
) -> Any:
    if session_id:
        return caller_session(namespace, session_id)
    return origin.session if origin is not None else None


def _raw_entries(message_ids: list[int]) -> list[BatchEntry]:
    behind = visible_events_for_messages(message_ids)
    return [
        BatchEntry(
            target=Ref.raw(pk),
            expanded=True,
            events=tuple(behind.get(pk, [])),
        )
        for pk in message_ids
    ]


def event_expand_batch(
    *,
    namespace: Namespace,
    event: Event,
    source_ids: list[int],
    session_id: str | None = None,
    from_batch: str | None = None,
) -> Expanded:
    """A batch with `event:<id>` and its source messages as `raw:<id>` refs, all expanded."""
    origin = _origin(namespace, from_batch)
    head = BatchEntry(
        target=Ref.event(event.pk),
        expanded=True,
        events=(event.pk,),
    )
    batch = batch_create(
        namespace=namespace,
        session=_session_for(namespace, session_id, origin),
        tool="expand_event",
        query="",
        params={"from_batch": from_batch, "event_id": event.pk},
        entries=[head, *_raw_entries(source_ids)],
    )
    return Expanded(batch, head.ref)


def node_expand_batch(
    *,
    namespace: Namespace,
    node_id: int,
    state: NodeStateOut,
    session_id: str | None = None,
    from_batch: str | None = None,
) -> Expanded:
    """A batch with `node:<id>`, every shown fact and every provenance event, all expanded."""
    origin = _origin(namespace, from_batch)
    head = BatchEntry(
        target=Ref.node(node_id),
        expanded=True,
        events=tuple(state.provenance_event_ids),
    )
    entries = [head]
    for fact in [*state.current_facts, *state.historical_facts]:
        entries.append(
            BatchEntry(
                target=Ref.fact(fact.id),
                expanded=True,
                events=tuple(fact.source_event_ids),
            )
        )
    entries.extend(
        BatchEntry(target=Ref.event(i), expanded=True, events=(i,))
        for i in state.provenance_event_ids
    )
    batch = batch_create(
        namespace=namespace,
        session=_session_for(namespace, session_id, origin),
        tool="expand_graph_node",
        query="",
        params={"from_batch": from_batch, "node_id": node_id},
        entries=entries,
    )
    return Expanded(batch, head.ref)


def block_expand_batch(
    *,
    namespace: Namespace,
    block: Block,
    level: int,
    session_id: str | None = None,
    from_batch: str | None = None,
) -> Expanded:
    """A batch with `block:<id>:L<level>` (and at L5 the block's messages as raw refs).

    Without a session_id the batch belongs to the block's own session: expanding a decayed
    block is what an agent does in its own conversation.
    """
    origin = _origin(namespace, from_batch)
    session = _session_for(namespace, session_id, origin) if session_id or origin else None
    head = BatchEntry(
        target=Ref.block(block.pk, level),
        expanded=True,
        events=tuple(visible_events_for_block(block.pk)),
    )
    entries = [head]
    if level == 5:
        messages = Message.objects.filter(turn__block=block).order_by(
            "turn__session_turn", "position"
        )
        entries.extend(
            _raw_entries(list(messages.values_list("pk", flat=True)[:RAW_REFS_PER_BLOCK]))
        )
    batch = batch_create(
        namespace=namespace,
        session=session if session is not None else block.session,
        tool="expand_block",
        query="",
        params={"from_batch": from_batch, "block_id": block.pk, "level": level},
        entries=entries,
    )
    return Expanded(batch, head.ref)
