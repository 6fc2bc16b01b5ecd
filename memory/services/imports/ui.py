"""Import commit and undo by a person in the Memory UI (SPEC §13): the same services the API
uses, plus the `AdminAction` audit row, in one transaction — so a refused commit or undo (409
stale / already committed / already undone, 422 bad choice) leaves neither memory nor an audit
row behind."""

from __future__ import annotations

from collections import Counter

from django.db import transaction

from memory.models import AdminAction, ImportBatch
from memory.services.imports.commit import Choice, CommitResult, import_commit
from memory.services.imports.undo import UndoResult, import_undo


def import_commit_by_user(*, batch: ImportBatch, choices: list[Choice], actor: str) -> CommitResult:
    with transaction.atomic():
        result = import_commit(batch=batch, choices=choices)
        AdminAction.objects.create(
            namespace_id=batch.namespace_id,
            actor=actor[:200],
            action="import_commit",
            target=f"import:{batch.pk}",
            details={
                "created": len(result.created_event_ids),
                "changed": len(result.changed_event_ids),
                "sessions": len(result.session_ids),
                "choices": dict(sorted(Counter(c.action for c in choices).items())),
            },
        )
    return result


def import_undo_by_user(*, batch: ImportBatch, actor: str) -> UndoResult:
    with transaction.atomic():
        result = import_undo(batch=batch)
        AdminAction.objects.create(
            namespace_id=batch.namespace_id,
            actor=actor[:200],
            action="import_undo",
            target=f"import:{batch.pk}",
            details={
                "removed": len(result.removed_event_ids),
                "restored": len(result.restored_event_ids),
            },
        )
    return result
