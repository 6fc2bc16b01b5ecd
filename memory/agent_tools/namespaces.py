"""Which namespace a local agent client gets when it does not name one (STRATAGATE_NAMESPACE_MODE).

- `project`: one namespace per working directory — `proj-<slug>-<hash>`, the hash over the
  normalised directory (real path, case-folded where the OS's file names are case-insensitive),
  so the same project always maps to the same memory, from any symlink or spelling.
- `session`: the session id itself (it must be a valid namespace name).
- `global`: one shared namespace, `global`.
Pure functions: no Django.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

NAMESPACE_MODES = ("project", "session", "global")
GLOBAL_NAMESPACE = "global"
NAME_RE = re.compile(r"^[A-Za-z0-9_.:\-]{1,200}$")
HASH_CHARS = 12
SLUG_CHARS = 40


class NamespaceModeError(ValueError):
    """The namespace cannot be derived (missing session, invalid name, unknown mode)."""


def case_insensitive_paths(platform: str | None = None) -> bool:
    """Windows and macOS file systems compare names case-insensitively by default."""
    return (platform or sys.platform) in ("win32", "cygwin", "darwin")


def normalised_directory(directory: str | Path, *, platform: str | None = None) -> str:
    resolved = os.path.realpath(os.fspath(directory))
    if case_insensitive_paths(platform):
        resolved = resolved.casefold()
    return resolved


def project_namespace(directory: str | Path, *, platform: str | None = None) -> str:
    """`proj-<slug>-<12 hex>` for a working directory; stable across runs and symlinks."""
    normalised = normalised_directory(directory, platform=platform)
    digest = hashlib.sha256(normalised.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_CHARS]
    base = os.path.basename(normalised.rstrip("/\\")) or "root"
    slug = re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")[:SLUG_CHARS].strip("-")
    return f"proj-{slug}-{digest}" if slug else f"proj-{digest}"


def derive_namespace(
    mode: str,
    *,
    cwd: str | Path | None = None,
    session_id: str | None = None,
    platform: str | None = None,
) -> str:
    """The namespace for `mode`; raises NamespaceModeError when it cannot be derived."""
    if mode == "project":
        return project_namespace(cwd if cwd is not None else os.getcwd(), platform=platform)
    if mode == "session":
        if not session_id:
            raise NamespaceModeError(
                "namespace mode 'session' needs a session id (--session) or an explicit --namespace"
            )
        if not NAME_RE.match(session_id):
            raise NamespaceModeError(
                f"session id {session_id[:200]!r} is not a valid namespace name "
                "(letters, digits, '-', '_', '.', ':'; 1–200 characters)"
            )
        return session_id
    if mode == "global":
        return GLOBAL_NAMESPACE
    raise NamespaceModeError(f"unknown namespace mode {mode!r}; use one of {NAMESPACE_MODES}")
