"""Live updates: a logged-in user joins a namespace's group and receives what workers publish."""

from __future__ import annotations

from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer


def namespace_group(name: str) -> str:
    # Group names allow only [A-Za-z0-9._-]; namespace names may also hold ':'.
    return "ns." + name.replace(":", "_")


class NamespaceConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        self.group = namespace_group(self.scope["url_route"]["kwargs"]["ns"])
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def memory_update(self, event: dict[str, Any]) -> None:
        await self.send_json(event["payload"])
