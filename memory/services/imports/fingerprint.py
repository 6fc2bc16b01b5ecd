"""The preview fingerprint: a hash of the memory an import's decisions looked at.

For memories: every matched or targeted event's id, status, superseded_by and weight fields
(pinned, adoptions, last_adopted_turn) — a decision made against other values may be wrong, so
commit refuses (409 `import_stale`) when the hash changed. A vanished event changes it too.
For conversations: which of the sessions to be created already exist. For a dump: whether the
namespace is still empty. Reading (`last_retrieved_at`) never invalidates a preview.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from memory.models import Event, ImportBatch, Session
from memory.services.imports.restore import namespace_is_empty


def _events_state(namespace_id: int, ids: set[int]) -> list[list[Any]]:
    rows = (
        Event.objects.filter(namespace_id=namespace_id, pk__in=ids)
        .order_by("pk")
        .values_list("pk", "status", "superseded_by_id", "pinned", "adoptions", "last_adopted_turn")
    )
    return [list(row) for row in rows]


def memory_fingerprint(batch: ImportBatch) -> str:
    kind = batch.meta.get("kind", "memories")
    state: dict[str, Any] = {"kind": kind}
    candidates = list(
        batch.candidates.values_list("payload", "match_event_ids", "target_event_ids")
    )
    if kind == "memories":
        ids = {int(i) for _, matches, targets in candidates for i in [*matches, *targets]}
        state["events"] = _events_state(batch.namespace_id, ids)
    elif kind == "conversations":
        wanted = [str(payload.get("session_id", "")) for payload, _, _ in candidates]
        state["existing_sessions"] = sorted(
            Session.objects.filter(
                namespace_id=batch.namespace_id, external_id__in=wanted
            ).values_list("external_id", flat=True)
        )
    else:
        state["empty"] = namespace_is_empty(batch.namespace)
    encoded = json.dumps(state, sort_keys=True, default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()
