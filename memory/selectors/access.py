"""Who may see which namespace in the Memory UI: reads of people's namespace grants. The rule
itself (staff see everything; anyone else only what they hold a grant for; an action needs a
role) is graphui.access, the one place the UI asks."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from memory.models import Namespace, NamespaceGrant, Role


def namespaces_granted(user: Any) -> QuerySet[Namespace]:
    """Every namespace for staff; the ones `user` holds a grant for otherwise (none for an
    anonymous visitor)."""
    if not getattr(user, "is_authenticated", False):
        return Namespace.objects.none()
    if user.is_staff:
        return Namespace.objects.all()
    return Namespace.objects.filter(grants__user_id=user.pk)


def namespace_role(user: Any, namespace: Namespace) -> Role | None:
    """`user`'s role in the namespace: admin for staff, the grant's role, or None."""
    if user.is_staff:
        return Role.ADMIN
    role = (
        NamespaceGrant.objects.filter(user_id=user.pk, namespace=namespace)
        .values_list("role", flat=True)
        .first()
    )
    return Role(role) if role else None
