"""Batch ingest throughput in-process: N turns in batches of 200 through the batch service.

    .venv/bin/python benchmarks/ingest_batch.py [--turns 4000] [--batch 200] [--sessions 4]

Uses a fresh SQLite database in a temp directory and the offline processor (all STRATAGATE_*
variables, DATABASE_URL and REDIS_URL are ignored). Turns are spread round-robin over the
sessions, so every batch holds several sessions and seals blocks as it goes. Times
`memory.services.ingest_batch.turn_batch_ingest` per batch (sealing, indexing and receipts
included; processing jobs are queued, not run), then the same batches again (all replays, nothing
stored), then 1000 turns one by one through `turn_ingest` for comparison. Prints turns/s (by
wall clock and by the process's CPU time, which shows the rate on a machine busy with other work)
and writes benchmarks/results/ingest_batch.json.
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
    percentile,
    synthetic_turn,
    write_result,
)

# --- this benchmark ---


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=4000)
    parser.add_argument("--batch", type=int, default=200, help="turns per batch (≤ 200)")
    parser.add_argument("--sessions", type=int, default=4, help="sessions the turns cycle over")
    parser.add_argument(
        "--single", type=int, default=1000, help="turns ingested one by one for comparison"
    )
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

        from memory.models import Block, IngestReceipt, Message, Turn
        from memory.services.ingest import MessageIn, TurnIn, turn_ingest
        from memory.services.ingest_batch import turn_batch_ingest, turn_batches
        from memory.services.namespaces import namespace_get_or_create

        def turns_for(prefix: str, count: int) -> list[TurnIn]:
            rng = random.Random(42)
            start_at = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
            made = []
            for n in range(1, count + 1):
                user, assistant = synthetic_turn(rng, n)
                at = start_at + timedelta(minutes=3 * n)
                made.append(
                    TurnIn(
                        session_id=f"{prefix}-session-{n % args.sessions}",
                        receipt_id=f"{prefix}-turn-{n}",
                        occurred_at=at,
                        messages=[
                            MessageIn(role="user", content=user, created_at=at),
                            MessageIn(role="assistant", content=assistant, created_at=at),
                        ],
                    )
                )
            return made

        namespace = namespace_get_or_create(name="bench")
        batches = list(turn_batches(turns_for("batch", args.turns), args.batch))

        def run_batches() -> tuple[float, float, list[float], int]:
            latencies: list[float] = []
            stored = 0
            started, cpu_started = time.perf_counter(), time.process_time()
            for batch in batches:
                began = time.perf_counter()
                stored += turn_batch_ingest(namespace=namespace, turns=batch).stored
                latencies.append(time.perf_counter() - began)
            return (
                time.perf_counter() - started,
                time.process_time() - cpu_started,
                latencies,
                stored,
            )

        batch_seconds, batch_cpu, batch_latencies, stored = run_batches()
        rows = (Turn.objects.count(), Message.objects.count(), IngestReceipt.objects.count())
        sealed = Block.objects.filter(namespace=namespace).count()
        replay_seconds, _, replay_latencies, replay_stored = run_batches()
        rows_after_replay = (
            Turn.objects.count(),
            Message.objects.count(),
            IngestReceipt.objects.count(),
        )

        other = namespace_get_or_create(name="bench-single")
        singles = turns_for("single", args.single)
        single_started, single_cpu_started = time.perf_counter(), time.process_time()
        for turn in singles:
            turn_ingest(namespace=other, turn=turn)
        single_seconds = time.perf_counter() - single_started
        single_cpu = time.process_time() - single_cpu_started

    def latency(values: list[float]) -> dict[str, float]:
        return {
            "p50": round(percentile(values, 50) * 1000, 1),
            "p95": round(percentile(values, 95) * 1000, 1),
            "max": round(max(values, default=0.0) * 1000, 1),
        }

    result: dict[str, Any] = {
        "benchmark": "ingest_batch",
        "database": "sqlite (WAL), in-process",
        "processor": "offline (jobs queued, not run)",
        "turns": args.turns,
        "batch_size": args.batch,
        "batches": len(batches),
        "sessions": args.sessions,
        "block_turns": settings.STRATAGATE_BLOCK_TURNS,
        "turns_stored": stored,
        "blocks_sealed": sealed,
        "seconds": round(batch_seconds, 3),
        "turns_per_second": round(stored / batch_seconds, 1),
        # The process's own CPU time: what the rate would be on an otherwise idle core.
        "cpu_seconds": round(batch_cpu, 3),
        "turns_per_cpu_second": round(stored / batch_cpu, 1),
        "batch_latency_ms": latency(batch_latencies),
        "replay": {
            "turns_stored": replay_stored,
            "rows_unchanged": rows == rows_after_replay,
            "seconds": round(replay_seconds, 3),
            "turns_per_second": round(args.turns / replay_seconds, 1),
            "batch_latency_ms": latency(replay_latencies),
        },
        "one_by_one": {
            "turns": args.single,
            "seconds": round(single_seconds, 3),
            "turns_per_second": round(args.single / single_seconds, 1),
            "cpu_seconds": round(single_cpu, 3),
            "turns_per_cpu_second": round(args.single / single_cpu, 1),
        },
        "speedup_over_one_by_one": round(
            (stored / batch_seconds) / (args.single / single_seconds), 1
        ),
        "machine": machine(),
    }
    print(
        f"{stored}/{args.turns} turns in {len(batches)} batches of {args.batch} in "
        f"{batch_seconds:.2f} s: {result['turns_per_second']} turns/s "
        f"({result['turns_per_cpu_second']} per CPU second) "
        f"(batch p50 {result['batch_latency_ms']['p50']} ms, "
        f"p95 {result['batch_latency_ms']['p95']} ms; {sealed} blocks sealed); "
        f"replay {result['replay']['turns_per_second']} turns/s storing {replay_stored}; "
        f"one by one {result['one_by_one']['turns_per_second']} turns/s "
        f"({result['one_by_one']['turns_per_cpu_second']} per CPU second)"
    )
    write_result("ingest_batch", result)
    return 0 if stored == args.turns and replay_stored == 0 and rows == rows_after_replay else 1


if __name__ == "__main__":
    raise SystemExit(main())
