"""Typed environment readers: bad values become system check errors instead of guesses."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
from pathlib import Path
from urllib.parse import urlsplit

# Problems found while reading the environment; reported by memory.checks as system check errors
# with stable ids instead of crashing at import time.
CONFIG_PROBLEMS: list[tuple[str, str]] = []


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    CONFIG_PROBLEMS.append(("stratagate.E001", f"{name}={raw!r} is not a boolean (use 1/0)."))
    return default


def env_int(name: str, default: int, *, low: int, high: int, check_id: str) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        CONFIG_PROBLEMS.append((check_id, f"{name}={raw!r} is not an integer."))
        return default
    if not low <= value <= high:
        CONFIG_PROBLEMS.append((check_id, f"{name}={value} is outside {low}..{high}."))
        return default
    return value


def env_float(name: str, default: float, *, low: float, high: float, check_id: str) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        CONFIG_PROBLEMS.append((check_id, f"{name}={raw!r} is not a number."))
        return default
    if not low <= value <= high:
        CONFIG_PROBLEMS.append((check_id, f"{name}={value} is outside {low}..{high}."))
        return default
    return value


def env_time_zone(name: str, default: str, *, check_id: str) -> str:
    """An IANA time zone name (e.g. Europe/Berlin); unknown names are a check error."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    raw = env_str(name)
    if not raw:
        return default
    try:
        ZoneInfo(raw)
    except (ZoneInfoNotFoundError, ValueError):
        CONFIG_PROBLEMS.append(
            (check_id, f"{name}={raw!r} is not a known time zone (e.g. UTC, Asia/Shanghai).")
        )
        return default
    return raw


def env_choice(name: str, default: str, choices: tuple[str, ...], *, check_id: str) -> str:
    raw = env_str(name)
    if not raw:
        return default
    if raw not in choices:
        CONFIG_PROBLEMS.append((check_id, f"{name}={raw!r} must be one of {', '.join(choices)}."))
        return default
    return raw


# --- origins (CSRF_TRUSTED_ORIGINS) -----------------------------------------------------------

_HOST = re.compile(
    r"(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\]"
)


def origin_problem(origin: str) -> str | None:
    """Why `origin` is not scheme://host[:port] as a browser sends it in `Origin`, or None.
    Django compares origins as exact strings, so a path or a trailing slash would never match."""
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not origin.startswith(f"{parts.scheme}://"):
        return "does not start with https:// or http://"
    if "@" in parts.netloc:
        return "carries a user name"
    if parts.path or parts.query or parts.fragment or origin.endswith(("?", "#")):
        return "has a path, query or fragment (an origin ends after the host and port)"
    host = parts.netloc.rsplit(":", 1)[0] if not parts.netloc.endswith("]") else parts.netloc
    if not host or not _HOST.fullmatch(host):
        return "names no valid host"
    try:
        parts.port  # noqa: B018 - raises for a port that is not a number in range
    except ValueError:
        return "has an invalid port"
    return None


def env_origins(name: str, *, check_id: str) -> list[str]:
    """Comma-separated origins (`https://memory.example.com,https://*.example.org:8443`),
    lower-cased as browsers send them; each malformed one is a check error and left out."""
    origins = []
    for raw in env_str(name).split(","):
        origin = raw.strip().lower()
        if not origin:
            continue
        problem = origin_problem(origin)
        if problem:
            CONFIG_PROBLEMS.append(
                (
                    check_id,
                    f"{name}: {raw.strip()!r} {problem}; use scheme://host[:port], "
                    "e.g. https://memory.example.com.",
                )
            )
        else:
            origins.append(origin)
    return origins


# --- the secret key in the data directory ----------------------------------------------------

SECRET_KEY_FILE = "secret_key"
# Shorter than this is not a key StrataGate made (those are 67 characters): a truncated or
# hand-edited file, refused rather than trusted.
SECRET_KEY_MIN_LENGTH = 32


class SecretKeyUnusable(Exception):
    """The key file exists but holds no usable key (system check stratagate.E005)."""


def secret_key_from_data_dir(data_dir: Path) -> str:
    """The key in `<data_dir>/secret_key`, made on first use; the directory is made 0700.

    The key is written to a private temporary file (O_CREAT | O_EXCL, mode 0600 from the start,
    so it is never readable by others, fsynced) that is then hard-linked to its name: the file
    appears whole or not at all, and when two processes start at once the link of the second
    fails with EEXIST and both read the first one's key. Raises OSError when the directory or
    the file cannot be made or read, SecretKeyUnusable for a file too short to be a key."""
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = data_dir / SECRET_KEY_FILE
    if not path.exists():
        temporary = data_dir / f".{SECRET_KEY_FILE}.{os.getpid()}.{secrets.token_hex(8)}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_urlsafe(50))
                handle.flush()
                os.fsync(handle.fileno())
            with contextlib.suppress(FileExistsError):  # another process made it first
                os.link(temporary, path)
                _fsync_directory(data_dir)
        finally:
            temporary.unlink(missing_ok=True)
    elif path.stat().st_mode & 0o077:  # made by an older release: readable by others
        with contextlib.suppress(OSError):
            path.chmod(0o600)
    key = path.read_text().strip()
    if len(key) < SECRET_KEY_MIN_LENGTH:
        raise SecretKeyUnusable(
            f"{path} holds {len(key)} characters, not a key (at least {SECRET_KEY_MIN_LENGTH}): "
            "restore it from a backup, or delete it to have a new one made (everyone is logged "
            "out), or set DJANGO_SECRET_KEY."
        )
    return key


def _fsync_directory(directory: Path) -> None:
    """Make the new name durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
