"""Block expansion: re-anchor the display pointer so the block decays again from the target.

Agents expand through the API (`block_expand` + a retrieval batch, their evidence loop); people
expand in the Memory UI (`block_expand_by_user`: the same rules plus an admin audit row, and no
batch, because a person browsing is not an agent's evidence)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from memory.engine.decay import display_level, resolve_expand_target
from memory.errors import Conflict, Invalid
from memory.models import Block, BlockStatus, LiftedBy, Session
from memory.selectors.settings import memory_settings_get
from memory.services.audit import admin_action
from memory.services.live import publish


def ready_block_count(session_id: int) -> int:
    return Block.objects.filter(session_id=session_id, status=BlockStatus.READY).count()


def expand_target_check(target: str | int | None) -> None:
    """422 `invalid_target` for a target no block accepts, checked before anything is written
    (the level it resolves to depends on the block; whether it is valid does not)."""
    try:
        resolve_expand_target(target, 0)
    except ValueError as exc:
        raise Invalid(str(exc), code="invalid_target", details={"target": target}) from exc


def block_expand(*, block: Block, target: str | int | None, lifted_by: str) -> Block:
    """Set anchor_level = target and anchor_position = latest (SPEC §4.5). 409 when not ready."""
    if lifted_by not in LiftedBy.values:
        raise Invalid(f"unknown lifter {lifted_by!r}", code="invalid_lifted_by")
    with transaction.atomic():
        session = Session.objects.select_for_update().filter(pk=block.session_id).first()
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
        # Pages showing this block re-read it; sent only if the expansion commits.
        publish(
            locked.namespace_id,
            "block.changed",
            block_id=locked.pk,
            session_id=session.external_id if session is not None else None,
            level=level,
            lifted_by=lifted_by,
        )
    return locked


def _level_now(block_id: int) -> int | None:
    """The level a block shows now, read fresh (the caller's instance may be stale)."""
    block = Block.objects.get(pk=block_id)
    if block.status != BlockStatus.READY or block.anchor_position is None:
        return None
    return display_level(
        anchor_level=block.anchor_level,
        anchor_position=block.anchor_position,
        latest=ready_block_count(block.session_id),
        lam=memory_settings_get().block_lambda,
    )


def block_expand_by_user(*, block: Block, target: str | int | None, actor: str) -> Block:
    """A person lifts a block from the Memory UI (SPEC §4.5, §13): re-anchor like the agent's
    expand and record an `expand_block` admin action, both in one transaction, so a refused
    expansion (409 not ready, 422 bad target) writes nothing at all."""
    with transaction.atomic():
        # Lock the session first, as block_expand does, so "before" is the level it replaces.
        Session.objects.select_for_update().filter(pk=block.session_id).first()
        before = _level_now(block.pk)
        expanded = block_expand(block=block, target=target, lifted_by=LiftedBy.USER)
        admin_action(
            "expand_block",
            namespace_id=expanded.namespace_id,
            actor=actor,
            target=f"block:{expanded.pk}",
            # Right after a lift the block shows its anchor level (nothing has decayed yet).
            details={"before": {"level": before}, "after": {"level": expanded.anchor_level}},
        )
    return expanded
