"""Live updates leave only after the transaction commits, carry plain JSON, and each service
that changes what a page shows announces it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from memory.models import Event, Namespace
from memory.services.events import event_lifecycle
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.live import namespace_group, publish
from memory.services.namespaces import namespace_get_or_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def listen(settings: Any) -> Callable[[Namespace], Callable[[], list[dict[str, Any]]]]:
    """Subscribe a channel to a namespace's group; the returned callable drains what arrived."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    layer = get_channel_layer()

    def subscribe(namespace: Namespace) -> Callable[[], list[dict[str, Any]]]:
        channel = async_to_sync(layer.new_channel)()
        async_to_sync(layer.group_add)(namespace_group(namespace.pk), channel)

        def drain() -> list[dict[str, Any]]:
            received = []
            while True:
                try:
                    message = async_to_sync(_receive_now)(layer, channel)
                except TimeoutError:
                    return received
                received.append(message["payload"])

        return drain

    return subscribe


async def _receive_now(layer: Any, channel: str) -> dict[str, Any]:
    import asyncio

    return await asyncio.wait_for(layer.receive(channel), timeout=0.05)


def _turn(n: int, session: str = "s1") -> TurnIn:
    return TurnIn(
        session_id=session,
        receipt_id=f"r{n}",
        messages=[
            MessageIn(role="user", content=f"We decided to use PostgreSQL, step {n}."),
            MessageIn(role="assistant", content="Noted."),
        ],
    )


def test_nothing_leaves_before_the_commit_and_nothing_after_a_rollback(
    listen, django_capture_on_commit_callbacks
):
    namespace = namespace_get_or_create(name="proj")
    drain = listen(namespace)
    with django_capture_on_commit_callbacks() as pending:
        publish(namespace.pk, "event.changed", action="pin", event_ids=[1])
        assert drain() == []  # still inside the transaction
    assert len(pending) == 1
    pending[0]()
    assert drain() == [{"kind": "event.changed", "action": "pin", "event_ids": [1]}]

    with django_capture_on_commit_callbacks(execute=True) as rolled:
        try:
            with transaction.atomic():
                publish(namespace.pk, "event.changed", action="forget", event_ids=[2])
                raise RuntimeError("roll back")
        except RuntimeError:
            pass
    assert rolled == [] and drain() == []


def test_bad_payloads_fail_where_they_are_made():
    with pytest.raises(ValueError, match="unknown live update kind"):
        publish(1, "something.else")
    with pytest.raises(TypeError):
        publish(1, "event.changed", when=object())
    with pytest.raises(ValueError):
        publish(1, "event.changed", weight=float("nan"))


def test_ingest_processing_and_lifecycle_are_announced(listen, django_capture_on_commit_callbacks):
    namespace = namespace_get_or_create(name="proj")
    drain = listen(namespace)
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(1, 7):
            turn_ingest(namespace=namespace, turn=_turn(n))
    turns = [m for m in drain() if m["kind"] == "turn.created"]
    assert [m["session_turn"] for m in turns] == [1, 2, 3, 4, 5, 6]
    assert turns[-1]["session_id"] == "s1" and len(turns[-1]["sealed_block_ids"]) == 1

    with django_capture_on_commit_callbacks(execute=True):
        jobs_drain()
    processed = drain()
    kinds = [m["kind"] for m in processed]
    assert "block.ready" in kinds and "event.changed" in kinds
    jobs = [(m["job_kind"], m["status"]) for m in processed if m["kind"] == "job.changed"]
    assert ("block_views", "running") in jobs and ("block_views", "succeeded") in jobs
    assert ("block_extract", "succeeded") in jobs

    event = Event.objects.filter(namespace=namespace).first()
    assert event is not None
    with django_capture_on_commit_callbacks(execute=True):
        event_lifecycle(event=event, action="forget", actor="test")
    assert drain() == [{"kind": "event.changed", "action": "forget", "event_ids": [event.pk]}]


def test_a_duplicate_ingest_announces_nothing(listen, django_capture_on_commit_callbacks):
    namespace = namespace_get_or_create(name="proj")
    drain = listen(namespace)
    with django_capture_on_commit_callbacks(execute=True):
        turn_ingest(namespace=namespace, turn=_turn(1))
        turn_ingest(namespace=namespace, turn=_turn(1))
    assert [m["kind"] for m in drain()] == ["turn.created"]


