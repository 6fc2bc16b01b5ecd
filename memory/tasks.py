"""Where task results queued before run_job moved to `services.jobs` find it (their stored
`task_path` is `memory.tasks.run_job`); new triggers name `memory.services.jobs.run_job`."""

from __future__ import annotations

from memory.services.jobs import run_job

__all__ = ["run_job"]
