"""Bearer-token auth and the namespace gate: unknown and foreign namespaces both answer 404."""

from __future__ import annotations

from django.http import HttpRequest
from ninja.security import HttpBearer

from memory.errors import Forbidden, NotFound
from memory.models import AgentToken, Namespace
from memory.services.tokens import token_authenticate, token_namespace


class AgentBearer(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> AgentToken | None:
        return token_authenticate(token)


def request_token(request: HttpRequest) -> AgentToken:
    token = getattr(request, "auth", None)
    assert isinstance(token, AgentToken)
    return token


def namespace_for(request: HttpRequest, name: str, *, scope: str) -> Namespace:
    """The namespace if the caller's token is bound to it and its scope suffices."""
    token = request_token(request)
    namespace = token_namespace(token, name)
    if namespace is None:
        raise NotFound(f"namespace {name[:200]!r} not found", code="namespace_not_found")
    if not token.allows(scope):
        raise Forbidden(
            f"this token's scope is {token.scope}; {scope} is needed",
            code="insufficient_scope",
            details={"scope": token.scope, "needed": scope},
        )
    return namespace


def require_scope(request: HttpRequest, scope: str) -> AgentToken:
    token = request_token(request)
    if not token.allows(scope):
        raise Forbidden(
            f"this token's scope is {token.scope}; {scope} is needed",
            code="insufficient_scope",
            details={"scope": token.scope, "needed": scope},
        )
    return token
