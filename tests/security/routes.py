"""Every route, enumerated rather than listed by hand: the API's operations from its OpenAPI
schema, the site's URLs from Django's resolver, the websocket routes from graphui.routing. A
route added tomorrow is covered by every test that walks these lists."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from memory.models.namespaces import SCOPE_RANK
from stratagate_site.api import api
from tests.fakes.openai_server import schema_stub

API_PREFIX = "/api/v1"
SCOPES = {"ReadToken": "read", "ReadWriteToken": "read-write", "AdminToken": "admin"}
RANK = {str(scope): rank for scope, rank in SCOPE_RANK.items()}  # read < read-write < admin


@dataclass(frozen=True)
class Operation:
    method: str  # lower case, as in the schema
    path: str  # under /api/v1, with {name} placeholders
    scope: str
    operation_id: str
    body: Any = None  # a body valid for the operation's schema, when it takes one
    query: dict[str, str] = field(default_factory=dict)  # its required query parameters

    @property
    def namespaced(self) -> bool:
        return "{ns}" in self.path

    def url(self, values: dict[str, str]) -> str:
        return API_PREFIX + re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], self.path)

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.path}"


def _schema() -> dict[str, Any]:
    return api.get_openapi_schema()


def api_operations(query_values: dict[str, str] | None = None) -> list[Operation]:
    """Every operation of the schema, each with a body the schema accepts and its required query
    parameters (`query_values` first, else a stub), so a refusal can only come from access."""
    schema = _schema()
    defs = schema.get("components", {}).get("schemas", {})
    found = []
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            # An operation without auth has no `security`: it shows up as scope "none" and
            # fails the isolation tests until it is protected.
            schemes = (op.get("security") or [{}])[0]
            scheme = next(iter(schemes), "")
            body = None
            content = (op.get("requestBody") or {}).get("content", {})
            if "application/json" in content:
                body = schema_stub(content["application/json"]["schema"], defs)
            query = {
                p["name"]: (query_values or {}).get(p["name"], "1")
                for p in op.get("parameters", [])
                if p["in"] == "query" and p.get("required")
            }
            found.append(
                Operation(
                    method=method,
                    path=path.removeprefix(API_PREFIX),
                    scope=SCOPES.get(scheme, "none"),
                    operation_id=op["operationId"],
                    body=body,
                    query=query,
                )
            )
    return found


def api_send(client: Client, op: Operation, values: dict[str, str], **kwargs: Any) -> Any:
    """Send `op` with its valid body and query, or `body=` / `raw=` instead."""
    url = op.url(values)
    headers = kwargs.pop("headers", {})
    if op.method == "get":
        return client.get(url, kwargs.pop("query", op.query), **headers)
    raw = kwargs.pop("raw", None)
    body = kwargs.pop("body", op.body)
    data = raw if raw is not None else json.dumps(body if body is not None else {})
    if op.query:
        url += "?" + "&".join(f"{k}={v}" for k, v in op.query.items())
    return client.generic(op.method.upper(), url, data, content_type="application/json", **headers)


def bearer(token: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {token}"}


# --- the site's URLs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SiteRoute:
    route: str  # the pattern as Django prints it, prefixes included
    name: str  # "namespace:name" when named
    callback: Any
    parameters: tuple[str, ...]

    def __str__(self) -> str:
        return f"/{self.route}"


def _names(route: str) -> list[str]:
    names = []
    for converter, regex in re.findall(r"<(?:\w+:)?(\w+)>|\(\?P<(\w+)>", route):
        names.append(converter or regex)
    return names


def _walk(patterns: list[Any], prefix: str = "", space: str = "") -> Iterator[SiteRoute]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = pattern.namespace or space
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
        elif isinstance(pattern, URLPattern):
            route = prefix + str(pattern.pattern)
            name = f"{space}:{pattern.name}" if space and pattern.name else pattern.name or ""
            yield SiteRoute(route, name, pattern.callback, tuple(_names(route)))


def site_routes() -> list[SiteRoute]:
    """Every URL pattern the resolver knows, the API's included."""
    return list(_walk(get_resolver().url_patterns))


# A regex group's value when no world value fits: the first alternative, or "x".
def _regex_value(body: str) -> str:
    return body.split("|")[0] if "|" in body else "x"


def site_url(route: SiteRoute, values: dict[str, str]) -> str:
    """A concrete path for `route`, its parameters filled from `values` (else "1"), checked to
    resolve back to the same view."""

    def converter(match: re.Match[str]) -> str:
        return values.get(match.group(1), "1")

    path = re.sub(
        r"\(\?P<(\w+)>([^)]*)\)",
        lambda m: values.get(m.group(1), _regex_value(m.group(2))),
        route.route,
    )
    path = "/" + re.sub(r"<(?:\w+:)?(\w+)>", converter, path).replace("^", "").replace("$", "")
    found = resolve(path)
    assert found.route == route.route.replace("^", ""), (route.route, path, found.route)
    return path
