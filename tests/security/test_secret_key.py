"""The generated secret key (<data dir>/secret_key): made atomically with mode 0600, never readable
by others even for a moment, the same key for processes that start at once, and no built-in
fallback: a data directory that cannot hold it is a check error that stops start-up."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from stratagate_site.env import SecretKeyUnusable, secret_key_from_data_dir

ROOT = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask() -> Any:
    """A umask that takes nothing away, so only the modes the code asks for count."""
    previous = os.umask(0)
    yield
    os.umask(previous)


def test_the_key_file_is_0600_and_a_new_data_directory_0700(
    tmp_path: Path, open_umask: Any
) -> None:
    data_dir = tmp_path / "a" / "data"
    key = secret_key_from_data_dir(data_dir)
    assert len(key) >= 50
    assert mode(data_dir) == 0o700
    assert mode(data_dir / "secret_key") == 0o600
    assert secret_key_from_data_dir(data_dir) == key  # read back, not made again
    assert sorted(p.name for p in data_dir.iterdir()) == ["secret_key"]  # no temporary left


def test_the_key_is_never_on_disk_with_wider_permissions(
    tmp_path: Path, open_umask: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the key's bytes reach the disk (fsync) its file is already 0600, and the name
    `secret_key` appears only afterwards, whole."""
    seen: list[tuple[int, bool]] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode):
            seen.append((stat.S_IMODE(info.st_mode), (tmp_path / "secret_key").exists()))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    secret_key_from_data_dir(tmp_path)
    assert seen == [(0o600, False)]


def test_processes_starting_at_once_share_one_key(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    script = (
        "import sys; from pathlib import Path; "
        "from stratagate_site.env import secret_key_from_data_dir as make; "
        "print(make(Path(sys.argv[1])))"
    )
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(data_dir)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    keys = {process.communicate(timeout=60)[0].strip() for process in processes}
    assert len(keys) == 1
    assert keys == {(data_dir / "secret_key").read_text()}
    assert sorted(p.name for p in data_dir.iterdir()) == ["secret_key"]


def test_threads_racing_for_the_first_key_all_get_it(tmp_path: Path) -> None:
    start = threading.Barrier(8)
    keys: list[str] = []

    def make() -> None:
        start.wait()
        keys.append(secret_key_from_data_dir(tmp_path))

    threads = [threading.Thread(target=make) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(keys) == 8 and len(set(keys)) == 1


def test_a_key_file_readable_by_others_is_tightened(tmp_path: Path) -> None:
    key_file = tmp_path / "secret_key"
    key_file.write_text("k" * 50)
    key_file.chmod(0o644)
    assert secret_key_from_data_dir(tmp_path) == "k" * 50
    assert mode(key_file) == 0o600


def test_a_truncated_key_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret_key").write_text("short\n")
    with pytest.raises(SecretKeyUnusable, match="holds 5 characters"):
        secret_key_from_data_dir(tmp_path)


def settings_run(data_dir: Path, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("STRATAGATE_", "DJANGO_")) and k != "DATABASE_URL"
    }
    environment["STRATAGATE_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, *(["-c", code] if code else []), *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


PRINT_KEY = (
    "from stratagate_site import settings, env; "
    "print(settings.SECRET_KEY); print([i for i, _ in env.CONFIG_PROBLEMS])"
)


def test_an_unusable_data_directory_gives_a_random_key_never_a_built_in_one(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")  # unwritable even for root
    runs = [settings_run(blocker / "data", PRINT_KEY) for _ in range(2)]
    keys = [run.stdout.splitlines()[0] for run in runs]
    assert [run.stdout.splitlines()[1] for run in runs] == ["['stratagate.E002']"] * 2
    assert keys[0] != keys[1]
    assert all(len(key) >= 50 for key in keys)
    assert "insecure" not in (ROOT / "stratagate_site" / "settings.py").read_text()


@pytest.mark.parametrize("command", ["check", "serve"])
def test_an_unusable_data_directory_stops_start_up(tmp_path: Path, command: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    done = settings_run(blocker / "data", "", "manage.py", command)
    assert done.returncode != 0
    assert "stratagate.E002" in done.stderr
    assert "StrataGate is running" not in done.stdout


def test_manage_py_check_reports_a_truncated_key_file_as_e005(tmp_path: Path) -> None:
    (tmp_path / "secret_key").write_text("short")
    done = settings_run(tmp_path, "", "manage.py", "check")
    assert done.returncode != 0
    assert "stratagate.E005" in done.stderr and "secret_key" in done.stderr


def test_with_a_key_given_the_sqlite_data_directory_must_still_be_usable(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    code = "import os; os.environ['DJANGO_SECRET_KEY'] = 'k' * 50; " + PRINT_KEY
    done = settings_run(blocker / "data", code)
    assert done.stdout.splitlines() == ["k" * 50, "['stratagate.E002']"]
