"""Nobody learns anything about a namespace they do not own (SPEC §15.1–15.2, issue 11 item 6).

Routes are enumerated, never listed: the API's operations from its OpenAPI schema, the site's URLs
from Django's resolver, the websocket routes from graphui.routing. Path parameters are filled
with real ids of a foreign namespace's objects, so a route that forgot its namespace check would
find the object and answer 200. A new route fails here until it is protected, or added to a
public allow-list below with its reason.

What the Memory UI does for a logged-in user and a namespace they hold no grant for
(graphui.access): it does not exist for them. Every page, partial, JSON endpoint and action that
takes a namespace answers exactly as for a name that exists nowhere (404 `namespace_not_found`),
the namespace list and the switcher leave it out, and the live-update socket closes with 4404.
What each role may do once granted is tests/graphui/test_roles.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import URLPattern, URLResolver
from django.utils import timezone

from graphui.routing import websocket_urlpatterns
from memory.models import AgentToken, NamespaceGrant, Role
from memory.services.namespaces import namespace_get_or_create
from memory.services.tokens import token_create
from tests.security.routes import (
    RANK,
    Operation,
    SiteRoute,
    api_operations,
    api_send,
    bearer,
    site_routes,
    site_url,
)
from tests.security.world import World, row_counts, world_build

pytestmark = pytest.mark.django_db

FOREIGN = "foreign"
LOGIN = "/accounts/login/?next="

# Routes anyone may fetch, each with why. Everything else needs a token (API) or a login (UI).
PUBLIC_API = {
    "api/": "ninja's root: a 404, nothing behind it",
    "api/openapi.json": "the schema describes operations, not memory; clients read it first",
    "api/docs": "the browsable schema (same content as openapi.json)",
    "api/<path:path>": "unknown API paths: a fixed 404 `not_found` envelope, nothing looked up",
}
PUBLIC_SITE = {
    "accounts/login/": "the login page itself",
    "i18n/setlang/": "the language switch, used on the login page (only sets a cookie)",
    "favicon.ico": "a redirect to a static file",
    "admin/login/": "Django admin's own login page",
}
# Django admin pages send anonymous visitors to our login or to admin's own login form.
ADMIN_LOGIN = "/admin/login/?next="

# What careless or hostile callers send to a foreign namespace: the answer never changes.
NUL = "\x00"
BODIES: dict[str, dict[str, Any]] = {
    "valid": {},
    "empty": {"body": {}},
    "wrong-types": {"body": {"query": 42, "messages": "x", "text": [], "block_lambda": "?"}},
    "not-json": {"raw": "{not json"},
    "nul-text": {"body": {"query": f"a{NUL}b", "session_id": NUL, "text": NUL}},
}


@pytest.fixture
def foreign() -> World:
    return world_build(FOREIGN)


@pytest.fixture
def own_admin() -> str:
    """An admin token of another namespace: the widest scope, so only the namespace refuses."""
    namespace_get_or_create(name="proj")
    _, raw = token_create(namespaces=["proj"], scope="admin")
    return raw


def _ops(world: World) -> list[Operation]:
    return api_operations({"session_id": world.session_id, "receipt_id": world.receipt_id})


def _api_refusals(
    client: Client, ops: list[Operation], values: dict[str, str], headers: dict[str, str]
) -> list[tuple[str, str, int, str]]:
    """(operation, variant, status, error code) of every answer, for the caller to check."""
    answers = []
    for op in ops:
        for variant, kwargs in BODIES.items():
            if op.method == "get" and variant not in ("valid", "nul-text"):
                continue
            if op.method == "get" and variant == "nul-text":
                kwargs = {"query": {**op.query, "session_id": NUL, "as_of": "x" * 5000}}
            response = api_send(client, op, values, headers=headers, **kwargs)
            code = response.json().get("error", {}).get("code", "") if _is_json(response) else ""
            answers.append((str(op), variant, response.status_code, code))
    return answers


def _is_json(response: Any) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


def test_every_api_route_is_an_operation_of_the_schema_or_public() -> None:
    """The resolver's API routes and the schema's operations are the same set, so walking the
    schema walks the whole API (a view mounted beside ninja would escape the checks below)."""
    in_schema = {"api/v1" + op.path.replace("{", "<").replace("}", ">") for op in api_operations()}
    routes = {r.route for r in site_routes() if r.route.startswith("api/")}
    unprotected = routes - in_schema - set(PUBLIC_API)
    assert not unprotected, f"API routes outside the schema and the public list: {unprotected}"
    assert in_schema <= routes


def test_a_foreign_namespace_is_404_on_every_operation_whatever_is_sent(
    foreign: World, own_admin: str
) -> None:
    ops = _ops(foreign)
    assert len([op for op in ops if op.namespaced]) >= 30
    before = row_counts()
    answers = _api_refusals(
        Client(), [op for op in ops if op.namespaced], foreign.path_values(), bearer(own_admin)
    )
    wrong = [a for a in answers if a[2:] != (404, "namespace_not_found")]
    assert not wrong, wrong
    assert row_counts() == before


def test_a_foreign_namespace_in_the_path_itself_is_404_even_when_it_cannot_exist(
    own_admin: str,
) -> None:
    """Names no namespace can have (a NUL byte, a slash-free 5,000-character name) look exactly
    like an unknown one, on every database."""
    values = {"ns": "", "session_id": "s1", "block_id": "1", "event_id": "1", "node_id": "1"}
    values |= {"job_id": "1", "import_id": "1"}
    for name in (f"proj{NUL}x", "p" * 5000, "ünïcode", "a b"):
        for op in [op for op in api_operations() if op.namespaced]:
            response = api_send(Client(), op, values | {"ns": name}, headers=bearer(own_admin))
            assert (response.status_code, response.json()["error"]["code"]) == (
                404,
                "namespace_not_found",
            ), (str(op), name[:20], response.content[:200])


def test_no_token_or_a_dead_token_is_401_on_every_operation(foreign: World) -> None:
    token, revoked = token_create(namespaces=[FOREIGN], scope="admin")
    AgentToken.objects.filter(pk=token.pk).update(revoked_at=timezone.now())
    before = row_counts()
    for headers in (
        {},
        bearer("sg_not-a-token"),
        bearer(revoked),
        {"HTTP_AUTHORIZATION": "Basic x"},
    ):
        answers = _api_refusals(Client(), _ops(foreign), foreign.path_values(), headers)
        wrong = [a for a in answers if a[2:] != (401, "unauthorized")]
        assert not wrong, (headers, wrong)
    assert row_counts() == before


def test_too_small_a_scope_is_403_on_every_operation_that_needs_more(foreign: World) -> None:
    """Tokens bound to the namespace itself, one per scope below what the operation needs."""
    tokens = {scope: token_create(namespaces=[FOREIGN], scope=scope)[1] for scope in RANK}
    before = row_counts()
    checked = 0
    for op in _ops(foreign):
        for scope, raw in tokens.items():
            if RANK[scope] >= RANK.get(op.scope, 0):
                continue
            answers = _api_refusals(Client(), [op], foreign.path_values(), bearer(raw))
            wrong = [a for a in answers if a[2:] != (403, "insufficient_scope")]
            assert not wrong, (scope, wrong)
            checked += 1
    assert checked >= 20
    assert row_counts() == before


def test_the_right_token_gets_past_access_on_every_operation(foreign: World) -> None:
    """The ids above are real: with a token of the namespace, no operation refuses access (so
    the 404s above come from the namespace check, not from made-up ids). An installation token,
    so that PUT /settings (installation-wide) is let through too."""
    _, raw = token_create(namespaces=[FOREIGN], scope="admin", installation=True)
    for op in _ops(foreign):
        response = api_send(Client(), op, foreign.path_values(), headers=bearer(raw))
        code = response.json().get("error", {}).get("code") if _is_json(response) else None
        assert response.status_code < 500, (str(op), response.content[:300])
        assert response.status_code not in (401, 403), (str(op), response.content[:300])
        assert code != "namespace_not_found", str(op)


# --- the Memory UI and the rest of the site ----------------------------------------------------


def _site(world: World) -> list[tuple[SiteRoute, str]]:
    return [
        (route, site_url(route, world.path_values()))
        for route in site_routes()
        if not route.route.startswith("api/")
    ]


def test_every_site_url_sends_anonymous_visitors_to_log_in(foreign: World) -> None:
    client = Client()
    before = row_counts()
    checked = 0
    for route, url in _site(foreign):
        if route.route in PUBLIC_SITE:
            assert client.get(url).status_code in (200, 302), route
            continue
        logins = (LOGIN, ADMIN_LOGIN) if route.route.startswith("admin/") else (LOGIN,)
        for method in ("get", "post"):
            response = getattr(client, method)(url)
            assert response.status_code == 302, (method, str(route), response.status_code)
            assert response["Location"].startswith(logins), (method, str(route))
            checked += 1
    assert checked >= 2 * 28
    assert row_counts() == before


def test_the_public_allow_lists_name_only_routes_that_exist() -> None:
    routes = {r.route for r in site_routes()}
    assert set(PUBLIC_API) | set(PUBLIC_SITE) <= routes


def _answer(response: Any) -> tuple[int, bool]:
    return response.status_code, b"namespace_not_found" in response.content


def test_a_namespace_without_a_grant_is_a_404_on_every_ui_url(
    foreign: World, django_user_model: Any
) -> None:
    """Mallory, who is not staff, is a viewer of her own namespace and holds no grant for
    `foreign`: every UI URL that takes a namespace, by GET and by POST, answers exactly as it
    does for a namespace that exists nowhere (404 `namespace_not_found`, or 405 where the
    method is refused before anything is looked up), and nothing is written."""
    own = namespace_get_or_create(name="proj")
    mallory = django_user_model.objects.create_user("mallory")
    NamespaceGrant.objects.create(user=mallory, namespace=own, role=Role.VIEWER)
    client = Client()
    client.force_login(mallory)
    before = row_counts()
    namespaced = [(r, u) for r, u in _site(foreign) if "<str:ns>" in r.route]
    assert len(namespaced) >= 25
    not_found = 0
    for route, url in namespaced:
        unknown_url = url.replace(f"/ns/{FOREIGN}/", "/ns/nowhere/", 1)
        statuses = set()
        for method in (client.get, client.post):
            answer, unknown = _answer(method(url)), _answer(method(unknown_url))
            assert answer == unknown, (str(route), method.__name__, answer, unknown)
            assert answer in ((404, True), (405, False)), (str(route), method.__name__, answer)
            statuses.add(answer[0])
        assert 404 in statuses, str(route)  # one of GET and POST reaches the namespace check
        not_found += 1
    assert not_found == len(namespaced)
    # The switcher and the namespace list do not know it either; her own namespace is there.
    switch = client.get("/switch/", {"ns": FOREIGN, "page": "timeline"})
    assert _answer(switch) == (404, True)
    assert client.get("/switch/", {"ns": "proj", "page": "timeline"}).status_code == 302
    listing = client.get("/").content.decode()
    assert f'href="/ns/{FOREIGN}/"' not in listing and 'href="/ns/proj/"' in listing
    # Installation-wide actions stay staff-only.
    response = client.post("/settings/", {"block_lambda": "0.30", "block_turns": "6"})
    assert response.status_code == 403 and b"staff_required" in response.content
    assert row_counts() == before


# --- the live-update websocket -------------------------------------------------------------------


def _socket_paths() -> list[str]:
    paths = []
    for pattern in websocket_urlpatterns:
        assert isinstance(pattern, URLPattern) and not isinstance(pattern, URLResolver)
        paths.append("/" + str(pattern.pattern).replace("<str:ns>", FOREIGN))
    return paths


async def _connect(path: str, cookie: str = "") -> tuple[bool, Any]:
    from stratagate_site.asgi import application

    headers = [(b"origin", b"http://localhost"), (b"host", b"localhost")]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    output = None
    if connected and not await communicator.receive_nothing(timeout=0.3):
        output = await communicator.receive_output()
    await communicator.disconnect()
    return connected, output


@pytest.mark.django_db(transaction=True)
def test_anonymous_websockets_are_refused_on_every_route(settings: Any) -> None:
    """Through the whole ASGI application (origin check, session auth, router): the consumer
    accepts, then closes with 4401 before joining a group or sending anything."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    namespace_get_or_create(name=FOREIGN)
    paths = _socket_paths()
    assert paths
    for path in paths:
        connected, output = async_to_sync(_connect)(path)
        assert connected and output == {"type": "websocket.close", "code": 4401}, path


@pytest.mark.django_db(transaction=True)
def test_a_logged_in_socket_follows_the_same_grants_as_its_pages(
    settings: Any, django_user_model: Any
) -> None:
    """Like the pages: without a grant the namespace does not exist (closed with 4404, as an
    unknown one is); a viewer's socket is accepted and stays open."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    foreign = namespace_get_or_create(name=FOREIGN)
    mallory = django_user_model.objects.create_user("mallory")
    client = Client()
    client.force_login(mallory)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    refused = {"type": "websocket.close", "code": 4404}
    for path in _socket_paths():
        _, closed = async_to_sync(_connect)(path, cookie)
        assert closed == refused, (path, closed)
        unknown = path.replace(f"/{FOREIGN}/", "/nowhere/")
        _, closed = async_to_sync(_connect)(unknown, cookie)
        assert closed == refused, unknown
    NamespaceGrant.objects.create(user=mallory, namespace=foreign, role=Role.VIEWER)
    for path in _socket_paths():
        connected, output = async_to_sync(_connect)(path, cookie)
        assert connected and output is None, (path, output)
