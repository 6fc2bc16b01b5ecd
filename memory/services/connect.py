"""The Memory UI's "Connect an agent" page creates an agent token for the namespace a person is
looking at, so an agent can use the model proxy without anyone opening a shell on the server
(`manage.py create_agent_token` does the same from the command line)."""

from __future__ import annotations

from django.db import transaction

from memory.models import AdminAction, AgentToken, Namespace, TokenScope
from memory.services.tokens import token_create

CONNECT_TOKEN_LABEL = "connect page"


def token_create_by_user(*, namespace: Namespace, actor: str) -> tuple[AgentToken, str]:
    """A read-write token bound to `namespace` alone, and the admin audit row naming who created
    it, in one transaction. Returns (row, raw token): the raw token exists only in this return
    value (the row keeps its SHA-256), so the caller shows it once and keeps it nowhere."""
    with transaction.atomic():
        token, raw = token_create(
            namespaces=[namespace.name],
            scope=TokenScope.READ_WRITE.value,
            label=CONNECT_TOKEN_LABEL,
        )
        AdminAction.objects.create(
            namespace=namespace,
            actor=actor[:200],
            action="token_create",
            target=f"token:{token.pk}",
            # The prefix is the token's public part (what a person recognises it by); the
            # secret part is never written anywhere.
            details={"scope": str(token.scope), "label": token.label, "prefix": token.prefix},
        )
    return token, raw
