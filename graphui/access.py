"""Permission-checked getters for the Memory UI's views (the healthchecks habit: a view starts
with one call that either returns what it may show or raises)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse

from memory.errors import Forbidden
from memory.models import Namespace
from memory.selectors.namespaces import namespace_get


def ui_namespace(request: HttpRequest, name: str) -> Namespace:
    """The namespace a logged-in user asked for; unknown → 404 `namespace_not_found`.
    Every logged-in user may read every namespace (no per-user namespace access yet)."""
    return namespace_get(name)


def actor(request: HttpRequest) -> str:
    """How the admin audit log names a person acting in the UI."""
    return f"user:{request.user.get_username()}"


def staff_required[**P](view: Callable[P, HttpResponse]) -> Callable[P, HttpResponse]:
    """Installation-wide or destructive actions (settings, pin/forget) need a staff user, as
    they need an admin-scope token in the API; others get 403 `staff_required`."""

    @wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> HttpResponse:
        request: Any = args[0]
        if not request.user.is_staff:
            raise Forbidden("this action needs a staff account", code="staff_required")
        return view(*args, **kwargs)

    return wrapped
