"""Installation-wide λ and block size: saved values win over the environment fallback."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db import connection, transaction

from memory.engine.decay import validate_block_turns, validate_lambda
from memory.errors import Invalid
from memory.models import MemorySettings
from memory.services.audit import admin_action


@dataclass(frozen=True)
class EffectiveSettings:
    block_lambda: float
    block_turns: int
    saved: bool


# Read on every ingest: plain SQL, no query compilation for a one-row table.
_SAVED_SQL = f"SELECT block_lambda, block_turns FROM {MemorySettings._meta.db_table} WHERE id = %s"


def memory_settings_get() -> EffectiveSettings:
    with connection.cursor() as cursor:
        cursor.execute(_SAVED_SQL, [MemorySettings.SINGLETON_ID])
        row = cursor.fetchone()
    if row is None:
        return EffectiveSettings(
            block_lambda=round(float(settings.STRATAGATE_BLOCK_LAMBDA), 2),
            block_turns=int(settings.STRATAGATE_BLOCK_TURNS),
            saved=False,
        )
    block_lambda, block_turns = row
    return EffectiveSettings(
        block_lambda=round(float(block_lambda), 2), block_turns=int(block_turns), saved=True
    )


def memory_settings_update(
    *,
    block_lambda: object = None,
    block_turns: object = None,
    updated_by: str = "",
) -> EffectiveSettings:
    """Validate and persist. λ applies at once everywhere: levels are derived, never stored.
    The raw write: people and agents change settings through `settings_update`, which is
    audited; test fixtures and the demo set-up call this one."""
    current = memory_settings_get()
    try:
        lam = current.block_lambda if block_lambda is None else validate_lambda(block_lambda)
    except ValueError as exc:
        raise Invalid(str(exc), code="invalid_block_lambda") from exc
    try:
        turns = current.block_turns if block_turns is None else validate_block_turns(block_turns)
    except ValueError as exc:
        raise Invalid(str(exc), code="invalid_block_turns") from exc
    with transaction.atomic():
        MemorySettings.objects.update_or_create(
            pk=MemorySettings.SINGLETON_ID,
            defaults={
                "block_lambda": Decimal(f"{lam:.2f}"),
                "block_turns": turns,
                "updated_by": updated_by[:200],
            },
        )
    return memory_settings_get()


def _settings_state(current: EffectiveSettings) -> dict[str, object]:
    return {
        "block_lambda": current.block_lambda,
        "block_turns": current.block_turns,
        "source": "database" if current.saved else "environment",
    }


def settings_update(
    *, block_lambda: object = None, block_turns: object = None, actor: str
) -> EffectiveSettings:
    """Save λ and block size (None keeps a value) and log who did it (`user:<name>` from the
    Memory UI, `token:<prefix>` from the API), in one transaction: an invalid value raises
    `Invalid` (codes `invalid_block_lambda` / `invalid_block_turns`) and leaves neither the
    settings row nor an AdminAction row behind."""
    with transaction.atomic():
        before = memory_settings_get()
        after = memory_settings_update(
            block_lambda=block_lambda, block_turns=block_turns, updated_by=actor
        )
        admin_action(
            "settings",
            namespace_id=None,  # installation-wide: applies to every namespace at once
            actor=actor,
            target="settings",
            details={"before": _settings_state(before), "after": _settings_state(after)},
        )
    return after
