"""Block processing time in-process: ingest a 300-turn session, then drain every job.

    .venv/bin/python benchmarks/processing_time.py [--turns 300]

Uses a fresh SQLite database in a temp directory and the offline processor (all STRATAGATE_*
variables, DATABASE_URL and REDIS_URL are ignored). Prints the seconds from the start of
`jobs_drain()` until all blocks (300 turns / 6 = 50) are ready, and writes
benchmarks/results/processing_time.json.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from _common import (
    ROOT,
    clean_env,
    machine,
    synthetic_turn,
    write_result,
)

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
