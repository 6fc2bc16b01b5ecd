"""Helpers shared by the benchmark scripts: throwaway environments, synthetic turns, results."""

from __future__ import annotations

import json
import os
import platform
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# run_all.py points this elsewhere for --quick runs and tests, so trial figures never replace the
# last full ones. Read at import: processing_time.py clears os.environ before writing its result.
RESULTS = Path(os.environ.get("BENCH_RESULTS_DIR") or ROOT / "benchmarks" / "results")

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


def django_setup(data_dir: Path, extra_env: dict[str, str] | None = None) -> None:
    """Make this process a throwaway install in data_dir (clean_env plus extra_env), set Django
    up and migrate. Call once, before importing anything from `memory`."""
    os.environ.clear()
    os.environ.update(clean_env(data_dir))
    os.environ.update(extra_env or {})
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


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
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def fixed_work_ms() -> float:
    """The time of the same pure-Python chunk of work (about 4 ms here), to sample how fast the
    machine is running at that moment (`steadiness`)."""
    started = time.perf_counter()
    total = 0
    for i in range(40_000):
        total += i * i % 7
    return (time.perf_counter() - started) * 1000


def steadiness(chunk_ms: list[float]) -> dict[str, float]:
    """How steady the CPU was while a benchmark ran, from `fixed_work_ms` samples taken along
    it. On a steady machine their p95 is close to their p50; on a shared virtual machine bursts
    of slower running push the p95 of any CPU-bound path up by about the same ratio, which is
    worth knowing before reading a latency's p95. `slow_share`: samples over 1.25 × the
    median."""
    p50 = percentile(chunk_ms, 50)
    p95 = percentile(chunk_ms, 95)
    return {
        "chunk_p50_ms": round(p50, 2),
        "chunk_p95_ms": round(p95, 2),
        "p95_over_p50": round(p95 / p50, 2),
        "slow_share": round(sum(t > 1.25 * p50 for t in chunk_ms) / len(chunk_ms), 3),
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
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    print(f"wrote {shown}", file=sys.stderr)
    return path
