"""The live-update websocket: logged-in users join the group of a namespace they may see and
hear what services publish; anonymous sockets, unknown namespaces and namespaces without a grant
are refused; browsers cannot write."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from graphui.routing import websocket_urlpatterns
from memory.models import NamespaceGrant, Role
from memory.services.live import _send
from memory.services.namespaces import namespace_get_or_create
from stratagate_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _in_memory_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def _communicator(path: str, user: Any) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    communicator.scope["user"] = user
    return communicator


async def _refusal(communicator: WebsocketCommunicator) -> dict[str, Any]:
    """A refused socket is accepted and closed at once with its code (a browser only sees
    close codes after the handshake), and hears nothing in between."""
    connected, _ = await communicator.connect()
    assert connected
    closed: dict[str, Any] = await communicator.receive_output(timeout=2)
    return closed


def test_a_logged_in_page_hears_its_namespace_and_only_its_namespace(django_user_model):
    user = django_user_model.objects.create_user("ada")
    mine = namespace_get_or_create(name="proj")
    other = namespace_get_or_create(name="other")
    NamespaceGrant.objects.create(user=user, namespace=mine, role=Role.VIEWER)

    async def scenario() -> tuple[Any, bool]:
        communicator = _communicator("/ws/ns/proj/", user)
        connected, _ = await communicator.connect()
        assert connected
        await communicator.send_json_to({"kind": "event.changed", "event_ids": [1]})  # ignored
        from asgiref.sync import sync_to_async

        await sync_to_async(_send)(other.pk, {"kind": "turn.created", "session_id": "x"})
        await sync_to_async(_send)(mine.pk, {"kind": "turn.created", "session_id": "s1"})
        heard = await communicator.receive_json_from(timeout=2)
        nothing_else = await communicator.receive_nothing(timeout=0.2)
        await communicator.disconnect()
        return heard, nothing_else

    heard, nothing_else = async_to_sync(scenario)()
    assert heard == {"kind": "turn.created", "session_id": "s1"}
    assert nothing_else


@pytest.mark.parametrize(
    ("path", "anonymous", "code"),
    [
        ("/ws/ns/proj/", True, 4401),
        ("/ws/ns/nowhere/", False, 4404),
        ("/ws/ns/other/", False, 4404),  # exists, but ada holds no grant there
    ],
)
def test_anonymous_sockets_unknown_namespaces_and_ungranted_ones_are_refused(
    django_user_model, path, anonymous, code
):
    proj = namespace_get_or_create(name="proj")
    namespace_get_or_create(name="other")
    user = AnonymousUser()
    if not anonymous:
        user = django_user_model.objects.create_user("ada")
        NamespaceGrant.objects.create(user=user, namespace=proj, role=Role.ADMIN)

    async def scenario() -> dict[str, Any]:
        communicator = _communicator(path, user)
        return await _refusal(communicator)

    assert async_to_sync(scenario)() == {"type": "websocket.close", "code": code}


def test_the_real_asgi_stack_refuses_a_socket_without_a_session():
    namespace_get_or_create(name="proj")

    async def scenario() -> dict[str, Any]:
        communicator = WebsocketCommunicator(
            application, "/ws/ns/proj/", headers=[(b"origin", b"http://localhost")]
        )
        return await _refusal(communicator)

    assert async_to_sync(scenario)() == {"type": "websocket.close", "code": 4401}
