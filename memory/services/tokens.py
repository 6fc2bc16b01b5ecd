"""Agent tokens: created once, stored as SHA-256, bound to namespaces and a scope."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from memory.errors import Conflict, Invalid, NotFound
from memory.models import AgentToken, Namespace, TokenScope
from memory.models.rows import read_models
from memory.services.audit import admin_action
from memory.services.namespaces import namespace_get_or_create, namespace_name_is_valid

TOKEN_PREFIX = "sg_"


def _hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def token_create(
    *,
    namespaces: list[str],
    scope: str,
    label: str = "",
    installation: bool = False,
    expires_at: datetime | None = None,
) -> tuple[AgentToken, str]:
    """Create a token bound to `namespaces` (created when missing). Returns (row, raw token).
    An installation token (`installation=True`, always admin scope) may also change
    installation-wide settings and needs no namespace. The raw write: people and operators
    create tokens through `token_issue`, which is audited."""
    if installation:
        scope = TokenScope.ADMIN.value
    if scope not in TokenScope.values:
        raise Invalid(f"unknown scope {scope!r}", code="invalid_scope")
    if not namespaces and not installation:
        raise Invalid("a token must be bound to at least one namespace", code="no_namespace")
    if expires_at is not None and expires_at <= timezone.now():
        raise Invalid("a token cannot expire in the past", code="invalid_expiry")
    public = secrets.token_hex(4)
    raw = f"{TOKEN_PREFIX}{public}_{secrets.token_urlsafe(32)}"
    with transaction.atomic():
        rows = [namespace_get_or_create(name=name) for name in namespaces]
        token = AgentToken.objects.create(
            label=label[:200],
            prefix=public,
            key_hash=_hash(raw),
            scope=scope,
            installation=installation,
            expires_at=expires_at,
        )
        token.namespaces.set(rows)
    return token, raw


_DURATION = re.compile(r"^\s*(\d{1,6})\s*([mhdw])\s*$", re.IGNORECASE)
_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}
_UNITS["w"] = timedelta(weeks=1)


def expiry_from(text: str) -> datetime | None:
    """`30d`, `12h`, `90m`, `2w` from now; "" for a token that does not expire."""
    if not text.strip():
        return None
    match = _DURATION.match(text)
    if match is None or int(match.group(1)) == 0:
        raise Invalid(
            f"{text[:40]!r} is not a duration like 30d, 12h, 90m or 2w",
            code="invalid_expiry",
        )
    return timezone.now() + int(match.group(1)) * _UNITS[match.group(2).lower()]


def _audit(token: AgentToken, namespaces: list[str], *, action: str, actor: str) -> None:
    """The admin action for creating or revoking `token`. A token bound to one namespace is
    that namespace's business; others are the installation's (no namespace)."""
    namespace_id = (
        Namespace.objects.filter(name=namespaces[0]).values_list("pk", flat=True).first()
        if len(namespaces) == 1
        else None
    )
    admin_action(
        action,
        namespace_id=namespace_id,
        actor=actor,
        target=f"token:{token.pk}",
        details={
            "prefix": token.prefix,
            "label": token.label,
            "scope": str(token.scope),
            "installation": token.installation,
            "namespaces": sorted(namespaces),
            "expires_at": token.expires_at.isoformat() if token.expires_at else None,
        },
    )


def token_issue(
    *,
    namespaces: list[str],
    scope: str,
    actor: str,
    label: str = "",
    installation: bool = False,
    expires_at: datetime | None = None,
) -> tuple[AgentToken, str]:
    """`token_create` and its `token_create` admin action naming `actor` (`user:<name>`,
    `command:<user>`), in one transaction. The raw token is only in the return value."""
    with transaction.atomic():
        token, raw = token_create(
            namespaces=namespaces,
            scope=scope,
            label=label,
            installation=installation,
            expires_at=expires_at,
        )
        _audit(token, namespaces, action="token_create", actor=actor)
    return token, raw


def token_revoke(*, token_id: int, actor: str) -> AgentToken:
    """Revoke a token at once (every later request with it is a 401) and write the
    `token_revoke` admin action; revoking a revoked token is 409 `token_already_revoked`."""
    with transaction.atomic():
        token = AgentToken.objects.select_for_update().filter(pk=token_id).first()
        if token is None:
            raise NotFound(f"no token {token_id}", code="token_not_found")
        if token.revoked_at is not None:
            raise Conflict("this token is already revoked", code="token_already_revoked")
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        names = list(token.namespaces.values_list("name", flat=True))
        _audit(token, names, action="token_revoke", actor=actor)
    return token


def token_find(prefix: str) -> AgentToken:
    """The token whose public prefix this is (what `list_agent_tokens` shows)."""
    found = list(AgentToken.objects.filter(prefix=prefix.removeprefix(TOKEN_PREFIX))[:2])
    if not found:
        raise NotFound(f"no token with prefix {prefix[:40]!r}", code="token_not_found")
    if len(found) > 1:
        raise Conflict(
            f"several tokens share the prefix {prefix!r}; revoke it by id in the Memory UI",
            code="token_prefix_ambiguous",
        )
    return found[0]


# Every API request runs both lookups below: plain SQL read into the same model instances
# (memory.models.rows.read_models, no query compilation), one indexed read each.
_TOKEN_WHERE = "WHERE t.key_hash = %s AND t.revoked_at IS NULL"
_BOUND = AgentToken.namespaces.through._meta
_TOKEN_NAMESPACE_JOIN = (
    f"JOIN {_BOUND.db_table} bound ON bound.{_BOUND.get_field('namespace').column} = n.id "
    f"WHERE bound.{_BOUND.get_field('agenttoken').column} = %s AND n.name = %s"
)


def token_authenticate(raw: str) -> AgentToken | None:
    """The live token for `raw` (not revoked, not expired), or None. Constant-time comparison
    of the stored hash."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    digest = _hash(raw)
    token = next(iter(read_models(AgentToken, "t", _TOKEN_WHERE, [digest])), None)
    if token is None or not hmac.compare_digest(token.key_hash, digest):
        return None
    now = timezone.now()
    if token.expires_at is not None and token.expires_at <= now:
        return None
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        AgentToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def token_namespace(token: AgentToken, name: str) -> Namespace | None:
    """The namespace `name` if this token is bound to it; unknown and foreign look the same.
    A name no namespace can have (a NUL byte, 5,000 characters) is unknown without a query."""
    if not namespace_name_is_valid(name):
        return None
    return next(iter(read_models(Namespace, "n", _TOKEN_NAMESPACE_JOIN, [token.pk, name])), None)
