"""Bearer-token auth, decided before anything else in a request is read.

Each operation declares the scope it needs (`AgentBearer(scope)`, READ by default). Ninja runs
authentication before it parses the path, the query or the body, so the order is always: no or
unknown token → 401; a namespace in the path the token is not bound to (or that does not exist:
both look the same) → 404 `namespace_not_found`; too small a scope → 403; only then 400/413/415/
422 for what was sent (`input_guard` first, then ninja's parsing). A stranger therefore learns
nothing from how a foreign namespace's routes validate input.
"""

from __future__ import annotations

from django.http import HttpRequest
from ninja.security import HttpBearer

from memory.api.input_guard import request_input_check
from memory.errors import Forbidden, NotFound
from memory.models import AgentToken, Namespace, TokenScope
from memory.services.tokens import token_authenticate, token_namespace

_NAMESPACE_ATTR = "_strata_namespace"


class AgentBearer(HttpBearer):
    """The three scopes are three classes, so the OpenAPI schema names each operation's
    (`security: [{"ReadWriteToken": []}]`)."""

    scope: str = TokenScope.READ

    def authenticate(self, request: HttpRequest, token: str) -> AgentToken | None:
        found = token_authenticate(token)
        if found is None:
            return None
        match = request.resolver_match
        name = match.kwargs.get("ns") if match is not None else None
        if name is not None:
            namespace = token_namespace(found, name)
            if namespace is None:
                raise NotFound(f"namespace {name[:200]!r} not found", code="namespace_not_found")
            setattr(request, _NAMESPACE_ATTR, namespace)
        if not found.allows(self.scope):
            raise Forbidden(
                f"this token's scope is {found.scope}; {self.scope} is needed",
                code="insufficient_scope",
                details={"scope": found.scope, "needed": self.scope},
            )
        request_input_check(request)
        return found


class ReadToken(AgentBearer):
    scope = TokenScope.READ


class ReadWriteToken(AgentBearer):
    scope = TokenScope.READ_WRITE


class AdminToken(AgentBearer):
    scope = TokenScope.ADMIN


READ_WRITE = ReadWriteToken()
ADMIN = AdminToken()


def request_token(request: HttpRequest) -> AgentToken:
    token = getattr(request, "auth", None)
    assert isinstance(token, AgentToken)
    return token


def request_namespace(request: HttpRequest) -> Namespace:
    """The namespace of the path, already checked against the token by `AgentBearer`."""
    namespace = getattr(request, _NAMESPACE_ATTR, None)
    assert isinstance(namespace, Namespace), "only for operations with {ns} in their path"
    return namespace
