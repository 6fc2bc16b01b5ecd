"""One exception tree for every surface: each error knows its stable code and HTTP status."""

from __future__ import annotations

from typing import Any


class StrataGateError(Exception):
    code = "error"
    http_status = 400

    def __init__(
        self, message: str, *, code: str | None = None, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details or {}


class BadRequest(StrataGateError):
    code = "bad_request"
    http_status = 400


class Forbidden(StrataGateError):
    code = "forbidden"
    http_status = 403


class NotFound(StrataGateError):
    code = "not_found"
    http_status = 404


class Conflict(StrataGateError):
    code = "conflict"
    http_status = 409


class TooLarge(StrataGateError):
    code = "too_large"
    http_status = 413


class Invalid(StrataGateError):
    """Valid JSON whose meaning is wrong (422)."""

    code = "invalid"
    http_status = 422


class UnsupportedMediaType(StrataGateError):
    """A request body in a format the API does not read (415)."""

    code = "unsupported_media_type"
    http_status = 415
