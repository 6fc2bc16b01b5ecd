"""The heavy variants of tests/reliability (issue 11, failure tests 1–3 and concurrent claims):
the same scenarios and assertions, bigger, with every process a fresh interpreter started as an
operator starts it (`python manage.py db_worker …`, `python -m stratagate_site.web --fd …`).

Deselected by default (pyproject's addopts); run them, on SQLite or PostgreSQL, with

    .venv/bin/python -m pytest -p no:cacheprovider -m stress -s tests/stress
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python -m pytest … (same)

Each prints one `STRESS <name> {figures}` line (hence -s). Minutes each on a 2-core machine.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection

from memory.models import Namespace
from tests.reliability.procs import Child, Processes, wait_until
from tests.reliability.test_concurrent_duplicates import concurrent_duplicates_scenario
from tests.reliability.test_job_claims import job_claims_scenario
from tests.reliability.test_model_faults import converged, model_faults_scenario
from tests.reliability.test_web_crash import web_crash_scenario
from tests.reliability.test_worker_crash import worker_crash_scenario

pytestmark = [pytest.mark.stress, pytest.mark.django_db(transaction=True)]


def report(name: str, figures: dict[str, Any]) -> None:
    figures = {"database": connection.vendor, **figures}
    print(f"\nSTRESS {name} {json.dumps(figures, sort_keys=True)}")


def test_eight_agents_post_the_same_500_receipts(exec_processes: Processes) -> None:
    figures = concurrent_duplicates_scenario(exec_processes, agents=8, receipts=500, web=2)
    assert (figures["requests"], figures["errors"], figures["turns_stored"]) == (4000, 0, 500)
    report("concurrent_duplicates", figures)


def test_workers_killed_again_and_again(exec_processes: Processes) -> None:
    figures = worker_crash_scenario(
        exec_processes, sessions=8, turns=24, kills=12, workers=2, kill_delay=0.2
    )
    assert figures["kills"] == 12
    report("worker_crash", figures)


def test_web_process_killed_again_and_again(exec_processes: Processes) -> None:
    figures = web_crash_scenario(exec_processes, agents=4, kills=8, messages=60)
    assert figures["requests_cut"] >= 8
    report("web_crash", figures)


def test_model_faults_with_workers_honouring_backoff(
    exec_processes: Processes, fake_openai: Any
) -> None:
    workers: list[Child] = []

    def run_with_workers(namespace: Namespace) -> None:
        if not workers:
            workers.extend(exec_processes.worker(f"faulty-{n}") for n in range(2))
        wait_until(lambda: converged(namespace), timeout=1200, what="the jobs to converge")

    figures = model_faults_scenario(
        fake_openai, exec_processes.configure, run_with_workers, sessions=8, turns=30, timeout=2
    )
    for worker in workers:
        assert worker.stop() == 0, worker.output()
    report("model_faults", figures)


def test_four_workers_claim_the_same_jobs(exec_processes: Processes) -> None:
    figures = job_claims_scenario(exec_processes, workers=4, sessions=16, turns=18)
    report("job_claims", figures)
