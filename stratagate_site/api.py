"""The one NinjaAPI: versioned agent API with a single error envelope for every failure."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError

from memory.api.routers import register_routers
from memory.errors import StrataGateError

api = NinjaAPI(
    title="StrataGate agent API",
    version="1",
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url="/docs",
)


def error_response(
    request: HttpRequest,
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
) -> HttpResponse:
    body = {"error": {"code": code, "message": message, "details": details or {}}}
    return api.create_response(request, body, status=status)


@api.exception_handler(StrataGateError)
def on_strata_error(request: HttpRequest, exc: StrataGateError) -> HttpResponse:
    return error_response(request, exc.http_status, exc.code, exc.message, exc.details)


@api.exception_handler(ValidationError)
def on_validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    errors = [
        {"loc": list(err.get("loc", [])), "msg": str(err.get("msg", "")), "type": err.get("type")}
        for err in exc.errors
    ]
    return error_response(
        request,
        422,
        "validation_error",
        "The request does not match the schema.",
        {"errors": errors},
    )


@api.exception_handler(RequestDataTooBig)
def on_too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return error_response(request, 413, "request_too_large", "The request body is too large.")


@api.exception_handler(AuthenticationError)
def on_auth_error(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return error_response(request, 401, "unauthorized", "A valid bearer token is required.")


@api.exception_handler(HttpError)
def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    # ninja raises HttpError(400) when the body is not JSON at all.
    if exc.status_code == 400 and "parse" in str(exc).lower():
        return error_response(request, 400, "malformed_json", "The request body is not valid JSON.")
    code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(
        exc.status_code, "http_error"
    )
    return error_response(request, exc.status_code, code, str(exc))


register_routers(api)
