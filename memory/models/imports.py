"""Imports of other AIs' memories: the job, one row per candidate with its decision, and what
commit changed so undo can put everything back exactly (SPEC §11)."""

from __future__ import annotations

from django.db import models

from memory.models.blocks import Block
from memory.models.events import Event
from memory.models.namespaces import Namespace


class ImportStatus(models.TextChoices):
    PARSING = "parsing"
    PROCESSING = "processing"
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    READY = "ready"
    COMMITTED = "committed"
    UNDONE = "undone"
    FAILED = "failed"


class ImportAction(models.TextChoices):
    ADD = "add"
    MERGE = "merge"
    SUPERSEDE = "supersede"
    CONFLICT = "conflict"
    IGNORE = "ignore"


class ImportBatch(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="imports")
    status = models.CharField(
        max_length=24, choices=ImportStatus.choices, default=ImportStatus.PARSING
    )
    format = models.CharField(max_length=16)
    source_text = models.TextField()
    source_system = models.CharField(max_length=200, blank=True)
    coverage = models.CharField(max_length=16, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    parse_error = models.JSONField(null=True, blank=True)
    total = models.IntegerField(default=0)
    processed = models.IntegerField(default=0)
    dropped = models.IntegerField(default=0)
    top_k = models.IntegerField(default=5)
    # Fingerprint of the memory the decisions looked at; commit refuses when it changed.
    preview_fingerprint = models.CharField(max_length=64, blank=True)
    source_block = models.ForeignKey(
        Block, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Everything commit changed, so undo restores it exactly.
    commit_record = models.JSONField(default=dict, blank=True)
    created_by = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    committed_at = models.DateTimeField(null=True, blank=True)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"import {self.pk} ({self.status})"


class ImportCandidate(models.Model):
    batch = models.ForeignKey(ImportBatch, on_delete=models.CASCADE, related_name="candidates")
    index = models.IntegerField()
    payload = models.JSONField()
    normalized_key = models.CharField(max_length=64, blank=True)
    processed = models.BooleanField(default=False)
    action = models.CharField(max_length=16, choices=ImportAction.choices, blank=True)
    target_event_ids = models.JSONField(default=list, blank=True)
    match_event_ids = models.JSONField(default=list, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    reason = models.TextField(blank=True)
    decided_by = models.CharField(max_length=16, blank=True)
    chosen_action = models.CharField(max_length=16, choices=ImportAction.choices, blank=True)
    chosen_target_event_ids = models.JSONField(default=list, blank=True)
    created_event = models.ForeignKey(
        Event, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["batch_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "index"], name="import_candidate_unique")
        ]

    def __str__(self) -> str:
        return f"candidate {self.index} of import {self.batch_id}"
