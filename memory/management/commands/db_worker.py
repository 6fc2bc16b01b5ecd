"""django-tasks-db's worker plus housekeeping: stale leases and lost triggers are re-queued, and
finished task results older than STRATAGATE_TASK_RESULT_RETENTION_DAYS are deleted.

Shadows django_tasks_db's command (memory is listed first in INSTALLED_APPS); every option of
the original works unchanged.
"""

from __future__ import annotations

import logging
import random
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connections, router
from django_tasks_db.management.commands import db_worker as library
from django_tasks_db.management.commands.db_worker import Command as DBWorkerCommand
from django_tasks_db.models import DBTaskResult

from memory.services.jobs import jobs_recover_stalled
from memory.services.task_results import (
    PRUNE_BATCH_SIZE,
    task_results_cutoff,
    task_results_prune,
)

log = logging.getLogger(__name__)
RECOVERY_INTERVAL_SECONDS = 15.0
PRUNE_INTERVAL_SECONDS = 3600.0
# A worker's first prune comes within this many seconds of its start, at a random moment, so
# workers started together do not all prune at once.
FIRST_PRUNE_WITHIN_SECONDS = 60.0
# Batches of PRUNE_BATCH_SIZE rows one sweep deletes at most; a larger backlog is worked off
# over the following sweeps, RECOVERY_INTERVAL_SECONDS apart, so recovery is never held up.
PRUNE_BATCHES_PER_SWEEP = 20


class Sweeper:
    """The worker's housekeeping, run every RECOVERY_INTERVAL_SECONDS in a thread of its own:
    job recovery at each sweep, task-result pruning hourly (sooner while a backlog remains)."""

    def __init__(
        self,
        *,
        first_prune_in: float,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> None:
        self.next_prune = time.monotonic() + first_prune_in
        self.should_stop = should_stop

    def sweep(self) -> None:
        recovered = jobs_recover_stalled()
        if recovered:
            log.info("re-triggered %s stalled jobs", recovered)
        if time.monotonic() >= self.next_prune:
            self.prune()

    def prune(self) -> None:
        # Scheduled first: a failing prune is tried again in an hour, not at every sweep.
        self.next_prune = time.monotonic() + PRUNE_INTERVAL_SECONDS
        outcome = task_results_prune(
            cutoff=task_results_cutoff(),
            batch_size=PRUNE_BATCH_SIZE,
            max_batches=PRUNE_BATCHES_PER_SWEEP,
            should_stop=self.should_stop,
        )
        if outcome.deleted:
            log.info(
                "pruned %s finished task results (%s successful, %s failed) older than %s days",
                outcome.deleted,
                outcome.deleted_successful,
                outcome.deleted_failed,
                settings.STRATAGATE_TASK_RESULT_RETENTION_DAYS,
            )
        if not outcome.complete:
            self.next_prune = time.monotonic()  # more left: go on at the next sweep


def _sweep_loop(stop: threading.Event) -> None:
    sweeper = Sweeper(
        first_prune_in=random.uniform(0, FIRST_PRUNE_WITHIN_SECONDS),
        should_stop=stop.is_set,
    )
    while not stop.is_set():
        try:
            close_old_connections()
            sweeper.sweep()
        except Exception:  # the sweeper must outlive a transient database error
            log.exception("worker housekeeping sweep failed")
        finally:
            close_old_connections()
        stop.wait(RECOVERY_INTERVAL_SECONDS)


class Worker(library.Worker):
    """The library's worker, except that a stop signal arriving while it claims a task (inside
    the claim's transaction, possibly during its COMMIT) ends the worker after the claim, as
    one arriving during a task ends it after the task. The library exits at once, and an exit
    raised inside the COMMIT failed the process with an error (the claim itself was rolled
    back, so nothing was lost)."""

    def shutdown(self, signum: int, frame: FrameType | None) -> None:
        claiming = connections[router.db_for_write(DBTaskResult)].in_atomic_block
        if self.running and not self.running_task and claiming:
            log.warning("Received %s - stopping after this claim.", signal.strsignal(signum))
            self.running = False
            return
        super().shutdown(signum, frame)


class Command(DBWorkerCommand):
    help = (
        "Run a database worker for StrataGate jobs (with recovery of stalled jobs and pruning "
        "of old task results)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()
        sweeper = threading.Thread(
            target=_sweep_loop, args=(stop,), name="stratagate-sweeper", daemon=True
        )
        sweeper.start()
        # The library's handle builds its module's Worker; it builds ours instead.
        library.Worker = Worker  # type: ignore[misc]
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
