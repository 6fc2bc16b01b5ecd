"""docs/API.md lists exactly the operations the generated OpenAPI schema has."""

from __future__ import annotations

import re
from pathlib import Path

from stratagate_site.api import api

DOC = Path(__file__).resolve().parent.parent / "docs" / "API.md"


def test_every_operation_is_documented_and_nothing_else():
    schema = api.get_openapi_schema()
    operations = {op["operationId"] for ops in schema["paths"].values() for op in ops.values()}
    documented: set[str] = set()
    for line in DOC.read_text().splitlines():
        if line.startswith("| ") and not line.startswith("| operation id"):
            first_cell = line.split("|")[1]
            documented.update(re.findall(r"[a-z_]+", first_cell))
    assert operations == documented


def test_documented_paths_exist():
    schema = api.get_openapi_schema()
    paths = {p.removeprefix("/api/v1") for p in schema["paths"]}
    text = DOC.read_text()
    for path in paths:
        if "{action}" in path:
            continue
        assert path.split("?")[0] in text or path.rsplit("/", 1)[0] + "/{action}" in text, path


def test_every_operation_declares_its_success_response_schema():
    schema = api.get_openapi_schema()
    missing = []
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            success = {code: r for code, r in op["responses"].items() if str(code).startswith("2")}
            if not success or not all(r.get("content") for r in success.values()):
                missing.append(f"{method.upper()} {path}")
    assert missing == []


def test_edges_keep_their_from_key_in_the_schema():
    components = api.get_openapi_schema()["components"]["schemas"]
    assert "from" in components["EdgeOut"]["properties"]
    assert "from_" not in components["EdgeOut"]["properties"]
