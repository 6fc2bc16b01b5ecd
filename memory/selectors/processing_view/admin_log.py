"""The admin audit log (SPEC §13): who changed what from the Memory UI or with an admin token,
for one namespace plus the installation-wide actions (settings), newest first, paged in SQL.
Targets are parsed into links the template can build; every string leaves redacted."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Final

from django.db.models import Q

from memory.engine.redact import redact, redact_actor
from memory.models import AdminAction, Namespace
from memory.selectors.out import Out
from memory.selectors.paging import Page, paginate

ADMIN_LOG_PER_PAGE: Final = 50
_TARGET = re.compile(r"^(event|block|job|import|token):(\d+)$")


class DetailChangeOut(Out):
    key: str
    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


class AdminActionOut(Out):
    id: int
    actor: str
    action: str
    target: str  # as stored ("event:12"), redacted
    target_kind: str  # event | block | job | import | token | settings | "" (unknown)
    target_id: int | None
    installation_wide: bool  # no namespace: settings apply to every namespace
    changes: list[DetailChangeOut]  # details.before → details.after, key by key
    extra: list[tuple[str, str]]  # any other details
    created_at: datetime


def _text(value: object) -> str:
    plain = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return redact(plain)


def _side(details: dict[str, Any], name: str) -> dict[str, Any]:
    value = details.get(name)
    return value if isinstance(value, dict) else {}


def _changes(details: dict[str, Any]) -> list[DetailChangeOut]:
    before, after = _side(details, "before"), _side(details, "after")
    keys = list(dict.fromkeys([*before, *after]))
    return [
        DetailChangeOut.model_construct(
            key=redact(str(key)),
            before=_text(before[key]) if key in before else "—",
            after=_text(after[key]) if key in after else "—",
        )
        for key in keys
    ]


def _target(target: str) -> tuple[str, int | None]:
    if target == "settings":
        return "settings", None
    match = _TARGET.match(target)
    return (match.group(1), int(match.group(2))) if match else ("", None)


def admin_action_out(row: AdminAction) -> AdminActionOut:
    details = row.details if isinstance(row.details, dict) else {"details": row.details}
    kind, target_id = _target(row.target)
    return AdminActionOut.model_construct(
        id=row.pk,
        actor=redact_actor(row.actor),
        action=row.action,
        target=redact(row.target),
        target_kind=kind,
        target_id=target_id,
        installation_wide=row.namespace_id is None,
        changes=_changes(details),
        extra=[
            (redact(str(k)), _text(v)) for k, v in details.items() if k not in ("before", "after")
        ],
        created_at=row.created_at,
    )


def admin_log_page(namespace: Namespace, *, page: int | str | None) -> Page[AdminActionOut]:
    """This namespace's admin actions and the installation-wide ones (settings), newest first,
    paged in SQL; two queries."""
    rows = AdminAction.objects.filter(Q(namespace=namespace) | Q(namespace__isnull=True))
    return paginate(
        rows.order_by("-id"),
        page=page,
        per_page=ADMIN_LOG_PER_PAGE,
        convert=lambda actions: [admin_action_out(a) for a in actions],
    )
