"""Installation-wide λ, block size and the proxy's history and tools modes as they apply: saved
values win over the environment (the history mode's default is `layered`, the tools mode's
`off`)."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from memory.engine.history_mode import HISTORY_DEFAULT
from memory.engine.tools_mode import TOOLS_DEFAULT
from memory.models import MemorySettings


@dataclass(frozen=True)
class EffectiveSettings:
    block_lambda: float
    block_turns: int
    saved: bool
    proxy_history: str = HISTORY_DEFAULT  # layered | native (memory.engine.history_mode)
    proxy_tools: str = TOOLS_DEFAULT  # off | memory (memory.engine.tools_mode)


# Read on every ingest: plain SQL, no query compilation for a one-row table.
_SAVED_SQL = (
    f"SELECT block_lambda, block_turns, proxy_history, proxy_tools FROM"
    f" {MemorySettings._meta.db_table} WHERE id = %s"
)


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
    block_lambda, block_turns, proxy_history, proxy_tools = row
    return EffectiveSettings(
        block_lambda=round(float(block_lambda), 2),
        block_turns=int(block_turns),
        saved=True,
        proxy_history=str(proxy_history),
        proxy_tools=str(proxy_tools),
    )
