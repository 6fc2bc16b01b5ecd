"""Live updates: a logged-in user's page joins its namespace's group and receives what services
publish after their transactions commit (memory.services.live), for a namespace the user may
see (graphui.access: one without a grant is refused as if it did not exist). The consumer only
joins groups and pushes; it never writes, and anything a browser sends is ignored."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from graphui.access import ui_namespace
from memory.errors import NotFound
from memory.services.live import namespace_group

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404


@database_sync_to_async
def _namespace_id(user: Any, name: str) -> int | None:
    try:
        return ui_namespace(user, name).pk
    except NotFound:
        return None


class NamespaceConsumer(AsyncJsonWebsocketConsumer):
    group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self._refuse(CLOSE_UNAUTHENTICATED)
            return
        namespace_id = await _namespace_id(user, self.scope["url_route"]["kwargs"]["ns"])
        if namespace_id is None:
            await self._refuse(CLOSE_NOT_FOUND)
            return
        self.group = namespace_group(namespace_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def _refuse(self, code: int) -> None:
        """Accept, then close with `code`: a handshake refused outright reaches a browser as a
        bare 1006, so live.js could not tell "log in again" (4401) from a network drop and
        would keep reconnecting. Nothing is sent and no group is joined in between."""
        await self.accept()
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """Pages only listen; nothing a browser sends changes anything."""

    async def memory_update(self, event: dict[str, Any]) -> None:
        await self.send_json(event["payload"])
