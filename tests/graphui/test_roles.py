"""Per-user namespace access in the Memory UI (issue 26 §1), walked over every URL.

Every UI URL pattern that takes a namespace comes from the resolver and is filled with real ids
of a small world (tests/security/world.py: a session with a ready block, a message, a pinned
event, a graph node, a committed import, a failed job, a usage receipt; plus a previewed import
not yet committed). Each is fetched by GET, and the action URLs by POST too, as five people:

    none     logged in, no grant here (an admin elsewhere): 404 `namespace_not_found` everywhere
    viewer   every read page; 403 `role_required` on every write and its confirmation page
    editor   + block expansion, import create / commit / undo
    admin    + pin / forget / restore, job retries (one and all), a token on the Connect page
    staff    everything, without a grant

(405 where the method is refused before anything is looked up, the same for everyone.) A route
missing from `EXPECTED` fails the walk until someone says what it needs. Each request runs in a
savepoint rolled back afterwards, so every person meets the same world; a refused request is
checked to have written nothing, an allowed action to have written something. Run with -s to
see the table.

Also: the namespace list, the switcher and the settings page's namespace picker show only
granted namespaces, and the agent tokens page is for staff alone.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import transaction
from django.test import Client

from memory.models import ImportBatch, Namespace, NamespaceGrant, Role
from memory.services.imports import import_create
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.tokens import token_create
from tests.security.routes import SiteRoute, site_routes, site_url
from tests.security.world import World, row_counts, world_build

pytestmark = pytest.mark.django_db

NS = "proj"
PEOPLE = ("none", "viewer", "editor", "admin", "staff")
RANK = {"none": 0, "viewer": 1, "editor": 2, "admin": 3, "staff": 4}
NEED_RANK = {Role.VIEWER: 1, Role.EDITOR: 2, Role.ADMIN: 3}
METHOD_NOT_ALLOWED = 405  # refused by the method check, before anything is looked up

V, E, A = Role.VIEWER, Role.EDITOR, Role.ADMIN
# method → (the role it needs, the status when allowed), or 405 for everyone.
type Spec = dict[str, tuple[Role, int] | int]
READ: Spec = {"get": (V, 200)}
REDIRECT: Spec = {"get": (V, 302)}  # a link that redirects to its page

EXPECTED: dict[str, Spec] = {
    "health": READ,
    "connect": {"get": (V, 200), "post": (A, 200)},
    "sessions": READ,
    "session": READ,
    "block": REDIRECT,
    "expand": {"get": METHOD_NOT_ALLOWED, "post": (E, 302)},
    "message": REDIRECT,
    "timeline": READ,
    "event": READ,
    "search": READ,
    "graph": READ,
    "graph_data": READ,
    "node": READ,
    "imports": {"get": (V, 200), "post": (E, 302)},
    "import": READ,
    "import_status": READ,
    "import_commit": {"get": METHOD_NOT_ALLOWED, "post": (E, 302)},
    "import_undo": {"get": (E, 200), "post": (E, 302)},
    "audit": READ,
    "receipt": READ,
    "event_usage": READ,
    "event_action": {"get": (A, 200), "post": (A, 302)},
    "processing": READ,
    "job_retry": {"get": METHOD_NOT_ALLOWED, "post": (A, 302)},
    "jobs_retry_failed": {"get": (A, 200), "post": (A, 302)},
}

TEA = {"memoryKind": "fact", "title": "Prefers tea", "summary": "I prefer tea in the morning."}


def _v2(*candidates: dict[str, Any]) -> str:
    return json.dumps(
        {
            "schemaVersion": "stratagate.external-memory.v2",
            "sourceType": "external_ai_memory_export",
            "sourceSystem": "TestAI",
            "candidates": list(candidates),
        }
    )


# What each action is sent: a valid request, so an allowed one succeeds.
POST_DATA: dict[str, dict[str, str]] = {
    "expand": {"target": "L5"},
    "imports": {"text": _v2(TEA), "format": "auto"},
}


@dataclass(frozen=True)
class Place:
    world: World
    pending_import_id: int  # a previewed import not committed yet, for the commit URL


def _person(django_user_model: Any, who: str, namespace: Namespace, elsewhere: Namespace) -> Client:
    user = django_user_model.objects.create_user(f"{who}-user", is_staff=who == "staff")
    if who in ("viewer", "editor", "admin"):
        NamespaceGrant.objects.create(user=user, namespace=namespace, role=who)
    if who == "none":  # a member of another namespace, not of this one
        NamespaceGrant.objects.create(user=user, namespace=elsewhere, role=Role.ADMIN)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def place() -> Place:
    world = world_build(NS)
    pending = import_create(namespace=world.namespace, text=_v2(TEA), created_by="token:test")
    jobs_drain()
    assert ImportBatch.objects.get(pk=pending.pk).status in ("ready", "awaiting_confirmation")
    return Place(world=world, pending_import_id=pending.pk)


@pytest.fixture
def people(place: Place, django_user_model: Any) -> dict[str, Client]:
    elsewhere = namespace_get_or_create(name="elsewhere")
    return {
        who: _person(django_user_model, who, place.world.namespace, elsewhere) for who in PEOPLE
    }


def _namespaced_routes() -> list[SiteRoute]:
    return [
        route
        for route in site_routes()
        if route.name.startswith("graphui:") and "ns" in route.parameters
    ]


def _url(route: SiteRoute, place: Place) -> str:
    values = place.world.path_values() | {"action": "forget"}  # the world's event is pinned
    if route.name == "graphui:import_commit":
        values["import_id"] = str(place.pending_import_id)
    return site_url(route, values)


def _expected(spec: tuple[Role, int] | int, who: str) -> int:
    if isinstance(spec, int):
        return spec
    need, allowed = spec
    if who == "none":
        return 404
    return allowed if RANK[who] >= NEED_RANK[need] else 403


def _send(client: Client, method: str, url: str, data: dict[str, str]) -> tuple[Any, bool]:
    """The answer, and whether the request left every row as it was; rolled back either way."""
    with transaction.atomic():
        before = row_counts()
        response = getattr(client, method)(url, data if method == "post" else None)
        unchanged = row_counts() == before
        transaction.set_rollback(True)
    return response, unchanged


def _code(response: Any) -> bytes:
    if response.status_code == 404:
        return b"namespace_not_found"
    if response.status_code == 403:
        return b"role_required"
    return b""


def test_every_namespaced_ui_url_answers_each_role_as_its_grant_says(
    place: Place, people: dict[str, Client]
) -> None:
    routes = _namespaced_routes()
    names = {route.name.removeprefix("graphui:") for route in routes}
    assert names == set(EXPECTED), (
        "classify every namespaced UI route in EXPECTED",
        names ^ set(EXPECTED),
    )
    rows: list[tuple[str, str, list[int]]] = []
    checked: Counter[str] = Counter()
    allowed: Counter[str] = Counter()
    wrong = []
    for route in sorted(routes, key=lambda r: r.route):
        name = route.name.removeprefix("graphui:")
        url = _url(route, place)
        for method, spec in EXPECTED[name].items():
            statuses = []
            for who in PEOPLE:
                want = _expected(spec, who)
                response, unchanged = _send(people[who], method, url, POST_DATA.get(name, {}))
                got = response.status_code
                statuses.append(got)
                checked[who] += 1
                allowed[who] += want < 400
                if got != want:
                    wrong.append((who, method.upper(), url, want, got))
                elif _code(response) not in response.content:
                    wrong.append((who, method.upper(), url, want, "no error code"))
                elif want >= 400 and not unchanged:
                    wrong.append((who, method.upper(), url, want, "refused, but wrote"))
                elif want < 400 and method == "post" and unchanged:
                    wrong.append((who, method.upper(), url, want, "allowed, but wrote nothing"))
            rows.append((method.upper(), route.route, statuses))
    _print_table(rows, checked, allowed)
    assert not wrong, wrong
    assert len(routes) >= 25


def _print_table(
    rows: list[tuple[str, str, list[int]]], checked: Counter[str], allowed: Counter[str]
) -> None:
    width = max(len(route) for _, route, _ in rows) + 1
    print()
    print(f"{'':6} {'URL pattern':{width}} " + " ".join(f"{who:>6}" for who in PEOPLE))
    for method, route, statuses in rows:
        print(f"{method:6} {'/' + route:{width}} " + " ".join(f"{s:>6}" for s in statuses))
    urls = len({route for _, route, _ in rows})
    print(f"{urls} URLs, {len(rows)} (URL, method) pairs, {sum(checked.values())} expectations")
    for who in PEOPLE:
        print(f"  {who:7} {checked[who]} checked, {allowed[who]} allowed")


# --- lists and pickers ---------------------------------------------------------------------------


def _options(html: str, select_id: str) -> list[str]:
    found = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', html, re.S)
    assert found, select_id
    return re.findall(r'<option value="([^"]*)"', found.group(1))


def _listed(html: str) -> list[str]:
    return re.findall(r'<th scope="row" class="ns-name"><a href="/ns/([^/"]+)/"', html)


def test_the_namespace_list_the_switcher_and_the_settings_picker_show_granted_namespaces(
    django_user_model: Any,
) -> None:
    names = ("alpha", "beta", "gamma")
    spaces = {name: namespace_get_or_create(name=name) for name in names}
    cases = {
        "nobody": (False, {}),
        "one": (False, {"beta": Role.VIEWER}),
        "two": (False, {"alpha": Role.ADMIN, "gamma": Role.EDITOR}),
        "staff": (True, {}),
    }
    for username, (staff, grants) in cases.items():
        user = django_user_model.objects.create_user(username, is_staff=staff)
        for name, role in grants.items():
            NamespaceGrant.objects.create(user=user, namespace=spaces[name], role=role)
        client = Client()
        client.force_login(user)
        visible = list(names) if staff else sorted(grants)
        hidden = sorted(set(names) - set(visible))

        listing = client.get("/").content.decode()
        assert _listed(listing) == visible, username
        assert _options(listing, "ns-switch") == ["", *visible], username  # "Choose…" first
        for name in visible:  # on a namespace's own page, too
            health = client.get(f"/ns/{name}/").content.decode()
            assert _options(health, "ns-switch") == visible, (username, name)
        for name in hidden:
            switch = client.get("/switch/", {"ns": name, "page": "timeline"})
            assert switch.status_code == 404, (username, name)

        for wanted in names:  # a namespace asked for by name is only offered when granted
            page = client.get("/settings/", {"ns": wanted})
            assert page.status_code == 200, username
            html = page.content.decode()
            if visible:
                picker = _options(html, "id_ns")
                assert picker == visible, (username, wanted)
                chosen = re.search(
                    r'<option value="([^"]*)" selected>', html.split('id="id_ns"')[1]
                )
                assert chosen and chosen.group(1) == (wanted if wanted in visible else visible[0])
            else:
                assert 'id="id_ns"' not in html, username
            preview = client.get("/settings/", {"ns": wanted, "partial": "preview"})
            assert preview.status_code == 200, username
            for name in hidden:
                assert f'value="{name}"' not in html, (username, name)
                assert f'value="{name}"' not in preview.content.decode(), (username, name)


def test_the_tokens_page_is_for_staff_alone(django_user_model: Any) -> None:
    proj = namespace_get_or_create(name=NS)
    token, _ = token_create(namespaces=[NS], scope="read", label="walk")
    urls = ["/tokens/", f"/tokens/{token.pk}/revoke/"]
    for who in PEOPLE:
        client = _person(django_user_model, who, proj, namespace_get_or_create(name="elsewhere"))
        for url in urls:
            if who == "staff":
                assert client.get(url).status_code == 200, url
                continue
            before = row_counts()
            for response in (
                client.get(url),
                client.post(url, {"namespaces": NS, "scope": "read", "label": "x"}),
            ):
                assert response.status_code == 403, (who, url)
                assert b"staff_required" in response.content, (who, url)
            assert row_counts() == before, (who, url)
