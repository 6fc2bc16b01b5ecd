"""Model calls per ingested turn, with the model pointed at the fake OpenAI-compatible server.

    .venv/bin/python benchmarks/model_calls.py [--turns 60]

Starts `tests/fakes/openai_server.py` on 127.0.0.1 and configures it as the model
(STRATAGATE_LLM_BASE_URL / _MODEL / _API_KEY, as the tests do), then, in a fresh SQLite data
dir, ingests N synthetic turns of one session through `memory.services.ingest.turn_ingest`,
drains every job and counts the chat-completion requests the server received per ingested turn
(goal ≤ 0.25 at block size 6), with the ModelCall rows per kind. The fake answers the block call
like a model that finds one event per block (citing the block's first two messages), so the jobs
that follow extraction (graph projection) run as they would with a real model; every other
request gets the fake's default, a minimal answer valid for the schema it was sent. Writes
benchmarks/results/model_calls.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _common import ROOT, django_setup, machine, synthetic_turn, write_result

if TYPE_CHECKING:
    from tests.fakes.openai_server import FakeOpenAIServer

# --- this benchmark ---

NAMESPACE = "model-calls"
GOAL_PER_TURN = 0.25


def block_reply(request: dict[str, Any]) -> str:
    """The fake's answer: for a request about one block (its user prompt lists the target block's
    messages and its schema asks for events), views plus one event citing the block's first two
    messages; any other request gets the schema stub."""
    from tests.fakes.openai_server import schema_stub, schema_stub_content

    json_schema = (request.get("response_format") or {}).get("json_schema") or {}
    schema = json_schema.get("schema") or {}
    user = next((m.get("content") for m in request.get("messages", []) if m["role"] == "user"), "")
    try:
        prompt = json.loads(user or "")
    except ValueError:
        prompt = None
    messages = prompt.get("target_block_messages") if isinstance(prompt, dict) else None
    if "events" not in schema.get("properties", {}) or not messages:
        return schema_stub_content(request)
    first = messages[0]
    words = str(first["content"]).split()
    # Fields this answer does not know (a graph draft, say) keep the stub's minimal valid value.
    answer = schema_stub(schema)
    answer.update(
        title=" ".join(words[:8]) or "Block",
        tags=["benchmark"],
        summary=str(first["content"])[:400],
        key_points=[str(first["content"])[:200]],
        should_extract=True,
        events=[
            {
                "title": " ".join(words[:8]) or "Block",
                "summary": str(first["content"])[:400],
                "event_type": "decision",
                "participants": ["Alice"],
                "source_message_ids": [m["id"] for m in messages[:2]],
                "quotes": [str(first["content"])[:60]],
            }
        ],
    )
    return json.dumps(answer)


def measure(turns: int, server: FakeOpenAIServer) -> dict[str, Any]:
    """Ingest `turns` turns, drain the jobs, count model calls. Django must be set up with the
    model configured to `server`."""
    from django.db.models import Count

    from memory.models import (
        Block,
        BlockStatus,
        Event,
        GraphNode,
        JobStatus,
        ModelCall,
        ProcessingJob,
    )
    from memory.selectors.settings import memory_settings_get
    from memory.services.ingest import MessageIn, TurnIn, turn_ingest
    from memory.services.jobs import jobs_drain
    from memory.services.namespaces import namespace_get_or_create

    namespace = namespace_get_or_create(name=NAMESPACE)
    before = server.calls
    rng = random.Random(42)
    start_at = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    started = time.perf_counter()
    for n in range(1, turns + 1):
        user, assistant = synthetic_turn(rng, n)
        turn_ingest(
            namespace=namespace,
            turn=TurnIn(
                session_id="agent-session",
                receipt_id=f"turn-{n}",
                occurred_at=start_at + timedelta(minutes=3 * n),
                messages=[
                    MessageIn(role="user", content=user),
                    MessageIn(role="assistant", content=assistant),
                ],
            ),
        )
    job_runs = jobs_drain()
    seconds = time.perf_counter() - started
    requests = server.calls - before
    calls = ModelCall.objects.filter(namespace=namespace)
    by_kind = dict(calls.values_list("kind").annotate(n=Count("id")).values_list("kind", "n"))
    jobs = dict(
        ProcessingJob.objects.filter(namespace=namespace)
        .values_list("kind")
        .annotate(n=Count("id"))
        .values_list("kind", "n")
    )
    block_turns = memory_settings_get().block_turns
    return {
        "turns": turns,
        "block_turns": block_turns,
        "blocks_sealed": Block.objects.filter(namespace=namespace).count(),
        "blocks_ready": Block.objects.filter(namespace=namespace, status=BlockStatus.READY).count(),
        "expected_blocks": turns // block_turns,
        "events": Event.objects.filter(namespace=namespace).count(),
        "graph_nodes": GraphNode.objects.filter(namespace=namespace).count(),
        "jobs_by_kind": jobs,
        "job_runs": job_runs,
        "failed_jobs": ProcessingJob.objects.filter(
            namespace=namespace, status=JobStatus.FAILED
        ).count(),
        "http_requests": requests,
        "model_calls": calls.count(),
        "model_calls_failed": calls.filter(ok=False).count(),
        "model_calls_by_kind": by_kind,
        "requests_per_turn": round(requests / max(1, turns), 4),
        "calls_per_turn": round(calls.count() / max(1, turns), 4),
        "goal_per_turn": GOAL_PER_TURN,
        "goal_met": requests / max(1, turns) <= GOAL_PER_TURN,
        "seconds": round(seconds, 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60)
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    from tests.fakes.openai_server import FakeOpenAIServer

    with (
        tempfile.TemporaryDirectory(prefix="stratagate-bench-") as tmp,
        FakeOpenAIServer(default=block_reply) as server,
    ):
        django_setup(
            Path(tmp),
            {
                "STRATAGATE_LLM_BASE_URL": server.base_url,
                "STRATAGATE_LLM_MODEL": "fake-model",
                "STRATAGATE_LLM_API_KEY": "sk-bench",
            },
        )
        figures = measure(args.turns, server)
        from django.db import connections

        connections.close_all()

    result = {
        "benchmark": "model_calls",
        "database": "sqlite (WAL), in-process",
        "processor": "model (fake OpenAI-compatible server)",
        **figures,
        "machine": machine(),
    }
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(figures["model_calls_by_kind"].items()))
    print(
        f"{figures['turns']} turns → {figures['blocks_ready']}/{figures['expected_blocks']} blocks "
        f"ready, {figures['events']} events, {figures['graph_nodes']} graph nodes; "
        f"{figures['http_requests']} requests to the model = {figures['requests_per_turn']} per "
        f"turn (goal ≤ {GOAL_PER_TURN}: {'met' if figures['goal_met'] else 'MISSED'}); "
        f"calls by kind: {kinds or 'none'}; {figures['failed_jobs']} failed jobs"
    )
    write_result("model_calls", result)
    ok = figures["failed_jobs"] == 0 and figures["blocks_ready"] == figures["expected_blocks"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
