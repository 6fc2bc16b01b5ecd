"""Typed environment readers: bad values become system check errors instead of guesses."""

from __future__ import annotations

import os

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
