"""`manage.py serve` and `manage.py db_worker` as real processes: start, answer, stop, no orphans.

Each test runs its own subprocesses on a free port with a throwaway SQLite database in a temp
STRATAGATE_DATA_DIR (DATABASE_URL and REDIS_URL are removed), so they are safe in parallel under
pytest-xdist and never touch the test database.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.manage_process import MANAGE, ROOT, run_manage, subprocess_env

START_TIMEOUT = 60.0
STOP_TIMEOUT = 20.0

pytestmark = [
    pytest.mark.xdist_group("subprocess-serve"),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups and signals"),
]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pid_alive(pid: int) -> bool:
    """True for a live process (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X")


def parent_pid(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def http_status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return None


class Served:
    def __init__(self, tmp_path: Path, *, workers: int) -> None:
        self.port = free_port()
        self.log_path = tmp_path / "serve.log"
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [
                sys.executable,
                MANAGE,
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                str(workers),
                "--web",
                "2",
            ],
            cwd=ROOT,
            env=subprocess_env(tmp_path / "data"),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )

    @property
    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def child_pids(self) -> list[int]:
        return [int(pid) for pid in re.findall(r"\bpid (\d+)", self.output)]

    def wait_until_ready(self, expected_children: int) -> None:
        url = f"http://127.0.0.1:{self.port}/api/openapi.json"
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"serve exited early ({self.process.returncode}):\n{self.output}")
            if http_status(url) == 200 and len(self.child_pids()) == expected_children:
                return
            time.sleep(0.25)
        pytest.fail(f"{url} did not answer 200 within {START_TIMEOUT} s:\n{self.output}")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._log.close()
        for pid in self.child_pids():  # never leave anything behind, even when a test fails
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def served(migrated: Path) -> Iterator[Served]:
    server = Served(migrated, workers=2)
    try:
        yield server
    finally:
        server.close()


def wait_gone(pids: list[int], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    alive = [pid for pid in pids if pid_alive(pid)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [pid for pid in alive if pid_alive(pid)]
    return alive


def test_serve_answers_and_stops_on_sigint_without_orphans(served: Served) -> None:
    served.wait_until_ready(expected_children=4)  # 2 web processes + 2 db_workers
    assert f"http://127.0.0.1:{served.port}/" in served.output
    children = served.child_pids()
    assert len(set(children)) == 4
    for pid in children:
        assert pid_alive(pid), f"child {pid} is not running:\n{served.output}"
        assert parent_pid(pid) == served.process.pid

    served.process.send_signal(signal.SIGINT)
    try:
        code = served.process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"serve did not stop within {STOP_TIMEOUT} s of SIGINT:\n{served.output}")
    assert code == 0, served.output
    assert [pid for pid in children if pid_alive(pid)] == [], "orphaned children"


def test_serve_killed_outright_leaves_no_orphans(served: Served) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("parent-death signal is Linux-only")
    served.wait_until_ready(expected_children=4)
    children = served.child_pids()

    served.process.kill()  # SIGKILL: serve cannot clean up; the kernel's PDEATHSIG must
    served.process.wait(timeout=STOP_TIMEOUT)
    assert wait_gone(children, timeout=STOP_TIMEOUT) == [], served.output


def test_serve_exits_non_zero_when_a_child_dies(served: Served) -> None:
    served.wait_until_ready(expected_children=4)
    web, _, *workers = served.child_pids()
    os.kill(web, signal.SIGKILL)
    try:
        code = served.process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"serve kept running after a web process died:\n{served.output}")
    assert code != 0
    assert "exited unexpectedly" in served.output
    assert wait_gone(workers, timeout=1) == []


BLOCK_STATUSES = """
from memory.models import Block
print(sorted(Block.objects.values_list("status", flat=True)))
"""


def test_db_worker_batch_processes_queued_jobs_and_exits_cleanly(queued: Path) -> None:
    tmp_path = queued
    worker = run_manage(tmp_path, "db_worker", "--batch", "--no-reload", "--no-startup-delay")
    assert worker.returncode == 0, worker.stdout + worker.stderr

    statuses = run_manage(tmp_path, "shell", "--no-imports", "-c", BLOCK_STATUSES)
    assert statuses.returncode == 0, statuses.stderr
    assert statuses.stdout.strip() == "['ready', 'ready']", worker.stdout + worker.stderr
