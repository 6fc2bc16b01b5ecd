"""Import pages (SPEC §13.7, §11): paste or upload another AI's memories, follow the preview
while the worker decides each candidate, choose actions for the low-confidence rows, commit —
and undo a committed import after a confirmation that names what it will remove.

Parse errors come back exactly as the API gives them (code, message, line/column) with the text
kept in the form and nothing written; commit and undo go through the API's services plus an
admin audit row (`memory.services.imports.ui`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.contrib import messages
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from graphui.access import actor, may, ui_namespace
from graphui.partials import live_page
from memory.engine.import_similarity import AUTO_APPLY_CONFIDENCE
from memory.errors import Invalid, StrataGateError, TooLarge
from memory.models import ImportAction, ImportBatch, Namespace, Role
from memory.selectors.import_view import (
    DecisionRowOut,
    ImportPageOut,
    import_page_detail,
    import_page_list,
    import_progress,
    import_undo_preview,
)
from memory.selectors.imports import import_get
from memory.services.imports import Choice, import_create, import_prompt
from memory.services.imports.commit import choice_targets, import_commit
from memory.services.imports.parser import MAX_IMPORT_BYTES
from memory.services.imports.preview import DEFAULT_TOP_K
from memory.services.imports.undo import import_undo

FORMAT_CHOICES: list[tuple[str, Promise]] = [
    ("auto", gettext_lazy("Detect automatically")),
    ("v2", gettext_lazy("StrataGate v2 JSON (the answer to the export prompt)")),
    ("chatgpt", gettext_lazy("ChatGPT export: conversations.json")),
    ("claude", gettext_lazy("Claude export: conversations.json")),
    ("mem0", gettext_lazy("Mem0 memories export")),
    ("jsonl", gettext_lazy("StrataGate dump (JSONL, into an empty namespace)")),
]
# What a person reads first when an import is refused; the API's own message follows.
ERROR_EXPLANATIONS: dict[str, Promise] = {
    "invalid_import_json": gettext_lazy(
        "This is not valid JSON. Ask the other AI to answer with the JSON object only, or fix "
        "the place shown below."
    ),
    "import_too_large": gettext_lazy("An import holds at most 4 MiB. Split it into several."),
    "too_many_candidates": gettext_lazy("An import holds at most 200 memories or conversations."),
    "unrecognized_format": gettext_lazy(
        "This does not look like any format StrataGate reads. Choose the format by hand, or "
        "use the export prompt."
    ),
    "invalid_format": gettext_lazy("Unknown format: choose one from the list."),
    "empty_import": gettext_lazy("Paste the other AI's answer or choose a file first."),
    "invalid_utf8": gettext_lazy("The file is not UTF-8 text. Save it as UTF-8 and try again."),
    "text_and_file": gettext_lazy("Paste text or choose a file, not both."),
    "unsupported_schema_version": gettext_lazy("This schemaVersion is not one StrataGate reads."),
    "invalid_source_type": gettext_lazy("The sourceType must be external_ai_memory_export."),
    "namespace_not_empty": gettext_lazy(
        "A StrataGate dump can only be restored into an empty namespace."
    ),
}
DETAIL_LABELS: dict[str, Promise] = {
    "line": gettext_lazy("Line"),
    "column": gettext_lazy("Column"),
    "problem": gettext_lazy("Problem"),
    "bytes": gettext_lazy("Size in bytes"),
    "limit": gettext_lazy("Limit"),
    "count": gettext_lazy("Count"),
    "root_type": gettext_lazy("Top level is"),
    "schema_version": gettext_lazy("schemaVersion"),
    "position": gettext_lazy("Byte position"),
}
COMMIT_REFUSALS: dict[str, Promise] = {
    "import_stale": gettext_lazy(
        "Memory changed since this preview (an event it matched was changed, pinned, forgotten "
        "or used), so its decisions may be wrong. Nothing was written: preview it again."
    ),
    "import_already_committed": gettext_lazy("This import was already committed."),
    "import_undone": gettext_lazy("This import was undone; it cannot be committed again."),
    "import_not_ready": gettext_lazy("The preview has not finished yet; wait for it."),
    "import_already_undone": gettext_lazy("This import was already undone."),
    "import_not_committed": gettext_lazy("Only a committed import can be undone."),
}


class ImportForm(forms.Form):
    text = forms.CharField(
        label=gettext_lazy("Paste the answer"),
        required=False,
        strip=False,  # the imported text is kept verbatim as the import's source
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false"}),
    )
    file = forms.FileField(label=gettext_lazy("…or upload a file"), required=False)
    format = forms.CharField(  # checked by import_create, so a bad value gets the API's error
        label=gettext_lazy("Format"),
        required=False,
        widget=forms.Select(choices=FORMAT_CHOICES),
    )
    top_k = forms.IntegerField(
        label=gettext_lazy("Top-K"),
        required=False,
        min_value=1,
        max_value=20,
        help_text=gettext_lazy(
            "How many similar memories each one is compared with: 1–20, default 5."
        ),
    )


@dataclass(frozen=True)
class ShownError:
    """A refused import, as the page shows it: the API's code and message, and where."""

    code: str
    message: str
    explanation: str
    details: list[tuple[str, Any]]
    http_status: int
    excerpt: str = ""  # the offending line of invalid JSON (at most 120 characters of it)
    pointer: str = ""  # "    ^" under the column where it broke


