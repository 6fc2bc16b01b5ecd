"""What "memory exactly as before" compares in tests (an import's undo, a restored dump)."""

from __future__ import annotations

from typing import Any

from memory.models import Namespace
from memory.selectors.dump import (
    ADMIN_SECTION,
    REGENERATED,
    SECTIONS,
    iter_dump,
    namespace_header,
)


def namespace_dump(namespace: Namespace) -> dict[str, Any]:
    """The whole canonical dump as one dict (two compare with ==)."""
    namespace.refresh_from_db()
    dump: dict[str, Any] = {"namespace": namespace_header(namespace)}
    for section in SECTIONS:
        dump[section.name] = []
    for name, record in iter_dump(namespace):
        for field in REGENERATED.get(name, ()):
            record.pop(field, None)
        dump[name].append(record)
    return dump


def memory_dump(namespace: Namespace) -> dict[str, Any]:
    """`namespace_dump` without the admin log: what "memory exactly as before" compares (an
    import's undo, a restored dump). The log is history of who did what; its entries stay."""
    dump = namespace_dump(namespace)
    dump.pop(ADMIN_SECTION, None)
    return dump
