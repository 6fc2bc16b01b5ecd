"""Hostile memory for XSS probes: a namespace whose messages, session id, event, tags, graph node
and fact all carry markup or script. Every page must show these as text (SPEC §15.4)."""

from __future__ import annotations

from django.db import transaction

from memory.engine.prompts.extraction import ExtractedEvent
from memory.engine.prompts.graph import GraphProposal
from memory.models import Block, Event, Message, Namespace
from memory.services.events import EventContext, event_create
from memory.services.graph import graph_apply
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create

NAMESPACE = "hostile"
SCRIPT = '<script>alert("xss-script")</script>'
IMG = '<img src=x onerror=alert("xss-img")>'
JS_LINK = "javascript:alert('xss-link')"
SESSION = f"sess {SCRIPT}"
PROBES = (SCRIPT, IMG, JS_LINK)


def hostile_namespace_create() -> Namespace:
    """Six hostile turns (one ready block), plus an event and a graph node built from them."""
    namespace = namespace_get_or_create(name=NAMESPACE)
    for n in range(1, 7):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=SESSION,
                receipt_id=f"hostile-{n}",
                messages=[
                    MessageIn(role="user", content=f"Turn {n}: {SCRIPT} and {IMG}"),
                    MessageIn(
                        role="assistant",
                        content=f"See [the docs]({JS_LINK}) {IMG}",
                        tool_calls=[
                            {"name": "fetch", "arguments": {"url": JS_LINK}, "result": SCRIPT}
                        ],
                    ),
                ],
            ),
        )
    jobs_drain()
    block = Block.objects.filter(namespace=namespace).order_by("pk").first()
    assert block is not None
    messages = {m.pk: m for m in Message.objects.filter(turn__block=block)}
    with transaction.atomic():
        event = event_create(
            extracted=ExtractedEvent(
                title=f"Decision {SCRIPT}",
                summary=f"We decided {IMG} to use {JS_LINK}",
                event_type="decision",
                tags=[SCRIPT, "probe"],
                quotes=[IMG],
                participants=[SCRIPT],
                source_message_ids=list(messages)[:2],
            ),
            context=EventContext(block=block, formed_turn=6, messages=messages),
        )
        proposal = GraphProposal.model_validate(
            {
                "nodes": [
                    {
                        "key": "hostile-tool",
                        "name": f"Tool {IMG}",
                        "type": "tool",
                        "aliases": [SCRIPT],
                        "tags": [IMG],
                        "source_event_ids": [event.pk],
                    },
                    {
                        "key": "hostile-project",
                        "name": f"Project {SCRIPT}",
                        "type": "project",
                        "source_event_ids": [event.pk],
                    },
                ],
                "facts": [
                    {
                        "node_key": "hostile-project",
                        "key": "homepage",
                        "value": JS_LINK,
                        "source_event_ids": [event.pk],
                    },
                    {
                        "node_key": "hostile-project",
                        "key": "motto",
                        "value": SCRIPT,
                        "source_event_ids": [event.pk],
                    },
                ],
                "edges": [
                    {
                        "from_key": "hostile-project",
                        "to_key": "hostile-tool",
                        "relation": "uses",
                        "source_event_ids": [event.pk],
                    },
                ],
            }
        )
        graph_apply(
            namespace_id=namespace.pk,
            events=list(Event.objects.filter(pk=event.pk)),
            proposal=proposal,
        )
    return namespace
