"""Real StrataGate processes (web processes, db_workers) against the test database.

The reliability tests run the web and worker processes an operator runs and read what they
wrote with the ORM: the children use pytest-django's test database (SQLite file or
PostgreSQL), so the tests need `pytest.mark.django_db(transaction=True)` (a child cannot see a
test's transaction).

Two ways to start a child, same code inside:
- `exec` (the stress variants): a fresh interpreter, `python manage.py db_worker …` or
  `python -m stratagate_site.web --fd N` exactly as `manage.py serve`
  starts them, configured through the environment (DATABASE_URL names the test database);
- `fork` (the bounded tests in the suite): the test process forks and the child runs the same
  `db_worker` command or the same web server (`stratagate_site.web.serve`) on the socket. A
  fresh interpreter spends ~3 s of CPU importing Django; a fork starts at once, which keeps
  each test within its time budget. The child inherits the test's settings (including
  `settings` fixture overrides).

Either way the child is a separate OS process with its own database connections, killed with a
real SIGKILL by `kill9()`. `Processes` (the `processes` fixture) owns every child it starts;
whatever is left is killed at teardown, after which the test waits for PostgreSQL to drop the
children's sessions so the database can be flushed.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Callable, Iterator
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from django.db import connection, connections

if TYPE_CHECKING:
    from stratagate_site.web import WebServer

ROOT = Path(__file__).resolve().parents[2]
MANAGE = str(ROOT / "manage.py")
START_TIMEOUT = 90.0  # a fresh interpreter importing Django on a loaded 2-core machine
STOP_TIMEOUT = 20.0
# The shortest lease the settings allow: a killed worker's job is taken over 5 s after its claim.
SHORT_LEASE_SECONDS = 5
WORKER_ARGS = ("--no-reload", "--interval", "0.2")
DATABASE_QUEUE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}


def database_url() -> str:
    """The test database, for processes of their own."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def wait_until[T](probe: Callable[[], T], *, timeout: float, what: str, every: float = 0.1) -> T:
    """Poll `probe` until it returns something truthy; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


def listening_socket() -> socket.socket:
    """A bound, listening socket on a free loopback port, for web processes to share
    (as `manage.py serve` does): the port survives a killed web process, and connections
    made while no web process runs wait in its backlog."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1024)
    listener.set_inheritable(True)
    return listener


@contextlib.contextmanager
def web_on_thread() -> Iterator[tuple[WebServer, int]]:
    """The site's web server (stratagate_site.web) on a thread of this process, on a
    `listening_socket()`: (the server, its port). Stopped and joined on the way out."""
    from stratagate_site import web

    listener = listening_socket()
    ready = threading.Event()
    server = web.WebServer(listener, on_ready=ready.set)
    thread = threading.Thread(target=server.serve_until_stopped)
    thread.start()
    try:
        assert ready.wait(30), "the web server did not start"
        yield server, int(listener.getsockname()[1])
    finally:
        server.should_exit = True
        thread.join(30)
        listener.close()
    assert not thread.is_alive()


def http_ok(port: int) -> bool:
    try:
        url = f"http://127.0.0.1:{port}/api/openapi.json"
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status) == 200
    except (urllib.error.URLError, OSError):
        return False


# --- what a forked child runs ---------------------------------------------------------------


