"""Namespaces (isolated memory spaces) and the agent tokens bound to them."""

from __future__ import annotations

from django.core.validators import RegexValidator
from django.db import models

NAMESPACE_NAME_PATTERN = r"^[A-Za-z0-9_.:\-]{1,200}$"


class Namespace(models.Model):
    name = models.CharField(
        max_length=200,
        unique=True,
        validators=[RegexValidator(NAMESPACE_NAME_PATTERN)],
    )
    # Namespace-wide turn counter (SPEC §1.4); advanced under a row lock by ingest.
    current_turn = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    last_activity_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class TokenScope(models.TextChoices):
    READ = "read", "read"
    READ_WRITE = "read-write", "read-write"
    ADMIN = "admin", "admin"


SCOPE_RANK = {TokenScope.READ: 1, TokenScope.READ_WRITE: 2, TokenScope.ADMIN: 3}


class AgentToken(models.Model):
    """A bearer token; only its SHA-256 is stored, the token itself is shown once."""

    label = models.CharField(max_length=200, blank=True)
    prefix = models.CharField(max_length=16, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    scope = models.CharField(max_length=16, choices=TokenScope.choices)
    namespaces = models.ManyToManyField(Namespace, related_name="tokens")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.scope})"

    def allows(self, needed: str) -> bool:
        return SCOPE_RANK[TokenScope(self.scope)] >= SCOPE_RANK[TokenScope(needed)]
