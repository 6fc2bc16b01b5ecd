"""django-tasks-db's worker plus housekeeping: stale leases and lost triggers are re-queued, and
finished task results older than STRATAGATE_TASK_RESULT_RETENTION_DAYS are deleted.

Shadows django_tasks_db's command (memory is listed first in INSTALLED_APPS); every option of
the original works unchanged. Its log is quieter: django.tasks' two INFO lines per job (start,
end) buried everything else `serve` printed, so by default only failures are logged (a task
that raised, by django.tasks; a job attempt that failed, by memory.services.jobs) plus a
one-line summary a minute while jobs ran; `--verbose` logs every job again.
"""

from __future__ import annotations

import logging
import random
import signal
import threading
import time
from argparse import ArgumentParser
from collections.abc import Callable
from types import FrameType
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connections, router
from django.tasks import TaskResultStatus
from django.tasks.signals import task_finished
from django_tasks_db.compat import TASKS_LOGGER
from django_tasks_db.management.commands import db_worker as library
from django_tasks_db.management.commands.db_worker import Command as DBWorkerCommand
from django_tasks_db.models import DBTaskResult

from memory.models import JobStatus, ProcessingJob
from memory.services.jobs import jobs_recover_stalled
from memory.services.task_results import (
    PRUNE_BATCH_SIZE,
    task_results_cutoff,
    task_results_prune,
)
from stratagate_site.long_lived import freeze_loaded

log = logging.getLogger(__name__)
RECOVERY_INTERVAL_SECONDS = 15.0
PRUNE_INTERVAL_SECONDS = 3600.0
# A worker's first prune comes within this many seconds of its start, at a random moment, so
# workers started together do not all prune at once.
FIRST_PRUNE_WITHIN_SECONDS = 60.0
# Batches of PRUNE_BATCH_SIZE rows one sweep deletes at most; a larger backlog is worked off
# over the following sweeps, RECOVERY_INTERVAL_SECONDS apart, so recovery is never held up.
PRUNE_BATCHES_PER_SWEEP = 20
# How often, at most, a worker logs its one-line summary ("jobs: 42 done, 1 failed, 3 queued");
# a minute in which it finished no job logs nothing.
SUMMARY_INTERVAL_SECONDS = 60.0
# What memory.services.jobs.job_run returns for an attempt that succeeded or failed; its other
# outcomes (a job not yet due, waiting on an earlier block, already done) did no work.
DONE_OUTCOMES = frozenset({"succeeded"})
FAILED_OUTCOMES = frozenset({"failed", "retry"})


class JobTally:
    """This worker's finished jobs since the last summary, counted from django.tasks'
    task_finished signal (sent in the worker's thread, read by the sweeper's: hence the lock)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.done = 0
        self.failed = 0

    def task_finished(self, sender: Any, task_result: Any, **kwargs: Any) -> None:
        if task_result.status == TaskResultStatus.FAILED:
            outcome = "failed"  # the task itself raised
        elif task_result.status == TaskResultStatus.SUCCESSFUL:
            outcome = task_result.return_value
        else:
            return
        with self._lock:
            if outcome in DONE_OUTCOMES:
                self.done += 1
            elif outcome in FAILED_OUTCOMES:
                self.failed += 1

    def take(self) -> tuple[int, int]:
        """(done, failed) since the last call, and start counting afresh."""
        with self._lock:
            counts = (self.done, self.failed)
            self.done = self.failed = 0
        return counts


def jobs_summary(tally: JobTally) -> None:
    """Log "jobs: D done, F failed, Q queued" when this worker finished a job since the last
    summary; Q is every queued job of the installation (due now or waiting for a retry)."""
    done, failed = tally.take()
    if not done and not failed:
        return
    queued = ProcessingJob.objects.filter(status=JobStatus.QUEUED).count()
    log.info("jobs: %s done, %s failed, %s queued", done, failed, queued)


class Sweeper:
    """The worker's housekeeping, run every RECOVERY_INTERVAL_SECONDS in a thread of its own:
    job recovery at each sweep, task-result pruning hourly (sooner while a backlog remains),
    and the jobs summary at most once a minute."""

    def __init__(
        self,
        *,
        first_prune_in: float,
        should_stop: Callable[[], bool] = lambda: False,
        tally: JobTally | None = None,
    ) -> None:
        self.next_prune = time.monotonic() + first_prune_in
        self.should_stop = should_stop
        self.tally = tally
        self.next_summary = time.monotonic() + SUMMARY_INTERVAL_SECONDS

    def sweep(self) -> None:
        recovered = jobs_recover_stalled()
        if recovered:
            log.info("re-triggered %s stalled jobs", recovered)
        if time.monotonic() >= self.next_prune:
            self.prune()
        if self.tally is not None and time.monotonic() >= self.next_summary:
            self.next_summary = time.monotonic() + SUMMARY_INTERVAL_SECONDS
            jobs_summary(self.tally)

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


def _sweep_loop(stop: threading.Event, tally: JobTally | None) -> None:
    sweeper = Sweeper(
        first_prune_in=random.uniform(0, FIRST_PRUNE_WITHIN_SECONDS),
        should_stop=stop.is_set,
        tally=tally,
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

    verbose = False

    def add_arguments(self, parser: ArgumentParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--verbose",
            action="store_true",
            help=(
                "log every job's start and end (default: failures, and a one-line summary "
                f"every {SUMMARY_INTERVAL_SECONDS:.0f} s while jobs run)"
            ),
        )

    def configure_logging(self, verbosity: int) -> None:
        super().configure_logging(verbosity)
        if verbosity == 1 and not self.verbose:
            # Failed tasks are logged at ERROR, and each job's start and end at INFO.
            logging.getLogger(TASKS_LOGGER).setLevel(logging.WARNING)

    def run_from_argv(self, argv: list[str]) -> None:
        # A worker process (started from the command line, not by call_command) freezes what
        # it loaded: a full collection that pauses it inside a write transaction keeps the
        # database locked as long (`stratagate_site.long_lived`).
        freeze_loaded()
        super().run_from_argv(argv)

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbose = bool(options.pop("verbose", False))
        tally = JobTally()
        task_finished.connect(tally.task_finished)
        stop = threading.Event()
        sweeper = threading.Thread(
            target=_sweep_loop, args=(stop, tally), name="stratagate-sweeper", daemon=True
        )
        sweeper.start()
        # The library's handle builds its module's Worker; it builds ours instead.
        library.Worker = Worker  # type: ignore[misc]
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
            task_finished.disconnect(tally.task_finished)
            # What finished since the last summary (all of it, for a --batch run).
            try:
                jobs_summary(tally)
            except Exception:
                log.exception("could not log the jobs summary")
