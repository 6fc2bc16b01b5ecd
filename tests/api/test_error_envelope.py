"""The error envelope is part of the OpenAPI schema (every operation's 4XX answer), and a JSON
body that is not an object is refused like any other schema mismatch, with nothing written."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

from memory.models import MemorySettings, Message
from stratagate_site.api import api
from tests.conftest import ApiClient, make_api

pytestmark = pytest.mark.django_db

SCHEMA = api.get_openapi_schema()
WITH_BODY = [
    (method, path.removeprefix("/api/v1"))
    for path, operations in SCHEMA["paths"].items()
    for method, operation in operations.items()
    if "requestBody" in operation
]


def _envelope_validator() -> jsonschema.Draft202012Validator:
    components = json.loads(json.dumps(SCHEMA["components"]))  # ninja's dict subclasses → plain
    envelope = {"$ref": "#/components/schemas/ErrorOut", "components": components}
    return jsonschema.Draft202012Validator(envelope)


def test_every_operation_declares_the_error_envelope_as_its_4xx_answer() -> None:
    undeclared = [
        f"{method.upper()} {path}"
        for path, operations in SCHEMA["paths"].items()
        for method, operation in operations.items()
        if operation["responses"].get("4XX", {}).get("content", {}).get("application/json", {})
        != {"schema": {"$ref": "#/components/schemas/ErrorOut"}}
    ]
    assert undeclared == []
    assert len(WITH_BODY) >= 10


def test_real_error_answers_match_the_declared_envelope(owner: ApiClient) -> None:
    validator = _envelope_validator()
    answers = [
        owner.get("/ns/proj/events/999999"),  # 404
        owner.post("/ns/proj/turns", {}),  # 422
        owner.post("/ns/proj/turns", raw="{not json"),  # 400
        make_api("read").post("/ns/proj/turns", {}),  # 403
        ApiClient(token="", client=owner.client).get("/ns/proj/health"),  # 401
    ]
    assert [a.status_code for a in answers] == [404, 422, 400, 403, 401]
    for answer in answers:
        validator.validate(answer.json())
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"error": {"code": "x", "message": "y"}})  # the check can fail


@pytest.mark.parametrize(("method", "path"), WITH_BODY)
@pytest.mark.parametrize("body", ["[]", '[{"block_turns": 7}]', '"text"', "3", "null"])
def test_a_json_body_that_is_not_an_object_is_422(method: str, path: str, body: str) -> None:
    admin = make_api("admin")
    url = "/api/v1" + re.sub(r"\{(\w+)\}", lambda m: "proj" if m.group(1) == "ns" else "1", path)
    before = (Message.objects.count(), list(MemorySettings.objects.values()))
    send = getattr(admin.client, method)
    response = send(url, body, content_type="application/json", **admin._headers())
    assert response.status_code == 422, (method, path, response.content[:200])
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"]["errors"][0]["loc"] == ["body"]
    assert (Message.objects.count(), list(MemorySettings.objects.values())) == before


def test_settings_are_unchanged_by_an_array_body(admin: ApiClient) -> None:
    before = admin.get("/settings").json()
    response = admin.put("/settings", [{"block_turns": 7}])
    assert response.status_code == 422
    assert admin.get("/settings").json() == before
