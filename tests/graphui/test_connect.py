"""The "Connect an agent" page: the proxy's two base URLs from the request's host, each
upstream's configuration (URL, never the key), snippets with the placeholder or a token just
created, and token creation (the namespace's admins, staff included; CSRF, one read-write token
bound to the namespace, shown once, one admin audit row; refused and nothing written for
everyone else: 404 without a grant, 403 `role_required` for a viewer or an editor)."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from graphui.snippets import TOKEN_PLACEHOLDER
from memory.models import AdminAction, AgentToken, Namespace, NamespaceGrant, Role
from memory.selectors.connect_view import PROXY_BASES, proxy_base_url
from memory.services.namespaces import namespace_get_or_create
from memory.services.tokens import token_authenticate, token_namespace
from tests.security.world import row_counts

pytestmark = pytest.mark.django_db

URL = "/ns/proj/connect/"
TOKEN = re.compile(r"sg_[0-9a-f]{8}_[A-Za-z0-9_-]{20,}")


@pytest.fixture(autouse=True)
def _data_dir(settings: Any, tmp_path: Any) -> None:
    settings.DATA_DIR = tmp_path  # the spool the page's traffic line reads
    settings.STRATAGATE_PROXY_OPENAI_URL = ""
    settings.STRATAGATE_PROXY_OPENAI_KEY = ""
    settings.STRATAGATE_PROXY_ANTHROPIC_URL = ""
    settings.STRATAGATE_PROXY_ANTHROPIC_KEY = ""
    settings.ALLOWED_HOSTS = ["testserver", "memory.example.com", "m.example"]


@pytest.fixture
def proj() -> Namespace:
    return namespace_get_or_create(name="proj")


@pytest.fixture
def staff(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


def member(django_user_model: Any, proj: Namespace, role: Role | None, name: str = "bob") -> Client:
    """A logged-in user who is not staff, with `role` in `proj` (None: no grant)."""
    user = django_user_model.objects.create_user(name)
    if role is not None:
        NamespaceGrant.objects.create(user=user, namespace=proj, role=role)
    other = Client()
    other.force_login(user)
    return other


@pytest.fixture
def reader(django_user_model: Any, proj: Namespace) -> Client:
    """A viewer of `proj`: reads the page, creates nothing."""
    return member(django_user_model, proj, Role.VIEWER)


def tokens_in(html: str) -> set[str]:
    return set(TOKEN.findall(unescape(html)))


# --- reading the page ------------------------------------------------------------------------


def test_the_page_shows_both_base_urls_built_from_the_request_host(
    reader: Client, proj: Namespace
) -> None:
    response = reader.get(URL, HTTP_HOST="memory.example.com")
    assert response.status_code == 200
    body = unescape(response.content.decode())
    openai_url = "http://memory.example.com/proxy/proj/openai/v1"
    anthropic_url = "http://memory.example.com/proxy/proj/anthropic"
    assert f'id="base-url-openai">{openai_url}</code>' in body
    assert f'id="base-url-anthropic">{anthropic_url}</code>' in body
    # The snippets: both SDKs, curl for both, the environment variables CLI agents read.
    assert f'OpenAI(\n    base_url="{openai_url}",\n    api_key="{TOKEN_PLACEHOLDER}",' in body
    assert "client.chat.completions.create(" in body
    assert (
        f'Anthropic(\n    base_url="{anthropic_url}",\n    api_key="{TOKEN_PLACEHOLDER}",' in body
    )
    assert f"curl {openai_url}/chat/completions" in body
    assert f'-H "Authorization: Bearer {TOKEN_PLACEHOLDER}"' in body
    assert f"curl {anthropic_url}/v1/messages" in body
    assert f'-H "x-api-key: {TOKEN_PLACEHOLDER}"' in body
    for line in (
        f'export OPENAI_BASE_URL="{openai_url}"',
        f'export OPENAI_API_KEY="{TOKEN_PLACEHOLDER}"',
        f'export ANTHROPIC_BASE_URL="{anthropic_url}"',
        f'export ANTHROPIC_API_KEY="{TOKEN_PLACEHOLDER}"',
        f'export ANTHROPIC_AUTH_TOKEN="{TOKEN_PLACEHOLDER}"',
    ):
        assert line in body
    for header in (
        "X-StrataGate-Session",
        "X-StrataGate-Memory: off",
        "X-StrataGate-Inject: off",
        "X-StrataGate-Capture: off",
    ):
        assert header in body
    assert tokens_in(body) == set()
    # Copy buttons wait for copy.js; without it the text stays selectable.
    assert body.count("data-copy=") >= 9 and "graphui/js/copy.js" in body


def test_the_base_urls_follow_https_and_the_proxy_routes(
    reader: Client, proj: Namespace, settings: Any
) -> None:
    from proxy.app import BASES, route_of

    assert PROXY_BASES == BASES
    for protocol in BASES:
        url = proxy_base_url("https://m.example/", "proj", protocol)
        route = route_of(url.removeprefix("https://m.example") + "/x")
        assert route is not None and (route.namespace, route.protocol) == ("proj", protocol)
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    body = reader.get(URL, HTTP_HOST="m.example", HTTP_X_FORWARDED_PROTO="https").content
    assert b"https://m.example/proxy/proj/openai/v1" in body


def test_each_upstream_shows_its_url_and_whether_the_server_has_a_key_never_the_key(
    reader: Client, proj: Namespace, settings: Any
) -> None:
    settings.STRATAGATE_PROXY_OPENAI_URL = "https://api.openai.com/v1"
    settings.STRATAGATE_PROXY_OPENAI_KEY = "sk-proj-Q7fZ2kLm9XwR4tYv8NbCaa"
    body = reader.get(URL).content.decode()
    openai = body[body.index('id="endpoint-openai"') : body.index('id="endpoint-anthropic"')]
    anthropic = body[body.index('id="endpoint-anthropic"') :]
    assert "https://api.openai.com/v1" in openai and "server key set" in openai
    assert "Q7fZ2kLm9XwR4tYv8NbC" not in body
    assert "not configured" in anthropic and "STRATAGATE_PROXY_ANTHROPIC_URL" in anthropic
    assert "clients send their own key" in anthropic


def test_credentials_in_an_upstream_url_are_redacted(
    reader: Client, proj: Namespace, settings: Any
) -> None:
    settings.STRATAGATE_PROXY_ANTHROPIC_URL = "https://user:hunter2secret@llm.internal/anthropic"
    body = reader.get(URL).content.decode()
    assert "hunter2secret" not in body and "llm.internal" in body


@pytest.mark.parametrize("role", [Role.VIEWER, Role.EDITOR])
def test_someone_below_admin_sees_how_to_get_a_token_and_no_button(
    django_user_model: Any, proj: Namespace, role: Role
) -> None:
    body = member(django_user_model, proj, role).get(URL).content.decode()
    assert 'id="create-token"' not in body
    assert "An admin of this namespace can create a token" in body
    assert "manage.py create_agent_token --namespace proj --scope read-write" in body


def test_a_namespace_admin_and_staff_see_the_button(
    django_user_model: Any, staff: Client, proj: Namespace
) -> None:
    for client in (member(django_user_model, proj, Role.ADMIN), staff):
        body = client.get(URL).content.decode()
        assert 'id="create-token"' in body
        assert "An admin of this namespace can create a token" not in body


def test_without_a_grant_the_page_does_not_exist(django_user_model: Any, proj: Namespace) -> None:
    response = member(django_user_model, proj, None).get(URL)
    assert response.status_code == 404 and b"namespace_not_found" in response.content


def test_an_unknown_namespace_is_a_404_page_and_anonymous_visitors_log_in(
    client: Client, reader: Client
) -> None:
    response = reader.get("/ns/nowhere/connect/")
    assert response.status_code == 404 and b"namespace_not_found" in response.content
    anonymous = Client()
    for method in (anonymous.get, anonymous.post):
        response = method(URL)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")


def test_the_page_is_linked_from_the_tabs_health_and_empty_lists(
    reader: Client, proj: Namespace
) -> None:
    for name in ("health", "sessions", "timeline"):
        body = reader.get(reverse(f"graphui:{name}", args=["proj"])).content.decode()
        assert body.count(f'href="{URL}"') >= 2, name  # the tab and the page's own link


# --- creating a token ------------------------------------------------------------------------


def test_staff_creates_one_read_write_token_for_this_namespace_shown_once(
    staff: Client, proj: Namespace
) -> None:
    namespace_get_or_create(name="other")
    response = staff.post(URL)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    body = response.content.decode()
    shown = tokens_in(body)
    assert len(shown) == 1
    raw = shown.pop()
    assert f'id="token-value">{raw}</code>' in body
    assert f'api_key="{raw}"' in unescape(body)  # the snippets carry it
    assert TOKEN_PLACEHOLDER not in body.split('id="snippets-title"')[1].split("</section>")[0]

    token = AgentToken.objects.get()
    assert (token.scope, token.label) == ("read-write", "connect page")
    assert [n.name for n in token.namespaces.all()] == ["proj"]
    found = token_authenticate(raw)
    assert found is not None and found.pk == token.pk
    assert token_namespace(found, "proj") is not None
    assert token_namespace(found, "other") is None

    action = AdminAction.objects.get()
    assert (action.namespace_id, action.actor, action.action) == (
        proj.pk,
        "user:ada",
        "token_create",
    )
    assert action.target == f"token:{token.pk}"
    assert action.details == {
        "scope": "read-write",
        "label": "connect page",
        "prefix": token.prefix,
        "installation": False,
        "namespaces": ["proj"],
        "expires_at": None,
    }
    assert raw not in str(action.details)

    # Never again: not on the next page, not in the session, not in a message.
    again = staff.get(URL).content.decode()
    assert tokens_in(again) == set() and raw not in again
    assert raw not in str(dict(staff.session))


def test_the_token_opens_the_proxy_for_this_namespace(staff: Client, proj: Namespace) -> None:
    from proxy.memory import access

    raw = tokens_in(staff.post(URL).content.decode()).pop()
    granted = access(raw, "proj")
    assert granted is not None


def test_each_post_creates_another_token(staff: Client, proj: Namespace) -> None:
    first = tokens_in(staff.post(URL).content.decode())
    second = tokens_in(staff.post(URL).content.decode())
    assert first != second
    assert AgentToken.objects.count() == 2 == AdminAction.objects.count()


def test_a_namespace_admin_creates_a_token_for_this_namespace(
    django_user_model: Any, proj: Namespace
) -> None:
    namespace_get_or_create(name="other")
    admin = member(django_user_model, proj, Role.ADMIN)
    response = admin.post(URL)
    assert response.status_code == 200
    raw = tokens_in(response.content.decode()).pop()
    token = AgentToken.objects.get()
    assert (token.scope, token.label, token.installation) == ("read-write", "connect page", False)
    assert [n.name for n in token.namespaces.all()] == ["proj"]
    found = token_authenticate(raw)
    assert found is not None and token_namespace(found, "other") is None
    action = AdminAction.objects.get()
    assert (action.namespace_id, action.actor, action.action) == (
        proj.pk,
        "user:bob",
        "token_create",
    )


@pytest.mark.parametrize(
    ("role", "status", "code"),
    [
        (None, 404, b"namespace_not_found"),
        (Role.VIEWER, 403, b"role_required"),
        (Role.EDITOR, 403, b"role_required"),
    ],
)
def test_someone_below_admin_cannot_create_a_token(
    django_user_model: Any, proj: Namespace, role: Role | None, status: int, code: bytes
) -> None:
    client = member(django_user_model, proj, role)
    before = row_counts()
    response = client.post(URL)
    assert response.status_code == status and code in response.content
    assert tokens_in(response.content.decode()) == set()
    assert row_counts() == before


def test_creating_a_token_needs_the_csrf_token(django_user_model: Any, proj: Namespace) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    before = row_counts()
    assert client.post(URL).status_code == 403
    assert row_counts() == before
    page = client.get(URL).content.decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert csrf is not None
    assert client.post(URL, {"csrfmiddlewaretoken": csrf.group(1)}).status_code == 200
    assert AgentToken.objects.count() == 1


def test_staff_posting_to_an_unknown_namespace_creates_nothing(staff: Client) -> None:
    before = row_counts()
    response = staff.post("/ns/nowhere/connect/")
    assert response.status_code == 404
    assert row_counts() == before


def test_the_admin_log_names_the_token_created(staff: Client, proj: Namespace) -> None:
    staff.post(URL)
    token = AgentToken.objects.get()
    body = staff.get(reverse("graphui:processing", args=["proj"])).content.decode()
    assert "Created an agent token" in body and f"agent token #{token.pk}" in body
