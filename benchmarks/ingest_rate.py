"""Ingest throughput over real HTTP: `manage.py serve` in a temp data dir, N turns, 4 clients.

    .venv/bin/python benchmarks/ingest_rate.py [--turns 2000] [--clients 4] [--workers 1]
        [--database sqlite|postgres|both] [--pg-url URL] [--namespaces N] [--redis-url URL]

Prints turns/s and request latency (p50/p95/p99) and writes benchmarks/results/ingest_rate.json.
The server runs exactly as `scripts/run.sh` runs it (on SQLite one web process and a db_worker,
offline processor), so block processing competes with ingestion for the database, as it would
live. On PostgreSQL (`--database postgres`) it creates the database `--pg-url` names (its name
must contain "bench"; dropped before and after), serve starts its default web processes (two on
two cores) and the clients write to `--namespaces` namespaces (default: one per client, the
issue's "across 4 namespaces"; turns of one namespace queue for its counter row). Each client
is its own session over one keep-alive connection.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import _postgres
import _serve
from _common import (
    ROOT,
    clean_env,
    machine,
    percentile,
    synthetic_turn,
    write_result,
)
from _serve import MANAGE

# --- this benchmark ---

PG_URL = "postgres://postgres@127.0.0.1:5432/stratagate_ingest_bench"


def client(
    port: int,
    namespace: str,
    token: str,
    index: int,
    turns: list[int],
    latencies: list[float],
    errors: list[str],
) -> None:
    rng = random.Random(index)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    for n in turns:
        user, assistant = synthetic_turn(rng, n)
        body = json.dumps(
            {
                "session_id": f"client-{index}",
                "receipt_id": f"client-{index}-turn-{n}",
                "messages": [
                    {"role": "user", "content": user},
                    {"role": "assistant", "content": assistant},
                ],
            }
        )
        started = time.perf_counter()
        try:
            conn.request("POST", f"/api/v1/ns/{namespace}/turns", body=body, headers=headers)
            response = conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as exc:
            errors.append(f"turn {n}: {exc!r}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            continue
        latencies.append(time.perf_counter() - started)
        if response.status != 201:
            errors.append(f"turn {n}: HTTP {response.status} {payload[:200]!r}")
    conn.close()


def run(args: argparse.Namespace, database: str, namespaces: int) -> dict[str, Any]:
    """One timed run on `database` ("sqlite" or "postgres") in a fresh install."""
    with tempfile.TemporaryDirectory(prefix="stratagate-bench-") as tmp:
        data_dir = Path(tmp)
        env = clean_env(data_dir)
        if database == "postgres":
            _postgres.recreate(args.pg_url, "bench")
            env["DATABASE_URL"] = args.pg_url
            if args.redis_url:
                env["REDIS_URL"] = args.redis_url
        serve_args = ["--workers", str(args.workers)]
        if args.web is not None:
            serve_args += ["--web", str(args.web)]
        server = None
        try:
            subprocess.run(
                [*MANAGE, "migrate", "--noinput", "--verbosity", "0"], cwd=ROOT, env=env, check=True
            )
            server, port = _serve.start_serve(data_dir, serve_args, env)
            names = [f"bench-{i}" for i in range(namespaces)]
            tokens = {
                name: subprocess.run(
                    [*MANAGE, "create_agent_token", "--namespace", name, "--scope", "read-write"],
                    cwd=ROOT,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.strip()
                for name in names
            }
            share: list[list[int]] = [[] for _ in range(args.clients)]
            for n in range(1, args.turns + 1):
                share[n % args.clients].append(n)
            latencies: list[list[float]] = [[] for _ in range(args.clients)]
            errors: list[str] = []
            threads = []
            for i in range(args.clients):
                name = names[i % namespaces]
                threads.append(
                    threading.Thread(
                        target=client,
                        args=(port, name, tokens[name], i, share[i], latencies[i], errors),
                    )
                )
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - started
        finally:
            if server is not None:
                _serve.stop_serve(server)
            if database == "postgres":
                _postgres.recreate(args.pg_url, "bench", drop_only=True)

    all_latencies = [x for per_client in latencies for x in per_client]
    ok = len(all_latencies) - sum(1 for e in errors if "HTTP" in e)
    result: dict[str, Any] = {
        "database": "sqlite (WAL)" if database == "sqlite" else "postgresql",
        "namespaces": namespaces,
        "web_processes": args.web,  # None: serve's default for the database
        "succeeded": ok,
        "errors": len(errors),
        "error_samples": errors[:10],
        "seconds": round(elapsed, 3),
        "turns_per_second": round(ok / elapsed, 1),
        "latency_ms": {
            "p50": round(percentile(all_latencies, 50) * 1000, 1),
            "p95": round(percentile(all_latencies, 95) * 1000, 1),
            "p99": round(percentile(all_latencies, 99) * 1000, 1),
            "max": round(max(all_latencies, default=0.0) * 1000, 1),
        },
    }
    print(
        f"{database}, {namespaces} namespace(s): {ok}/{args.turns} turns in {elapsed:.1f} s "
        f"from {args.clients} clients: {result['turns_per_second']} turns/s; latency p50 "
        f"{result['latency_ms']['p50']} ms, p95 {result['latency_ms']['p95']} ms, p99 "
        f"{result['latency_ms']['p99']} ms",
        flush=True,
    )
    for error in errors[:10]:
        print("error:", error, file=sys.stderr)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1, help="db_workers started by serve")
    parser.add_argument("--web", type=int, help="web processes (default: serve's)")
    parser.add_argument("--database", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--pg-url", default=PG_URL, help="a throwaway database ('bench')")
    parser.add_argument("--redis-url", help="channel layer for the PostgreSQL run")
    parser.add_argument(
        "--namespaces", type=int, help="default: 1 on SQLite, one per client on PostgreSQL"
    )
    args = parser.parse_args()
    if args.turns < 1 or args.clients < 1 or (args.namespaces or 1) < 1:
        parser.error("--turns, --clients and --namespaces must be ≥ 1")
    databases = ["sqlite", "postgres"] if args.database == "both" else [args.database]
    if "postgres" in databases:
        _postgres.loopback(args.pg_url)
        if args.redis_url:
            _postgres.loopback(args.redis_url)

    runs: dict[str, dict[str, Any]] = {}
    for database in databases:
        default_namespaces = 1 if database == "sqlite" else args.clients
        runs[database] = run(args, database, args.namespaces or default_namespaces)
    first = runs[databases[0]]
    result: dict[str, Any] = {
        "benchmark": "ingest_rate",
        "turns": args.turns,
        "clients": args.clients,
        "db_workers": args.workers,
        # the first database's figures at the top level, as before PostgreSQL runs existed
        **{k: first[k] for k in ("database", "succeeded", "errors", "seconds")},
        **{k: first[k] for k in ("turns_per_second", "latency_ms")},
        "runs": runs,
        "machine": machine(),
    }
    write_result("ingest_rate", result)
    return 1 if any(r["errors"] for r in runs.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
