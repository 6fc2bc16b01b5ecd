"""The evidence loop: retrieval batches and their refs, gate assessments, usage receipts, and
what was injected as activated memory (SPEC §8.7, §9, §10)."""

from __future__ import annotations

from django.db import models

from memory.models.conversation import Session, Turn
from memory.models.events import Event
from memory.models.namespaces import Namespace


class BatchStatus(models.TextChoices):
    OPEN = "open"
    CLOSED = "closed"


class RetrievalBatch(models.Model):
    """One explicit retrieval (search or expand) and the refs it showed the agent."""

    public_id = models.CharField(max_length=40, unique=True)
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="batches")
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="batches"
    )
    tool = models.CharField(max_length=32)
    query = models.TextField(blank=True)
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=8, choices=BatchStatus.choices, default=BatchStatus.OPEN)
    namespace_turn = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["namespace", "session", "-id"], name="batch_latest")]

    def __str__(self) -> str:
        return self.public_id


class RefKind(models.TextChoices):
    EVENT = "event"
    NODE = "node"
    FACT = "fact"
    RAW = "raw"
    BLOCK = "block"


class BatchItem(models.Model):
    batch = models.ForeignKey(RetrievalBatch, on_delete=models.CASCADE, related_name="items")
    ref = models.CharField(max_length=80)
    kind = models.CharField(max_length=8, choices=RefKind.choices)
    object_id = models.BigIntegerField()
    block_level = models.SmallIntegerField(null=True, blank=True)
    expanded = models.BooleanField(default=False)
    rank = models.IntegerField(default=0)
    score = models.FloatField(default=0.0)

    class Meta:
        ordering = ["batch_id", "rank"]
        constraints = [models.UniqueConstraint(fields=["batch", "ref"], name="batch_item_unique")]

    def __str__(self) -> str:
        return self.ref


class Assessment(models.Model):
    """The agent's verdict as submitted and as validated by code (SPEC §9.2–9.4)."""

    batch = models.ForeignKey(RetrievalBatch, on_delete=models.CASCADE, related_name="assessments")
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="+")
    submitted_verdict = models.CharField(max_length=16)
    verdict = models.CharField(max_length=16)
    evidence_refs = models.JSONField(default=list)
    accepted_refs = models.JSONField(default=list)
    rejected_refs = models.JSONField(default=list)
    fit = models.CharField(max_length=160, blank=True)
    missing = models.CharField(max_length=160, blank=True)
    submitted_next_strategy = models.CharField(max_length=32)
    next_strategy = models.CharField(max_length=32)
    notes = models.JSONField(default=list, blank=True)
    advice = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"assessment {self.pk}: {self.verdict}"


class UsageReceipt(models.Model):
    """What an answer used: idempotent on (namespace, receipt_id); empty refs are kept too."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="receipts")
    receipt_id = models.CharField(max_length=200)
    content_hash = models.CharField(max_length=64)
    batch = models.ForeignKey(RetrievalBatch, on_delete=models.PROTECT, related_name="receipts")
    assessment = models.ForeignKey(
        Assessment, null=True, blank=True, on_delete=models.SET_NULL, related_name="receipts"
    )
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="receipts"
    )
    answer_turn = models.ForeignKey(
        Turn, null=True, blank=True, on_delete=models.SET_NULL, related_name="receipts"
    )
    namespace_turn = models.BigIntegerField()
    evidence_refs = models.JSONField(default=list)
    verdict = models.CharField(max_length=16, blank=True)
    fit = models.CharField(max_length=160, blank=True)
    missing = models.CharField(max_length=160, blank=True)
    next_strategy = models.CharField(max_length=32, blank=True)
    answer_text = models.TextField(blank=True)
    answer_hash = models.CharField(max_length=64, blank=True)
    reinforced_event_ids = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "receipt_id"], name="usage_receipt_unique")
        ]

    def __str__(self) -> str:
        return self.receipt_id


class UsageItem(models.Model):
    """One cited ref of a receipt, with what it was and how it was seen (SPEC §10.4)."""

    receipt = models.ForeignKey(UsageReceipt, on_delete=models.CASCADE, related_name="items")
    ref = models.CharField(max_length=80)
    kind = models.CharField(max_length=8, choices=RefKind.choices)
    object_id = models.BigIntegerField()
    block_level = models.SmallIntegerField(null=True, blank=True)
    expanded = models.BooleanField(default=False)
    # The events this ref stands for (an event, or the sources of a fact/node/raw/block ref).
    events = models.ManyToManyField(Event, related_name="usage_items", blank=True)

    class Meta:
        ordering = ["receipt_id", "id"]

    def __str__(self) -> str:
        return self.ref


class Activation(models.Model):
    """Memories injected as activated context before a model call (never counts as use)."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="+")
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="activations"
    )
    namespace_turn = models.BigIntegerField()
    query = models.TextField(blank=True)
    refs = models.JSONField(default=list)
    tokens = models.IntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"activation {self.pk}"
