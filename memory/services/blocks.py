"""Block expansion: re-anchor the display pointer so the block decays again from the target."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from memory.engine.decay import display_level, resolve_expand_target
from memory.errors import Conflict, Invalid
from memory.models import Block, BlockStatus, LiftedBy, Session
from memory.services.settings import memory_settings_get


def ready_block_count(session_id: int) -> int:
    return Block.objects.filter(session_id=session_id, status=BlockStatus.READY).count()


def block_expand(*, block: Block, target: str | int | None, lifted_by: str) -> Block:
    """Set anchor_level = target and anchor_position = latest (SPEC §4.5). 409 when not ready."""
    if lifted_by not in LiftedBy.values:
        raise Invalid(f"unknown lifter {lifted_by!r}", code="invalid_lifted_by")
    with transaction.atomic():
        Session.objects.select_for_update().filter(pk=block.session_id).first()
        locked = Block.objects.select_for_update().get(pk=block.pk)
        if locked.status != BlockStatus.READY or locked.anchor_position is None:
            raise Conflict(
                f"block {locked.pk} is {locked.status}; only ready blocks can be expanded",
                code="block_not_ready",
                details={"block_id": locked.pk, "status": locked.status},
            )
        latest = ready_block_count(locked.session_id)
        current = display_level(
            anchor_level=locked.anchor_level,
            anchor_position=locked.anchor_position,
            latest=latest,
            lam=memory_settings_get().block_lambda,
        )
        try:
            level = resolve_expand_target(target, current)
        except ValueError as exc:
            raise Invalid(str(exc), code="invalid_target", details={"target": target}) from exc
        locked.anchor_level = level
        locked.anchor_position = latest
        locked.last_lifted_at = timezone.now()
        locked.last_lifted_by = lifted_by
        locked.save(
            update_fields=["anchor_level", "anchor_position", "last_lifted_at", "last_lifted_by"]
        )
    return locked
