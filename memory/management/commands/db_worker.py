"""django-tasks-db's worker plus job recovery: stale leases and lost triggers are re-queued.

Shadows django_tasks_db's command (memory is listed first in INSTALLED_APPS); every option of
the original works unchanged.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from django.db import close_old_connections
from django_tasks_db.management.commands.db_worker import Command as DBWorkerCommand

from memory.services.jobs import jobs_recover_stalled

log = logging.getLogger(__name__)
RECOVERY_INTERVAL_SECONDS = 15.0


def _recovery_loop(stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            close_old_connections()
            recovered = jobs_recover_stalled()
            if recovered:
                log.info("re-triggered %s stalled jobs", recovered)
        except Exception:  # the sweeper must outlive a transient database error
            log.exception("job recovery sweep failed")
        finally:
            close_old_connections()
        stop.wait(RECOVERY_INTERVAL_SECONDS)


class Command(DBWorkerCommand):
    help = "Run a database worker for StrataGate jobs (with recovery of stalled jobs)."

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()
        sweeper = threading.Thread(target=_recovery_loop, args=(stop,), daemon=True)
        sweeper.start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
