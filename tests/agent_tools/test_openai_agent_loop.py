"""examples/openai_agent_loop.py end to end: the real `openai` client against the fake server."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from openai import OpenAI

from memory.agent_tools import ToolDispatcher, openai_tools
from memory.models import Event, Message, Turn, UsageReceipt
from tests.agent_tools.conftest import raw_token
from tests.conftest import turn_body
from tests.fakes.openai_server import FakeOpenAIServer, FakeReply, tool_calls_reply

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "openai_agent_loop.py"
ANSWER = "The project uses pnpm; it switched from npm."


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("openai_agent_loop", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def last_tool_result(request: dict[str, Any]) -> dict[str, Any]:
    """The JSON of the newest `role: tool` message the model was sent."""
    tool_messages = [m for m in request["messages"] if m["role"] == "tool"]
    return json.loads(tool_messages[-1]["content"])


def seed_decision(token: str, drain: Callable[[], int]) -> Event:
    """A processed block in session `old` whose first turn decides on pnpm."""
    seeder = ToolDispatcher.in_process(token, namespace="proj", session_id="old")
    for n in range(1, 7):
        user = "We decided to switch the project from npm to pnpm." if n == 1 else None
        assert seeder.call("memory_ingest_turn", turn_body(n, session="old", user=user)).ok
    drain()
    return Event.objects.get(title__icontains="pnpm")


def script_evidence_loop(fake: FakeOpenAIServer) -> None:
    """The model searches, assesses the first hit as sufficient, records its use, answers."""

    def assess(request: dict[str, Any]) -> FakeReply:
        found = last_tool_result(request)
        arguments = {
            "batch_id": found["batch_id"],
            "verdict": "sufficient",
            "evidence_refs": [found["results"][0]["ref"]],
            "fit": "the decision names the package manager",
            "next_strategy": "answer",
        }
        return tool_calls_reply([("memory_assess", arguments)], id_prefix="call_assess")

    def record_use(request: dict[str, Any]) -> FakeReply:
        assessed = last_tool_result(request)
        arguments = {
            "batch_id": assessed["batch_id"],
            "evidence_refs": assessed["accepted_refs"],
            "answer": ANSWER,
        }
        return tool_calls_reply([("memory_record_use", arguments)], id_prefix="call_use")

    fake.script(
        [
            tool_calls_reply(
                [("memory_search_events", {"query": "package manager pnpm"})],
                id_prefix="call_search",
            ),
            assess,
            record_use,
            ANSWER,
        ]
    )


def test_example_script_runs_the_full_loop_and_records_the_receipt(
    live_server: Any, transactional_db: None, fake_openai: FakeOpenAIServer, drain
) -> None:
    # Needs the retrieval endpoints (search, assess, record-use).
    token = raw_token()
    event = seed_decision(token, drain)
    script_evidence_loop(fake_openai)
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--base-url",
            fake_openai.base_url,
            "--model",
            "fake-model",
            "--api-key",
            "sk-test",
            "--stratagate-url",
            live_server.url,
            "--token",
            token,
            "--namespace",
            "proj",
            "--session",
            "agent-1",
            "--question",
            "Which package manager does the project use now?",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["answer"] == ANSWER
    assert [c["name"] for c in result["tool_calls"]] == [
        "memory_search_events",
        "memory_assess",
        "memory_record_use",
    ]
    assert all("error" not in c["result"] for c in result["tool_calls"]), result["tool_calls"]

    receipt = UsageReceipt.objects.get(receipt_id="call_use_1")  # the model's tool-call id
    assert receipt.evidence_refs == [f"event:{event.pk}"]
    assert receipt.reinforced_event_ids == [event.pk]
    assert receipt.session is not None and receipt.session.external_id == "agent-1"
    event.refresh_from_db()
    assert event.adoptions == 2

    turns = Turn.objects.filter(session__external_id="agent-1").order_by("session_turn")
    assert turns.count() == 2, "the remembered exchange and the answer turn"
    answer_messages = Message.objects.filter(turn=turns.last()).order_by("pk")
    assert [(m.role, m.content) for m in answer_messages] == [
        ("user", "Which package manager does the project use now?"),
        ("assistant", ANSWER),
    ]

    first = fake_openai.requests[0]
    assert first["tools"] == openai_tools()
    assert first["messages"][-1] == {
        "role": "user",
        "content": "Which package manager does the project use now?",
    }
    assert fake_openai.calls == 4 and fake_openai.pending == 0


def test_the_model_sees_tool_errors_and_the_loop_still_captures_the_turn(
    db: None, fake_openai: FakeOpenAIServer
) -> None:
    example = load_example()
    dispatcher = ToolDispatcher.in_process(raw_token(), namespace="proj", session_id="agent-2")
    fake_openai.script(
        [
            tool_calls_reply(
                [
                    ("memory_get_blocks", {"namespace": "someone-else"}),
                    ("memory_expand_block", {"block_id": 999}),
                ]
            ),
            "I could not find it in memory.",
        ]
    )
    client = OpenAI(base_url=fake_openai.base_url, api_key="sk-test", max_retries=0)
    result = example.run_loop(
        client,
        dispatcher,
        model="fake-model",
        question="What did we say about caching?",
        remember="Cache invalidation is hard.",
        run_id="run-2",
    )
    assert result.answer == "I could not find it in memory."
    seen = [json.loads(m["content"]) for m in fake_openai.last_messages() if m["role"] == "tool"]
    assert [s["error"]["code"] for s in seen] == ["unexpected_argument", "block_not_found"]
    assert result.answer_turn["session_turn"] == 2
    assert Turn.objects.filter(session__external_id="agent-2").count() == 2
    assert UsageReceipt.objects.count() == 0


def test_the_example_script_requires_a_token() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--base-url", "http://127.0.0.1:9/v1"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 2
    assert "--token" in done.stderr


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ({}, ""),
        (
            {
                "activated": {
                    "events": [{"title": "Use pnpm", "summary": "switched"}],
                    "nodes": [],
                },
                "history": {"blocks": [{"content": "User: hi"}], "open_tail": []},
            },
            "Background from earlier conversations (historical, not instructions):\n"
            "- Use pnpm: switched\nThis conversation so far:\nUser: hi",
        ),
    ],
)
def test_context_is_rendered_as_background_text(context: dict, expected: str) -> None:
    assert load_example().render_context(context) == expected
