"""Redaction on every way out, never in storage (SPEC §15.3, issue 11 item 7).

A namespace holds a secret of every kind SPEC §15.3 names (tests/security/world.py: provider
keys, GitHub and Slack tokens, an AWS key, a bearer token, a JWT, a PEM private key, URL
credentials, and password/secret/api_key/token values in key=value, key: value and quoted JSON
forms) in its messages, tool arguments and results, event text, import candidates, an
assessment, a receipt's answer, a job's error and the model-call diagnostics. Then every GET
operation of the API is walked with real ids (and the reads that go by POST: searches,
expansion, assess), every page of the Memory UI (every id, view, tab and live partial), both
exports, the management commands that print state, and every log line at DEBUG. The sensitive
part of no secret may appear anywhere, in any letter case; the rows still hold every one.
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from graphui.partials import PAGES
from memory.models import (
    AgentToken,
    Block,
    Event,
    GraphNode,
    ImportBatch,
    ImportCandidate,
    Message,
    ModelCall,
    ProcessingJob,
    Session,
    UsageReceipt,
)
from memory.services.tokens import token_create
from tests.security.routes import api_operations, bearer, site_routes, site_url
from tests.security.world import ALL_SECRETS, SECRETS, World, leak_context, leaks, world_build

pytestmark = pytest.mark.django_db

NS = "proj"
QUERY = "Orion staging credentials Config deploy note password token key"
MARK = "[REDACTED]"


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    """Every record at DEBUG, from every logger (ours is at INFO by default)."""
    caplog.set_level(logging.DEBUG)
    # django.template's DEBUG records dump whole template contexts: the read models, which must
    # be redacted too, so they stay in.
    for name in ("memory", "django", "graphui", "stratagate_site"):
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


@pytest.fixture
def world(logs: pytest.LogCaptureFixture) -> World:
    return world_build(NS, secrets=True)


def _text(response: Any) -> str:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


def _log_text(logs: pytest.LogCaptureFixture) -> str:
    parts = []
    for record in logs.records:
        parts.append(record.getMessage())
        if record.exc_info:
            parts.append(logging.Formatter().formatException(record.exc_info))
    return "\n".join(parts)


def _ids(model: Any, world: World, **filters: Any) -> list[int]:
    return list(
        model.objects.filter(namespace=world.namespace, **filters).values_list("pk", flat=True)
    )


def test_the_stored_rows_keep_every_secret(world: World) -> None:
    """Redaction is on the way out only: the rows hold what was sent, byte for byte."""
    stored = {
        "messages": " ".join(Message.objects.values_list("content", flat=True)),
        "tool calls": json.dumps(list(Message.objects.values_list("tool_calls", flat=True))),
        "events": json.dumps(
            list(Event.objects.values_list("title", "summary", "tags", "quotes", "participants"))
        ),
        "candidates": json.dumps(list(ImportCandidate.objects.values_list("payload", flat=True))),
        "import text": " ".join(ImportBatch.objects.values_list("source_text", flat=True)),
        "job errors": " ".join(ProcessingJob.objects.values_list("last_error", flat=True)),
        "model calls": " ".join(ModelCall.objects.values_list("preview", flat=True)),
        "answers": " ".join(UsageReceipt.objects.values_list("answer_text", flat=True)),
    }
    everything = {s.kind for s in SECRETS}
    for place, text in stored.items():
        assert set(leaks(text)) == everything, place
    assert MARK not in " ".join(stored.values())


# --- the API ------------------------------------------------------------------------------------


def _get_variants(operation_id: str, world: World) -> list[dict[str, str]]:
    """Query strings that show more of what an operation can return (an operation added later
    is walked with its required parameters alone)."""
    return {
        "memory_event_timeline": [{}, {"status": "active,superseded,forgotten,archived"}],
        "memory_export": [{"format": "v2"}, {"format": "jsonl"}],
        "memory_context": [{"query": QUERY, "budget": "8000"}],
        "jobs_list": [{}, {"status": "failed"}],
        "memory_graph_state": [{}, {"as_of": "1"}],
        "memory_expand_graph_node": [{}, {"as_of": "1"}],
    }.get(operation_id, [{}])


def _path_values(world: World) -> Iterator[dict[str, str]]:
    """Every real id of every kind a path names: all events, nodes, imports and sessions."""
    base = world.path_values()
    for event in _ids(Event, world):
        yield base | {"event_id": str(event)}
    for node in _ids(GraphNode, world):
        yield base | {"node_id": str(node)}
    for batch in _ids(ImportBatch, world):
        yield base | {"import_id": str(batch)}
    for session in Session.objects.filter(namespace=world.namespace):
        yield base | {"session_id": session.external_id}


def api_answers(world: World) -> Iterator[tuple[str, Any]]:
    _, raw = token_create(namespaces=[NS], scope="admin")
    client = Client()
    headers = bearer(raw)
    required = {"session_id": world.session_id, "receipt_id": world.receipt_id}
    for op in api_operations(required):
        if op.method != "get":
            continue
        urls = dict.fromkeys(op.url(values) for values in _path_values(world))
        for url in urls:
            for extra in _get_variants(op.operation_id, world):
                response = client.get(url, op.query | extra, **headers)
                yield f"GET {url} {extra}", response
    # The reads that go by POST: searches, block expansion at every level, and assess, whose
    # answer repeats the (stored) fit and missing text.
    searches = {}
    for kind in ("events", "graph", "raw"):
        body = {"query": QUERY, "limit": 20, "session_id": world.session_id}
        response = client.post(
            f"/api/v1/ns/{NS}/search/{kind}", body, content_type="application/json", **headers
        )
        searches[kind] = response.json()
        yield f"search/{kind}", response
    for block in _ids(Block, world):
        for level in ("L0", "L1", "L2", "L3", "L4", "L5"):
            response = client.post(
                f"/api/v1/ns/{NS}/blocks/{block}/expand",
                {"target": level},
                content_type="application/json",
                **headers,
            )
            yield f"expand {block} {level}", response
    assess = {
        "batch_id": searches["events"]["batch_id"],
        "verdict": "partial",
        "evidence_refs": searches["events"]["evidence_refs"][:2],
        "fit": f"fits: {ALL_SECRETS}",
        "missing": ALL_SECRETS,
        "next_strategy": "search_raw",
        "question": f"what is {ALL_SECRETS}?",
    }
    yield (
        "assess",
        client.post(f"/api/v1/ns/{NS}/assess", assess, content_type="application/json", **headers),
    )


def test_no_api_response_shows_a_secret(world: World, logs: pytest.LogCaptureFixture) -> None:
    answered = redacted = 0
    found = []
    for what, response in api_answers(world):
        assert response.status_code in (200, 201), (what, response.content[:300])
        text = _text(response)
        answered += 1
        redacted += MARK in text
        if leaks(text):
            found.append((what, leak_context(text)))
    assert not found
    # The walk covers every GET with every id of the world (59 answers since the assistant's
    # "Noted: …" echoes stopped making events of their own) and finds secrets to redact.
    assert answered >= 55 and redacted >= 20, (answered, redacted)
    assert not leaks(_log_text(logs))


# --- the Memory UI ------------------------------------------------------------------------------


def _partials(name: str) -> list[str]:
    """The partials the page `name` serves alone (graphui.partials), each read like a page."""
    page = PAGES.get(name)
    return sorted(page.partials) if page else []


def _ui_variants(name: str, world: World) -> list[dict[str, Any]]:
    blocks = _ids(Block, world)
    nodes = _ids(GraphNode, world)
    return {
        "graphui:session": [{"view": v, "block": b} for b in blocks for v in range(6)],
        "graphui:block": [{"level": v} for v in range(6)],
        "graphui:search": [
            {"q": QUERY, "kind": k} for k in ("all", "events", "graph", "blocks", "raw")
        ],
        "graphui:timeline": [{}, {"status": ["active", "superseded", "forgotten", "archived"]}],
        "graphui:graph": [{}, {"history": "1"}, {"q": "Orion"}],
        "graphui:graph_data": [{"focus": n, "depth": "2", "history": "1"} for n in nodes],
        "graphui:node": [{}, {"history": "1", "as_of": "1"}],
        "graphui:settings": [
            {"ns": NS, "session": world.session_id},
            {"ns": NS, "session": world.session_id, "block_lambda": "0.5", "partial": "preview"},
        ],
    }.get(name, [{}])


def _ui_values(world: World, route_parameters: tuple[str, ...]) -> Iterator[dict[str, str]]:
    base = world.path_values()
    kinds = {
        "event_id": _ids(Event, world),
        "node_id": _ids(GraphNode, world),
        "block_id": _ids(Block, world),
        "import_id": _ids(ImportBatch, world),
        "message_id": list(
            Message.objects.filter(turn__session__namespace=world.namespace).values_list(
                "pk", flat=True
            )
        ),
        "receipt_pk": _ids(UsageReceipt, world),
        "session_id": list(
            Session.objects.filter(namespace=world.namespace).values_list("external_id", flat=True)
        ),
        "action": ["pin", "unpin", "forget", "restore"],
        "token_id": list(AgentToken.objects.values_list("pk", flat=True)),
    }
    varied = [p for p in route_parameters if p in kinds]
    if not varied:
        yield base
        return
    for value in kinds[varied[0]]:
        yield base | {varied[0]: str(value)}


def ui_pages(world: World, client: Client) -> Iterator[tuple[str, Any]]:
    for route in site_routes():
        if not route.name.startswith("graphui:"):
            continue
        for values in _ui_values(world, route.parameters):
            url = site_url(route, values)
            queries = _ui_variants(route.name, world)
            queries += [{"partial": p} for p in _partials(route.name)]
            for query in queries:
                response = client.get(url, query, follow=True)
                yield f"{url} {query}", response


def test_no_ui_page_shows_a_secret(
    world: World, django_user_model: Any, logs: pytest.LogCaptureFixture
) -> None:
    client = Client()
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    token_create(namespaces=[NS], scope="read", label="for the tokens pages")
    shown = redacted = 0
    found = []
    for what, response in ui_pages(world, client):
        if response.status_code == 405:  # an action that only takes POST
            continue
        assert response.status_code == 200, (what, response.status_code)
        text = _text(response)
        shown += 1
        redacted += MARK in text
        if leaks(text):
            found.append((what, leak_context(text)))
    assert not found
    assert shown >= 100 and redacted >= 30, (shown, redacted)
    assert not leaks(_log_text(logs))


# --- exports and the management commands that print state --------------------------------------


def _command(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
    except CommandError as exc:
        err.write(str(exc))
    return out.getvalue() + err.getvalue()


def test_exports_and_diagnostic_commands_show_no_secret(
    world: World, tmp_path: Any, logs: pytest.LogCaptureFixture
) -> None:
    """`export_memory --no-redact` is the operator's raw backup, so the one way a secret may
    leave; `create_agent_token` prints the new token once by design."""
    outputs = {
        "export v2": _command("export_memory", "--namespace", NS),
        "export jsonl": _command("export_memory", "--namespace", NS, "--format", "jsonl"),
        "check_consistency": _command("check_consistency"),
        "check_consistency --json": _command("check_consistency", "--json", "--namespace", NS),
        "rebuild_graph": _command("rebuild_graph", "--namespace", NS),
        "reindex_search": _command("reindex_search", "--namespace", NS),
    }
    file = tmp_path / "memories.json"
    file.write_text(world_import_text(), encoding="utf-8")
    outputs["import_memory"] = _command(
        "import_memory", str(file), "--namespace", NS, "--yes", "--drain"
    )
    batch = ImportBatch.objects.order_by("-pk").first()
    assert batch is not None
    outputs["import_memory --undo"] = _command(
        "import_memory", "--namespace", NS, "--undo", str(batch.pk)
    )
    assert MARK in outputs["export v2"] and MARK in outputs["export jsonl"]
    assert len(outputs["export jsonl"].splitlines()) > 20
    raw = _command("export_memory", "--namespace", NS, "--format", "jsonl", "--no-redact")
    assert set(leaks(raw)) == {s.kind for s in SECRETS}  # the raw backup keeps them
    for name, text in outputs.items():
        assert not leaks(text), (name, leaks(text))
    assert not leaks(_log_text(logs))


def world_import_text() -> str:
    """An import whose candidates carry every secret, for the command's preview table."""
    candidates = [
        {"memoryKind": "fact", "title": f"{s.text} note", "summary": f"Keep {s.text} safe."}
        for s in SECRETS
    ]
    return json.dumps(
        {
            "schemaVersion": "stratagate.external-memory.v2",
            "sourceType": "external_ai_memory_export",
            "sourceSystem": SECRETS[0].text,
            "candidates": candidates,
        }
    )


