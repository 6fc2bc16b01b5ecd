"""Load: concurrent simulated agents against the scale-out setup (2 web processes + 2 workers on
PostgreSQL, Redis channel layer), all on loopback.

    .venv/bin/python benchmarks/load.py [--seconds 60] [--agents 32] [--think 1.0] [--web 2]
        [--workers 2] [--pg-url postgres://postgres@127.0.0.1:5432/stratagate_load]
        [--redis-url redis://127.0.0.1:6379/3]

Creates the database named in --pg-url (dropped first if left over, dropped again at the end;
its name must contain "load"), migrates it, starts `manage.py serve --web 2 --workers 2` with
REDIS_URL set, seeds a shared history (8 sessions of 12 turns, processed by the workers), then
runs `--agents` threads for `--seconds`. Each agent is one session that loops like an agent
answering a user: `context` → a search (events, raw and graph in turn) → `assess` the batch →
`record_use` → ingest the turn, pausing a random 0.5–1.5 × `--think` seconds between calls (its
model thinking; `--think 0` measures saturation instead). Every request has a 30 s timeout and
each agent stops at the deadline or after `--max-cycles`.

Afterwards it waits (≤ 180 s) for the queue to drain, checks that every ingested turn is stored,
that no job failed, and that `manage.py check_consistency` is clean. Prints errors and p50/p95/p99
per operation, writes benchmarks/results/load.json, exits non-zero on any error. Needs the
PostgreSQL and Redis servers (nothing else is contacted: loopback addresses only).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _postgres
import _serve
from _common import ROOT, clean_env, machine, percentile, synthetic_turn, write_result

NAMESPACE = "load"
OPERATIONS = (
    "ingest",
    "context",
    "search_events",
    "search_raw",
    "search_graph",
    "assess",
    "record_use",
)
SEARCHES = ("events", "raw", "graph")
GOAL_P95_MS = 200.0
TIMEOUT = 30.0
SEED_SESSIONS, SEED_TURNS = 8, 12


# --- the database ------------------------------------------------------------------------------


class ConnectionSampler(threading.Thread):
    """Peak number of PostgreSQL connections to the load database (this sampler's excluded)."""

    def __init__(self, url: str, name: str) -> None:
        super().__init__(daemon=True)
        self.url, self.name = url, name
        self.peak = 0
        self.stop = threading.Event()

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self.stop.wait(0.25):
                row = conn.execute(
                    "SELECT count(*) - 1 FROM pg_stat_activity WHERE datname = %s", (self.name,)
                ).fetchone()
                self.peak = max(self.peak, int(row[0]) if row else 0)


# --- one agent ---------------------------------------------------------------------------------


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {op: [] for op in OPERATIONS})
    errors: list[str] = field(default_factory=list)
    turns_stored: int = 0
    cycles: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class Agent:
    """One session over one keep-alive connection; records each call's latency and any answer
    other than the expected status (or a transport error) as an error."""

    def __init__(self, index: int, port: int, token: str, stats: Stats, think: float) -> None:
        self.index = index
        self.port = port
        self.session = f"agent-{index}"
        self.rng = random.Random(index)
        self.stats = stats
        self.think = think
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
        self.base = f"/api/v1/ns/{NAMESPACE}"

    def call(
        self, op: str, method: str, path: str, body: Any = None, expect: int = 200
    ) -> dict[str, Any] | None:
        payload = json.dumps(body) if body is not None else None
        started = time.perf_counter()
        try:
            self.conn.request(method, self.base + path, payload, self.headers)
            response = self.conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.conn.close()
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
            with self.stats.lock:
                self.stats.errors.append(f"{self.session} {op}: {exc!r}")
            return None
        elapsed = time.perf_counter() - started
        with self.stats.lock:
            self.stats.latencies[op].append(elapsed)
            if response.status != expect:
                said = " ".join(data[:300].decode(errors="replace").split())
                self.stats.errors.append(f"{self.session} {op}: HTTP {response.status} {said}")
                return None
        return dict(json.loads(data))

    def pause(self, deadline: float) -> bool:
        """Think like a model between calls; False once the deadline has passed."""
        if self.think > 0:
            time.sleep(
                min(self.think * self.rng.uniform(0.5, 1.5), max(0.0, deadline - time.monotonic()))
            )
        return time.monotonic() < deadline

    def cycle(self, n: int, deadline: float) -> bool:
        user, assistant = synthetic_turn(self.rng, n)
        query = urllib.parse.urlencode({"session_id": self.session, "query": user})
        self.call("context", "GET", f"/context?{query}")
        if not self.pause(deadline):
            return False
        kind = SEARCHES[(n + self.index) % len(SEARCHES)]
        found = self.call(
            f"search_{kind}", "POST", f"/search/{kind}", {"query": user, "session_id": self.session}
        )
        if not self.pause(deadline) or found is None:
            return False
        refs = [item["ref"] for item in found["results"][:2]]
        verdict = {
            "batch_id": found["batch_id"],
            "session_id": self.session,
            "verdict": "sufficient" if refs else "mismatch",
            "evidence_refs": refs,
            "fit": "the retrieved memory answers the question" if refs else "",
            "missing": "" if refs else "nothing relevant was found",
            "next_strategy": "answer" if refs else "search_raw",
        }
        assessed = self.call("assess", "POST", "/assess", verdict)
        if not self.pause(deadline) or assessed is None:
            return False
        used = assessed["accepted_refs"] if assessed["verdict"] == "sufficient" else []
        receipt = {
            "batch_id": found["batch_id"],
            "session_id": self.session,
            "evidence_refs": used,
            "receipt_id": f"{self.session}-use-{n}",
            "answer": assistant,
        }
        self.call("record_use", "POST", "/record-use", receipt)
        if not self.pause(deadline):
            return False
        turn = {
            "session_id": self.session,
            "receipt_id": f"{self.session}-turn-{n}",
            "messages": [
                {"role": "user", "content": user},
                {"role": "assistant", "content": assistant},
            ],
        }
        if self.call("ingest", "POST", "/turns", turn, expect=201) is not None:
            with self.stats.lock:
                self.stats.turns_stored += 1
        with self.stats.lock:
            self.stats.cycles += 1
        return self.pause(deadline)

    def run(self, deadline: float, max_cycles: int) -> None:
        # Agents start spread over one think time, as independent clients would.
        time.sleep(self.rng.uniform(0, max(self.think, 0.05)))
        for n in range(1, max_cycles + 1):
            if time.monotonic() >= deadline or not self.cycle(n, deadline):
                break
        self.conn.close()


