"""Block processing time in-process: ingest a 300-turn session, then drain every job.

    .venv/bin/python benchmarks/processing_time.py [--turns 300]

Uses a fresh SQLite database in a temp directory and the offline processor (all STRATAGATE_*
variables, DATABASE_URL and REDIS_URL are ignored). Prints the seconds from the start of
`jobs_drain()` until all blocks (300 turns / 6 = 50) are ready, and writes
benchmarks/results/processing_time.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# --- shared with the other benchmark script (kept self-contained on purpose) ---
ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

TOPICS = [
    ("the storage layer", "SQLite in WAL mode for one machine, PostgreSQL beyond that"),
    ("the release date", "we ship version 2.3 on 14 March, after the security review"),
    ("Alice's team", "Alice leads payments; Bob moved to the search team last week"),
    ("the flaky test", "test_checkout fails when the clock crosses midnight UTC"),
    ("the budget", "the cloud budget is 4,000 EUR a month, 15% is spent on logging"),
    ("the deployment", "deploys go through the staging cluster in Frankfurt first"),
    ("the API design", "pagination uses opaque cursors, never page numbers"),
    ("the on-call rota", "Carol is on call from Monday; escalate to Dan after 30 minutes"),
]


def clean_env(data_dir: Path) -> dict[str, str]:
    """This process's environment for a throwaway install: SQLite in data_dir, offline model."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL") and not k.startswith("STRATAGATE_")
    }
    env.update(
        STRATAGATE_DATA_DIR=str(data_dir),
        DJANGO_SETTINGS_MODULE="stratagate_site.settings",
        PYTHONUNBUFFERED="1",
    )
    return env


def synthetic_turn(rng: random.Random, n: int) -> tuple[str, str]:
    """A plausible user/assistant exchange (varied words, dates, names and numbers)."""
    topic, fact = TOPICS[rng.randrange(len(TOPICS))]
    user = f"Turn {n}: can you remind me what we decided about {topic}?"
    if rng.random() < 0.3:
        user += f" I think it came up around {rng.randint(1, 28)} May."
    assistant = f"Yes. For {topic}: {fact}."
    if rng.random() < 0.25:
        assistant += "\n\n```python\ndef check(value):\n    return value is not None\n```"
    if rng.random() < 0.5:
        assistant += f" Follow-up item #{rng.randint(100, 999)} tracks the remaining work."
    return user, assistant


def machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def write_result(name: str, result: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return path


# --- this benchmark ---


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="stratagate-bench-") as tmp:
        os.environ.clear()
        os.environ.update(clean_env(Path(tmp)))
        sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)

        from memory.models import Block, BlockStatus, JobStatus, ProcessingJob
        from memory.services.ingest import MessageIn, TurnIn, turn_ingest
        from memory.services.jobs import jobs_drain
        from memory.services.namespaces import namespace_get_or_create

        namespace = namespace_get_or_create(name="bench")
        rng = random.Random(42)
        start_at = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
        ingest_started = time.perf_counter()
        for n in range(1, args.turns + 1):
            user, assistant = synthetic_turn(rng, n)
            turn_ingest(
                namespace=namespace,
                turn=TurnIn(
                    session_id="long-session",
                    receipt_id=f"turn-{n}",
                    occurred_at=start_at + timedelta(minutes=3 * n),
                    messages=[
                        MessageIn(role="user", content=user),
                        MessageIn(role="assistant", content=assistant),
                    ],
                ),
            )
        ingest_seconds = time.perf_counter() - ingest_started
        expected_blocks = args.turns // settings.STRATAGATE_BLOCK_TURNS
        sealed = Block.objects.filter(namespace=namespace).count()
        jobs = ProcessingJob.objects.filter(namespace=namespace).count()

        drain_started = time.perf_counter()
        runs = jobs_drain()
        processing_seconds = time.perf_counter() - drain_started

        ready = Block.objects.filter(namespace=namespace, status=BlockStatus.READY).count()
        failed_jobs = ProcessingJob.objects.filter(status=JobStatus.FAILED).count()

    result: dict[str, Any] = {
        "benchmark": "processing_time",
        "database": "sqlite (WAL), in-process",
        "processor": "offline",
        "turns": args.turns,
        "block_turns": settings.STRATAGATE_BLOCK_TURNS,
        "blocks_sealed": sealed,
        "blocks_ready": ready,
        "jobs_created": jobs,
        "job_runs": runs,
        "failed_jobs": failed_jobs,
        "ingest_seconds": round(ingest_seconds, 3),
        "processing_seconds": round(processing_seconds, 3),
        "ms_per_block": round(processing_seconds / max(1, ready) * 1000, 1),
        "machine": machine(),
    }
    print(
        f"ingested {args.turns} turns in {ingest_seconds:.2f} s; "
        f"{ready}/{expected_blocks} blocks ready after {processing_seconds:.2f} s of processing "
        f"({result['ms_per_block']} ms per block, {runs} job runs, {failed_jobs} failed)"
    )
    write_result("processing_time", result)
    return 0 if ready == expected_blocks and failed_jobs == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
