"""Namespace health: counts, job states, settings and model mode in one read (SPEC §13.1)."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, F, Sum

from memory.engine.redact import redact
from memory.models import (
    Activation,
    Assessment,
    Block,
    Event,
    Message,
    ModelCall,
    Namespace,
    ProcessingJob,
    RetrievalBatch,
    Session,
    Turn,
    UsageReceipt,
)
from memory.services.llm_runtime import model_mode
from memory.services.settings import memory_settings_get


def _counts_by(queryset: Any, field: str) -> dict[str, int]:
    return {row[field]: row["n"] for row in queryset.values(field).annotate(n=Count("pk"))}


def _usage_counts(namespace: Namespace) -> dict[str, int]:
    """Receipts and adoptions (SPEC §10): only usage receipts move these, never retrieval.
    `adoptions` = Σ (n − 1) over events, since every event starts at n = 1 (SPEC §7.3)."""
    receipts = UsageReceipt.objects.filter(namespace=namespace)
    adopted = Event.objects.filter(namespace=namespace).aggregate(total=Sum(F("adoptions") - 1))[
        "total"
    ]
    return {
        "receipts": receipts.count(),
        "zero_increment_receipts": receipts.filter(evidence_refs=[]).count(),
        "adoptions": int(adopted or 0),
    }


def namespace_health(*, namespace: Namespace) -> dict[str, Any]:
    settings = memory_settings_get()
    jobs: dict[str, dict[str, int]] = {}
    rows = (
        ProcessingJob.objects.filter(namespace=namespace)
        .values("kind", "status")
        .annotate(n=Count("pk"))
    )
    for row in rows:
        jobs.setdefault(row["kind"], {})[row["status"]] = row["n"]
    recent_ok = ModelCall.objects.filter(namespace=namespace, ok=True).order_by("-id")[:5]
    failures = ProcessingJob.objects.filter(namespace=namespace, status="failed").order_by("-id")[
        :20
    ]
    return {
        "namespace": namespace.name,
        "current_turn": namespace.current_turn,
        "last_activity_at": namespace.last_activity_at,
        "counts": {
            "sessions": Session.objects.filter(namespace=namespace).count(),
            "turns": Turn.objects.filter(namespace=namespace).count(),
            "messages": Message.objects.filter(namespace=namespace).count(),
            "blocks": _counts_by(Block.objects.filter(namespace=namespace), "status"),
            **_usage_counts(namespace),
        },
        "retrieval": {
            "batches": _counts_by(RetrievalBatch.objects.filter(namespace=namespace), "status"),
            "assessments": _counts_by(Assessment.objects.filter(namespace=namespace), "verdict"),
            "activations": Activation.objects.filter(namespace=namespace).count(),
        },
        "jobs": jobs,
        "failed_jobs": [
            {
                "id": job.pk,
                "kind": job.kind,
                "block_id": job.block_id,
                "attempts": job.attempts,
                "error_preview": redact(job.error_preview),
            }
            for job in failures
        ],
        "model_calls": {
            "recent": [
                {
                    "kind": call.kind,
                    "model": call.model,
                    "latency_ms": call.latency_ms,
                    "prompt_tokens": call.prompt_tokens,
                    "completion_tokens": call.completion_tokens,
                    "created_at": call.created_at,
                }
                for call in recent_ok
            ],
            "by_kind": {
                row["kind"]: row["n"]
                for row in ModelCall.objects.filter(namespace=namespace)
                .values("kind")
                .annotate(n=Count("pk"))
            },
        },
        "settings": {"block_lambda": settings.block_lambda, "block_turns": settings.block_turns},
        "model_mode": model_mode(),
    }
