"""The admin audit log's one writer. Every audited service (event actions, block expansion,
settings, job retries, imports, agent tokens, namespace grants) calls `admin_action` inside the
transaction of the change it records, so a change and its row are written together or not at
all. Restored rows (`restored:<action>`) come from a dump instead (imports.restore)."""

from __future__ import annotations

from typing import Any

from memory.models import AdminAction

_ACTOR = AdminAction._meta.get_field("actor").max_length or 200
_TARGET = AdminAction._meta.get_field("target").max_length or 100


def admin_action(
    action: str,
    *,
    actor: str,
    target: str,
    namespace_id: int | None,
    details: dict[str, Any],
) -> AdminAction:
    """Record that `actor` (`user:<name>`, `token:<prefix>`, `command:<user>`) did `action` to
    `target` (`event:<id>`, `block:<id>`, `user:<name>`, …); `namespace_id` None for
    installation-wide actions. Actor and target are cut to their columns' lengths, as every
    database must.

    A target names what changed in the log's own `kind:key` vocabulary, which
    `selectors/processing_view/admin_log.py` reads back; it is not an evidence ref (SPEC §9.1:
    a block target has no level), so callers spell it themselves rather than with `Ref`."""
    return AdminAction.objects.create(
        namespace_id=namespace_id,
        actor=actor[:_ACTOR],
        action=action,
        target=target[:_TARGET],
        details=details,
    )