def _log_to(path: Path) -> None:
    """Send the child's output (fds 1 and 2, sys.stdout/err, logging) to its log file."""
    stream = path.open("a", buffering=1, errors="replace")
    os.dup2(stream.fileno(), 1)
    os.dup2(stream.fileno(), 2)
    sys.stdout = sys.stderr = stream
    loggers = [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
    for logger in loggers:
        for handler in getattr(logger, "handlers", []):
            if type(handler) is logging.StreamHandler:
                handler.setStream(stream)


def _forked_worker(name: str, log_path: Path) -> None:
    _log_to(log_path)
    from django.core.management import call_command

    call_command("db_worker", *WORKER_ARGS, "--worker-id", name)


def _forked_web(fd: int, ready: Any, log_path: Path) -> None:
    _log_to(log_path)
    from channels.layers import channel_layers

    from stratagate_site import web

    channel_layers.backends.clear()  # a layer bound to this process's loop
    web.serve(web.inherited_socket(fd), on_ready=ready.set)


# --- children -------------------------------------------------------------------------------


class Child:
    """One started process (a Popen or a forked multiprocessing.Process) and its log file."""

    def __init__(
        self,
        name: str,
        log_path: Path,
        *,
        popen: subprocess.Popen[bytes] | None = None,
        forked: BaseProcess | None = None,
        ready: Any = None,
    ) -> None:
        self.name = name
        self.log_path = log_path
        self._popen = popen
        self._forked = forked
        self.ready = ready  # a forked web process sets it when it listens

    @property
    def pid(self) -> int:
        if self._popen is not None:
            return self._popen.pid
        assert self._forked is not None and self._forked.pid is not None
        return self._forked.pid

    def alive(self) -> bool:
        if self._popen is not None:
            return self._popen.poll() is None
        assert self._forked is not None
        return self._forked.is_alive()

    def returncode(self) -> int | None:
        if self._popen is not None:
            return self._popen.returncode
        assert self._forked is not None
        return self._forked.exitcode

    def wait(self, timeout: float) -> bool:
        if self._popen is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._popen.wait(timeout)
        else:
            assert self._forked is not None
            self._forked.join(timeout)
        return not self.alive()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def kill9(self) -> None:
        """The crash: SIGKILL, no clean-up of any kind."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        self.wait(STOP_TIMEOUT)

    def stop(self) -> int | None:
        """SIGTERM (a worker finishes its current job first), SIGKILL after the timeout."""
        if self.alive():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            if not self.wait(STOP_TIMEOUT):
                self.kill9()
        return self.returncode()


class Processes:
    """Starts web and worker processes on the test database; `mode` is "fork" or "exec"."""

    def __init__(self, tmp_path: Path, settings: Any, mode: str = "fork") -> None:
        self.tmp_path = tmp_path
        self.settings = settings
        self.mode = mode
        self.data_dir = tmp_path / "data"
        self.data_dir.mkdir(exist_ok=True)
        self.children: list[Child] = []
        self.env_overrides: dict[str, str] = {}

    def use_database_queue(self) -> None:
        """Job triggers made from now on go to django-tasks-db, where the workers find them
        (the tests' default queue drops them; jobs then run only through `jobs_drain`)."""
        self.settings.TASKS = DATABASE_QUEUE

    def configure(self, **values: Any) -> None:
        """Set STRATAGATE_* settings for every child started afterwards (and this process)."""
        for name, value in values.items():
            setattr(self.settings, name, value)
            self.env_overrides[name] = str(value)

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("STRATAGATE_")}
        env.update(
            DATABASE_URL=database_url(),
            STRATAGATE_DATA_DIR=str(self.data_dir),
            DJANGO_SETTINGS_MODULE="stratagate_site.settings",
            PYTHONUNBUFFERED="1",
        )
        env.update(self.env_overrides)
        return env

    def _exec(self, name: str, argv: list[str], pass_fds: tuple[int, ...] = ()) -> Child:
        self.use_database_queue()
        log_path = self.tmp_path / f"{name}.log"
        with log_path.open("ab") as log:  # the child keeps its own copy of the descriptor
            popen = subprocess.Popen(
                argv,
                cwd=ROOT,
                env=self.env(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                pass_fds=pass_fds,
                start_new_session=True,  # a signal to the test's group never reaches it
            )
        child = Child(name, log_path, popen=popen)
        self.children.append(child)
        return child

    def _fork(self, name: str, target: Callable[..., None], *args: Any, ready: Any = None) -> Child:
        self.use_database_queue()  # the child's own triggers must reach the workers
        log_path = self.tmp_path / f"{name}.log"
        # The child must not inherit an open connection: two processes on one socket corrupt it.
        connections.close_all()
        context = multiprocessing.get_context("fork")
        process = context.Process(target=target, args=(*args, log_path), name=name)
        with warnings.catch_warnings():
            # Forking with threads alive (xdist's, a fake model server's) is safe here: the
            # child touches none of their locks, it runs one command and exits.
            warnings.filterwarnings(
                "ignore", "This process .* is multi-threaded", DeprecationWarning
            )
            process.start()
        child = Child(name, log_path, forked=process, ready=ready)
        self.children.append(child)
        return child

    def worker(self, name: str = "worker") -> Child:
        """A db_worker (`serve`'s command line); `name` is its worker id, as django-tasks-db
        records it on the tasks the worker runs, and its log's name."""
        if self.mode == "exec":
            argv = [sys.executable, MANAGE, "db_worker", *WORKER_ARGS, "--worker-id", name]
            return self._exec(name, argv)
        return self._fork(name, _forked_worker, name)

    def web(self, listener: socket.socket, name: str = "web") -> Child:
        """A web process accepting on `listener`."""
        fd = listener.fileno()
        if self.mode == "exec":
            argv = [sys.executable, "-m", "stratagate_site.web", "--fd", str(fd)]
            return self._exec(name, argv, pass_fds=(fd,))
        ready = multiprocessing.get_context("fork").Event()
        return self._fork(name, _forked_web, fd, ready, ready=ready)

    def webs_ready(
        self, listener: socket.socket, count: int = 1, prefix: str = "web"
    ) -> list[Child]:
        """Start `count` web processes on `listener`; return once each of them serves."""
        port = int(listener.getsockname()[1])
        webs = [self.web(listener, name=f"{prefix}-{n}") for n in range(1, count + 1)]

        def up(web: Child) -> bool:
            if not web.alive():
                pytest.fail(f"{web.name} exited early:\n{web.output()}")
            if web.ready is not None:
                return bool(web.ready.is_set())
            return "serving on" in web.output()

        wait_until(
            lambda: all(up(web) for web in webs) and http_ok(port),
            timeout=START_TIMEOUT,
            what="the web processes to serve",
            every=0.1,
        )
        return webs

    def close(self) -> None:
        for child in self.children:
            if child.alive():
                child.kill9()
        if connection.vendor == "postgresql":
            # A killed client's backend ends once PostgreSQL notices the closed socket; the
            # test database can only be flushed (and later dropped) without them.
            wait_until(
                lambda: _other_postgres_sessions() == 0,
                timeout=STOP_TIMEOUT,
                what="the children's PostgreSQL sessions to end",
                every=0.05,
            )


def _other_postgres_sessions() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


@pytest.fixture
def processes(tmp_path: Path, settings: Any) -> Iterator[Processes]:
    """Children forked from the test process (see the module's docstring)."""
    started = Processes(tmp_path, settings, mode="fork")
    try:
        yield started
    finally:
        started.close()


@pytest.fixture
def exec_processes(tmp_path: Path, settings: Any) -> Iterator[Processes]:
    """Children started as fresh interpreters, as an operator starts them."""
    started = Processes(tmp_path, settings, mode="exec")
    try:
        yield started
    finally:
        started.close()
