"""Agent tokens as people see them (the staff tokens page, `list_agent_tokens`): what each may do
and whether it still works. Never the token itself (only its hash is stored)."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from memory.engine.redact import redact
from memory.errors import NotFound
from memory.models import AgentToken, Namespace
from memory.selectors.out import Out


class TokenOut(Out):
    id: int
    prefix: str
    label: str
    scope: str
    installation: bool
    namespaces: list[str]
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None
    revoked_at: datetime | None
    live: bool  # neither revoked nor expired


def _tokens() -> QuerySet[AgentToken]:
    return AgentToken.objects.order_by("-id").prefetch_related(
        Prefetch("namespaces", queryset=Namespace.objects.order_by("name").only("name"))
    )


def token_list() -> list[TokenOut]:
    """Every token, newest first (two queries)."""
    return [_out(t) for t in _tokens()]


def token_get(token_id: int) -> TokenOut:
    found = _tokens().filter(pk=token_id).first()
    if found is None:
        raise NotFound(f"no token {token_id}", code="token_not_found")
    return _out(found)


def _out(t: AgentToken) -> TokenOut:
    now = timezone.now()
    return TokenOut.model_construct(
        id=t.pk,
        prefix=t.prefix,
        label=redact(t.label),
        scope=t.scope,
        installation=t.installation,
        namespaces=[n.name for n in t.namespaces.all()],
        created_at=t.created_at,
        last_used_at=t.last_used_at,
        expires_at=t.expires_at,
        revoked_at=t.revoked_at,
        live=t.revoked_at is None and (t.expires_at is None or t.expires_at > now),
    )
