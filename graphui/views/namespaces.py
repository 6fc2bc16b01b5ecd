"""Namespaces page: every namespace with its health at a glance."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from memory.selectors.namespaces import namespace_overview


@login_required
def namespace_list(request: HttpRequest) -> HttpResponse:
    return render(request, "graphui/namespaces.html", {"rows": namespace_overview()})
