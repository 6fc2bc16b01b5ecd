"""A 500 is logged: an unhandled exception in a view or an API operation reaches the console
handler as an ERROR from `django.request` with its traceback, whatever DJANGO_DEBUG says, and
the line written has credentials redacted (SPEC §15.3: logs are a way out too)."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client
from django.urls import path

from memory.engine.redact import RedactingFilter
from memory.services.namespaces import namespace_get_or_create
from tests.conftest import make_api

SECRET_KEY_TEXT = "sk-live-0123456789abcdefXYZ"
PASSWORD = "hunter2-correct-horse"
FAILURE = f"model endpoint refused api_key={SECRET_KEY_TEXT} password={PASSWORD}"


def exploding_view(request: HttpRequest) -> HttpResponse:
    raise RuntimeError(FAILURE)


urlpatterns = [path("api/exploding/", exploding_view)]  # /api/: no UI login in the way


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """What the configured console handler writes, instead of stderr."""
    handler = logging.getHandlerByName("console")
    assert handler is not None and isinstance(handler, logging.StreamHandler)
    written = io.StringIO()
    previous = handler.setStream(written)
    try:
        yield written
    finally:
        handler.setStream(previous)


def _request_errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "django.request" and r.levelno == logging.ERROR]


def test_django_request_errors_reach_the_redacting_console_handler() -> None:
    """The route the records take, as configured: django.request → django → root → console."""
    request_logger = logging.getLogger("django.request")
    assert request_logger.isEnabledFor(logging.ERROR)
    chain: list[logging.Logger] = []
    logger: logging.Logger | None = request_logger
    while logger is not None:
        chain.append(logger)
        assert logger.propagate or logger.parent is None, logger.name
        logger = logger.parent
    handlers = [h for lg in chain for h in lg.handlers if h.get_name() == "console"]
    assert len(handlers) == 1  # one line per record, not one per handler on the way
    assert [type(f) for f in handlers[0].filters] == [RedactingFilter]
    assert handlers[0].level == logging.NOTSET


@pytest.mark.urls(__name__)
def test_an_exception_in_a_view_is_a_500_logged_with_its_traceback_redacted(
    db: None, caplog: pytest.LogCaptureFixture, console: io.StringIO
) -> None:
    response = Client(raise_request_exception=False).get("/api/exploding/")
    assert response.status_code == 500

    [record] = _request_errors(caplog)
    assert record.getMessage() == "Internal Server Error: /api/exploding/"
    assert record.exc_info is not None and record.exc_info[0] is RuntimeError
    assert getattr(record, "status_code", None) == 500

    line = console.getvalue()
    assert " ERROR django.request: Internal Server Error: /api/exploding/" in line
    assert "Traceback (most recent call last):" in line
    assert "in exploding_view" in line
    assert "RuntimeError: model endpoint refused api_key=[REDACTED] password=[REDACTED]" in line
    assert SECRET_KEY_TEXT not in line and PASSWORD not in line


def test_an_exception_in_an_api_operation_is_logged_the_same_way(
    db: None, caplog: pytest.LogCaptureFixture, console: io.StringIO, monkeypatch: Any
) -> None:
    """django-ninja hands exceptions it has no handler for back to Django (DEBUG off)."""
    namespace_get_or_create(name="proj")
    api = make_api("read")
    api.client = Client(raise_request_exception=False)

    def failing_health(**kwargs: Any) -> Any:
        raise RuntimeError(FAILURE)

    monkeypatch.setattr("memory.api.status.namespace_health", failing_health)
    response = api.get("/ns/proj/health")
    assert response.status_code == 500

    [record] = _request_errors(caplog)
    assert record.getMessage() == "Internal Server Error: /api/v1/ns/proj/health"
    line = console.getvalue()
    assert "ERROR django.request: Internal Server Error: /api/v1/ns/proj/health" in line
    assert "in failing_health" in line and "api_key=[REDACTED]" in line
    assert SECRET_KEY_TEXT not in line and PASSWORD not in line
    assert api.token not in line


def test_the_filter_leaves_the_record_other_handlers_get_as_it_was() -> None:
    try:
        raise ValueError(f"Authorization: Bearer {SECRET_KEY_TEXT}")
    except ValueError:
        exc_info = sys.exc_info()
    record = logging.LogRecord(
        "memory.test", logging.WARNING, __file__, 1, "token=%s", ("abcd1234efgh",), exc_info
    )
    clean = RedactingFilter().filter(record)
    text = logging.Formatter("{levelname} {name}: {message}", style="{").format(clean)
    assert text.startswith("WARNING memory.test: token=[REDACTED]\nTraceback")
    assert "Bearer [REDACTED]" in text and SECRET_KEY_TEXT not in text
    assert record.getMessage() == "token=abcd1234efgh" and record.exc_info is exc_info
    assert record.exc_text is None