def _shown(exc: StrataGateError, text: str = "") -> ShownError:
    details = [(str(DETAIL_LABELS[k]), exc.details[k]) for k in DETAIL_LABELS if k in exc.details]
    excerpt, pointer = "", ""
    line, column = exc.details.get("line"), exc.details.get("column")
    if isinstance(line, int) and isinstance(column, int) and text:
        lines = text.splitlines() or [""]
        shown_line = lines[min(line, len(lines)) - 1]
        start = max(0, column - 60)
        excerpt = shown_line[start : start + 120].replace("\t", " ")
        pointer = " " * max(0, column - 1 - start) + "^"
    explanation = ERROR_EXPLANATIONS.get(exc.code, "")
    return ShownError(
        exc.code, exc.message, str(explanation), details, exc.http_status, excerpt, pointer
    )


def _uploaded_text(upload: UploadedFile) -> str:
    """The file as UTF-8 text, refused like the API above 4 MiB (read no further than that)."""
    size = upload.size or 0
    if size > MAX_IMPORT_BYTES:
        raise TooLarge(
            f"an import holds at most 4 MiB; this file has {size:,} bytes",
            code="import_too_large",
            details={"bytes": size, "limit": MAX_IMPORT_BYTES},
        )
    raw = upload.read(MAX_IMPORT_BYTES + 1)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Invalid(
            f"the file is not UTF-8 text (byte {raw[exc.start]:#04x} at position {exc.start})",
            code="invalid_utf8",
            details={"position": exc.start},
        ) from exc


def _create(request: HttpRequest, namespace: Namespace, form: ImportForm) -> ImportBatch:
    text, upload = form.cleaned_data["text"], form.cleaned_data["file"]
    if upload is not None and text.strip():
        raise Invalid("paste text or choose a file, not both", code="text_and_file")
    return import_create(
        namespace=namespace,
        text=_uploaded_text(upload) if upload is not None else text,
        fmt=form.cleaned_data["format"] or "auto",
        top_k=form.cleaned_data["top_k"] or DEFAULT_TOP_K,
        created_by=actor(request),
        may_restore_dump=may(request.user, namespace, Role.ADMIN),
    )


def _again(request: HttpRequest, namespace: Namespace, import_id: str) -> ImportBatch:
    """Preview an earlier import's text once more (after a stale refusal): the text never
    leaves the server, so nothing is lost to redaction on the way."""
    earlier = import_get(namespace, int(import_id) if import_id.isdigit() else 0)
    return import_create(
        namespace=namespace,
        text=earlier.source_text,
        fmt=earlier.format,
        top_k=earlier.top_k,
        created_by=actor(request),
        check_limits=False,  # it was accepted (or restored by an operator) once already
        may_restore_dump=may(request.user, namespace, Role.ADMIN),
    )


@require_http_methods(["GET", "POST"])
def import_list_page(request: HttpRequest, ns: str) -> HttpResponse:
    need = Role.EDITOR if request.method == "POST" else Role.VIEWER
    namespace = ui_namespace(request.user, ns, need)
    form = ImportForm(initial={"format": "auto"})
    error: ShownError | None = None
    status = 200
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES)
        try:
            if request.POST.get("again"):
                batch = _again(request, namespace, request.POST["again"])
            elif form.is_valid():
                batch = _create(request, namespace, form)
            else:
                batch = None
                status = 422
        except StrataGateError as exc:
            if exc.code == "import_not_found":
                raise
            error = _shown(exc, str(request.POST.get("text", "")))
            status = exc.http_status
        else:
            if batch is not None:
                messages.success(
                    request,
                    _("Import %(id)s is being previewed: nothing changes until you commit it.")
                    % {"id": batch.pk},
                )
                return redirect("graphui:import", namespace.name, batch.pk)
    context = {
        "form": form,
        "import_error": error,  # not `error`: base.html reads that as "this is an error page"
        "page": import_page_list(namespace, page=request.GET.get("page")),
        "prompts": [import_prompt("en"), import_prompt("zh")],
        "threshold": AUTO_APPLY_CONFIDENCE,
    }
    return render(request, "graphui/imports.html", context, status=status)


# --- one import: preview, commit ----------------------------------------------------------------


@dataclass
class RowForm:
    """A row with what the form shows selected: the person's last choice, else the default
    (ignore, SPEC §11.3, with the proposal's targets ticked)."""

    row: DecisionRowOut
    action: str
    targets: set[int]
    error: str = ""


@dataclass
class Selection:
    rows: list[RowForm]
    errors: int = 0
    choices: list[Choice] = field(default_factory=list)


