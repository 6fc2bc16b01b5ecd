"""Durable processing jobs: the source of truth for derivation work and its retries.

A django.tasks task only *triggers* a job; the job row carries attempts, lease and errors, so a
worker killed mid-way is recovered by lease expiry and failures stay visible and retryable.
"""

from __future__ import annotations

from django.db import models

from memory.models.blocks import Block
from memory.models.namespaces import Namespace


class JobKind(models.TextChoices):
    BLOCK_VIEWS = "block_views"
    BLOCK_EXTRACT = "block_extract"
    GRAPH_PROJECT = "graph_project"
    IMPORT_PREVIEW = "import_preview"


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class ProcessingJob(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="jobs")
    kind = models.CharField(max_length=32, choices=JobKind.choices)
    block = models.ForeignKey(
        Block, null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    attempts = models.IntegerField(default=0)
    max_attempts = models.IntegerField(default=3)
    run_after = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    payload = models.JSONField(default=dict, blank=True)
    progress = models.JSONField(default=dict, blank=True)
    last_error = models.TextField(blank=True)
    error_preview = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["status", "run_after"], name="job_due"),
            models.Index(fields=["namespace", "kind", "status"], name="job_ns_kind_status"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"
