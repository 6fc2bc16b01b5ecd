"""Bad input to the Memory UI (issue 11 item 5): the forms that write (settings, import paste and
upload, import commit choices, block expansion) refuse it with a 4xx page naming the error code
and write nothing; every page read with hostile query strings (NUL, 100,000 characters, dates
at the ends of the calendar in far time zones, absurd page numbers) answers without a 5xx and
writes nothing. Rows of every memory model are counted before and after (`row_counts`)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from memory.models import MemorySettings
from memory.services.namespaces import namespace_get_or_create
from tests.security.routes import site_routes, site_url
from tests.security.world import World, row_counts, world_build

pytestmark = pytest.mark.django_db

NS = "proj"
MiB = 1024 * 1024
NUL = "\x00"
DEEP = "[" * 10_000 + "]" * 10_000


@pytest.fixture
def world() -> World:
    """One object of every kind, for the forms and pages that name one."""
    return world_build(NS)


@pytest.fixture
def empty(db: None) -> None:
    """An empty namespace: any row a refused form wrote would show in the counts."""
    namespace_get_or_create(name=NS)


@pytest.fixture
def staff(django_user_model: Any) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


def _page_refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert code.encode() in response.content, code


def v2(*titles: str, raw_title: str = "") -> str:
    text = json.dumps(
        {
            "schemaVersion": "stratagate.external-memory.v2",
            "sourceType": "external_ai_memory_export",
            "candidates": [
                {"memoryKind": "fact", "title": t, "summary": f"About {t}."} for t in titles
            ],
        }
    )
    return text.replace("RAW", raw_title) if raw_title else text


# --- settings -----------------------------------------------------------------------------------

SETTINGS = [
    ({"block_lambda": "0.33", "block_turns": "6"}, "invalid_block_lambda"),
    ({"block_lambda": "abc", "block_turns": "6"}, "invalid_block_lambda"),
    ({"block_lambda": "NaN", "block_turns": "6"}, "invalid_block_lambda"),
    ({"block_lambda": "1e999", "block_turns": "6"}, "invalid_block_lambda"),
    ({"block_lambda": "-0.05", "block_turns": "6"}, "invalid_block_lambda"),
    ({"block_lambda": "", "block_turns": "6"}, "invalid_block_lambda"),
    ({"block_lambda": "0.3" + NUL, "block_turns": "6"}, "invalid_text"),
    ({"block_lambda": "0.30", "block_turns": "0"}, "invalid_block_turns"),
    ({"block_lambda": "0.30", "block_turns": "101"}, "invalid_block_turns"),
    ({"block_lambda": "0.30", "block_turns": "1.5"}, "invalid_block_turns"),
    ({"block_lambda": "0.30", "block_turns": "9" * 5000}, "invalid_block_turns"),
    ({"block_lambda": "0.30"}, "invalid_block_turns"),
    ({"block_lambda": "0.30", "block_turns": "6", "ns": NUL, "session": NUL}, "invalid_text"),
]


@pytest.mark.parametrize(("data", "code"), SETTINGS, ids=[repr(d)[:60] for d, _ in SETTINGS])
def test_the_settings_form_refuses_bad_values_and_saves_nothing(
    staff: Client, empty: None, data: dict[str, str], code: str
) -> None:
    before = row_counts()
    _page_refused(staff.post("/settings/", data), 422, code)
    assert row_counts() == before
    assert not MemorySettings.objects.exists()


@pytest.mark.parametrize(
    "query",
    [
        {"block_lambda": "abc"},
        {"block_turns": "0"},
        {"block_lambda": "0.3", "ns": NUL, "session": NUL},
        {"ns": "x" * 100_000, "session": "y" * 100_000},
    ],
)
def test_the_settings_preview_answers_bad_values_without_failing(
    staff: Client, empty: None, query: dict[str, str]
) -> None:
    before = row_counts()
    status = 422 if any(NUL in v for v in query.values()) else 200
    for shown in (query, {**query, "partial": "preview"}):  # the page, and its preview alone
        response = staff.get("/settings/", shown)
        assert response.status_code == status, response.content[:300]
    assert row_counts() == before


# --- import: paste and upload -------------------------------------------------------------------

PASTES: dict[str, tuple[dict[str, Any], int, str]] = {
    "nothing": ({"text": "   "}, 422, "empty_import"),
    "not json": ({"text": "{oops"}, 422, "invalid_import_json"),
    "10,000 nested": ({"text": DEEP}, 422, "invalid_import_json"),
    "wrong source type": (
        {"text": v2("a").replace("external_ai", "diary")},
        422,
        "invalid_source_type",
    ),
    "unknown format": ({"text": v2("a"), "format": "xml"}, 422, "invalid_format"),
    # Title and summary each hold 2.1 MiB: over the import's 4 MiB, under the 6 MiB body cap.
    "over 4 MiB": ({"text": v2("a" * (21 * MiB // 10))}, 413, "import_too_large"),
    "201 memories": ({"text": v2(*[f"m{n}" for n in range(201)])}, 413, "too_many_candidates"),
    "NUL escape inside": ({"text": v2("RAW", raw_title="a\\u0000")}, 422, "invalid_text"),
    "half a surrogate pair inside": ({"text": v2("RAW", raw_title="\\udc00")}, 422, "invalid_text"),
    "NUL in the pasted text": ({"text": v2("a") + NUL}, 422, "invalid_text"),
    "top_k 0": ({"text": v2("a"), "top_k": "0"}, 422, "top_k"),
    "top_k text": ({"text": v2("a"), "top_k": "many"}, 422, "top_k"),
}


@pytest.mark.parametrize("name", list(PASTES))
def test_a_bad_paste_is_refused_and_writes_nothing(staff: Client, empty: None, name: str) -> None:
    data, status, code = PASTES[name]
    before = row_counts()
    _page_refused(staff.post(f"/ns/{NS}/imports/", data), status, code)
    assert row_counts() == before


UPLOADS: dict[str, tuple[bytes, dict[str, str], int, str]] = {
    "not utf-8": (b"\xff\xfe{\x00", {}, 422, "invalid_utf8"),
    "latin-1": ('{"title": "café"}'.encode("latin-1"), {}, 422, "invalid_utf8"),
    "over 4 MiB": (v2("b" * (21 * MiB // 10)).encode(), {}, 413, "import_too_large"),
    "a raw NUL byte": (v2("a").encode() + b"\x00", {}, 422, "invalid_import_json"),
    "NUL escape inside": (v2("RAW", raw_title="\\u0000").encode(), {}, 422, "invalid_text"),
    "10,000 nested": (DEEP.encode(), {}, 422, "invalid_import_json"),
    "text and a file": (v2("a").encode(), {"text": v2("b")}, 422, "text_and_file"),
    "empty file": (b"", {}, 422, ""),
}


@pytest.mark.parametrize("name", list(UPLOADS))
def test_a_bad_upload_is_refused_and_writes_nothing(staff: Client, empty: None, name: str) -> None:
    content, extra, status, code = UPLOADS[name]
    before = row_counts()
    upload = SimpleUploadedFile("memories.json", content, content_type="application/json")
    response = staff.post(f"/ns/{NS}/imports/", {"file": upload, "format": "auto", **extra})
    assert 400 <= response.status_code < 500, response.status_code
    if code:
        _page_refused(response, status, code)
    assert row_counts() == before


def test_a_body_over_the_upload_limit_is_a_4xx_and_writes_nothing(
    staff: Client, empty: None
) -> None:
    before = row_counts()
    response = staff.post(f"/ns/{NS}/imports/", {"text": "x" * (7 * MiB)})
    assert 400 <= response.status_code < 500, response.status_code
    assert row_counts() == before


# --- import commit choices, block expansion, event actions -------------------------------------


def test_bad_commit_choices_are_refused_and_write_nothing(staff: Client, world: World) -> None:
    from memory.services.imports import import_create
    from memory.services.jobs import jobs_drain

    batch = import_create(
        namespace=world.namespace, text=v2("Orion staging", "Something new"), created_by="t"
    )
    jobs_drain()
    before = row_counts()
    for data in (
        {"action-0": "explode", "action-1": "explode"},
        {"action-0": "merge", "targets-0": "999999999999999999999"},
        {"action-0": "merge", "targets-0": NUL},  # a 422 invalid_text page
        {"action-0": "x" * 100_000},
    ):
        response = staff.post(f"/ns/{NS}/imports/{batch.pk}/commit/", data)
        # Rows that need no choice commit; the page refuses only when a choice is invalid.
        assert response.status_code in (302, 422), response.status_code
        if response.status_code == 302:
            continue
        assert row_counts() == before
    assert staff.post(f"/ns/{NS}/imports/", {"again": "abc"}).status_code == 404
    _page_refused(staff.post(f"/ns/{NS}/imports/", {"again": NUL}), 422, "invalid_text")


@pytest.mark.parametrize("target", ["L9", "-1", "9" * 40, NUL, "", "raw; DROP TABLE"])
def test_a_bad_expand_target_is_refused_and_writes_nothing(
    staff: Client, world: World, target: str
) -> None:
    before = row_counts()
    response = staff.post(f"/ns/{NS}/blocks/{world.block_id}/expand/", {"target": target})
    _page_refused(response, 422, "invalid_text" if NUL in target else "invalid_target")
    assert row_counts() == before


@pytest.mark.parametrize("action", ["explode", "PIN", NUL, "x" * 5000])
def test_an_unknown_event_action_is_a_4xx_and_writes_nothing(
    staff: Client, world: World, action: str
) -> None:
    before = row_counts()
    from urllib.parse import quote

    url = f"/ns/{NS}/events/{world.event_id}/{quote(action)}/"
    for method in (staff.get, staff.post):
        response = method(url)
        assert 400 <= response.status_code < 500, (action[:10], response.status_code)
    assert row_counts() == before


# --- every page, read with hostile query strings ------------------------------------------------

HOSTILE_QUERIES: list[dict[str, str]] = [
    {"q": NUL, "hl": NUL, "participant": NUL, "session": NUL, "kind": NUL, "ns": NUL},
    {"q": "x" * 100_000, "participant": "p" * 100_000, "session": "s" * 100_000},
    {"from": "0001-01-01", "to": "9999-12-31", "as_of": "0001-01-01"},
    {"from": "9999-12-31", "to": "0001-01-01", "as_of": "9" * 40},
    {"page": "-1", "failed_page": "0", "level": "99", "view": "L9", "block": "abc"},
    {"page": "9" * 40, "failed_page": "9" * 40, "history": "maybe", "partial": "../../x"},
    {"status": "gone", "type": "x", "temporal": "y", "verdict": "z", "used": "w"},
    {"as_of": "0001-01-01T00:00:00+14:00", "hl": "1,2,x,-5,99999999999999999999"},
]


@pytest.mark.parametrize("zone", ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago"])
def test_every_page_reads_hostile_query_strings_without_failing(
    staff: Client, world: World, settings: Any, zone: str
) -> None:
    """Far time zones put the calendar's first and last days outside what UTC can hold."""
    settings.TIME_ZONE = zone
    before = row_counts()
    pages = [
        site_url(route, world.path_values())
        for route in site_routes()
        if route.name.startswith("graphui:")
    ]
    assert len(pages) >= 28
    failures = []
    for url in pages:
        for query in HOSTILE_QUERIES:
            response = staff.get(url, query)
            if response.status_code >= 500:
                failures.append((url, sorted(query)))
    assert not failures
    assert row_counts() == before
