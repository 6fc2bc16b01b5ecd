"""What a consistency check reports and what a repair did, shared by every invariant's module.

A violation names the invariant it breaks (`kind`), a stable `code` operators can grep and
document, and the ids of the rows involved, so it can be found in the database or the UI.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from django.db.models import Model, QuerySet

# The invariants, in the order they are checked and reported.
PROVENANCE = "provenance"  # every derived row has its sources
RECEIPTS = "receipts"  # every usage receipt's refs exist
BLOCKS = "blocks"  # block turn ranges, views and display pointers
SEARCH_INDEX = "search_index"  # one index row per message, event and node, up to date
JOBS = "jobs"  # no job left running past its lease
COUNTERS = "counters"  # namespace and session turn counters match the turns
KINDS = (PROVENANCE, RECEIPTS, BLOCKS, SEARCH_INDEX, JOBS, COUNTERS)

IdValue = int | str | list[int]


@dataclass(frozen=True)
class Violation:
    kind: str
    code: str
    namespace_id: int
    ids: Mapping[str, IdValue]
    message: str
    # Whether `--repair` can fix it without losing or inventing memory.
    fixable: bool = False

    def as_dict(self, namespace: str) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "code": self.code,
            "namespace": namespace,
            "ids": dict(self.ids),
            "message": self.message,
            "fixable": self.fixable,
        }


@dataclass(frozen=True)
class Repair:
    """One thing a repair did, to the rows named by `ids`."""

    code: str
    namespace_id: int
    message: str
    ids: Mapping[str, IdValue] = field(default_factory=dict)

    def as_dict(self, namespace: str) -> dict[str, Any]:
        return {
            "code": self.code,
            "namespace": namespace,
            "ids": dict(self.ids),
            "message": self.message,
        }


def scoped[M: Model](
    queryset: QuerySet[M], namespace_id: int | None, path: str = "namespace_id"
) -> QuerySet[M]:
    """The rows of one namespace (`path` leads to its id), or all rows when None."""
    return queryset if namespace_id is None else queryset.filter(**{path: namespace_id})


def chunks[T](items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def listed(ids: Iterable[int], limit: int = 10) -> str:
    """`1, 2, 3` — at most `limit` ids, then how many more."""
    values = sorted(ids)
    text = ", ".join(str(i) for i in values[:limit])
    return text + (f" … (+{len(values) - limit})" if len(values) > limit else "")
