"""Placeholder until the page is built (replaced in the same change)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse

from memory.errors import NotFound


def _missing(*args: Any, **kwargs: Any) -> HttpResponse:
    raise NotFound("this page is not built yet", code="page_not_found")


processing_page = _missing
job_retry_action = _missing
jobs_retry_failed_action = _missing
