"""Namespace creation with name validation (API.md: letters, digits, - _ . :, 1–200 chars)."""

from __future__ import annotations

import re

from memory.errors import Invalid
from memory.models import Namespace
from memory.models.namespaces import NAMESPACE_NAME_PATTERN

_NAME = re.compile(NAMESPACE_NAME_PATTERN)


def namespace_name_is_valid(name: str) -> bool:
    return bool(_NAME.fullmatch(name))


def namespace_get_or_create(*, name: str) -> Namespace:
    if not namespace_name_is_valid(name):
        raise Invalid(
            "namespace names use letters, digits, '-', '_', '.', ':' (1–200 characters)",
            code="invalid_namespace",
            details={"namespace": name[:200]},
        )
    namespace, _ = Namespace.objects.get_or_create(name=name)
    return namespace
