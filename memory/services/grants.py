"""Grant a person a role in a namespace of the Memory UI, or take it away (graphui.access says
what each role may do). Every change is written to the admin audit log in the same
transaction."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from memory.errors import Invalid, NotFound
from memory.models import Namespace, NamespaceGrant, Role
from memory.services.audit import admin_action
from memory.services.namespaces import namespace_name_is_valid


def _user(username: str) -> Any:
    found = get_user_model().objects.filter(username=username).first()
    if found is None:
        raise NotFound(f"no user {username[:200]!r}", code="user_not_found")
    return found


def _namespace(name: str) -> Namespace:
    found = Namespace.objects.filter(name=name).first() if namespace_name_is_valid(name) else None
    if found is None:
        raise NotFound(f"namespace {name[:200]!r} not found", code="namespace_not_found")
    return found


def grant_set(*, username: str, namespace: str, role: str, actor: str) -> NamespaceGrant:
    """Give `username` the role `role` in `namespace` (replacing the role they had there)."""
    if role not in Role.values:
        raise Invalid(
            f"unknown role {role!r}", code="invalid_role", details={"allowed": Role.values}
        )
    user, target = _user(username), _namespace(namespace)
    with transaction.atomic():
        before = NamespaceGrant.objects.filter(user=user, namespace=target).first()
        grant, _ = NamespaceGrant.objects.update_or_create(
            user=user, namespace=target, defaults={"role": role, "granted_by": actor[:200]}
        )
        admin_action(
            "grant",
            namespace_id=target.pk,
            actor=actor,
            target=f"user:{user.get_username()}",
            details={
                "user": user.get_username(),
                "before": before.role if before else None,
                "after": role,
            },
        )
    return grant


def grant_revoke(*, username: str, namespace: str, actor: str) -> bool:
    """Take away `username`'s role in `namespace`; False when they had none."""
    user, target = _user(username), _namespace(namespace)
    with transaction.atomic():
        grant = NamespaceGrant.objects.filter(user=user, namespace=target).first()
        if grant is None:
            return False
        grant.delete()
        admin_action(
            "grant_revoke",
            namespace_id=target.pk,
            actor=actor,
            target=f"user:{user.get_username()}",
            details={"user": user.get_username(), "before": grant.role, "after": None},
        )
    return True
