"""Namespaces (isolated memory spaces) and the agent tokens bound to them."""

from __future__ import annotations

from django.conf import settings
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
    """A bearer token; only its SHA-256 is stored, the token itself is shown once. An
    installation token may change installation-wide settings; it is bound to namespaces like
    any other for everything else."""

    label = models.CharField(max_length=200, blank=True)
    prefix = models.CharField(max_length=16, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    scope = models.CharField(max_length=16, choices=TokenScope.choices)
    namespaces = models.ManyToManyField(Namespace, related_name="tokens")
    installation = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.scope})"

    def allows(self, needed: str) -> bool:
        return SCOPE_RANK[TokenScope(self.scope)] >= SCOPE_RANK[TokenScope(needed)]


class Role(models.TextChoices):
    """What a person may do in one namespace of the Memory UI (staff may do everything)."""

    VIEWER = "viewer", "viewer"  # every read page
    EDITOR = "editor", "editor"  # + block expansion, import create/commit/undo
    ADMIN = "admin", "admin"  # + pin/forget/restore, job retries, agent tokens


ROLE_RANK = {Role.VIEWER: 1, Role.EDITOR: 2, Role.ADMIN: 3}


class NamespaceGrant(models.Model):
    """A person's role in a namespace. Without one the namespace does not exist for them."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="namespace_grants"
    )
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="grants")
    role = models.CharField(max_length=8, choices=Role.choices)
    granted_by = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "namespace"], name="grant_unique")]

    def __str__(self) -> str:
        return f"{self.user_id} is {self.role} of {self.namespace_id}"

    def allows(self, needed: str) -> bool:
        return ROLE_RANK[Role(self.role)] >= ROLE_RANK[Role(needed)]
