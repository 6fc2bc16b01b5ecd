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
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import UTC, datetime
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
