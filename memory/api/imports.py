"""Import other AIs' memories (preview → commit → undo), export ours, and the export prompt."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from ninja import Field, Router, Schema, Status

from memory.api.auth import READ_WRITE, request_namespace, request_token
from memory.errors import Invalid
from memory.models import TokenScope
from memory.selectors.imports import (
    ImportOut,
    ImportSummaryOut,
    import_get,
    import_list,
    import_out,
    import_status,
    import_summary,
)
from memory.services.imports import (
    Choice,
    export_v2,
    import_commit,
    import_create,
    import_prompt,
    import_undo,
)
from memory.services.imports.dumpfile import dump_lines
from memory.services.imports.preview import DEFAULT_TOP_K

router = Router(tags=["imports"])


class ImportIn(Schema):
    text: str
    format: str = "auto"
    top_k: int = DEFAULT_TOP_K


class ImportCreatedOut(Schema):
    import_id: int
    status: str


class ChoiceIn(Schema):
    index: int
    action: str
    target_event_ids: list[int] | None = None


class CommitIn(Schema):
    choices: list[ChoiceIn] | None = None


class CommitOut(Schema):
    import_id: int
    status: str
    source_block_id: int | None
    created_event_ids: list[int]
    changed_event_ids: list[int]
    session_ids: list[str] = Field(default_factory=list)


class UndoOut(Schema):
    import_id: int
    status: str
    removed_event_ids: list[int]
    restored_event_ids: list[int]


class PromptOut(Schema):
    lang: str
    schema_version: str
    prompt: str


class ImportListOut(Schema):
    imports: list[ImportSummaryOut]


@router.post(
    "/ns/{ns}/imports",
    response={202: ImportCreatedOut},
    auth=READ_WRITE,
    operation_id="imports_create",
)
def create(request: HttpRequest, ns: str, payload: ImportIn) -> Status:
    namespace = request_namespace(request)
    batch = import_create(
        namespace=namespace,
        text=payload.text,
        fmt=payload.format,
        top_k=payload.top_k,
        created_by=f"token:{request_token(request).prefix}",
        may_restore_dump=request_token(request).allows(TokenScope.ADMIN),
    )
    return Status(202, {"import_id": batch.pk, "status": import_status(batch)})


@router.get(
    "/ns/{ns}/imports", response=ImportListOut, auth=READ_WRITE, operation_id="imports_list"
)
def list_imports(request: HttpRequest, ns: str) -> ImportListOut:
    namespace = request_namespace(request)
    return ImportListOut(imports=[import_summary(b) for b in import_list(namespace)])


@router.get(
    "/ns/{ns}/imports/{import_id}", response=ImportOut, auth=READ_WRITE, operation_id="imports_get"
)
def get(request: HttpRequest, ns: str, import_id: int) -> ImportOut:
    namespace = request_namespace(request)
    return import_out(import_get(namespace, import_id))


@router.post(
    "/ns/{ns}/imports/{import_id}/commit",
    response=CommitOut,
    auth=READ_WRITE,
    operation_id="imports_commit",
)
def commit(
    request: HttpRequest, ns: str, import_id: int, payload: CommitIn | None = None
) -> dict[str, Any]:
    namespace = request_namespace(request)
    choices = [
        Choice(index=c.index, action=c.action.strip().lower(), target_event_ids=c.target_event_ids)
        for c in (payload.choices if payload and payload.choices else [])
    ]
    actor = f"token:{request_token(request).prefix}"
    result = import_commit(batch=import_get(namespace, import_id), choices=choices, actor=actor)
    return {
        "import_id": result.batch.pk,
        "status": result.batch.status,
        "source_block_id": result.batch.commit_record.get("block_id"),
        "created_event_ids": result.created_event_ids,
        "changed_event_ids": result.changed_event_ids,
        "session_ids": result.session_ids,
    }


@router.post(
    "/ns/{ns}/imports/{import_id}/undo",
    response=UndoOut,
    auth=READ_WRITE,
    operation_id="imports_undo",
)
def undo(request: HttpRequest, ns: str, import_id: int) -> dict[str, Any]:
    namespace = request_namespace(request)
    actor = f"token:{request_token(request).prefix}"
    result = import_undo(batch=import_get(namespace, import_id), actor=actor)
    return {
        "import_id": result.batch.pk,
        "status": result.batch.status,
        "removed_event_ids": result.removed_event_ids,
        "restored_event_ids": result.restored_event_ids,
    }


EXPORT_RESPONSES = {
    "responses": {
        200: {
            "description": "`v2`: a stratagate.external-memory.v2 document (docs/IMPORT.md); "
            "`jsonl`: the lossless namespace dump, one JSON record per line, streamed.",
            "content": {
                "application/json": {"schema": {"type": "object"}},
                "application/x-ndjson": {"schema": {"type": "string"}},
            },
        }
    }
}


@router.get("/ns/{ns}/export", openapi_extra=EXPORT_RESPONSES, operation_id="memory_export")
def export(request: HttpRequest, ns: str, format: str = "v2") -> HttpResponseBase:
    """`v2`: an external-memory document; `jsonl`: the lossless dump, streamed."""
    namespace = request_namespace(request)
    if format == "v2":
        body = json.dumps(export_v2(namespace=namespace), ensure_ascii=False, default=str)
        return HttpResponse(body, content_type="application/json")
    if format == "jsonl":
        response = StreamingHttpResponse(
            dump_lines(namespace, redacted=True), content_type="application/x-ndjson"
        )
        response["Content-Disposition"] = f'attachment; filename="{namespace.name}.jsonl"'
        return response
    raise Invalid("format must be v2 or jsonl", code="invalid_format", details={"format": format})


@router.get("/import-prompt", response=PromptOut, operation_id="import_prompt")
def prompt(request: HttpRequest, lang: str = "en") -> dict[str, str]:
    return import_prompt(lang)
