"""What the Processing page's tests share: users by role, a namespace, a fake model that fails,
jobs in any state (the fixtures are offered by conftest.py)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from memory.models import (
    JobKind,
    JobStatus,
    Namespace,
    NamespaceGrant,
    ProcessingJob,
    Role,
)
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.jobs import jobs_drain
from memory.services.namespaces import namespace_get_or_create
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply

SECRET = "api_key=sk-abcdefghijklmnop1234"
RAW_KEY = "sk-abcdefghijklmnop1234"
GOOD = json.dumps(
    {
        "title": "Storage layer decision",
        "tags": ["storage", "postgres"],
        "summary": "The user and assistant chose PostgreSQL for storage.",
        "key_points": ["Use PostgreSQL for storage"],
        "should_extract": False,
    }
)


@pytest.fixture
def staff(client: Client, django_user_model: Any) -> Client:
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    return client


def member_with(django_user_model: Any, role: Role | None, name: str = "bob") -> Client:
    """A logged-in user who is not staff, with `role` in namespace proj (None: no grant)."""
    user = django_user_model.objects.create_user(name)
    if role is not None:
        namespace = Namespace.objects.get(name="proj")
        NamespaceGrant.objects.create(user=user, namespace=namespace, role=role)
    other = Client()
    other.force_login(user)
    return other


@pytest.fixture
def member(django_user_model: Any, proj: Namespace) -> Client:
    """An editor of proj: reads the errors, may not retry (that needs the admin role)."""
    return member_with(django_user_model, Role.EDITOR)


# Who is refused an admin action in proj, and how.
BELOW_ADMIN = pytest.mark.parametrize(
    ("role", "status", "code"),
    [
        (None, 404, "namespace_not_found"),
        (Role.VIEWER, 403, "role_required"),
        (Role.EDITOR, 403, "role_required"),
    ],
)


@pytest.fixture
def proj() -> Namespace:
    return namespace_get_or_create(name="proj")


@pytest.fixture
def model(settings: Any, fake_openai: FakeOpenAIServer) -> FakeOpenAIServer:
    settings.STRATAGATE_LLM_BASE_URL = fake_openai.base_url
    settings.STRATAGATE_LLM_MODEL = "fake-model"
    settings.STRATAGATE_LLM_API_KEY = "sk-test"
    return fake_openai


def ingest(namespace: Namespace, turns: int = 6, *, session: str = "s1", start: int = 1) -> None:
    for n in range(start, start + turns):
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id=session,
                receipt_id=f"{session}-r{n}",
                messages=[
                    MessageIn(role="user", content=f"Question {n} about the storage layer?"),
                    MessageIn(role="assistant", content=f"Answer {n}: we keep PostgreSQL."),
                ],
            ),
        )


def server_error() -> FakeReply:
    """A 500 whose body leaks a key: the stored error keeps it, every page must redact it."""
    body = {"error": {"message": f"upstream broke, {SECRET}", "type": "server_error"}}
    return FakeReply(status=500, body=body)


@pytest.fixture
def failed_job(proj: Namespace, model: FakeOpenAIServer) -> ProcessingJob:
    """One block whose L0–L2 job failed three times against the fake model endpoint."""
    model.default = lambda request: server_error()
    ingest(proj)
    jobs_drain()
    job = ProcessingJob.objects.get(namespace=proj, kind=JobKind.BLOCK_VIEWS)
    assert (job.status, job.attempts) == (JobStatus.FAILED, 3)
    assert RAW_KEY in job.last_error  # stored as it came; redaction happens on the way out
    return job


def page(client: Client, ns: str = "proj", **params: Any) -> Any:
    return client.get(reverse("graphui:processing", args=[ns]), params)


def job_count_cell(html: str, kind: str, status: str) -> str:
    row = re.search(rf'<tr data-kind="{kind}">(.*?)</tr>', html, re.S)
    assert row, kind
    cell = re.search(rf'<td class="num" data-status="{status}">(.*?)</td>', row.group(1), re.S)
    assert cell, status
    return re.sub(r"<[^>]+>|[⚠⟳]", "", cell.group(1)).strip()


def make_job(namespace: Namespace, kind: str, status: str, **fields: Any) -> ProcessingJob:
    return ProcessingJob.objects.create(namespace=namespace, kind=kind, status=status, **fields)