def test_expanding_a_block_is_announced_and_a_refused_expansion_is_not(
    listen, django_capture_on_commit_callbacks, owner
):
    from memory.models import Block, BlockStatus
    from memory.services.blocks import block_expand_by_user

    namespace = namespace_get_or_create(name="proj")
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(1, 7):
            turn_ingest(namespace=namespace, turn=_turn(n, session="plan 中文 <b>"))
        jobs_drain()
    block = Block.objects.get(namespace=namespace)
    drain = listen(namespace)

    with django_capture_on_commit_callbacks(execute=True):  # an agent, through the API
        response = owner.post(f"/ns/proj/blocks/{block.pk}/expand", {"target": "L4"})
    assert response.status_code == 200, response.content
    changed = [m for m in drain() if m["kind"] == "block.changed"]
    assert changed == [
        {
            "kind": "block.changed",
            "block_id": block.pk,
            "session_id": "plan 中文 <b>",
            "level": 4,
            "lifted_by": "agent",
        }
    ]

    with django_capture_on_commit_callbacks(execute=True):  # a person, in the Memory UI
        block_expand_by_user(block=block, target="L5", actor="user:ada")
    assert [(m["kind"], m["level"], m["lifted_by"]) for m in drain()] == [
        ("block.changed", 5, "user")
    ]

    with django_capture_on_commit_callbacks(execute=True):
        for n in range(7, 13):
            turn_ingest(namespace=namespace, turn=_turn(n, session="plan 中文 <b>"))
    pending = Block.objects.get(namespace=namespace, status=BlockStatus.PENDING)
    drain()
    with django_capture_on_commit_callbacks(execute=True):
        response = owner.post(f"/ns/proj/blocks/{pending.pk}/expand", {"target": "L4"})
    assert response.status_code == 409
    assert drain() == []  # refused: nothing changed, nothing announced


def test_an_in_memory_layer_with_no_listener_is_not_sent_to(
    listen, monkeypatch, django_capture_on_commit_callbacks
):
    """A process whose pages do not listen (a db_worker without Redis) skips the send, which
    would start a thread and an event loop to deliver nothing; a listener still hears it."""
    namespace = namespace_get_or_create(name="quiet")
    layer = get_channel_layer()
    sent: list[str] = []
    real = layer.group_send

    async def counted(group: str, message: dict[str, Any]) -> None:
        sent.append(group)
        await real(group, message)

    monkeypatch.setattr(layer, "group_send", counted)
    with django_capture_on_commit_callbacks(execute=True):
        publish(namespace.pk, "event.changed", action="pin", event_ids=[1])
    assert sent == []
    drain = listen(namespace)
    with django_capture_on_commit_callbacks(execute=True):
        publish(namespace.pk, "event.changed", action="pin", event_ids=[2])
    assert sent == [namespace_group(namespace.pk)]
    assert drain() == [{"kind": "event.changed", "action": "pin", "event_ids": [2]}]


class _RecordingLayer:
    """A channel layer that keeps connections (as channels_redis does): records the loop and
    thread each send ran on."""

    def __init__(self, fail: bool = False, hang: bool = False) -> None:
        self.sent: list[tuple[str, dict[str, Any], int, str]] = []
        self.fail = fail
        self.hang = hang

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        import asyncio
        import threading

        if self.hang:
            await asyncio.sleep(60)
        if self.fail:
            raise ConnectionError("redis is down")
        loop = id(asyncio.get_running_loop())
        self.sent.append((group, message["payload"], loop, threading.current_thread().name))


def test_a_connected_layer_is_sent_to_on_one_lasting_loop(
    monkeypatch, django_capture_on_commit_callbacks
):
    """A db_worker's sends (a thread with no event loop) all run on the publisher's one loop,
    in order, each done before publish returns: no new loop and connection per send."""
    import threading

    from memory.services import live

    layer = _RecordingLayer()
    monkeypatch.setattr(live, "get_channel_layer", lambda: layer)
    namespace = namespace_get_or_create(name="linked")
    for n in range(5):
        with django_capture_on_commit_callbacks(execute=True):
            publish(namespace.pk, "job.changed", job_id=n, status="done")
        assert len(layer.sent) == n + 1  # delivered before the commit hook returned
    assert [payload["job_id"] for _, payload, _, _ in layer.sent] == [0, 1, 2, 3, 4]
    assert {group for group, _, _, _ in layer.sent} == {namespace_group(namespace.pk)}
    assert len({loop for _, _, loop, _ in layer.sent}) == 1
    assert {thread for _, _, _, thread in layer.sent} == {"live-updates"}
    assert threading.current_thread().name != "live-updates"


def test_a_failing_or_stuck_layer_never_fails_the_write(
    monkeypatch, caplog, django_capture_on_commit_callbacks
):
    from memory.services import live

    namespace = namespace_get_or_create(name="down")
    monkeypatch.setattr(live, "SEND_TIMEOUT_SECONDS", 0.2)
    for layer in (_RecordingLayer(fail=True), _RecordingLayer(hang=True)):
        monkeypatch.setattr(live, "get_channel_layer", lambda layer=layer: layer)
        caplog.clear()
        with django_capture_on_commit_callbacks(execute=True):
            publish(namespace.pk, "job.changed", job_id=1, status="done")
        assert layer.sent == []
        assert "could not publish job.changed" in caplog.text
    working = _RecordingLayer()
    monkeypatch.setattr(live, "get_channel_layer", lambda: working)
    with django_capture_on_commit_callbacks(execute=True):
        publish(namespace.pk, "job.changed", job_id=2, status="done")
    assert [payload["job_id"] for _, payload, _, _ in working.sent] == [2]
