"""Who may see and do what in the Memory UI: the one place every page, partial, JSON endpoint,
the live-updates socket, the namespace list, the switcher and the settings page ask.

Staff users are the installation's admins: they see every namespace and may do everything.
Anyone else sees only the namespaces they hold a grant for (memory.models.NamespaceGrant:
`manage.py grant_namespace`, or the Django admin), with its role:

    viewer   every read page
    editor   + expand a block, create, commit and undo an import
    admin    + pin / forget / restore an event, retry jobs, create agent tokens

A namespace without a grant does not exist for that person: 404 `namespace_not_found`, as for a
name that exists nowhere, so nothing hints that it is there. A grant below what an action
needs is 403 `role_required`. Installation-wide actions (λ and block size, the agent token
list) need staff: 403 `staff_required` (the healthchecks habit: a view starts with one call that
returns what it may use or raises).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from memory.errors import Forbidden, NotFound
from memory.models import ROLE_RANK, Namespace, Role
from memory.selectors.access import namespace_role, namespaces_granted
from memory.selectors.namespaces import namespace_get

ROLE_WORDS = {Role.VIEWER: "viewer", Role.EDITOR: "editor", Role.ADMIN: "admin"}


def visible_namespaces(user: Any) -> QuerySet[Namespace]:
    """The namespaces `user` may see, by name (none for an anonymous user)."""
    return namespaces_granted(user).order_by("name")


def ui_namespace(user: Any, name: str, need: Role = Role.VIEWER) -> Namespace:
    """The namespace `name` if `user` may do what needs `need` in it; 404 when they may not
    see it (or it does not exist), 403 `role_required` when their role is below `need`."""
    found = user_role(user, name)
    namespace, role = found if found is not None else (None, None)
    if namespace is None or role is None:
        raise NotFound(f"namespace {name[:200]!r} not found", code="namespace_not_found")
    if ROLE_RANK[role] < ROLE_RANK[need]:
        raise Forbidden(
            f"this needs the {ROLE_WORDS[need]} role in namespace {namespace.name!r}",
            code="role_required",
            details={"role": role.value, "needed": need.value},
        )
    return namespace


def user_role(user: Any, name: str) -> tuple[Namespace, Role | None] | None:
    """(namespace, `user`'s role in it or None), or None when no namespace has that name.
    Remembered on the user object for the rest of the request, as Django remembers
    permissions (`_perm_cache`): the view's check and the layout's action flags ask once."""
    if not getattr(user, "is_authenticated", False):
        return None
    cache: dict[str, tuple[Namespace, Role | None] | None] = user.__dict__.setdefault(
        "_namespace_roles", {}
    )
    if name not in cache:
        try:
            namespace = namespace_get(name)
        except NotFound:
            cache[name] = None
        else:
            cache[name] = (namespace, namespace_role(user, namespace))
    return cache[name]


def may(user: Any, namespace: Namespace | str, need: Role) -> bool:
    """For templates: whether to offer an action (the view checks again when it is used)."""
    if not getattr(user, "is_authenticated", False):
        return False
    if isinstance(namespace, str):
        found = user_role(user, namespace)
        role = found[1] if found else None
    else:
        role = namespace_role(user, namespace)
    return role is not None and ROLE_RANK[role] >= ROLE_RANK[need]


def actor(request: HttpRequest) -> str:
    """How the admin audit log names a person acting in the UI."""
    return f"user:{request.user.get_username()}"


def staff_required[**P](view: Callable[P, HttpResponse]) -> Callable[P, HttpResponse]:
    """Installation-wide actions (λ and block size, the agent token list) need a staff user, as
    they need an installation token in the API; others get 403 `staff_required`."""

    @wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        request: Any = args[0]
        if not request.user.is_staff:
            raise Forbidden("this action needs a staff account", code="staff_required")
        return view(*args, **kwargs)

    return wrapped
