"""One page of a list, paged in SQL: the items of the page (already turned into read models)
and where it sits among the others. Every paginated page of the UI uses it, so pagination
looks and behaves the same everywhere (an invalid or out-of-range page shows the nearest one)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Paginator
from django.db.models import QuerySet


@dataclass(frozen=True)
class Page[T]:
    items: list[T]
    number: int
    num_pages: int
    total: int
    start_index: int  # 1-based position of the first item (0 when empty)
    end_index: int

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def has_other_pages(self) -> bool:
        return self.num_pages > 1

    @property
    def previous_number(self) -> int:
        return self.number - 1

    @property
    def next_number(self) -> int:
        return self.number + 1


def paginate[T](
    rows: QuerySet[Any],
    *,
    page: int | str | None,
    per_page: int,
    convert: Callable[[Sequence[Any]], list[T]],
) -> Page[T]:
    """A COUNT and one slice of `rows`; `convert` turns the slice's rows into read models (it
    may query, once per page, never per row)."""
    paginator = Paginator(rows, per_page)
    shown = paginator.get_page(page)
    return Page(
        items=convert(list(shown.object_list)),
        number=shown.number,
        num_pages=paginator.num_pages,
        total=paginator.count,
        start_index=shown.start_index(),
        end_index=shown.end_index(),
    )


def first_page[T](items: list[T], *, total: int, per_page: int) -> Page[T]:
    """Page 1 of a list whose first `per_page` items and count another read already has (the
    health read carries the newest failed jobs and how many failed): no query of its own."""
    shown = items[:per_page]
    return Page(
        items=shown,
        number=1,
        num_pages=max(1, -(-total // per_page)),
        total=total,
        start_index=1 if shown else 0,
        end_index=len(shown),
    )
