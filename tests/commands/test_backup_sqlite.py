"""`manage.py backup_sqlite PATH`: the installation's own SQLite database, copied while in use;
on PostgreSQL the command points to pg_dump instead of copying anything."""

from __future__ import annotations

import sqlite3
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from memory.models import Message, Turn
from tests.conftest import ApiClient, turn_body

pytestmark = pytest.mark.django_db(transaction=True)  # the backup reads what was committed


def test_backup_copies_every_committed_turn(owner: ApiClient, tmp_path) -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    for n in range(1, 8):
        assert owner.post("/ns/proj/turns", turn_body(n)).status_code == 201
    out = StringIO()
    call_command("backup_sqlite", str(tmp_path / "backup.sqlite3"), stdout=out)

    copy = sqlite3.connect(tmp_path / "backup.sqlite3")
    copied = {
        table: copy.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        for table in (Turn._meta.db_table, Message._meta.db_table)
    }
    copy.close()
    assert copied == {Turn._meta.db_table: 7, Message._meta.db_table: 14}
    assert (Turn.objects.count(), Message.objects.count()) == (7, 14)
    assert "backed up" in out.getvalue() and "backup.sqlite3" in out.getvalue()


def test_backup_refuses_to_overwrite_an_existing_file(db: None, tmp_path) -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    target = tmp_path / "backup.sqlite3"
    target.write_bytes(b"yesterday's backup")
    with pytest.raises(CommandError, match="backup_exists"):
        call_command("backup_sqlite", str(target))
    assert target.read_bytes() == b"yesterday's backup"
    call_command("backup_sqlite", str(target), "--overwrite", stdout=StringIO())
    assert target.read_bytes().startswith(b"SQLite format 3\x00")


def test_on_postgresql_the_command_points_to_pg_dump(db: None, tmp_path) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only")
    with pytest.raises(CommandError, match="pg_dump"):
        call_command("backup_sqlite", str(tmp_path / "backup.sqlite3"))
    assert not (tmp_path / "backup.sqlite3").exists()
