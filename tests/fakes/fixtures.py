"""Pytest fixtures around the fakes; register with `pytest_plugins` or import into a conftest."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAIServer]:
    """A running fake OpenAI-compatible server, stopped after the test."""
    with FakeOpenAIServer() as server:
        yield server
