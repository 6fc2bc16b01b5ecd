"""A namespace holding one object of every kind a route or page can name (session, block,
message, event, graph node, job, import, receipt), built through the real services — and,
when asked, with a secret of every kind SPEC §15.3 lists in its messages, tool arguments,
event text, import candidates, job errors and model-call diagnostics.

Also the one helper every "nothing written" assertion uses: `row_counts()`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta

from django.apps import apps
from django.db import transaction

from memory.engine.prompts.extraction import ExtractedEvent
from memory.models import (
    Block,
    Event,
    GraphNode,
    ImportBatch,
    JobKind,
    JobStatus,
    Message,
    ModelCall,
    Namespace,
    ProcessingJob,
    UsageReceipt,
)
from memory.recall.events import EventSearch
from memory.services.activation import activation_build
from memory.services.adoption import UseRequest, usage_record
from memory.services.events import EventContext, event_create, event_lifecycle
from memory.services.gate import AssessRequest, gate_assess
from memory.services.imports import import_commit, import_create
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from memory.services.retrieval import events_search
from tests.conftest import BASE_TIME
from tests.graphui.proxy_support import counters_add, proxied_session_create


def row_counts() -> dict[str, int]:
    """Rows of every model of the `memory` app: what "nothing was written" is checked against."""
    return {
        model.__name__: model.objects.count()
        for model in apps.get_app_config("memory").get_models()
    }


@dataclass(frozen=True)
class Secret:
    """One credential as it is written (`text`) and the part that must never leave (`needle`)."""

    kind: str
    text: str
    needle: str


# One of every kind SPEC §15.3 names. The needles are random-looking so that finding one (in
# any letter case: a tag may be lower-cased) can only mean the secret leaked.
SECRETS: tuple[Secret, ...] = (
    Secret("openai key", "sk-proj-Q7fZ2kLm9XwR4tYv8NbCaa", "Q7fZ2kLm9XwR4tYv8NbC"),
    Secret("stripe key", "sk_live_51HxRt8PqW3eZm6YvLk2J", "51HxRt8PqW3eZm6YvLk2J"),
    Secret("github token", "ghp_Vb4Nq8Rz2Lt6Wm1Xc9Kp3Hs7Jd5Fg0Ye2Ua", "Vb4Nq8Rz2Lt6Wm1Xc9Kp3"),
    Secret(
        "github fine-grained token",
        "github_pat_11AB2CD3E0Gh7Tk9Mp4Qr_8sVw2Xy5Za1Bc",
        "11AB2CD3E0Gh7Tk9Mp4Qr",
    ),
    Secret("slack token", "xoxb-7310482956-Tq4Wz8Pn2Kc6Rv", "7310482956-Tq4Wz8Pn2Kc6Rv"),
    Secret("aws access key", "AKIAZ7Q4W2E9R5T1Y3U8", "Z7Q4W2E9R5T1Y3U8"),
    Secret("bearer token", "Bearer Hq3Zt7Lw1Nb5Vx9Mk2Pc6", "Hq3Zt7Lw1Nb5Vx9Mk2Pc6"),
    Secret(
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJRd3JLbTlaIn0.Xk2Lq9Wz4Tn7Rb1Vm8Pc5Hs3",
        "Xk2Lq9Wz4Tn7Rb1Vm8Pc5Hs3",
    ),
    Secret(
        "pem private key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzQ4Wm7Tr2Lk9Xb5Vn8\n"
        "Yp3Hq6Jc1Rd4Fs7Gt0Kw2Mz5Nx8Pb3Qv\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEAzQ4Wm7Tr2Lk9Xb5Vn8",
    ),
    Secret("url credentials", "postgres://atlas:Wq8Rt3Zm6Kp1@db.example.com/app", "Wq8Rt3Zm6Kp1"),
    Secret("password=", "password=Lm4Xz9Qw2Rt7Vb", "Lm4Xz9Qw2Rt7Vb"),
    Secret("secret:", "client_secret: Pz6Kw1Nq8Vt3Hb", "Pz6Kw1Nq8Vt3Hb"),
    Secret("api_key=", "api_key=Tn5Rb2Wx7Kq9Mz", "Tn5Rb2Wx7Kq9Mz"),
    Secret("quoted json token", '{"access_token": "Gv7Jp2Xc9Lr4Zs"}', "Gv7Jp2Xc9Lr4Zs"),
)
ALL_SECRETS = "  ".join(s.text for s in SECRETS)


def leaks(text: str) -> list[str]:
    """The kinds of secret whose sensitive part appears in `text` (any letter case)."""
    folded = text.casefold()
    return [s.kind for s in SECRETS if s.needle.casefold() in folded]


def leak_context(text: str, width: int = 50) -> list[str]:
    """Each leaked needle with what surrounds it, for failure messages."""
    folded = text.casefold()
    shown = []
    for secret in SECRETS:
        at = folded.find(secret.needle.casefold())
        if at >= 0:
            shown.append(f"{secret.kind}: …{text[max(0, at - width) : at + width]}…")
    return shown


@dataclass(frozen=True)
class World:
    """Real ids of one namespace's objects, to fill every route's and page's parameters."""

    namespace: Namespace
    session_id: str
    block_id: int
    message_id: int
    event_id: int  # the event written with secrets in its text (an admin-pinned one)
    node_id: int
    job_id: int  # a failed job
    import_id: int
    receipt_pk: int
    receipt_id: str

    def path_values(self) -> dict[str, str]:
        """Values for every path parameter the API and the UI use."""
        return {
            "ns": self.namespace.name,
            "session_id": self.session_id,
            "block_id": str(self.block_id),
            "message_id": str(self.message_id),
            "event_id": str(self.event_id),
            "node_id": str(self.node_id),
            "job_id": str(self.job_id),
            "import_id": str(self.import_id),
            "receipt_pk": str(self.receipt_pk),
            "action": "pin",
        }


