"""Fixtures for the agent interfaces: tokens and in-process dispatchers bound to `proj`."""

from __future__ import annotations

import pytest

from memory.agent_tools import ToolDispatcher
from memory.services.tokens import token_create


def raw_token(scope: str = "read-write", namespaces: tuple[str, ...] = ("proj",)) -> str:
    _, raw = token_create(namespaces=list(namespaces), scope=scope)
    return raw


@pytest.fixture
def dispatcher(db: None) -> ToolDispatcher:
    """In-process dispatcher: read-write token, namespace `proj`, current session `s1`."""
    return ToolDispatcher.in_process(raw_token(), namespace="proj", session_id="s1")
