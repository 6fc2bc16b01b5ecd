"""db_worker's stop signal: after the claim in progress, never inside its transaction."""

from __future__ import annotations

import signal

import pytest
from django.db import transaction

from memory.management.commands.db_worker import Worker

pytestmark = pytest.mark.django_db(transaction=True)


def _worker() -> Worker:
    return Worker(
        queue_names=["default"],
        interval=0.1,
        batch=False,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="w",
        excluded_queue_names=[],
    )


def test_a_stop_signal_during_a_claim_ends_the_worker_after_the_claim() -> None:
    worker = _worker()
    with transaction.atomic():  # the claim's transaction: exiting here failed its COMMIT
        worker.shutdown(signal.SIGTERM, None)
        assert worker.running is False
    assert worker.running is False  # the loop ends after the claim (and its task)


def test_a_stop_signal_while_idle_ends_the_worker_at_once() -> None:
    worker = _worker()
    with pytest.raises(SystemExit) as exited:
        worker.shutdown(signal.SIGTERM, None)
    assert exited.value.code == 0


def test_a_second_signal_still_forces_the_stop() -> None:
    worker = _worker()
    with transaction.atomic():
        worker.shutdown(signal.SIGTERM, None)
        with pytest.raises(SystemExit) as exited:
            worker.shutdown(signal.SIGTERM, None)
    assert exited.value.code == 1
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
