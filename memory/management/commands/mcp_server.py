"""`manage.py mcp_server`: the memory tools over MCP on stdio, for MCP clients that launch it.

Without `--namespace` the namespace follows STRATAGATE_NAMESPACE_MODE (project: this working
directory; session: the `--session` id; global: one shared namespace). Auth: `--token` or
STRATAGATE_TOKEN when given (it must be bound to the namespace); otherwise the server issues
its own read-write token for the namespace (label `mcp_server`) and revokes it on exit. stdout
carries only MCP messages; logs go to stderr.
"""

from __future__ import annotations

import logging
import os
import secrets
import signal
import sys
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

from memory.agent_tools.dispatcher import ToolDispatcher
from memory.agent_tools.mcp_stdio import (
    McpTokenError,
    mcp_token_check,
    mcp_token_issue,
    mcp_token_retire,
    serve_stdio,
)
from memory.agent_tools.namespaces import NAME_RE, NamespaceModeError, derive_namespace
from memory.errors import StrataGateError
from memory.models import AgentToken

TOKEN_ENV = "STRATAGATE_TOKEN"
logger = logging.getLogger("memory.mcp")


def _package_version() -> str:
    try:
        return version("stratagate")
    except PackageNotFoundError:
        return ""


def default_session_id() -> str:
    """A session for this server process when the client gives none: `mcp-<UTC time>-<hex>`."""
    return f"mcp-{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"


class Command(BaseCommand):
    help = "Serve StrataGate's memory tools over MCP (stdio) for one namespace."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--namespace",
            help="namespace to serve; default: derived from STRATAGATE_NAMESPACE_MODE",
        )
        parser.add_argument(
            "--session",
            help="current session id (tools default to it); in session mode also the namespace",
        )
        parser.add_argument(
            "--token",
            help=f"agent token bound to the namespace (default: ${TOKEN_ENV}, else a fresh one)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        _log_to_stderr()
        namespace = self._namespace(options["namespace"], options["session"])
        self._require_migrated()
        session_id = options["session"] or default_session_id()
        raw = options["token"] or os.environ.get(TOKEN_ENV, "")
        own_token: AgentToken | None = None
        try:
            if raw:
                mcp_token_check(raw, namespace=namespace)
            else:
                own_token, raw = mcp_token_issue(namespace=namespace)
        except (McpTokenError, StrataGateError) as exc:
            raise CommandError(f"cannot serve namespace {namespace!r}: {exc}") from exc
        logger.info("MCP server on stdio: namespace %s, session %s", namespace, session_id)
        dispatcher = ToolDispatcher.in_process(raw, namespace=namespace, session_id=session_id)
        # A client that does not close stdin stops us with SIGTERM: still revoke our token.
        signal.signal(signal.SIGTERM, _exit_on_signal)
        try:
            serve_stdio(dispatcher, version=_package_version())
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            if own_token is not None:
                mcp_token_retire(own_token)

    def _namespace(self, explicit: str | None, session: str | None) -> str:
        if explicit:
            if not NAME_RE.match(explicit):
                raise CommandError(f"invalid namespace name {explicit[:200]!r}")
            return explicit
        try:
            return derive_namespace(
                settings.STRATAGATE_NAMESPACE_MODE, cwd=os.getcwd(), session_id=session
            )
        except NamespaceModeError as exc:
            raise CommandError(str(exc)) from exc

    def _require_migrated(self) -> None:
        connection = connections[DEFAULT_DB_ALIAS]
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            raise CommandError(
                "the database has unapplied migrations; run `manage.py migrate` (or "
                "`manage.py serve`, which migrates) first"
            )


def _exit_on_signal(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def _log_to_stderr() -> None:
    # Django's console handler already writes to stderr; make sure nothing of ours ever
    # reaches stdout, which belongs to the MCP protocol.
    memory_logger = logging.getLogger("memory")
    for handler in memory_logger.handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stdout:
            handler.setStream(sys.stderr)
