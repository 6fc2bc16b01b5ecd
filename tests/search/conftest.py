"""Builders for search tests: turns through the real ingest service, events through the real
event service, graph state through graph_apply, and a look at the raw index rows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import connection

from memory.engine.prompts.extraction import ExtractedEvent
from memory.models import Block, Event, Message, Namespace
from memory.services.events import EventContext, event_create
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create
from tests.conftest import BASE_TIME


def index_ids(table: str) -> set[int]:
    """Object ids that have a row in a search index table, whatever the backend."""
    column = "rowid" if connection.vendor == "sqlite" else "object_id"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column} FROM {table}")
        return {int(row[0]) for row in cursor.fetchall()}


@dataclass
class World:
    """One namespace with helpers; turns are numbered so receipts never collide."""

    namespace: Namespace
    turns: int = 0
    blocks: list[Block] = field(default_factory=list)

    @property
    def pk(self) -> int:
        return self.namespace.pk

    def say(
        self,
        user: str,
        assistant: str = "Noted.",
        *,
        session: str = "s1",
        when: datetime | None = None,
    ) -> list[Message]:
        self.turns += 1
        result = turn_ingest(
            namespace=self.namespace,
            turn=TurnIn(
                session_id=session,
                receipt_id=f"{self.namespace.name}-{self.turns}",
                messages=[
                    MessageIn(role="user", content=user),
                    MessageIn(role="assistant", content=assistant),
                ],
                occurred_at=when or BASE_TIME + timedelta(minutes=self.turns),
            ),
        )
        return list(result.turn.messages.order_by("position"))

    def block(self) -> Block:
        """A sealed block of filler turns to hang events on."""
        if not self.blocks:
            for n in range(6):
                self.say(f"filler question {n}", f"filler answer {n}", session="blocks")
            self.blocks.append(
                Block.objects.get(namespace=self.namespace, session__external_id="blocks")
            )
        return self.blocks[0]

    def event(self, title: str, summary: str, **fields: Any) -> Event:
        block = self.block()
        message = Message.objects.filter(turn__block=block).order_by("pk").first()
        assert message is not None
        extracted = ExtractedEvent(
            title=title, summary=summary, source_message_ids=[message.pk], **fields
        )
        return event_create(
            extracted=extracted,
            context=EventContext(block=block, formed_turn=6, messages={message.pk: message}),
        )


@pytest.fixture
def world(db: None) -> Callable[[str], World]:
    def make(name: str = "proj") -> World:
        return World(namespace=namespace_get_or_create(name=name))

    return make
