"""Web + workers in one command: web processes (stratagate_site.web) and db_workers as child
processes, never orphaned.

Ctrl-C (SIGINT) or SIGTERM stops every child (SIGTERM, up to 10 s, then SIGKILL) and exits 0.
A child that dies on its own stops the others and makes serve exit non-zero. Each child runs in
its own process group (a terminal's Ctrl-C reaches serve only, which then stops the groups), and
on Linux asks the kernel to SIGTERM it when serve dies, so even `kill -9` of serve leaves none.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

STOP_GRACE_SECONDS = 10.0
POLL_SECONDS = 0.2
PR_SET_PDEATHSIG = 1


@dataclass
class Child:
    role: str
    name: str
    process: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        return self.process.pid


def _die_with_parent(parent_pid: int) -> Callable[[], None] | None:
    """A preexec_fn (Linux only) that makes the kernel SIGTERM the child when serve dies."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None

    def preexec() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent_pid:  # serve died before prctl took effect
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def default_web_processes() -> int:
    """One on SQLite: its writers queue for one lock, so a second web process gained only when
    the clients' connections split evenly between the two (benchmarks/README.md, 2026-12-03),
    and without Redis each process hears only its own live updates. PostgreSQL takes
    concurrent writers."""
    if connections[DEFAULT_DB_ALIAS].vendor == "sqlite":
        return 1
    return min(2, os.cpu_count() or 1)


def _listen(host: str, port: int) -> socket.socket:
    """Bind the public socket once, in serve, for every web process to inherit."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as exc:
        listener.close()
        raise CommandError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    listener.listen(1024)
    listener.set_inheritable(True)
    return listener


def _display_host(host: str) -> str:
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


class Command(BaseCommand):
    help = (
        "Run StrataGate: migrate if needed, then web processes (uvicorn) and N db_worker "
        "processes. Ctrl-C stops them all."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="interface to bind (127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="TCP port (8000)")
        parser.add_argument(
            "--web",
            type=int,
            default=None,
            help=(
                "web processes sharing the port (default: 1 on SQLite, whose single writer "
                "makes more processes slower; one per core, at most 2, on PostgreSQL)"
            ),
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            help="db_worker processes to start (1; 0 = web only, run workers elsewhere)",
        )
        parser.add_argument(
            "--verbose",
            action="store_true",
            help=(
                "workers log every job's start and end (default: failures and a one-line "
                "summary a minute)"
            ),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        host: str = options["host"]
        port: int = options["port"]
        workers: int = options["workers"]
        web: int = options["web"] or default_web_processes()
        if web < 1:
            raise CommandError("--web must be 1 or more")
        if not 0 < port < 65536:
            raise CommandError(f"--port {port} is not a TCP port")
        if workers < 0:
            raise CommandError("--workers must be 0 or more")

        self._migrate_if_needed()
        connections.close_all()

        stop_signal: list[int] = []

        def on_signal(signum: int, frame: FrameType | None) -> None:
            stop_signal.append(signum)

        previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        children: list[Child] = []
        listener: socket.socket | None = None
        try:
            listener = _listen(host, port)
            children = self._start_children(listener, web, workers, verbose=options["verbose"])
            self._announce(host, port, children)
            died = self._watch(children, stop_signal)
        finally:
            self._stop_all(children)
            if listener is not None:
                listener.close()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if died is not None:
            raise CommandError(
                f"{died.name} (pid {died.pid}) exited unexpectedly with code "
                f"{died.process.returncode}; stopped the other processes.",
                returncode=1,
            )
        self.stdout.write("StrataGate stopped.")

    # --- steps ------------------------------------------------------------------------------

    def _migrate_if_needed(self) -> None:
        connection = connections[DEFAULT_DB_ALIAS]
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
        if plan:
            self.stdout.write(f"Applying {len(plan)} migration(s)…")
            call_command("migrate", interactive=False, verbosity=0)

    def _spawn(
        self, role: str, name: str, argv: list[str], pass_fds: tuple[int, ...] = ()
    ) -> Child:
        process = subprocess.Popen(
            argv,
            pass_fds=pass_fds,
            cwd=settings.BASE_DIR,
            stdin=subprocess.DEVNULL,
            process_group=0,
            preexec_fn=_die_with_parent(os.getpid()),  # serve has no threads yet
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        return Child(role=role, name=name, process=process)

    def _start_children(
        self, listener: socket.socket, web: int, workers: int, *, verbose: bool = False
    ) -> list[Child]:
        manage_py = str(Path(settings.BASE_DIR) / "manage.py")
        # Every web process accepts on the one socket bound here, so several web processes share the
        # port and the kernel spreads connections across them (Python runs one core per process).
        fd = listener.fileno()
        children = [
            self._spawn(
                "web",
                f"web {n}",
                [sys.executable, "-m", "stratagate_site.web", "--fd", str(fd)],
                pass_fds=(fd,),
            )
            for n in range(1, web + 1)
        ]
        for n in range(1, workers + 1):
            children.append(
                self._spawn(
                    "worker",
                    f"db_worker {n}",
                    [
                        sys.executable,
                        manage_py,
                        "db_worker",
                        "--no-reload",
                        "--interval",
                        "0.5",
                        *(["--verbose"] if verbose else []),
                    ],
                )
            )
        return children

    def _announce(self, host: str, port: int, children: list[Child]) -> None:
        self.stdout.write(f"StrataGate is running at http://{_display_host(host)}:{port}/")
        for child in children:
            self.stdout.write(f"  {child.role:<7} {child.name:<12} pid {child.pid}")
        self.stdout.write("Press Ctrl-C to stop.")
        self.stdout.flush()

    def _watch(self, children: list[Child], stop_signal: list[int]) -> Child | None:
        """Block until a stop signal (None) or until a child exits on its own (that child)."""
        while not stop_signal:
            for child in children:
                if child.process.poll() is not None:
                    return child
            time.sleep(POLL_SECONDS)
        self.stdout.write(f"Received {signal.Signals(stop_signal[0]).name}; stopping…")
        self.stdout.flush()
        return None

    def _stop_all(self, children: list[Child]) -> None:
        for child in children:
            _signal_group(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for child in children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        while time.monotonic() < deadline and any(_group_alive(c.pid) for c in children):
            time.sleep(0.05)
        for child in children:
            if child.process.poll() is None or _group_alive(child.pid):
                self.stderr.write(f"{child.name} (pid {child.pid}) did not stop; killing it.")
                _signal_group(child.pid, signal.SIGKILL)
        for child in children:
            child.process.wait()
