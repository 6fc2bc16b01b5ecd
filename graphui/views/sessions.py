"""Sessions and blocks pages (SPEC §13.5): the session list, one session's blocks with their six
views, expanding a block from the UI, and the block / message links other pages use to show a
source "one click away". The list and the session page are live regions: `?partial=` answers
with just the fragment live.js re-reads when the namespace announces a turn or a block change
(graphui.partials)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from graphui.access import actor, ui_namespace
from graphui.partials import live_page
from memory.engine.decay import MAX_LEVEL, MIN_LEVEL
from memory.models import Role
from memory.selectors import session_view
from memory.selectors.blocks import block_get, session_list, session_row
from memory.selectors.paging import paginate
from memory.services.blocks import block_expand_by_user

PAGE_SIZE = 50
MAX_HIGHLIGHTS = session_view.MAX_HIGHLIGHTS
SESSIONS = live_page("graphui:sessions", "graphui/sessions.html", ("list",))
SESSION = live_page("graphui:session", "graphui/session.html", ("session",))


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _level(value: str | None) -> int | None:
    """A view level from the query string ("4" or "L4"); anything else means "the default"."""
    text = (value or "").strip().upper().removeprefix("L")
    number = _int(text) if text.isdigit() else None
    return number if number is not None and MIN_LEVEL <= number <= MAX_LEVEL else None


def _ids(value: str | None) -> list[int]:
    """`?hl=1,2,3` → [1, 2, 3]: ids other pages ask to highlight; junk is skipped."""
    found = [_int(part.strip()) for part in (value or "").split(",")[:MAX_HIGHLIGHTS]]
    return [n for n in found if n is not None and n > 0]


def session_url(
    ns: str,
    session_id: str,
    *,
    block: int | None = None,
    view: int | None = None,
    highlight: list[int] | None = None,
    saw: int | None = None,
    anchor: str = "",
) -> str:
    """The session page's URL with a tab selected and messages highlighted: the one place
    that builds the exact links the timeline, search, graph and audit pages rely on. `saw`: a
    proxied answer's exchange whose "What the model saw" opens (the usage audit's link)."""
    query: dict[str, str] = {}
    if block is not None:
        query["block"] = str(block)
    if view is not None:
        query["view"] = str(view)
    if highlight:
        query["hl"] = ",".join(str(n) for n in highlight)
    if saw is not None:
        query["saw"] = str(saw)
    url = reverse("graphui:session", args=[ns, session_id])
    if query:
        url += "?" + urlencode(query, safe=",")
    return url + (f"#{anchor}" if anchor else "")


@require_GET
def session_list_page(request: HttpRequest, ns: str) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    part = SESSIONS.requested(request)
    page = paginate(
        session_list(namespace),
        page=request.GET.get("page"),
        per_page=PAGE_SIZE,
        convert=lambda sessions: [session_row(s) for s in sessions],
    )
    return SESSIONS.render(request, part, {"page": page, "rows": page.items})


@require_GET
def session_page(request: HttpRequest, ns: str, session_id: str) -> HttpResponse:
    namespace = ui_namespace(request.user, ns)
    part = SESSION.requested(request)
    shown = session_view.session_page(
        namespace,
        session_id,
        block=_int(request.GET.get("block")),
        view=_level(request.GET.get("view")),
        highlight=_ids(request.GET.get("hl")),
    )
    # Tab links are built in the template without {% querystring %} (hundreds per page); they
    # keep the highlight so a person can look at other views and come back to it.
    keep = f"&hl={','.join(str(n) for n in shown.highlight)}" if shown.highlight else ""
    context = {
        "s": shown,
        "highlight": set(shown.highlight),
        "keep_query": keep,
        "saw_open": _int(request.GET.get("saw")),
    }
    return SESSION.render(request, part, context)


@require_POST
def block_expand_action(request: HttpRequest, ns: str, block_id: int) -> HttpResponse:
    """Lift a block to the chosen level through the same service as the agent API, minus the
    retrieval batch; 409 `block_not_ready` / 422 `invalid_target` pages write nothing. The
    namespace's editor role."""
    namespace = ui_namespace(request.user, ns, Role.EDITOR)
    block = block_get(namespace, block_id)
    expanded = block_expand_by_user(
        block=block, target=request.POST.get("target"), actor=actor(request)
    )
    messages.success(
        request,
        _(
            "Block %(sequence)s now shows L%(level)s; it will fade again as the conversation "
            "goes on."
        )
        % {"sequence": expanded.sequence, "level": expanded.anchor_level},
    )
    return HttpResponseRedirect(
        session_url(
            namespace.name,
            block.session.external_id,
            block=expanded.pk,
            view=expanded.anchor_level,
            anchor=f"block-{expanded.pk}",
        )
    )


@require_GET
def block_link(request: HttpRequest, ns: str, block_id: int) -> HttpResponse:
    """`/blocks/<id>/?level=5&hl=1,2` → the block's card on its session page, that view open,
    those messages highlighted, scrolled to the first of them (or to the card)."""
    namespace = ui_namespace(request.user, ns)
    found = session_view.block_locate(namespace, block_id)
    highlight = _ids(request.GET.get("hl"))
    view = _level(request.GET.get("level"))
    if highlight and view is None:
        view = MAX_LEVEL  # highlighted messages are only visible among the source messages
    on_sources = highlight and view == MAX_LEVEL
    anchor = f"msg-{highlight[0]}" if on_sources else f"block-{found.block_id}"
    return HttpResponseRedirect(
        session_url(
            namespace.name,
            found.session_id,
            block=found.block_id,
            view=view,
            highlight=highlight,
            anchor=anchor,
        )
    )


@require_GET
def message_link(request: HttpRequest, ns: str, message_id: int) -> HttpResponse:
    """A source message: its block's L5 with the message highlighted, or the open tail while
    its turn is not sealed yet."""
    namespace = ui_namespace(request.user, ns)
    found = session_view.message_get(namespace, message_id)
    if found.block_id is None:
        url = session_url(
            namespace.name, found.session_id, highlight=[found.message_id], anchor="open-tail"
        )
    else:
        url = session_url(
            namespace.name,
            found.session_id,
            block=found.block_id,
            view=MAX_LEVEL,
            highlight=[found.message_id],
            anchor=f"msg-{found.message_id}",
        )
    return HttpResponseRedirect(url)
