"""The Django admin for what an operator manages by hand: people's roles in namespaces, saved
through the same audited service as `manage.py grant_namespace`. (Memory itself is read and
changed through the Memory UI and the API, never here.)"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet

from memory.models import NamespaceGrant
from memory.services.grants import grant_revoke, grant_set


def _actor(request: Any) -> str:
    return f"user:{request.user.get_username()}"


@admin.register(NamespaceGrant)
class NamespaceGrantAdmin(admin.ModelAdmin[NamespaceGrant]):
    list_display = ("user", "namespace", "role", "granted_by", "created_at")
    list_filter = ("role", "namespace")
    search_fields = ("user__username", "namespace__name")
    readonly_fields = ("granted_by", "created_at")

    def get_readonly_fields(self, request: Any, obj: NamespaceGrant | None = None) -> Any:
        # A grant's person and namespace are what it is; change its role, or revoke it.
        return (*self.readonly_fields, "user", "namespace") if obj else self.readonly_fields

    def save_model(self, request: Any, obj: NamespaceGrant, form: Any, change: bool) -> None:
        saved = grant_set(
            username=obj.user.get_username(),
            namespace=obj.namespace.name,
            role=obj.role,
            actor=_actor(request),
        )
        obj.pk = saved.pk

    def delete_model(self, request: Any, obj: NamespaceGrant) -> None:
        grant_revoke(
            username=obj.user.get_username(), namespace=obj.namespace.name, actor=_actor(request)
        )

    def delete_queryset(self, request: Any, queryset: QuerySet[NamespaceGrant]) -> None:
        for grant in queryset.select_related("user", "namespace"):
            self.delete_model(request, grant)
