"""Admin actions on an event from the Memory UI (SPEC §5.4, §6.4, §13): a confirmation page that
says what will happen, POSTs by the namespace's admins (staff included) through
`event_lifecycle` with an admin audit row, and graph state and the timeline following the
event's status at once. Without a grant the pages are 404; a viewer or an editor gets 403
`role_required`."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import AdminAction, Event, GraphNode, Namespace, NamespaceGrant, Role
from memory.selectors.graph import node_state
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.browser.hostile import PROBES, hostile_namespace_create

pytestmark = pytest.mark.django_db

# One sealed block: the offline processor turns it into events (npm superseded by pnpm, a
# PostgreSQL decision, a plan) and a `project` node with package_manager npm (historical) and
# pnpm (current), each supported by its own event alone.
TURNS = [
    ("Use npm for this project.", "OK, npm it is."),
    ("Let's switch to pnpm, npm is too slow.", "Switched the package manager to pnpm."),
    ("We decided to move the database to Postgres on 2023-05-08.", "Postgres migration planned."),
    ("Finish the prototype next week.", "Noted, prototype next week."),
    ("我们决定用数据库 PostgreSQL 存储用户数据。", "好的，数据库改为 PostgreSQL。"),
    ("Nothing else today.", "Fine."),
]


@pytest.fixture
def staff(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


def member_with(django_user_model: Any, role: Role | None, name: str = "bob") -> Client:
    """A logged-in user who is not staff, with `role` in namespace proj (None: no grant)."""
    user = django_user_model.objects.create_user(name)
    if role is not None:
        namespace = Namespace.objects.get(name="proj")
        NamespaceGrant.objects.create(user=user, namespace=namespace, role=role)
    other = Client()
    other.force_login(user)
    return other


@pytest.fixture
def member(django_user_model: Any, proj: Namespace) -> Client:
    """A viewer of proj: reads every page, may not pin, forget or restore."""
    return member_with(django_user_model, Role.VIEWER)


@pytest.fixture
def proj() -> Namespace:
    namespace = namespace_get_or_create(name="proj")
    for n, (user, assistant) in enumerate(TURNS, start=1):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="s1",
                receipt_id=f"r{n}",
                messages=[
                    MessageIn(role="user", content=user),
                    MessageIn(role="assistant", content=assistant),
                ],
            ),
        )
    jobs_drain()
    return namespace


@pytest.fixture
def pnpm(proj: Namespace) -> Event:
    return Event.objects.get(namespace=proj, title__icontains="pnpm")


@pytest.fixture
def npm(proj: Namespace) -> Event:
    return Event.objects.get(namespace=proj, title__icontains="npm", status="superseded")


def project_node(namespace: Namespace) -> GraphNode:
    return GraphNode.objects.get(namespace=namespace, name="project")


def current_facts(namespace: Namespace) -> set[tuple[str, str]]:
    return {(f.key, f.value) for f in node_state(project_node(namespace)).current_facts}


def url(event: Event, action: str) -> str:
    return reverse("graphui:event_action", args=["proj", event.pk, action])


def node_page(client: Client, namespace: Namespace) -> str:
    node = project_node(namespace)
    return client.get(reverse("graphui:node", args=["proj", node.pk])).content.decode()


def timeline_ids(client: Client) -> list[int]:
    html = client.get(reverse("graphui:timeline", args=["proj"])).content.decode()
    return [int(i) for i in re.findall(r'<li class="ev [^"]*" id="event-(\d+)"', html)]


# --- confirmation pages -------------------------------------------------------------------------


def test_forget_confirmation_says_what_happens_and_which_facts_leave(
    staff: Client, pnpm: Event
) -> None:
    response = staff.get(url(pnpm, "forget"))
    assert response.status_code == 200
    html = response.content.decode()
    assert f"Forget event #{pnpm.pk} ‘{pnpm.title}’?" in html
    assert (
        "It leaves retrieval, its weight becomes 0, and the graph facts it alone supports leave "
        "the current state. You can restore it later."
    ) in html
    changes = html[html.index('class="grid graph-changes"') :].split("</table>")[0]
    assert "package_manager: pnpm" in changes and "uses → pnpm" in changes
    assert "package_manager: npm" not in changes  # another event's fact
    assert changes.count("current</span>") == 2 and changes.count("hidden</span>") == 2
    assert f'action="{url(pnpm, "forget")}"' in html and "csrfmiddlewaretoken" in html
    assert f"Forget event #{pnpm.pk}</button>" in html


def test_restore_confirmation_says_active_or_still_superseded(
    staff: Client, pnpm: Event, npm: Event
) -> None:
    Event.objects.filter(pk__in=[pnpm.pk, npm.pk]).update(status="forgotten")
    html = staff.get(url(npm, "restore")).content.decode()
    assert f"Restore event #{npm.pk}" in html
    assert "comes back to retrieval as active" in html  # its superseder is forgotten too
    Event.objects.filter(pk=pnpm.pk).update(status="active")
    html = staff.get(url(npm, "restore")).content.decode()
    assert f"It comes back as superseded, because event #{pnpm.pk} that replaced it" in html


def test_pin_and_unpin_confirmations(staff: Client, pnpm: Event) -> None:
    html = staff.get(url(pnpm, "pin")).content.decode()
    assert f"Pin event #{pnpm.pk} ‘{pnpm.title}’?" in html
    assert "Its weight becomes 1 whatever its age, and it always enters activated memory." in html
    html = staff.get(url(pnpm, "unpin")).content.decode()
    assert f"Unpin event #{pnpm.pk}" in html
    assert "It is not pinned: confirming changes nothing." in html


def test_confirmation_pages_never_write(staff: Client, pnpm: Event) -> None:
    for action in ("pin", "unpin", "forget", "restore"):
        staff.get(url(pnpm, action))
    pnpm.refresh_from_db()
    assert (pnpm.status, pnpm.pinned) == ("active", False)
    assert AdminAction.objects.count() == 0


def test_unknown_action_or_event_is_a_404(staff: Client, pnpm: Event) -> None:
    for action in ("archive", "delete", "PIN"):
        response = staff.get(url(pnpm, action))
        assert response.status_code == 404, action
        assert "action_not_found" in response.content.decode()
        assert staff.post(url(pnpm, action)).status_code == 404
    other = namespace_get_or_create(name="other")
    missing = reverse("graphui:event_action", args=[other.name, pnpm.pk, "forget"])
    assert staff.get(missing).status_code == 404
    pnpm.refresh_from_db()
    assert pnpm.status == "active" and AdminAction.objects.count() == 0


# --- doing it ------------------------------------------------------------------------------------


def test_staff_forgets_and_graph_and_timeline_follow_then_restore_brings_them_back(
    staff: Client, proj: Namespace, pnpm: Event
) -> None:
    assert ("package_manager", "pnpm") in current_facts(proj)
    assert pnpm.pk in timeline_ids(staff)
    assert '<span class="fact-value">pnpm</span>' in node_page(staff, proj)

    response = staff.post(url(pnpm, "forget"))
    assert response.status_code == 302
    assert response["Location"] == reverse("graphui:event", args=["proj", pnpm.pk])
    followed = staff.get(response["Location"]).content.decode()  # shows the message once
    assert f"Event #{pnpm.pk} is forgotten: it left retrieval and its weight is 0." in followed
    assert "2 graph facts or edges changed state." in followed
    assert url(pnpm, "restore") in followed and url(pnpm, "forget") not in followed
    pnpm.refresh_from_db()
    assert pnpm.status == "forgotten"
    action = AdminAction.objects.get()
    assert (action.actor, action.action, action.target) == (
        "user:ada",
        "forget",
        f"event:{pnpm.pk}",
    )
    assert action.details["after"]["status"] == "forgotten"
    # Graph state is derived from the event's status: the fact it alone supported left.
    assert ("package_manager", "pnpm") not in current_facts(proj)
    assert ("package_manager", "npm") not in current_facts(proj)  # still superseded history
    assert pnpm.pk not in timeline_ids(staff)
    assert '<span class="fact-value">pnpm</span>' not in node_page(staff, proj)

    response = staff.post(url(pnpm, "restore"))
    assert response.status_code == 302
    pnpm.refresh_from_db()
    assert pnpm.status == "active"
    assert ("package_manager", "pnpm") in current_facts(proj)
    assert pnpm.pk in timeline_ids(staff)
    assert '<span class="fact-value">pnpm</span>' in node_page(staff, proj)
    assert list(AdminAction.objects.values_list("action", flat=True)) == ["restore", "forget"]


def test_staff_pins_and_unpins(staff: Client, pnpm: Event) -> None:
    staff.post(url(pnpm, "pin"))
    pnpm.refresh_from_db()
    assert pnpm.pinned
    event_html = staff.get(reverse("graphui:event", args=["proj", pnpm.pk])).content.decode()
    assert url(pnpm, "unpin") in event_html and url(pnpm, "pin") not in event_html
    staff.post(url(pnpm, "unpin"))
    pnpm.refresh_from_db()
    assert not pnpm.pinned
    rows = list(AdminAction.objects.order_by("pk").values_list("action", "actor", "details"))
    assert [(a, who) for a, who, _ in rows] == [("pin", "user:ada"), ("unpin", "user:ada")]
    assert rows[0][2] == {
        "before": {"status": "active", "pinned": False},
        "after": {"status": "active", "pinned": True},
    }


def test_restoring_a_visible_event_is_a_409_that_writes_nothing(staff: Client, pnpm: Event) -> None:
    page = staff.get(url(pnpm, "restore"))
    assert page.status_code == 409
    assert "only forgotten or archived events can be restored" in page.content.decode()
    assert '<form method="post"' not in page.content.decode().split("<main")[1]
    response = staff.post(url(pnpm, "restore"))
    assert response.status_code == 409
    html = response.content.decode()
    assert f"Event #{pnpm.pk} is active: only forgotten or archived events can be restored." in html
    assert "event_not_hidden" in html
    pnpm.refresh_from_db()
    assert pnpm.status == "active" and AdminAction.objects.count() == 0


@pytest.mark.parametrize(
    ("role", "status", "code"),
    [
        (None, 404, "namespace_not_found"),
        (Role.VIEWER, 403, "role_required"),
        (Role.EDITOR, 403, "role_required"),
    ],
)
def test_anyone_below_admin_is_refused_and_nothing_changes(
    django_user_model: Any, pnpm: Event, role: Role | None, status: int, code: str
) -> None:
    client = member_with(django_user_model, role)
    for action in ("pin", "forget"):
        assert client.get(url(pnpm, action)).status_code == status
        response = client.post(url(pnpm, action))
        assert response.status_code == status
        assert code in response.content.decode()
    pnpm.refresh_from_db()
    assert (pnpm.status, pnpm.pinned) == ("active", False)
    assert AdminAction.objects.count() == 0


def test_a_namespace_admin_pins_and_forgets(django_user_model: Any, pnpm: Event) -> None:
    admin = member_with(django_user_model, Role.ADMIN)
    assert admin.get(url(pnpm, "forget")).status_code == 200
    assert admin.post(url(pnpm, "pin")).status_code == 302
    assert admin.post(url(pnpm, "forget")).status_code == 302
    pnpm.refresh_from_db()
    assert (pnpm.status, pnpm.pinned) == ("forgotten", True)
    rows = list(AdminAction.objects.order_by("pk").values_list("action", "actor"))
    assert rows == [("pin", "user:bob"), ("forget", "user:bob")]


def test_actions_need_a_csrf_token(django_user_model: Any, pnpm: Event) -> None:
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    assert strict.post(url(pnpm, "forget")).status_code == 403
    pnpm.refresh_from_db()
    assert pnpm.status == "active" and AdminAction.objects.count() == 0


# --- where the buttons are ----------------------------------------------------------------------


def test_event_page_and_timeline_cards_offer_actions_to_admins_only(
    staff: Client, member: Client, pnpm: Event, npm: Event
) -> None:
    event_url = reverse("graphui:event", args=["proj", pnpm.pk])
    html = staff.get(event_url).content.decode()
    actions = html[html.index('class="event-actions"') :].split("</p>")[0]
    assert url(pnpm, "pin") in actions and url(pnpm, "forget") in actions
    assert url(pnpm, "restore") not in actions
    timeline = staff.get(reverse("graphui:timeline", args=["proj"])).content.decode()
    card = timeline[timeline.index(f'id="event-{npm.pk}"') :].split("</article>")[0]
    assert 'class="event-actions compact"' in card and url(npm, "forget") in card

    # A viewer reads both pages, without the actions.
    event_page = member.get(event_url)
    timeline_page = member.get(reverse("graphui:timeline", args=["proj"]))
    assert event_page.status_code == timeline_page.status_code == 200
    assert pnpm.title in event_page.content.decode()
    assert f'id="event-{npm.pk}"' in timeline_page.content.decode()
    assert "event-actions" not in event_page.content.decode()
    assert "event-actions" not in timeline_page.content.decode()


def test_a_forgotten_card_offers_restore(staff: Client, pnpm: Event) -> None:
    Event.objects.filter(pk=pnpm.pk).update(status="forgotten", pinned=True)
    timeline = staff.get(reverse("graphui:timeline", args=["proj"]), {"status": "forgotten"})
    card = timeline.content.decode().split(f'id="event-{pnpm.pk}"')[1].split("</article>")[0]
    assert url(pnpm, "restore") in card and url(pnpm, "unpin") in card
    assert url(pnpm, "forget") not in card and url(pnpm, "pin") + '"' not in card


def test_hostile_event_title_is_escaped_on_the_confirmation(staff: Client, db: None) -> None:
    hostile = hostile_namespace_create()
    event = Event.objects.get(namespace=hostile)
    html = staff.get(
        reverse("graphui:event_action", args=["hostile", event.pk, "forget"])
    ).content.decode()
    for probe in PROBES:
        if probe.startswith("javascript:"):
            assert f'href="{probe}' not in html
        else:
            assert probe not in html
    assert "&lt;script&gt;" in html
