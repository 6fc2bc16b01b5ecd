"""memory.models.rows.read_models(_with): the ORM's own instances for plain SQL, both databases."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.db.models import Model

from memory.models import Block, Message, Namespace, Session, Turn
from memory.models import rows as db
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create

pytestmark = pytest.mark.django_db

AT = datetime(2024, 3, 1, 23, 59, 58, 654321, tzinfo=UTC)


def _fields(instance: Model) -> dict[str, object]:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def _one_turn(name: str, *messages: MessageIn) -> Namespace:
    namespace = namespace_get_or_create(name=name)
    turn = TurnIn(session_id="s1", receipt_id="r1", occurred_at=AT, messages=list(messages))
    turn_ingest(namespace=namespace, turn=turn)
    return namespace


def test_instances_equal_the_orms_field_by_field() -> None:
    calls = [{"name": "search", "arguments": {"q": '记忆 "quoted"'}, "result": None}]
    namespace = _one_turn(
        "read",
        MessageIn(role="user", content="中文 and 'quotes'", name="Ada", created_at=AT),
        MessageIn(role="assistant", content="ok", tool_calls=calls, created_at=AT),
    )
    cases: list[tuple[type[Model], str, str, list[Any]]] = [
        (Message, "m", "WHERE m.namespace_id = %s ORDER BY m.id", [namespace.pk]),
        (Session, "s", "WHERE s.namespace_id = %s", [namespace.pk]),
        (Namespace, "n", "WHERE n.name = %s", ["read"]),
    ]
    for model, alias, rest, params in cases:
        read = db.read_models(model, alias, rest, params)
        orm = list(model._default_manager.filter(pk__in=[r.pk for r in read]).order_by("pk"))
        assert read and [_fields(r) for r in read] == [_fields(o) for o in orm]
        assert all(not r._state.adding and r._state.db == "default" for r in read)
    messages = db.read_models(Message, "m", "WHERE m.namespace_id = %s", [namespace.pk])
    assert {m.created_at for m in messages} == {AT}  # aware, microseconds kept
    assert [m.tool_calls for m in messages if m.tool_calls] == [calls]  # JSON decoded


def test_nothing_found_is_an_empty_list() -> None:
    assert db.read_models(Namespace, "n", "WHERE n.name = %s", ["none"]) == []


def test_a_joined_column_is_converted_as_its_field() -> None:
    namespace = _one_turn("joined", MessageIn(role="user", content="late at night"))
    occurred = Turn._meta.get_field("occurred_at")
    ((message, (at,)),) = db.read_models_with(
        Message,
        "m",
        "JOIN memory_turn t ON t.id = m.turn_id WHERE m.namespace_id = %s",
        [namespace.pk],
        [("t.occurred_at", occurred, "t")],
    )
    assert message.content == "late at night"
    assert at == AT == Turn.objects.get(pk=message.turn_id).occurred_at  # aware, to the µs


def test_read_values_equal_values_list_with_each_field_converted() -> None:
    calls = [{"name": "search", "arguments": {"q": "x"}, "result": None}]
    namespace = _one_turn(
        "values",
        MessageIn(role="user", content="中文", name="Ada", created_at=AT),
        MessageIn(role="assistant", content="ok", tool_calls=calls, created_at=AT),
    )
    names = ["id", "content", "created_at", "tool_calls", "turn_id"]
    columns = [(Message._meta.get_field(n), "m") for n in names]
    occurred = Turn._meta.get_field("occurred_at")
    read = db.read_values(
        [*columns, (occurred, "t")],
        "FROM memory_message m JOIN memory_turn t ON m.turn_id = t.id "
        "WHERE m.namespace_id = %s ORDER BY m.id",
        [namespace.pk],
    )
    orm = list(
        Message.objects.filter(namespace=namespace)
        .order_by("pk")
        .values_list(*names, "turn__occurred_at")
    )
    assert read == orm and len(read) == 2
    assert read[0][2] == AT and read[1][3] == calls and read[0][5] == AT


def test_read_rows_and_marks() -> None:
    namespace = _one_turn("marks", MessageIn(role="user", content="one"))
    assert db.marks([1, 2, 3]) == "%s, %s, %s"
    found = db.read_rows(
        "SELECT id FROM memory_namespace WHERE id IN (" + db.marks([namespace.pk, 0]) + ")",
        [namespace.pk, 0],
    )
    assert found == [(namespace.pk,)]
    assert (
        db.read_rows("SELECT id FROM memory_namespace WHERE id IN (" + db.marks([]) + ")", []) == []
    )


def test_read_by_id_equals_in_bulk_in_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = _one_turn(
        "by-id",
        MessageIn(role="user", content="one", created_at=AT),
        MessageIn(role="assistant", content="two", tool_calls=[{"name": "x"}], created_at=AT),
        MessageIn(role="user", content="three", name="Bo", created_at=AT),
    )
    ids = list(Message.objects.filter(namespace=namespace).values_list("pk", flat=True))
    asked = [ids[2], 10**9, ids[0], ids[2], ids[1]]  # a missing id and a repeated one
    monkeypatch.setattr(db, "IN_CHUNK", 2)
    read = db.read_by_id(Message, asked)
    orm = Message.objects.in_bulk(asked)
    assert sorted(read) == sorted(orm) == sorted(ids)
    assert all(_fields(read[pk]) == _fields(orm[pk]) for pk in ids)
    assert db.read_by_id(Message, []) == {}


def test_read_joined_gives_select_relateds_instances_and_none_for_a_missing_row() -> None:
    namespace = _one_turn("joined-rows", MessageIn(role="user", content="open tail", created_at=AT))
    (message,) = Message.objects.filter(namespace=namespace)
    rest = (
        "JOIN memory_session s ON s.id = m.session_id JOIN memory_turn t ON t.id = m.turn_id "
        "LEFT JOIN memory_block b ON b.id = t.block_id WHERE m.id = %s"
    )
    ((read, (session, turn, block)),) = db.read_joined(
        Message, "m", rest, [message.pk], [(Session, "s"), (Turn, "t"), (Block, "b")]
    )
    orm = Message.objects.select_related("session", "turn", "turn__block").get(pk=message.pk)
    assert _fields(read) == _fields(orm)
    assert session is not None and _fields(session) == _fields(orm.session)
    assert turn is not None and _fields(turn) == _fields(orm.turn)
    assert block is None and orm.turn.block is None  # the open tail has no block yet
