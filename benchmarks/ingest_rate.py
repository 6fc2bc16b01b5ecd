"""Ingest throughput over real HTTP: `manage.py serve` in a temp data dir, N turns, 4 clients.

    .venv/bin/python benchmarks/ingest_rate.py [--turns 2000] [--clients 4] [--workers 1]

Prints turns/s and request latency (p50/p95/p99) and writes benchmarks/results/ingest_rate.json.
The server runs exactly as `scripts/run.sh` runs it (daphne + db_worker on SQLite, offline
processor), so block processing competes with ingestion for the database, as it would live.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
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

NAMESPACE = "bench"
MANAGE = [sys.executable, str(ROOT / "manage.py")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(port: int, server: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"serve exited early with code {server.returncode}")
        try:
            url = f"http://127.0.0.1:{port}/api/openapi.json"
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("serve did not answer within 60 s")


def client(
    port: int, token: str, index: int, turns: list[int], latencies: list[float], errors: list[str]
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
            conn.request("POST", f"/api/v1/ns/{NAMESPACE}/turns", body=body, headers=headers)
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=1, help="db_workers started by serve")
    parser.add_argument("--web", type=int, default=1, help="daphne processes started by serve")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="stratagate-bench-") as tmp:
        data_dir = Path(tmp)
        env = clean_env(data_dir)
        port = free_port()
        log = (data_dir / "serve.log").open("wb")
        server = subprocess.Popen(
            [
                *MANAGE,
                "serve",
                "--port",
                str(port),
                "--workers",
                str(args.workers),
                "--web",
                str(args.web),
            ],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_ready(port, server)
            token = subprocess.run(
                [*MANAGE, "create_agent_token", "--namespace", NAMESPACE, "--scope", "read-write"],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()

            share: list[list[int]] = [[] for _ in range(args.clients)]
            for n in range(1, args.turns + 1):
                share[n % args.clients].append(n)
            latencies: list[list[float]] = [[] for _ in range(args.clients)]
            errors: list[str] = []
            threads = [
                threading.Thread(
                    target=client, args=(port, token, i, share[i], latencies[i], errors)
                )
                for i in range(args.clients)
            ]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - started
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.close()

    all_latencies = [x for per_client in latencies for x in per_client]
    ok = len(all_latencies) - sum(1 for e in errors if "HTTP" in e)
    result: dict[str, Any] = {
        "benchmark": "ingest_rate",
        "database": "sqlite (WAL)",
        "turns": args.turns,
        "clients": args.clients,
        "db_workers": args.workers,
        "succeeded": ok,
        "errors": len(errors),
        "seconds": round(elapsed, 3),
        "turns_per_second": round(ok / elapsed, 1),
        "latency_ms": {
            "p50": round(percentile(all_latencies, 50) * 1000, 1),
            "p95": round(percentile(all_latencies, 95) * 1000, 1),
            "p99": round(percentile(all_latencies, 99) * 1000, 1),
            "max": round(max(all_latencies, default=0.0) * 1000, 1),
        },
        "machine": machine(),
    }
    print(
        f"{ok}/{args.turns} turns in {elapsed:.1f} s from {args.clients} clients: "
        f"{result['turns_per_second']} turns/s; latency p50 {result['latency_ms']['p50']} ms, "
        f"p95 {result['latency_ms']['p95']} ms, p99 {result['latency_ms']['p99']} ms"
    )
    for error in errors[:10]:
        print("error:", error, file=sys.stderr)
    write_result("ingest_rate", result)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
