"""Running `manage.py` as a real process against a throwaway SQLite data directory (DATABASE_URL
and REDIS_URL removed), and a queued data directory built once per test process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MANAGE = str(ROOT / "manage.py")


def subprocess_env(data_dir: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL") and not k.startswith("STRATAGATE_")
    }
    env.update(
        STRATAGATE_DATA_DIR=str(data_dir),
        DJANGO_SETTINGS_MODULE="stratagate_site.settings",
        PYTHONUNBUFFERED="1",
    )
    return env


def run_manage(
    tmp_path: Path, *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, MANAGE, *args],
        cwd=ROOT,
        env=subprocess_env(tmp_path / "data"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


INGEST_13_TURNS = """
from memory.services.ingest import MessageIn, TurnIn, turn_ingest
from memory.services.namespaces import namespace_get_or_create

ns = namespace_get_or_create(name="worker-test")
for n in range(1, 14):
    turn_ingest(namespace=ns, turn=TurnIn(session_id="s1", receipt_id=f"r{n}", messages=[
        MessageIn(role="user", content=f"Question {n}?"),
        MessageIn(role="assistant", content=f"Answer {n}."),
    ]))
"""


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated, empty data directory, built once per test process; tests take a copy."""
    root = tmp_path_factory.mktemp("migrated-template")
    migrated = run_manage(root, "migrate", "--noinput", "--verbosity", "0")
    assert migrated.returncode == 0, migrated.stderr
    return root


@pytest.fixture(scope="session")
def queued_template(migrated_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Migrated, with 13 turns ingested: two blocks' jobs are queued."""
    root = tmp_path_factory.mktemp("queued-template")
    shutil.copytree(migrated_template / "data", root / "data")
    ingested = run_manage(root, "shell", "--no-imports", "-c", INGEST_13_TURNS)
    assert ingested.returncode == 0, ingested.stderr
    return root


@pytest.fixture
def migrated(migrated_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of `migrated_template`'s data directory, private to the test."""
    shutil.copytree(migrated_template / "data", tmp_path / "data")
    return tmp_path


@pytest.fixture
def queued(queued_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of `queued_template`'s data directory, private to the test."""
    shutil.copytree(queued_template / "data", tmp_path / "data")
    return tmp_path