LINES = (
    "Let's use PostgreSQL for the Orion project.",
    "Maya works at Acme on the Orion project.",
    "We decided to deploy Orion with Docker.",
    "Use pnpm for this project.",
    "The release of Orion is planned for Friday.",
    "Priya reviewed the Orion dashboard yesterday.",
    "Anything else for today?",
)


def _with(secret: Secret | None, line: str) -> str:
    return f"{line} Config: {secret.text}" if secret else line


def _turns(namespace: Namespace, session: str, *, secrets: bool) -> None:
    for n, line in enumerate(LINES, start=1):
        secret = SECRETS[n % len(SECRETS)] if secrets else None
        tool_calls = [
            {
                "name": "deploy",
                "arguments": {"env": "staging", "dsn": SECRETS[9].text, "note": ALL_SECRETS}
                if secrets
                else {"env": "staging"},
                "result": {"ok": True, "log": ALL_SECRETS if secrets else "done"},
            }
        ]
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=session,
                receipt_id=f"{namespace.name}-{n}",
                occurred_at=BASE_TIME + timedelta(minutes=n),
                messages=[
                    MessageIn(role="user", content=_with(secret, line)),
                    MessageIn(
                        role="assistant",
                        content=_with(secret, f"Noted: {line.lower()}"),
                        tool_calls=tool_calls,
                    ),
                ],
            ),
        )


def _secret_event(block: Block, *, secrets: bool) -> Event:
    messages = {m.pk: m for m in Message.objects.filter(turn__block=block).order_by("pk")}
    text = ALL_SECRETS if secrets else "the staging credentials"
    with transaction.atomic():
        return event_create(
            extracted=ExtractedEvent(
                title=f"Orion staging credentials {SECRETS[0].text if secrets else ''}".strip(),
                summary=f"The team shared the Orion staging credentials: {text}",
                event_type="decision",
                tags=["orion", *(s.text for s in SECRETS[:6] if secrets)],
                quotes=[text],
                participants=["Maya", *([SECRETS[6].text] if secrets else [])],
                source_message_ids=list(messages)[:2],
                original_text=f"on Friday {SECRETS[10].text}" if secrets else "on Friday",
            ),
            context=EventContext(block=block, formed_turn=6, messages=messages),
        )


def _import_text(*, secrets: bool) -> str:
    def candidate(n: int) -> dict[str, object]:
        secret = SECRETS[n] if secrets else None
        return {
            "memoryKind": "fact",
            "category": "project",
            "title": _with(secret, f"Orion deployment note {n}"),
            "summary": _with(secret, f"The Orion deployment uses host {n}."),
            "narrative": ALL_SECRETS if secrets else "",
            "tags": ["project", *([SECRETS[n + 1].text] if secrets else [])],
            "quotes": [_with(secret, "my own words")],
            "confidence": 0.9,
        }

    return json.dumps(
        {
            "schemaVersion": "stratagate.external-memory.v2",
            "sourceType": "external_ai_memory_export",
            "sourceSystem": "OtherAI",
            "coverage": "partial",
            "coverageNote": ALL_SECRETS if secrets else "",
            "uncertainItems": [SECRETS[2].text] if secrets else [],
            "candidates": [candidate(n) for n in range(4)],
        }
    )


