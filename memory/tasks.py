"""django.tasks entry points. Thin: the job row in the database carries the real state."""

from __future__ import annotations

from django.tasks import task

from memory.services.jobs import job_run


@task()
def run_job(job_id: int) -> str:
    return job_run(job_id)
