"""The graph-state read: whether graph facts and edges are current, historical or hidden (SPEC
§6.4), now or as of a past turn or date (§6.7), for many items at once.

The rule is `memory.engine.graph_state.item_state` (pure, no Django); what it needs from the
database is each item's own validity (the caller's rows) and the statuses of its source events
(`source_statuses`). Every place that shows or indexes graph state reads it here — the node
states of the API and of recall, the graph page, the event page and its action previews, the
search index's node documents, the gate's ref checks — so there is one query for it and one
way to apply the rule:

    sources = source_statuses(GraphFact, [row["id"] for row in rows])
    states = item_states(rows, as_of, sources=sources)  # {fact id: current|historical|hidden}

`source_statuses` returns each source event's id with its status, because a node state lists
its items' source events and an event's action preview swaps one event's status for another:
both use the same one query.

The statuses are read as plain SQL (`memory.models.rows`): this runs for every node state read,
on every context call, and the ORM's compilation cost more than the query.

A leaf selector. It imports only `memory.models` (with `memory.models.rows`) and
`memory.engine`, besides the standard library and Django, so that `memory.search`, the layer
below the selectors, may use it: the search index splits a node's facts and neighbours into
current and historical, and must do so exactly as every page does. It is the one selector
search may import; `tests/architecture/test_read_side.py` holds both sides of that (search
imports nothing else of selectors, this module nothing above models and engine).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any

from memory.engine.graph_state import AsOf, Validity, item_state
from memory.models import Event, GraphEdge, GraphFact, Namespace
from memory.models.rows import in_chunks, marks, read_rows

__all__ = ["Source", "item_states", "source_statuses", "validity_columns"]

Source = tuple[int, str]  # a source event: (its id, its status)
GraphItem = type[GraphFact] | type[GraphEdge]

_UNREAD = datetime(1970, 1, 1, tzinfo=UTC)  # stands in for dates the rule will not read


@cache
def _select(model: GraphItem) -> tuple[str, str, str]:
    """`SELECT item id, event id, event status FROM <the model's source table> s JOIN events`,
    the item id column (qualified) and the item table."""
    field = model.source_events.field  # the through table's columns for the item and event
    item, event = field.m2m_column_name(), field.m2m_reverse_name()
    select = (
        f"SELECT s.{item}, s.{event}, e.status FROM {field.m2m_db_table()} s "
        f"JOIN {Event._meta.db_table} e ON s.{event} = e.id"
    )
    return select, f"s.{item}", model._meta.db_table


def validity_columns(as_of: AsOf | None) -> tuple[str, ...]:
    """The `values()` columns `item_states` reads of a fact or edge: its id, status and turns,
    and its dates only for a date as-of (parsing two datetimes per row was most of the graph
    page's cost at 7,000 edges)."""
    dates = ("valid_from", "valid_to") if as_of is not None and as_of.at is not None else ()
    return ("id", "status", "valid_from_turn", "valid_to_turn", *dates)


def source_statuses(
    model: GraphItem, ids: Sequence[int] = (), *, namespace: Namespace | None = None
) -> dict[int, list[Source]]:
    """Fact or edge id → (id, status) of each of its source events, for the `model`'s items
    `ids` (one query per 5,000 ids, none for no ids) or, with `namespace`, for all its items
    there (one query, joined on the namespace rather than an IN list of thousands of ids). An
    item without source events has no key: `item_states` reads it as hidden."""
    select, item, table = _select(model)
    if namespace is not None:
        rows = read_rows(
            f"{select} JOIN {table} i ON {item} = i.id WHERE i.namespace_id = %s", [namespace.pk]
        )
    else:
        rows = [
            row
            for chunk in in_chunks(ids)
            for row in read_rows(f"{select} WHERE {item} IN ({marks(chunk)})", chunk)
        ]
    found: dict[int, list[Source]] = {}
    for item_id, event_id, status in rows:
        found.setdefault(item_id, []).append((event_id, status))
    return found


def item_states(
    rows: Iterable[Any],
    as_of: AsOf | None = None,
    *,
    sources: Mapping[int, Sequence[Source]],
) -> dict[int, str]:
    """Fact or edge id → current | historical | hidden, now or `as_of`, for `rows` (facts or
    edges: model instances, or `values()` rows with their "id" and the fields `Validity.of`
    reads) whose source events are `sources` (as `source_statuses` returns them). The rule
    reads dates only for a date as-of, so otherwise rows may leave `valid_from` and `valid_to`
    out: the graph page reads a whole namespace's items, and parsing two datetimes each was
    most of its cost."""
    dated = as_of is not None and as_of.at is not None
    states: dict[int, str] = {}
    # The fields Validity.of reads, spelled out: the graph page runs this for every fact and
    # edge of a namespace, and Validity.of's generator made it ~7% slower as of a date.
    for row in rows:
        if type(row) is dict or isinstance(row, Mapping):
            pk = row["id"]
            start, end = (row["valid_from"], row["valid_to"]) if dated else (_UNREAD, None)
            validity = Validity(
                row["status"], start, end, row["valid_from_turn"], row["valid_to_turn"]
            )
        else:
            pk = row.pk
            start, end = (row.valid_from, row.valid_to) if dated else (_UNREAD, None)
            validity = Validity(row.status, start, end, row.valid_from_turn, row.valid_to_turn)
        states[pk] = item_state([status for _, status in sources.get(pk, ())], validity, as_of)
    return states