def _failed_job(namespace: Namespace, block: Block, *, secrets: bool) -> ProcessingJob:
    """A failed job whose error text quotes the model's answer, as a model echoing a secret
    would make it, with the model call recorded for diagnostics."""
    text = f"the answer does not match the schema: input_value='{ALL_SECRETS}'" if secrets else ""
    job = ProcessingJob.objects.create(
        namespace=namespace,
        kind=JobKind.GRAPH_PROJECT,
        block=block,
        payload={"event_ids": []},
        status=JobStatus.FAILED,
        attempts=3,
        last_error=f"Traceback (most recent call last):\nLLMOutputError: {text or 'bad'}",
        error_preview=text[:500] or "bad",
    )
    ModelCall.objects.create(
        namespace=namespace,
        job=job,
        kind="graph",
        model="fake-model",
        ok=False,
        error_text=text or "bad",
        preview=ALL_SECRETS if secrets else "{}",
    )
    ModelCall.objects.create(
        namespace=namespace,
        kind="views",
        model="fake-model",
        ok=True,
        latency_ms=12,
        preview=json.dumps({"title": ALL_SECRETS}) if secrets else "{}",
    )
    return job


def world_build(name: str, *, secrets: bool = False) -> World:
    namespace = namespace_get_or_create(name=name)
    session = f"{name}-s1"
    _turns(namespace, session, secrets=secrets)
    jobs_drain()
    block = Block.objects.filter(namespace=namespace).order_by("pk").first()
    assert block is not None and block.status == "ready", "six turns seal one ready block"
    event = _secret_event(block, secrets=secrets)
    event_lifecycle(event=event, action="pin", actor="user:ada")

    batch = import_create(
        namespace=namespace, text=_import_text(secrets=secrets), created_by="token:test"
    )
    jobs_drain()
    import_commit(batch=ImportBatch.objects.get(pk=batch.pk), actor="user:ada")
    jobs_drain()

    found = events_search(
        namespace=namespace,
        params=EventSearch(query="Orion staging credentials", session_id=session),
    )
    assert any(hit.event.pk == event.pk for hit in found.hits), "the secret event is found"
    refs = [f"event:{event.pk}"]
    gate_assess(
        namespace=namespace,
        request=AssessRequest(
            verdict="sufficient",
            evidence_refs=refs,
            fit=f"it names the credentials {SECRETS[7].text if secrets else ''}",
            batch_id=found.batch.public_id,
            session_id=session,
        ),
    )
    recorded = usage_record(
        namespace=namespace,
        request=UseRequest(
            receipt_id=f"{name}-use-1",
            evidence_refs=refs,
            batch_id=found.batch.public_id,
            session_id=session,
            answer=f"The staging credentials are {ALL_SECRETS}" if secrets else "Friday",
        ),
    )
    activation_build(
        namespace=namespace, session=None, query="Orion staging credentials deploy", budget=4000
    )
    job = _failed_job(namespace, block, secrets=secrets)
    # The session came through the model proxy: the agent's system prompt and the memory
    # injected into its requests are on the session page.
    proxied_session_create(
        namespace,
        session,
        system=(f"You deploy Orion. {ALL_SECRETS if secrets else ''}",),
        exchanges=(
            {
                "turn": 1,
                "model": "gpt-4o-mini",
                "injected_text": f"<memory>{ALL_SECRETS if secrets else 'Orion'}</memory>",
                "injected_tokens": 40,
                "injected_refs": [f"event:{event.pk}"],
            },
        ),
    )
    counters_add(namespace, {"requests": 1, "captured": 1})
    node = GraphNode.objects.filter(namespace=namespace).order_by("pk").first()
    assert node is not None, "the offline graph projection made nodes"
    message = Message.objects.filter(turn__block=block).order_by("pk").first()
    assert message is not None
    receipt = UsageReceipt.objects.get(pk=recorded.receipt.pk)
    return World(
        namespace=namespace,
        session_id=session,
        block_id=block.pk,
        message_id=message.pk,
        event_id=event.pk,
        node_id=node.pk,
        job_id=job.pk,
        import_id=batch.pk,
        receipt_pk=receipt.pk,
        receipt_id=receipt.receipt_id,
    )
