"""Mounts every tool family's router on the one NinjaAPI under /v1 with bearer auth."""

from __future__ import annotations

from ninja import NinjaAPI, Router

from memory.api import conversation, imports, memory, retrieval, status
from memory.api.auth import ReadToken


def register_routers(api: NinjaAPI) -> None:
    v1 = Router(auth=ReadToken())
    v1.add_router("", conversation.router)
    v1.add_router("", status.router)
    v1.add_router("", memory.router)
    v1.add_router("", retrieval.router)
    v1.add_router("", imports.router)
    api.add_router("/v1", v1)
