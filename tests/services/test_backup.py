"""`sqlite_backup`: a consistent online copy of a live WAL database, never a partial file."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from memory.errors import Conflict, Invalid
from memory.services.backup import sqlite_backup


def _live_database(path: Path, rows: int) -> sqlite3.Connection:
    """A WAL database whose committed rows are still in the -wal file (no checkpoint yet)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE turn (id INTEGER PRIMARY KEY, text TEXT)")
    conn.executemany("INSERT INTO turn (text) VALUES (?)", [(f"turn {n}",) for n in range(rows)])
    return conn


def _count(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM turn").fetchone()[0])
    except sqlite3.DatabaseError:
        return -1  # no table (or no database) in that file
    finally:
        conn.close()


def test_backup_of_a_live_database_has_every_committed_row_and_none_in_flight(tmp_path):
    source, copy = tmp_path / "db.sqlite3", tmp_path / "backups" / "db-copy.sqlite3"
    writer = _live_database(source, rows=100)
    writer.execute("BEGIN IMMEDIATE")  # a writer in the middle of a transaction
    writer.execute("INSERT INTO turn (text) VALUES ('not committed yet')")

    result = sqlite_backup(source=source, destination=copy)

    writer.execute("COMMIT")  # the backup did not block the writer
    assert _count(copy) == 100
    assert _count(source) == 101
    assert result.destination == copy.resolve() and result.bytes == copy.stat().st_size
    assert result.pages > 0
    # What the command exists to avoid: the main file alone misses the rows still in the WAL.
    shutil.copy(source, tmp_path / "cp.sqlite3")
    assert _count(tmp_path / "cp.sqlite3") != 100
    writer.close()


def test_an_existing_backup_is_kept_unless_overwrite_is_asked(tmp_path):
    source, copy = tmp_path / "db.sqlite3", tmp_path / "copy.sqlite3"
    _live_database(source, rows=3).close()
    copy.write_bytes(b"an older backup")

    with pytest.raises(Conflict) as refused:
        sqlite_backup(source=source, destination=copy)
    assert refused.value.code == "backup_exists"
    assert copy.read_bytes() == b"an older backup"

    sqlite_backup(source=source, destination=copy, overwrite=True)
    assert _count(copy) == 3
    assert sorted(p.name for p in tmp_path.iterdir() if "partial" in p.name) == []


@pytest.mark.parametrize(
    ("source_name", "destination_name", "code"),
    [
        ("missing.sqlite3", "copy.sqlite3", "backup_source_missing"),
        ("db.sqlite3", "db.sqlite3", "backup_same_file"),
    ],
)
def test_impossible_backups_are_refused_with_a_stable_code(
    tmp_path, source_name, destination_name, code
):
    _live_database(tmp_path / "db.sqlite3", rows=1).close()
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(Invalid) as refused:
        sqlite_backup(source=tmp_path / source_name, destination=tmp_path / destination_name)
    assert refused.value.code == code
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert _count(tmp_path / "db.sqlite3") == 1
