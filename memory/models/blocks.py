"""Blocks (sealed runs of turns) with their display pointer, and their six views."""

from __future__ import annotations

from django.db import models

from memory.models.conversation import Session
from memory.models.namespaces import Namespace


class BlockStatus(models.TextChoices):
    PENDING = "pending"
    READY = "ready"
    FAILED = "failed"


class LiftedBy(models.TextChoices):
    USER = "user"
    AGENT = "agent"


class Block(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="blocks")
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="blocks")
    sequence = models.IntegerField()
    first_turn = models.IntegerField()
    last_turn = models.IntegerField()
    status = models.CharField(
        max_length=16, choices=BlockStatus.choices, default=BlockStatus.PENDING
    )
    # Display pointer (SPEC §4.1); anchor_position is set when the block becomes ready.
    anchor_level = models.SmallIntegerField(default=5)
    anchor_position = models.IntegerField(null=True, blank=True)
    ready_position = models.IntegerField(null=True, blank=True)
    last_lifted_at = models.DateTimeField(null=True, blank=True)
    last_lifted_by = models.CharField(max_length=8, choices=LiftedBy.choices, blank=True)
    should_extract = models.BooleanField(null=True)
    sealed_at = models.DateTimeField(auto_now_add=True)
    ready_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session_id", "sequence"]
        constraints = [
            models.UniqueConstraint(fields=["session", "sequence"], name="block_unique_sequence")
        ]
        indexes = [models.Index(fields=["session", "status"], name="block_session_status")]

    def __str__(self) -> str:
        return f"block {self.pk} ({self.session_id}#{self.sequence})"


class ViewSource(models.TextChoices):
    RULES = "rules"
    OFFLINE = "offline"
    MODEL = "model"


class BlockView(models.Model):
    """One of L0–L5 of a block. L3–L5 are written at sealing, L0–L2 by processing."""

    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="views")
    level = models.SmallIntegerField()
    content = models.TextField()
    tokens = models.IntegerField()
    produced_by = models.CharField(max_length=8, choices=ViewSource.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["block_id", "level"]
        constraints = [
            models.UniqueConstraint(fields=["block", "level"], name="block_view_unique_level"),
            models.CheckConstraint(
                condition=models.Q(level__gte=0, level__lte=5), name="block_view_level_range"
            ),
        ]

    def __str__(self) -> str:
        return f"L{self.level} of block {self.block_id}"
