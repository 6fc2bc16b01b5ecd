"""The Memory UI's "Connect an agent" page creates an agent token for the namespace a person is
looking at, so an agent can use the model proxy without anyone opening a shell on the server
(`manage.py create_agent_token` does the same from the command line)."""

from __future__ import annotations

from memory.models import AgentToken, Namespace, TokenScope
from memory.services.tokens import token_issue

CONNECT_TOKEN_LABEL = "connect page"


def connect_token_create(*, namespace: Namespace, actor: str) -> tuple[AgentToken, str]:
    """A read-write token bound to `namespace` alone, audited (`token_issue`). Returns (row,
    raw token): the raw token exists only in this return value (the row keeps its SHA-256),
    so the caller shows it once and keeps it nowhere."""
    return token_issue(
        namespaces=[namespace.name],
        scope=TokenScope.READ_WRITE.value,
        label=CONNECT_TOKEN_LABEL,
        actor=actor,
    )
