"""Source messages (L5) as they leave StrataGate (redacted content and tool records), and as the
engine's layering reads them (`view_messages`)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pydantic import Field

from memory.engine.gate import Ref
from memory.engine.layering import ToolCallRecord, ViewMessage
from memory.engine.redact import redact
from memory.models import Message
from memory.selectors.dump import redact_value
from memory.selectors.out import Out


class ToolCallOut(Out):
    name: str
    arguments: Any = None
    result: Any = None


class MessageOut(Out):
    id: int
    role: str
    name: str | None
    content: str
    created_at: datetime
    session_id: str
    turn_id: int
    tool_calls: list[ToolCallOut] = Field(default_factory=list)

    @property
    def ref(self) -> str:
        return str(Ref.raw(self.id))


def message_out(message: Message) -> MessageOut:
    """Needs `message.session` loaded (select_related it for many)."""
    return MessageOut.model_construct(
        id=message.pk,
        role=message.role,
        name=message.name or None,
        content=redact(message.content),
        created_at=message.created_at,
        session_id=message.session.external_id,
        turn_id=message.turn_id,
        tool_calls=[
            ToolCallOut.model_construct(
                name=str(call.get("name", "")),
                arguments=redact_value(call.get("arguments")),
                result=redact_value(call.get("result")),
            )
            for call in message.tool_calls or []
            if isinstance(call, dict)
        ],
    )


def messages_out(messages: Iterable[Message]) -> list[MessageOut]:
    return [message_out(m) for m in messages]


def messages_by_ids(ids: Iterable[int]) -> list[MessageOut]:
    """Messages in conversation order (session, turn, position), one query."""
    rows = Message.objects.filter(pk__in=list(ids)).select_related("session")
    return messages_out(rows.order_by("session_id", "turn__session_turn", "position"))


def view_messages(messages: list[Message]) -> list[ViewMessage]:
    return [
        ViewMessage(
            role=m.role,
            content=m.content,
            name=m.name or None,
            tool_calls=tuple(
                ToolCallRecord(
                    name=str(call.get("name", "")),
                    arguments=call.get("arguments"),
                    result=call.get("result"),
                )
                for call in m.tool_calls
                if isinstance(call, dict)
            ),
        )
        for m in messages
    ]
