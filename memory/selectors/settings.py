"""Installation-wide λ and block size as they apply: saved values win over the environment."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from memory.models import MemorySettings


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
