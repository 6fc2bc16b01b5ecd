"""The knowledge graph: nodes, facts and edges, each naming its source events.

Whether a fact or edge is current, historical or hidden is derived from its own status and its
source events' lifecycle (SPEC §6.4), so event changes move the graph without rewriting it.
"""

from __future__ import annotations

from django.db import models

from memory.models.events import Event
from memory.models.namespaces import Namespace


class NodeType(models.TextChoices):
    PERSON = "person"
    PROJECT = "project"
    ORGANIZATION = "organization"
    TOOL = "tool"
    PLACE = "place"


class GraphItemStatus(models.TextChoices):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    DISPUTED = "disputed"
    ARCHIVED = "archived"


class GraphNode(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="nodes")
    key = models.CharField(max_length=200)
    name = models.CharField(max_length=200)
    node_type = models.CharField(max_length=16, choices=NodeType.choices)
    aliases = models.JSONField(default=list, blank=True)
    tags = models.JSONField(default=list, blank=True)
    source_events = models.ManyToManyField(Event, related_name="nodes")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["namespace", "key"], name="graph_node_unique_key")
        ]

    def __str__(self) -> str:
        return f"{self.node_type}:{self.name}"


class GraphFact(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="facts")
    node = models.ForeignKey(GraphNode, on_delete=models.CASCADE, related_name="facts")
    key = models.CharField(max_length=200)
    value = models.CharField(max_length=500)
    status = models.CharField(
        max_length=16, choices=GraphItemStatus.choices, default=GraphItemStatus.ACTIVE
    )
    confidence = models.FloatField(default=0.7)
    valid_from = models.DateTimeField()
    valid_to = models.DateTimeField(null=True, blank=True)
    valid_from_turn = models.BigIntegerField()
    valid_to_turn = models.BigIntegerField(null=True, blank=True)
    source_events = models.ManyToManyField(Event, related_name="facts")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["node", "key", "status"], name="graph_fact_slot")]

    def __str__(self) -> str:
        return f"{self.key}={self.value} ({self.status})"


class GraphEdge(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="edges")
    from_node = models.ForeignKey(GraphNode, on_delete=models.CASCADE, related_name="edges_out")
    to_node = models.ForeignKey(GraphNode, on_delete=models.CASCADE, related_name="edges_in")
    relation = models.CharField(max_length=64)
    # Single-valued relations close the previous edge with the same exclusivity key.
    exclusivity_key = models.CharField(max_length=128, blank=True)
    status = models.CharField(
        max_length=16, choices=GraphItemStatus.choices, default=GraphItemStatus.ACTIVE
    )
    confidence = models.FloatField(default=0.7)
    valid_from = models.DateTimeField()
    valid_to = models.DateTimeField(null=True, blank=True)
    valid_from_turn = models.BigIntegerField()
    valid_to_turn = models.BigIntegerField(null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    source_events = models.ManyToManyField(Event, related_name="edges")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["from_node", "exclusivity_key", "status"], name="graph_edge_slot")
        ]

    def __str__(self) -> str:
        return f"{self.from_node_id} -{self.relation}-> {self.to_node_id}"
