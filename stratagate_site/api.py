"""The one NinjaAPI: versioned agent API with a single error envelope for every failure."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.openapi.schema import OpenAPISchema
from ninja.parser import Parser
from pydantic import BaseModel

from memory.api.routers import register_routers
from memory.errors import StrataGateError


class ErrorDetail(BaseModel):
    code: str
    message: str
    details: dict[str, Any]


class ErrorOut(BaseModel):
    """The one error envelope every 4xx answer of the API has (`error_response`)."""

    error: ErrorDetail


ERROR_STATUSES = "400 malformed, 401 no or unknown token, 403 scope too low, 404 unknown or "
ERROR_STATUSES += "foreign, 409 state conflict, 413 too large, 422 invalid meaning"


class BodyNotAnObject(ValueError):
    """Valid JSON that is not an object, where every operation's body is one."""


class ObjectBodyParser(Parser):
    """Every request body of the API is a JSON object. Without this check an array, string or
    number would be validated attribute by attribute (ninja schemas read from attributes) and,
    where every field is optional (`PUT /settings`), accepted as an empty object."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        data = super().parse_body(request)
        if not isinstance(data, dict):
            raise BodyNotAnObject(f"the body is a JSON {type(data).__name__}, not an object")
        return data


class StrataGateAPI(NinjaAPI):
    """Declares the error envelope as every operation's 4XX response, so the schema covers
    every answer the API gives (clients and fuzzers validate error bodies against it too)."""

    def get_openapi_schema(
        self, *, path_prefix: str | None = None, path_params: dict[str, Any] | None = None
    ) -> OpenAPISchema:
        schema = super().get_openapi_schema(path_prefix=path_prefix, path_params=path_params)
        envelope = ErrorOut.model_json_schema(ref_template="#/components/schemas/{model}")
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        components.update(envelope.pop("$defs", {}))
        components["ErrorOut"] = envelope
        error = {
            "description": f"The error envelope ({ERROR_STATUSES}).",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}},
        }
        for operations in schema["paths"].values():
            for operation in operations.values():
                operation["responses"].setdefault("4XX", error)
        return schema


api = StrataGateAPI(
    title="StrataGate agent API",
    version="1",
    urls_namespace="api",
    openapi_url="/openapi.json",
    docs_url="/docs",
    parser=ObjectBodyParser(),
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
    # ninja raises HttpError(400) when the body cannot be parsed: not JSON at all, or (our
    # parser) JSON that is not an object, which is a schema violation like any other.
    if isinstance(exc.__cause__, BodyNotAnObject):
        error = {"loc": ["body"], "msg": str(exc.__cause__), "type": "model_type"}
        return error_response(
            request,
            422,
            "validation_error",
            "The request does not match the schema.",
            {"errors": [error]},
        )
    if exc.status_code == 400 and "parse" in str(exc).lower():
        return error_response(request, 400, "malformed_json", "The request body is not valid JSON.")
    code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(
        exc.status_code, "http_error"
    )
    return error_response(request, exc.status_code, code, str(exc))


register_routers(api)
