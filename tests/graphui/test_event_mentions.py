"""The event page and the timeline show how often a fact was stated (issue 29): "mentioned N
times", with each mention's time, session and source messages."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import Event, EventStatus
from tests.conftest import ApiClient
from tests.services.test_event_mentions import SESSIONS, _replay

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


def test_event_page_and_timeline_show_the_mentions(
    owner: ApiClient, drain, ada: Client, django_assert_max_num_queries
) -> None:
    _replay(owner, drain)
    event = Event.objects.filter(status=EventStatus.ACTIVE).order_by("pk").first()
    assert event is not None

    with django_assert_max_num_queries(26):
        page = ada.get(reverse("graphui:event", args=["proj", event.pk]))
    assert page.status_code == 200
    html = unescape(page.content.decode())
    assert f"Mentioned {SESSIONS} times" in html
    assert f"mentioned {SESSIONS} times, last" in html
    section = html[html.index('id="mentions"') : html.index('id="sources"')]
    for session in ("s1", "s2", "s3", "s4"):
        assert f"<code>{session}</code>" in section
    assert section.count("hl=") == SESSIONS  # each mention links to its own messages

    timeline = unescape(ada.get(reverse("graphui:timeline", args=["proj"])).content.decode())
    assert timeline.count(f"mentioned {SESSIONS} times, last") == 4
