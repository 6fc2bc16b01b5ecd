"""Placeholder until the page is built (replaced in the same change)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse

from memory.errors import NotFound


def _missing(*args: Any, **kwargs: Any) -> HttpResponse:
    raise NotFound("this page is not built yet", code="page_not_found")


receipt_list_page = _missing
receipt_page = _missing
event_usage_page = _missing