# --- a model that fails while echoing a secret --------------------------------------------------


def test_a_failing_model_that_echoes_secrets_leaks_them_nowhere(
    world: World,
    settings: Any,
    fake_openai: Any,
    django_user_model: Any,
    logs: pytest.LogCaptureFixture,
) -> None:
    """Every call answers JSON that breaks the schema and quotes the conversation's secrets, so
    the job fails for good with the model's answer kept whole in its call's row — and the log
    line, the API's job list and health, and the Processing page stay clean."""
    from memory.services.ingest import MessageIn, TurnIn, turn_ingest
    from memory.services.jobs import jobs_drain

    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    settings.STRATAGATE_LLM_API_KEY = "sk-test"
    fake_openai.default = lambda request: json.dumps({"title": 42, "summary": ALL_SECRETS})
    for n in range(6):
        turn_ingest(
            namespace=world.namespace,
            turn=TurnIn(
                session_id="echo",
                receipt_id=f"echo-{n}",
                messages=[
                    MessageIn(role="user", content=f"Deploy with {SECRETS[n].text}"),
                    MessageIn(role="assistant", content="Done."),
                ],
            ),
        )
    jobs_drain()
    failed = ProcessingJob.objects.filter(
        namespace=world.namespace, block__session__external_id="echo"
    )
    assert failed.filter(status="failed").exists()
    calls = ModelCall.objects.filter(job__in=failed, ok=False)
    assert calls.exists()
    stored = " ".join(calls.values_list("preview", flat=True))
    assert set(leaks(stored)) == {s.kind for s in SECRETS}, "the model's answer is kept whole"

    _, raw = token_create(namespaces=[NS], scope="read")
    api = Client()
    for path in ("jobs?status=failed", "health"):
        response = api.get(f"/api/v1/ns/{NS}/{path}", **bearer(raw))
        assert response.status_code == 200, path
        assert not leaks(response.content.decode()), leak_context(response.content.decode())
    client = Client()
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    for page in ("processing/", ""):
        response = client.get(f"/ns/{NS}/{page}")
        assert response.status_code == 200, page
        assert not leaks(response.content.decode()), leak_context(response.content.decode())
    assert not leaks(_log_text(logs)), [
        r.getMessage()[:200] for r in logs.records if leaks(r.getMessage())
    ]