def _selection(detail: ImportPageOut, post: QueryDict | None = None) -> Selection:
    """Read the choices of the low-confidence rows from the commit form (or the defaults)."""
    selection = Selection(rows=[])
    for row in detail.rows:
        action = str(ImportAction.IGNORE)
        targets = set(row.target_ids)
        error = ""
        if row.choices and post is not None:
            action = post.get(f"action-{row.index}", action)
            ticked = post.getlist(f"targets-{row.index}")
            targets = {int(t) for t in ticked if t.isdigit()}
            # The ticked boxes, none ticked included, checked by the commit's own rule.
            choice = Choice(row.index, action, sorted(targets))
            try:
                chosen = choice_targets(
                    detail.imp.kind, [e.id for e in row.matches], row.target_ids, choice
                )
            except Invalid as exc:
                error = _choice_error(exc, action)
            else:
                selection.choices.append(Choice(row.index, action, chosen or None))
        selection.errors += bool(error)
        selection.rows.append(RowForm(row, action, targets, error))
    return selection


def _choice_error(exc: Invalid, action: str) -> str:
    if exc.code == "choice_target_required":
        return _("Tick the matched memory this row should %(action)s.") % {"action": action}
    if exc.code == "invalid_choice_target":
        return _("Targets must be among this row's matched memories.")
    return _("Choose one of the actions offered.")


def _page_context(
    detail: ImportPageOut, selection: Selection, refusal: ShownError | None = None
) -> dict[str, Any]:
    return {"d": detail, "imp": detail.imp, "selection": selection, "refusal": refusal}


IMPORT = live_page("graphui:import", "graphui/import.html", ("progress", "rows"))


@require_GET
def import_page(request: HttpRequest, ns: str, import_id: int) -> HttpResponse:
    """The preview; `?partial=progress|rows` answers the live refresh with just that part."""
    namespace = ui_namespace(request.user, ns)
    batch = import_get(namespace, import_id)
    part = IMPORT.requested(request)
    detail = import_page_detail(namespace, batch)
    return IMPORT.render(request, part, _page_context(detail, _selection(detail)))


@require_GET
def import_status_json(request: HttpRequest, ns: str, import_id: int) -> JsonResponse:
    """What imports.js polls while the live socket is down."""
    namespace = ui_namespace(request.user, ns)
    progress = import_progress(import_get(namespace, import_id))
    return JsonResponse(progress.model_dump(mode="json"))


def _refused(exc: StrataGateError) -> ShownError:
    shown = _shown(exc)
    explanation = COMMIT_REFUSALS.get(exc.code)
    return (
        shown
        if explanation is None
        else ShownError(
            shown.code, shown.message, str(explanation), shown.details, shown.http_status
        )
    )


@require_POST
def import_commit_action(request: HttpRequest, ns: str, import_id: int) -> HttpResponse:
    """Commit with the person's choices; a refusal (stale, already committed, a bad choice)
    re-renders the page with the reason and the choices kept, having written nothing."""
    namespace = ui_namespace(request.user, ns, Role.EDITOR)
    batch = import_get(namespace, import_id)
    detail = import_page_detail(namespace, batch)
    selection = _selection(detail, request.POST)
    if selection.errors:
        context = _page_context(detail, selection)
        return render(request, "graphui/import.html", context, status=422)
    try:
        result = import_commit(batch=batch, choices=selection.choices, actor=actor(request))
    except StrataGateError as exc:
        if exc.http_status == 404:
            raise
        context = _page_context(detail, selection, _refused(exc))
        return render(request, "graphui/import.html", context, status=exc.http_status)
    if result.session_ids:
        text = _("Import %(id)s committed: %(n)s conversations are being ingested.")
        counts = {"id": batch.pk, "n": len(result.session_ids)}
    else:
        text = _("Import %(id)s committed: %(created)s events created, %(changed)s changed.")
        counts = {
            "id": batch.pk,
            "created": len(result.created_event_ids),
            "changed": len(result.changed_event_ids),
        }
    messages.success(request, text % counts)
    return redirect("graphui:import", namespace.name, batch.pk)


# --- undo ---------------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def import_undo_page(request: HttpRequest, ns: str, import_id: int) -> HttpResponse:
    """GET: what undo will remove and restore, named; POST: undo it (409 when it cannot)."""
    namespace = ui_namespace(request.user, ns, Role.EDITOR)
    batch = import_get(namespace, import_id)
    refusal: ShownError | None = None
    status = 200
    if request.method == "POST":
        try:
            result = import_undo(batch=batch, actor=actor(request))
        except StrataGateError as exc:
            if exc.http_status == 404:
                raise
            refusal, status = _refused(exc), exc.http_status
            batch = import_get(namespace, import_id)
        else:
            messages.success(
                request,
                _("Import %(id)s undone: %(removed)s events removed, %(restored)s restored.")
                % {
                    "id": batch.pk,
                    "removed": len(result.removed_event_ids),
                    "restored": len(result.restored_event_ids),
                },
            )
            return redirect("graphui:import", namespace.name, batch.pk)
    context = {"u": import_undo_preview(namespace, batch), "refusal": refusal}
    return render(request, "graphui/import_undo.html", context, status=status)