# --- the run -----------------------------------------------------------------------------------


def manage(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_serve.MANAGE, *args],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        check=check,
    )


def api(port: int, token: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        conn.request(
            method, f"/api/v1/ns/{NAMESPACE}{path}", json.dumps(body) if body else None, headers
        )
        response = conn.getresponse()
        data = response.read()
        try:
            return response.status, json.loads(data)
        except json.JSONDecodeError:
            return response.status, data[:500].decode(errors="replace")
    finally:
        conn.close()


def queue_depth(health: dict[str, Any]) -> tuple[int, int]:
    """(queued + running, failed) jobs of the namespace."""
    by_status: dict[str, int] = {}
    for statuses in health["jobs"].values():
        for status, count in statuses.items():
            by_status[status] = by_status.get(status, 0) + count
    return by_status.get("queued", 0) + by_status.get("running", 0), by_status.get("failed", 0)


def wait_drained(port: int, token: str, seconds: float) -> tuple[dict[str, Any], float]:
    started = time.monotonic()
    while True:
        status, health = api(port, token, "GET", "/health")
        if status != 200:
            raise SystemExit(f"health: HTTP {status} {health}")
        pending, _ = queue_depth(health)
        waited = time.monotonic() - started
        if pending == 0 or waited > seconds:
            return health, waited
        time.sleep(1.0)


def seed(port: int, token: str, errors: list[str]) -> None:
    """The shared history, posted one turn at a time; a failed post counts as an error and is
    retried (ingest is idempotent on the receipt), so the run can still measure."""
    rng = random.Random(7)
    for s in range(SEED_SESSIONS):
        for n in range(1, SEED_TURNS + 1):
            user, assistant = synthetic_turn(rng, n)
            body = {
                "session_id": f"history-{s}",
                "receipt_id": f"history-{s}-{n}",
                "messages": [
                    {"role": "user", "content": user},
                    {"role": "assistant", "content": assistant},
                ],
            }
            for _attempt in range(3):
                status, answer = api(port, token, "POST", "/turns", body)
                if status in (200, 201):
                    break
                said = " ".join(str(answer).split())[:200]
                errors.append(f"seeding history-{s} turn {n}: HTTP {status} {said}")
            else:
                raise SystemExit(f"seeding failed 3 times: {errors[-1]}")


def summarise(stats: Stats, seconds: float) -> dict[str, dict[str, float]]:
    table = {}
    for op in OPERATIONS:
        values = stats.latencies[op]
        table[op] = {
            "count": len(values),
            "per_second": round(len(values) / seconds, 2),
            "p50_ms": round(percentile(values, 50) * 1000, 1),
            "p95_ms": round(percentile(values, 95) * 1000, 1),
            "p99_ms": round(percentile(values, 99) * 1000, 1),
            "max_ms": round(max(values, default=float("nan")) * 1000, 1),
        }
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--agents", type=int, default=32)
    parser.add_argument("--think", type=float, default=1.0, help="mean pause between calls (s)")
    parser.add_argument("--max-cycles", type=int, default=1000, help="per agent")
    parser.add_argument("--web", type=int, default=2, help="daphne processes")
    parser.add_argument("--workers", type=int, default=2, help="db_worker processes")
    parser.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432/stratagate_load")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/3")
    parser.add_argument("--keep-db", action="store_true", help="do not drop the database")
    parser.add_argument("--server-log", type=Path, help="keep the servers' output in this file")
    args = parser.parse_args()
    if args.agents < 1 or args.seconds <= 0 or args.think < 0:
        parser.error("--agents ≥ 1, --seconds > 0 and --think ≥ 0")
    _postgres.loopback(args.pg_url)
    _postgres.loopback(args.redis_url)
    name = _postgres.recreate(args.pg_url, "load")
    server = None
    with tempfile.TemporaryDirectory(prefix="stratagate-load-") as tmp:
        data_dir = Path(tmp)
        try:
            os.environ.clear()
            os.environ.update(clean_env(data_dir))
            os.environ.update(DATABASE_URL=args.pg_url, REDIS_URL=args.redis_url)
            started = time.perf_counter()
            manage("migrate", "--noinput", "--verbosity", "0")
            print(f"migrated {name} in {time.perf_counter() - started:.1f} s", flush=True)
            server, port = _serve.start_serve(
                data_dir, ("--web", str(args.web), "--workers", str(args.workers))
            )
            token = manage(
                "create_agent_token", "--namespace", NAMESPACE, "--scope", "read-write"
            ).stdout.strip()
            stats = Stats()
            seed(port, token, stats.errors)
            _, seeded_wait = wait_drained(port, token, 180)
            print(
                f"seeded {SEED_SESSIONS * SEED_TURNS} turns, processed in {seeded_wait:.1f} s; "
                f"{args.agents} agents for {args.seconds:.0f} s (think {args.think} s)",
                flush=True,
            )

            sampler = ConnectionSampler(args.pg_url, name)
            sampler.start()
            load_before = os.getloadavg()
            started = time.perf_counter()
            deadline = time.monotonic() + args.seconds
            agents = [Agent(i, port, token, stats, args.think) for i in range(args.agents)]
            threads = [
                threading.Thread(target=agent.run, args=(deadline, args.max_cycles))
                for agent in agents
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=args.seconds + 3 * TIMEOUT)
            elapsed = time.perf_counter() - started
            if any(thread.is_alive() for thread in threads):
                stats.errors.append("an agent did not stop within its deadline")
            load_after = os.getloadavg()
            sampler.stop.set()

            health, drain_wait = wait_drained(port, token, 180)
            pending, failed = queue_depth(health)
            expected_turns = SEED_SESSIONS * SEED_TURNS + stats.turns_stored
            if health["counts"]["turns"] != expected_turns:
                stats.errors.append(
                    f"turns stored: {health['counts']['turns']}, expected {expected_turns}"
                )
            if pending:
                stats.errors.append(
                    f"{pending} jobs still queued or running after {drain_wait:.0f} s"
                )
            if failed:
                stats.errors.append(f"{failed} jobs failed")
            consistency = manage("check_consistency", "--json", check=False)
            try:
                report = json.loads(consistency.stdout)
            except json.JSONDecodeError:
                report = {"clean": False, "violations": [consistency.stderr[-500:]]}
            if consistency.returncode != 0 or not report.get("clean"):
                stats.errors.append(f"check_consistency: {report.get('violations')}"[:1000])
        except BaseException:
            log = data_dir / "serve.log"
            if log.exists():  # what the server said before the run failed
                tail = log.read_text(errors="replace").splitlines(True)[-60:]
                print("".join(tail), file=sys.stderr)
            raise
        finally:
            if server is not None:
                _serve.stop_serve(server)
            if args.server_log is not None and (data_dir / "serve.log").exists():
                shutil.copy(data_dir / "serve.log", args.server_log)
            if not args.keep_db:
                _postgres.recreate(args.pg_url, "load", drop_only=True)

    table = summarise(stats, elapsed)
    requests = sum(row["count"] for row in table.values())
    print(
        f"\n{requests} requests in {elapsed:.1f} s ({requests / elapsed:.1f}/s), "
        f"{stats.cycles} agent cycles, {stats.turns_stored} turns ingested, "
        f"load average {load_before[0]:.2f} → {load_after[0]:.2f}"
    )
    print(f"{'operation':<14}{'count':>7}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for op, row in table.items():
        mark = "" if row["p95_ms"] < GOAL_P95_MS else "  (p95 over 200 ms)"
        print(
            f"{op:<14}{row['count']:>7}{row['p50_ms']:>9}{row['p95_ms']:>9}"
            f"{row['p99_ms']:>9}{row['max_ms']:>9}{mark}"
        )
    print(f"peak PostgreSQL connections: {sampler.peak}")
    print(
        f"jobs after the run: drained in {drain_wait:.1f} s, {failed} failed; "
        f"check_consistency clean: {bool(report.get('clean'))}"
    )
    print(f"errors: {len(stats.errors)}")
    for error in stats.errors[:20]:
        print(f"  {error}")

    goal_met = all(row["p95_ms"] < GOAL_P95_MS for row in table.values())
    write_result(
        "load",
        {
            "benchmark": "load",
            "machine": {
                **machine(),
                "load_average_during": [round(load_before[0], 2), round(load_after[0], 2)],
            },
            "setup": {
                "web": args.web,
                "workers": args.workers,
                "database": "postgresql",
                "channel_layer": "redis",
                "agents": args.agents,
                "seconds": args.seconds,
                "think_seconds": args.think,
                "seeded_turns": SEED_SESSIONS * SEED_TURNS,
            },
            "requests": requests,
            "requests_per_second": round(requests / elapsed, 1),
            "cycles": stats.cycles,
            "turns_ingested": stats.turns_stored,
            "errors": len(stats.errors),
            "error_samples": stats.errors[:20],
            "goal_p95_ms": GOAL_P95_MS,
            "goal_met": goal_met,
            "peak_pg_connections": sampler.peak,
            "jobs_failed": failed,
            "drain_seconds": round(drain_wait, 1),
            "consistency_clean": bool(report.get("clean")),
            "operations": table,
        },
    )
    return 1 if stats.errors else 0


if __name__ == "__main__":
    sys.exit(main())
