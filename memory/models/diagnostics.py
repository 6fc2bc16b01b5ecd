"""Model-call log: latency, tokens and complete failure text per namespace (SPEC §12.3)."""

from __future__ import annotations

from django.db import models

from memory.models.namespaces import Namespace


class ModelCall(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="model_calls")
    job = models.ForeignKey(
        "memory.ProcessingJob",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="model_calls",
    )
    kind = models.CharField(max_length=32)
    model = models.CharField(max_length=200)
    ok = models.BooleanField()
    latency_ms = models.IntegerField(default=0)
    prompt_tokens = models.IntegerField(default=0)
    completion_tokens = models.IntegerField(default=0)
    attempts = models.IntegerField(default=1)
    error_text = models.TextField(blank=True)
    preview = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["namespace", "ok", "-id"], name="model_call_recent")]

    def __str__(self) -> str:
        return f"{self.kind} call {self.pk} ({'ok' if self.ok else 'failed'})"
