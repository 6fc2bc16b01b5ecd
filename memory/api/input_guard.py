"""Input every operation refuses before ninja reads it, checked once for all of them by the auth
layer right after access is decided (so a stranger still gets 404 whatever the input):

- a body sent with a content type that is not JSON → 415 `unsupported_media_type` (a body
  without a content type is read as JSON, as curl users expect);
- more query parameters than Django reads (1,000) → 400 `too_many_parameters`;
- text no database can store (engine.storable: NUL, half a surrogate pair) anywhere in the path
  parameters, the query string or the JSON body → 422 `invalid_text`, naming where. Without
  this, PostgreSQL answered such input with a 500 and SQLite stored it or failed half-way.

Ninja's own parsing follows, with its 400 `malformed_json` and 422 `validation_error`."""

from __future__ import annotations

import json
import re
from typing import Final

from django.core.exceptions import TooManyFieldsSent
from django.http import HttpRequest

from memory.engine.storable import INVALID_TEXT, unstorable, unstorable_at, unstorable_message
from memory.errors import BadRequest, Invalid, UnsupportedMediaType

# JSON writes a NUL or a surrogate only as an escape (a raw NUL is not valid JSON, and a raw
# surrogate is not valid UTF-8), so only a body holding one of these escapes needs a closer look.
_SUSPECT: Final = re.compile(rb"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")


def _json_type(content_type: str) -> bool:
    return content_type in ("", "application/json") or (
        content_type.startswith("application/") and content_type.endswith("+json")
    )


def _refuse(where: str) -> Invalid:
    return Invalid(unstorable_message(where), code=INVALID_TEXT, details={"where": where})


def request_input_check(request: HttpRequest) -> None:
    match = request.resolver_match
    for name, value in (match.kwargs if match is not None else {}).items():
        if isinstance(value, str) and unstorable(value):
            raise _refuse(f"path parameter {name}")
    try:
        query = list(request.GET.lists())
    except TooManyFieldsSent as exc:  # Django's 1,000-field cap; otherwise an HTML 400
        raise BadRequest(str(exc), code="too_many_parameters") from exc
    for key, values in query:
        if unstorable(key) or any(unstorable(v) for v in values):
            raise _refuse(f"query parameter {key!r}" if not unstorable(key) else "a query key")
    body = request.body
    if not body:
        return
    if not _json_type(request.content_type or ""):
        raise UnsupportedMediaType(
            f"request bodies are JSON; this one is {request.content_type}",
            code="unsupported_media_type",
            details={"content_type": request.content_type, "expected": "application/json"},
        )
    if _SUSPECT.search(body) is None:
        return
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return  # ninja's parser answers 400 malformed_json
    where = unstorable_at(data, "body")
    if where is not None:
        raise _refuse(where)
