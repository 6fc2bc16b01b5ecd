"""The last step of a block's processing, shared by both processing paths (the combined model
call in `processing`, the separate extraction job in `extraction`): the block becomes ready."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from memory.models import Block, BlockStatus, JobStatus, ProcessingJob, Session
from memory.services.jobs import job_trigger
from memory.services.live import publish


def block_mark_ready(*, block_id: int) -> None:
    """Give the block its ready position and anchor (SPEC §4.1), then wake the next block.

    Must run inside the caller's transaction; the session row lock orders concurrent workers.
    """
    block = Block.objects.select_for_update(no_key=True).get(pk=block_id)
    if block.status == BlockStatus.READY:
        return
    Session.objects.select_for_update(no_key=True).filter(pk=block.session_id).first()
    position = (
        Block.objects.filter(session_id=block.session_id, status=BlockStatus.READY).count() + 1
    )
    block.status = BlockStatus.READY
    block.ready_position = position
    block.anchor_position = position
    block.anchor_level = 5
    block.ready_at = timezone.now()
    block.save(
        update_fields=["status", "ready_position", "anchor_position", "anchor_level", "ready_at"]
    )
    publish(block.namespace_id, "block.ready", block_id=block.pk, session_pk=block.session_id)
    following = (
        ProcessingJob.objects.filter(
            block__session_id=block.session_id,
            block__sequence=block.sequence + 1,
            status=JobStatus.QUEUED,
        )
        .values_list("pk", flat=True)
        .first()
    )
    if following is not None:
        transaction.on_commit(lambda: job_trigger(following))
