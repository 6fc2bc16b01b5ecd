"""memory.models.rows.insert_rows: bulk_create's result for plain rows, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import IntegrityError, connection, transaction

from memory.models import BatchItem, IngestReceipt, Message, RefKind, RetrievalBatch, Session, Turn
from memory.models import rows as db
from memory.services.namespaces import namespace_get_or_create

pytestmark = pytest.mark.django_db

AT = datetime(2024, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)


def _turns(count: int) -> list[Turn]:
    namespace = namespace_get_or_create(name="rows")
    session = Session.objects.create(namespace=namespace, external_id="s")
    return [
        Turn(
            namespace=namespace,
            session=session,
            session_turn=n,
            namespace_turn=n,
            occurred_at=AT + timedelta(minutes=n),
        )
        for n in range(1, count + 1)
    ]


def test_rows_get_their_ids_in_input_order_across_statements(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(db, "INSERT_ROWS", 2)  # five rows: three statements
    turns = db.insert_rows(_turns(5))

    assert all(t.pk is not None and not t._state.adding for t in turns)
    stored = dict(Turn.objects.values_list("pk", "session_turn"))
    assert [stored[t.pk] for t in turns] == [1, 2, 3, 4, 5]
    assert [t.pk for t in turns] == sorted(t.pk for t in turns)
    first = Turn.objects.get(pk=turns[0].pk)
    assert first.occurred_at == AT + timedelta(minutes=1)  # microseconds and zone kept
    assert first.created_at is not None  # auto_now_add, set as bulk_create sets it
    assert turns[0].created_at == first.created_at


def test_json_text_and_foreign_keys_round_trip() -> None:
    (turn,) = db.insert_rows(_turns(1))
    calls = [{"name": "search", "arguments": {"q": '记忆 "quoted"', "n": 2}, "result": None}]
    (message,) = db.insert_rows(
        [
            Message(
                namespace_id=turn.namespace_id,
                session_id=turn.session_id,
                turn=turn,
                position=0,
                role="assistant",
                name="Ada",
                content="中文 and 'quotes'",
                tool_calls=calls,
                created_at=AT,
            )
        ]
    )
    stored = Message.objects.get(pk=message.pk)
    assert (stored.turn_id, stored.content, stored.name) == (turn.pk, "中文 and 'quotes'", "Ada")
    assert stored.tool_calls == calls
    assert stored.created_at == AT


def test_a_unique_violation_raises_djangos_integrity_error_and_writes_nothing() -> None:
    (turn,) = db.insert_rows(_turns(1))
    receipt = IngestReceipt(
        namespace_id=turn.namespace_id, receipt_id="r", content_hash="h", turn=turn
    )
    db.insert_rows([receipt])
    twice = [
        IngestReceipt(namespace_id=turn.namespace_id, receipt_id="q", content_hash="h", turn=turn),
        IngestReceipt(namespace_id=turn.namespace_id, receipt_id="r", content_hash="h", turn=turn),
    ]
    with pytest.raises(IntegrityError), transaction.atomic():
        db.insert_rows(twice)
    assert list(IngestReceipt.objects.values_list("receipt_id", flat=True)) == ["r"]
    assert db.insert_rows([]) == []


def test_values_of_another_type_are_converted_by_their_field() -> None:
    """Plain ints, strings and booleans are passed as they are; anything else still goes
    through the field, as bulk_create would convert it (a bool for an integer column is
    stored as 1, which PostgreSQL would otherwise refuse as a boolean)."""
    (turn,) = _turns(1)
    turn.session_turn = True
    turn.namespace_turn = 7.0
    (turn,) = db.insert_rows([turn])
    (message,) = db.insert_rows(
        [
            Message(
                namespace_id=turn.namespace_id,
                session_id=turn.session_id,
                turn_id=str(turn.pk),
                position=0,
                role="user",
                content=12345,  # type: ignore[misc]
                created_at=AT,
            )
        ]
    )
    stored = Turn.objects.get(pk=turn.pk)
    assert (stored.session_turn, stored.namespace_turn) == (1, 7)
    assert Message.objects.get(pk=message.pk).content == "12345"
    assert Message.objects.get(pk=message.pk).turn_id == turn.pk


def test_insert_values_stores_what_bulk_create_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = namespace_get_or_create(name="values")
    batches = [
        RetrievalBatch.objects.create(
            public_id=f"b{n}", namespace=namespace, tool="search_raw", namespace_turn=0
        )
        for n in range(2)
    ]
    names = ("ref", "batch_id", "kind", "object_id", "block_level", "expanded", "rank", "score")
    rows = [
        ("raw:1", batches[0].pk, RefKind.RAW, 1, None, False, 1, 0.25),
        ("block:2", batches[0].pk, RefKind.BLOCK, 2, 3, True, 2, 1),  # an int for a float
        ("event:3", batches[0].pk, RefKind.EVENT, 3, None, False, 3, 1e-12),
    ]
    monkeypatch.setattr(db, "INSERT_ROWS", 2)  # two statements
    db.insert_values(BatchItem, names, rows)
    BatchItem.objects.bulk_create(
        [
            BatchItem(**{**dict(zip(names, row, strict=True)), "batch_id": batches[1].pk})
            for row in rows
        ]
    )

    def stored(batch: RetrievalBatch) -> list[tuple]:
        return list(
            BatchItem.objects.filter(batch=batch)
            .order_by("rank")
            .values_list("ref", "kind", "object_id", "block_level", "expanded", "rank", "score")
        )

    assert stored(batches[0]) == stored(batches[1]) and len(stored(batches[0])) == 3
    assert stored(batches[0])[1][-1] == 1.0 and stored(batches[0])[0][3] is None


def test_insert_values_refuses_a_partial_field_list_or_auto_now_fields() -> None:
    with pytest.raises(ValueError, match="every field"):
        db.insert_values(BatchItem, ("ref", "batch_id"), [("raw:1", 1)])
    names = [f.attname for f, _ in db._insert_plan(Turn)]
    with pytest.raises(ValueError, match="auto_now"):
        db.insert_values(Turn, names, [tuple(None for _ in names)])
    db.insert_values(BatchItem, (), [])  # nothing to insert: no check, no statement
    assert not BatchItem.objects.exists()


def test_many_rows_round_trip_and_go_as_one_array_per_column_on_postgresql() -> None:
    (turn,) = db.insert_rows(_turns(1))
    calls: list[object] = [
        [{"name": "search", "arguments": {"q": '记忆 "quoted"'}}],
        {"k": [1, 2.5, None, True]},
        [],
        "plain string",
    ]

    def message(n: int) -> Message:
        return Message(
            namespace_id=turn.namespace_id,
            session_id=turn.session_id,
            turn=turn,
            position=n,
            role=("user", "assistant")[n % 2],
            name="" if n % 2 else "Ada",
            content=f"中文 'quotes' {{braces}} %s %(x)s row {n}",
            tool_calls=calls[n % len(calls)],
            created_at=AT + timedelta(seconds=n),
        )

    statements: list[str] = []

    def seen(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(seen):
        db.insert_rows([message(n) for n in range(10, 15)])  # 45 placeholders: a cached VALUES
        stored = db.insert_rows([message(n) for n in range(7)])  # 63
    assert ["unnest(" in sql for sql in statements] == [False, connection.vendor == "postgresql"]
    assert [m.pk for m in stored] == sorted(m.pk for m in stored)
    back = Message.objects.in_bulk([m.pk for m in stored])
    for n, row in enumerate(stored):
        got = back[row.pk]
        assert (got.position, got.content, got.name, got.tool_calls, got.created_at) == (
            n,
            f"中文 'quotes' {{braces}} %s %(x)s row {n}",
            "" if n % 2 else "Ada",
            calls[n % len(calls)],
            AT + timedelta(seconds=n),
        )


def test_update_row_writes_what_the_orms_update_would() -> None:
    """`update_row`: one row's fields by name or `<fk>_id`, each converted as the field saves
    it (an aware time, a choice), and no other row touched."""
    first, second = db.insert_rows(_turns(2))
    other = Session.objects.create(namespace=first.namespace, external_id="other")
    later = AT + timedelta(days=3, microseconds=7)
    db.update_row(Turn, first.pk, occurred_at=later, session_id=other.pk, session_turn=9)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.occurred_at, first.session_id, first.session_turn) == (later, other.pk, 9)
    assert (second.occurred_at, second.session_turn) == (AT + timedelta(minutes=2), 2)
    assert Turn.objects.filter(occurred_at=later).count() == 1  # compares as the ORM stores it
    with pytest.raises(ValueError, match="no column"):
        db.update_row(Turn, first.pk, messages=[])
