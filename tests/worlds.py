"""Read-mostly worlds built once per test module instead of once per test.

`module_world` opens a transaction around the module's tests: rows written inside it are seen
by every test of the module, each test still runs in its own savepoint (pytest-django's `db`,
so whatever a test changes is rolled back after it), and the whole world is rolled back when
the module ends. Not for transactional tests (`transactional_db`, `live_server`): they flush
the tables, which a surrounding transaction cannot survive.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import transaction


@contextmanager
def module_world(django_db_blocker: Any) -> Iterator[None]:
    with django_db_blocker.unblock(), transaction.atomic():
        yield
        transaction.set_rollback(True)
