"""Access is decided before anything a request sends is read, on every operation of the schema:
no token → 401; a namespace the token is not bound to (or that does not exist) → 404
`namespace_not_found`; too small a scope → 403 — whatever the body, path parameters or query
(a stranger must not learn how a foreign namespace's routes validate input)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from memory.models import Event, ImportBatch, Message, UsageReceipt
from stratagate_site.api import api
from tests.conftest import ApiClient

pytestmark = pytest.mark.django_db

SCOPES = {"ReadToken": "read", "ReadWriteToken": "read-write", "AdminToken": "admin"}
RANK = {"read": 1, "read-write": 2, "admin": 3}
# What a careless or hostile caller sends: wrong types, an empty body, a broken body.
BAD_BODIES: list[Any] = [{}, {"query": 42, "messages": "x"}, None]


def _operations() -> list[tuple[str, str, str]]:
    """(method, path under /api/v1, scope) of every operation."""
    found = []
    for path, ops in api.get_openapi_schema()["paths"].items():
        for method, op in ops.items():
            (scheme,) = op["security"][0]
            found.append((method, path.removeprefix("/api/v1"), SCOPES[scheme]))
    return found


OPERATIONS = _operations()
NAMESPACED = [op for op in OPERATIONS if "{ns}" in op[1]]


def _url(path: str, ns: str = "proj") -> str:
    # Every other path parameter gets a value that does not validate (ids are integers).
    return re.sub(r"\{(\w+)\}", lambda m: ns if m.group(1) == "ns" else "not-a-number", path)


def _send(client: ApiClient, method: str, path: str, body: Any) -> Any:
    if method == "get":
        return client.get(path, limit="nope", as_of="garbage")
    send = getattr(client.client, method)
    data = "{not json" if body is None else body
    return send(f"/api/v1{path}", data, content_type="application/json", **client._headers())


def test_the_schema_names_a_scope_for_every_operation() -> None:
    assert len(OPERATIONS) >= 30
    assert {scope for *_, scope in OPERATIONS} == {"read", "read-write", "admin"}


@pytest.mark.parametrize(("method", "path", "scope"), NAMESPACED)
@pytest.mark.parametrize("body", BAD_BODIES, ids=["empty", "wrong-types", "not-json"])
def test_a_foreign_token_gets_404_whatever_it_sends(
    stranger: ApiClient, method: str, path: str, scope: str, body: Any
) -> None:
    response = _send(stranger, method, _url(path), body)
    assert response.status_code == 404, (method, path, response.content[:200])
    assert response.json()["error"]["code"] == "namespace_not_found"


@pytest.mark.parametrize(("method", "path", "scope"), NAMESPACED)
def test_an_unknown_namespace_looks_exactly_like_a_foreign_one(
    stranger: ApiClient, method: str, path: str, scope: str
) -> None:
    foreign = _send(stranger, method, _url(path), {})
    unknown = _send(stranger, method, _url(path, ns="no-such-namespace"), {})
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (
        foreign.status_code,
        foreign.json()["error"]["code"],
    )


@pytest.mark.parametrize(("method", "path", "scope"), OPERATIONS)
def test_no_token_is_401_before_anything_else(
    client: Any, method: str, path: str, scope: str
) -> None:
    anonymous = ApiClient(token="", client=client)
    response = _send(anonymous, method, _url(path), {})
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize(("method", "path", "scope"), [op for op in OPERATIONS if RANK[op[2]] > 1])
def test_too_small_a_scope_is_403_before_the_input_is_read(
    reader: ApiClient, method: str, path: str, scope: str
) -> None:
    response = _send(reader, method, _url(path), None)
    assert response.status_code == 403, (method, path, response.content[:200])
    error = response.json()["error"]
    assert error["code"] == "insufficient_scope" and error["details"]["needed"] == scope


def test_a_bound_token_with_the_scope_reaches_validation(owner: ApiClient) -> None:
    response = owner.post("/ns/proj/turns", {})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "validation_error"


def test_nothing_is_written_by_refused_requests(stranger: ApiClient, reader: ApiClient) -> None:
    before = [m.objects.count() for m in (Message, Event, ImportBatch, UsageReceipt)]
    for client in (stranger, reader):
        for method, path, _ in NAMESPACED:
            if method != "get":
                _send(client, method, _url(path), {})
    assert [m.objects.count() for m in (Message, Event, ImportBatch, UsageReceipt)] == before
