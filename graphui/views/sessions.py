"""Placeholder until the page is built (replaced in the same change)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse

from memory.errors import NotFound


def _missing(*args: Any, **kwargs: Any) -> HttpResponse:
    raise NotFound("this page is not built yet", code="page_not_found")


session_list_page = _missing
session_page = _missing
block_link = _missing
block_expand_action = _missing
message_link = _missing
