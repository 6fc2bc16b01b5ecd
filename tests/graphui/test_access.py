"""Every Memory UI URL needs a login, and errors render as pages with their status and code."""

from __future__ import annotations

import re

import pytest
from django.urls import URLPattern, reverse

from graphui import urls as ui_urls

pytestmark = pytest.mark.django_db

SAMPLE_ARGS = {"ns": "proj", "session_id": "s1", "block_id": 1, "event_id": 1, "node_id": 1}
SAMPLE_ARGS |= {"message_id": 1, "import_id": 1, "receipt_pk": 1, "job_id": 1, "action": "pin"}
SAMPLE_ARGS |= {"token_id": 1}


def _ui_urls() -> list[str]:
    found = []
    for pattern in ui_urls.urlpatterns:
        assert isinstance(pattern, URLPattern)
        names = re.findall(r"<(?:\w+:)?(\w+)>", str(pattern.pattern))
        found.append(reverse(f"graphui:{pattern.name}", kwargs={n: SAMPLE_ARGS[n] for n in names}))
    return found


@pytest.mark.parametrize("url", _ui_urls())
@pytest.mark.parametrize("method", ["get", "post"])
def test_anonymous_visitors_are_sent_to_log_in(client, url, method):
    response = getattr(client, method)(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_the_login_page_and_the_language_switch_need_no_login(client):
    page = client.get("/accounts/login/")
    assert page.status_code == 200
    # The layout's time zone is for signed-in pages; no half sentence ("Times in") without it.
    assert "Times in" not in page.content.decode()
    response = client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/accounts/login/"})
    assert response.status_code == 302 and response["Location"] == "/accounts/login/"
    assert "登录" in client.get("/accounts/login/").content.decode()


def test_an_unknown_namespace_is_a_404_page_with_its_code(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("ada"))
    response = client.get(reverse("graphui:switch"), {"ns": "nowhere", "page": "timeline"})
    assert response.status_code == 404
    body = response.content.decode()
    assert "namespace_not_found" in body and "&#x27;nowhere&#x27;" in body


def test_the_api_keeps_bearer_tokens_and_never_redirects_to_the_login(client):
    response = client.get("/api/v1/ns/proj/health")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
