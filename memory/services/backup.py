"""Online backup of the SQLite database, safe while web and worker processes keep writing.

Copying a live WAL database with `cp` can tear it (the newest pages may still be in the `-wal`
file, or change mid-copy). SQLite's backup API copies a consistent snapshot instead: one read
transaction sees the database as of its start, and in WAL mode writers go on committing
meanwhile (they are never blocked by a reader).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from memory.errors import Conflict, Invalid

BUSY_TIMEOUT_MS = 20_000  # as the application's own connections (settings.SQLITE_OPTIONS)


@dataclass(frozen=True)
class BackupResult:
    destination: Path
    pages: int
    bytes: int


def sqlite_backup(*, source: Path, destination: Path, overwrite: bool = False) -> BackupResult:
    """Copy the SQLite database at `source` to `destination` as one consistent snapshot.

    The copy is written beside the destination under a temporary name, checked with
    `PRAGMA quick_check`, and only then renamed into place, so `destination` is either the
    previous file or a complete backup, never a partial one. Raises `Invalid`
    (`backup_source_missing`, `backup_same_file`, `backup_corrupt`) and `Conflict`
    (`backup_exists`, unless `overwrite`).
    """
    source, destination = source.resolve(), destination.resolve()
    if not source.is_file():
        raise Invalid(f"no SQLite database at {source}", code="backup_source_missing")
    if destination == source:
        raise Invalid("the backup must not replace the database itself", code="backup_same_file")
    if destination.exists() and not overwrite:
        raise Conflict(f"{destination} exists (pass overwrite to replace it)", code="backup_exists")
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(f".{destination.name}.partial")
    partial.unlink(missing_ok=True)

    reader = sqlite3.connect(source, timeout=BUSY_TIMEOUT_MS / 1000)
    writer = sqlite3.connect(partial)
    try:
        # pages=-1: the whole database in one step, i.e. under one read transaction (a stepwise
        # copy would restart whenever another connection wrote between steps).
        reader.backup(writer, pages=-1)
        (verdict,) = writer.execute("PRAGMA quick_check").fetchone()
        (pages,) = writer.execute("PRAGMA page_count").fetchone()
    finally:
        writer.close()
        reader.close()
    if verdict != "ok":
        partial.unlink(missing_ok=True)
        raise Invalid(f"the copy failed its integrity check: {verdict}", code="backup_corrupt")
    os.replace(partial, destination)
    return BackupResult(destination=destination, pages=int(pages), bytes=destination.stat().st_size)
