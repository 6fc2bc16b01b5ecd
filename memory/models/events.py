"""Events: what happened, with sources and two time axes. Content and provenance are immutable;
only lifecycle status, relations and weight fields ever change."""

from __future__ import annotations

from django.db import models

from memory.models.blocks import Block
from memory.models.conversation import Message
from memory.models.namespaces import Namespace


class EventStatus(models.TextChoices):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    FORGOTTEN = "forgotten"
    ARCHIVED = "archived"


class TemporalStatus(models.TextChoices):
    OCCURRED = "occurred"
    PLANNED = "planned"
    CANCELLED = "cancelled"
    ONGOING = "ongoing"
    UNKNOWN = "unknown"


class EventOrigin(models.TextChoices):
    EXTRACTION = "extraction"
    IMPORT = "import"
    AGENT = "agent"


class Event(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="events")
    title = models.CharField(max_length=300)
    summary = models.TextField()
    event_type = models.CharField(max_length=32)
    tags = models.JSONField(default=list, blank=True)
    quotes = models.JSONField(default=list, blank=True)
    participants = models.JSONField(default=list, blank=True)
    scope = models.CharField(max_length=16, default="project")
    criticality = models.CharField(max_length=16, default="routine")
    origin = models.CharField(
        max_length=16, choices=EventOrigin.choices, default=EventOrigin.EXTRACTION
    )
    # Lifecycle (mutable).
    status = models.CharField(
        max_length=16, choices=EventStatus.choices, default=EventStatus.ACTIVE
    )
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    pinned = models.BooleanField(default=False)
    # Provenance (immutable).
    source_block = models.ForeignKey(Block, on_delete=models.PROTECT, related_name="events")
    source_messages = models.ManyToManyField(Message, related_name="events")
    formed_turn = models.BigIntegerField()
    # Two time axes (SPEC §5.2).
    mentioned_at = models.DateTimeField()
    happened_start = models.DateTimeField(null=True, blank=True)
    happened_end = models.DateTimeField(null=True, blank=True)
    temporal_text = models.CharField(max_length=300, blank=True)
    temporal_precision = models.CharField(max_length=16, default="unknown")
    temporal_basis = models.CharField(max_length=16, default="unknown")
    temporal_status = models.CharField(
        max_length=16, choices=TemporalStatus.choices, default=TemporalStatus.UNKNOWN
    )
    # Long-term weight state (SPEC §7): n starts at 1, anchored at formed_turn.
    adoptions = models.IntegerField(default=1)
    last_adopted_turn = models.BigIntegerField()
    last_retrieved_at = models.DateTimeField(null=True, blank=True)
    # Mentions (issue 29): the same fact stated again adds a mention (EventMention), not an
    # event. `mentioned_at` stays the first mention; a mention is not use (weights untouched).
    mention_count = models.PositiveIntegerField(default=1)
    last_mentioned_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["namespace", "status"], name="event_ns_status"),
            models.Index(fields=["namespace", "happened_start"], name="event_ns_happened"),
            models.Index(fields=["source_block"], name="event_block"),
            # The most recent events (extraction's timeline, inside its write transaction; the
            # timeline page): without it each read sorted every event of the namespace.
            models.Index(fields=["namespace", "formed_turn"], name="event_ns_formed"),
            # Pinned and safety events: candidates of every activation (services/activation.py).
            models.Index(
                fields=["namespace"],
                condition=models.Q(pinned=True) | models.Q(criticality="safety"),
                name="event_ns_always",
            ),
        ]

    def __str__(self) -> str:
        return f"event {self.pk}: {self.title}"


class EventMention(models.Model):
    """A later statement of an existing event's fact: its block, time and source messages (also
    added to the event's `source_messages`) and the quotes it added to the event. The first
    mention is the event itself (its source block and `mentioned_at`), so an event mentioned
    N times has N − 1 rows."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="+")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="mentions")
    block = models.ForeignKey(Block, on_delete=models.CASCADE, related_name="event_mentions")
    messages = models.ManyToManyField(Message, related_name="event_mentions")
    mentioned_at = models.DateTimeField()
    formed_turn = models.BigIntegerField()
    quotes_added = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["mentioned_at", "id"]
        indexes = [
            models.Index(fields=["event", "mentioned_at"], name="event_mention_event"),
            models.Index(fields=["block"], name="event_mention_block"),
        ]

    def __str__(self) -> str:
        return f"mention of event {self.event_id} in block {self.block_id}"


class RelationKind(models.TextChoices):
    SUPERSEDES = "supersedes"
    CONFLICTS_WITH = "conflicts_with"
    SAME_AS = "same_as"
    BEFORE = "before"
    AFTER = "after"
    RELATED = "related"


class EventRelation(models.Model):
    """Directed link; conflicts_with is always stored both ways."""

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="+")
    from_event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="relations_out")
    to_event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="relations_in")
    kind = models.CharField(max_length=16, choices=RelationKind.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["from_event", "to_event", "kind"], name="event_relation_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.from_event_id} {self.kind} {self.to_event_id}"


class AdminAction(models.Model):
    """Who changed what, and when: event pin/forget/restore, block expansion from the UI,
    settings, job retries, imports (SPEC §13). Installation-wide actions have no namespace."""

    namespace = models.ForeignKey(
        Namespace, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    actor = models.CharField(max_length=200)
    action = models.CharField(max_length=32)
    target = models.CharField(max_length=100)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.actor} {self.action} {self.target}"
