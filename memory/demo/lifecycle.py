"""The demo's admin actions: forget one event and pin another (recorded as actor "demo").

Each runs only when needed (the event is not yet forgotten / pinned), so a second load adds no
admin action; a person who restored or unpinned the event in the UI gets the demo state back.
"""

from __future__ import annotations

from memory.demo.script import FORGET_QUOTE, PIN_QUOTE
from memory.models import Event, EventStatus, Namespace
from memory.services.events import event_lifecycle

ACTOR = "demo"


def _event(namespace: Namespace, quote: str) -> Event | None:
    return Event.objects.filter(namespace=namespace, summary__contains=quote).order_by("pk").first()


def demo_lifecycle(namespace: Namespace) -> None:
    forget = _event(namespace, FORGET_QUOTE)
    if forget is not None and forget.status != EventStatus.FORGOTTEN:
        event_lifecycle(event=forget, action="forget", actor=ACTOR)
    pin = _event(namespace, PIN_QUOTE)
    if pin is not None and not pin.pinned:
        event_lifecycle(event=pin, action="pin", actor=ACTOR)
