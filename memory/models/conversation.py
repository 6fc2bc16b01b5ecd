"""Source conversation: sessions, turns, messages and ingest receipts (L5, append-only)."""

from __future__ import annotations

from django.db import models

from memory.models.namespaces import Namespace


class MessageRole(models.TextChoices):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"


class Session(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="sessions")
    external_id = models.CharField(max_length=200)
    turn_count = models.IntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    last_activity_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["namespace", "external_id"], name="session_unique_id")
        ]

    def __str__(self) -> str:
        return self.external_id


class Turn(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="turns")
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="turns")
    session_turn = models.IntegerField()
    namespace_turn = models.BigIntegerField()
    # Mention time for everything derived from this turn (SPEC §1.1).
    occurred_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    block = models.ForeignKey(
        "memory.Block", null=True, blank=True, on_delete=models.PROTECT, related_name="turns"
    )
    # An import's permanent source turn: it holds the imported text but does not advance the
    # namespace's turn counter, so undo can restore the namespace exactly (SPEC §11.5).
    synthetic = models.BooleanField(default=False)

    class Meta:
        ordering = ["session_id", "session_turn"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "session_turn"], name="turn_unique_in_session"
            ),
            models.UniqueConstraint(
                fields=["namespace", "namespace_turn"],
                condition=models.Q(synthetic=False),
                name="turn_unique_in_namespace",
            ),
        ]
        indexes = [models.Index(fields=["session", "block"], name="turn_open_tail")]

    def __str__(self) -> str:
        return f"turn {self.session_turn} of session {self.session_id}"


class Message(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="messages")
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="messages")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="messages")
    position = models.IntegerField()
    role = models.CharField(max_length=16, choices=MessageRole.choices)
    name = models.CharField(max_length=200, blank=True)
    content = models.TextField(blank=True)
    # [{name, arguments?, result?}] exactly as received; only L5 shows arguments.
    tool_calls = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["turn_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["turn", "position"], name="message_unique_position")
        ]
        # A message's neighbours in its session (search documents hold their text).
        indexes = [models.Index(fields=["session", "id"], name="message_session_order")]

    def __str__(self) -> str:
        return f"{self.role} message {self.pk}"


class IngestReceipt(models.Model):
    """Ingest is idempotent on (namespace, receipt_id); the hash detects reuse with new content."""

    namespace = models.ForeignKey(
        Namespace, on_delete=models.CASCADE, related_name="ingest_receipts"
    )
    receipt_id = models.CharField(max_length=200)
    content_hash = models.CharField(max_length=64)
    turn = models.OneToOneField(Turn, on_delete=models.CASCADE, related_name="receipt")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["namespace", "receipt_id"], name="ingest_receipt_unique"
            )
        ]

    def __str__(self) -> str:
        return self.receipt_id
