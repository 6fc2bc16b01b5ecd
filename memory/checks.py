"""System checks: misconfiguration is reported at start-up with stable ids, not on first request."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import CheckMessage, Error, Warning, register

from stratagate_site.env import CONFIG_PROBLEMS


@register()
def stratagate_environment(app_configs: Any, **kwargs: Any) -> list[CheckMessage]:
    messages: list[CheckMessage] = [Error(text, id=check_id) for check_id, text in CONFIG_PROBLEMS]
    llm = {
        "STRATAGATE_LLM_BASE_URL": settings.STRATAGATE_LLM_BASE_URL,
        "STRATAGATE_LLM_MODEL": settings.STRATAGATE_LLM_MODEL,
    }
    given = [name for name, value in llm.items() if value]
    if given and len(given) < len(llm):
        missing = sorted(set(llm) - set(given))
        messages.append(
            Error(
                f"{', '.join(given)} is set but {', '.join(missing)} is not: the model client "
                "needs both (unset all STRATAGATE_LLM_* to use the offline processor).",
                id="stratagate.E020",
            )
        )
    if settings.STRATAGATE_LLM_BASE_URL and not settings.STRATAGATE_LLM_BASE_URL.startswith(
        ("http://", "https://")
    ):
        messages.append(
            Error(
                "STRATAGATE_LLM_BASE_URL must start with http:// or https://.", id="stratagate.E021"
            )
        )
    messages += _task_result_retention()
    messages += _proxy_upstreams()
    engine = settings.DATABASES["default"]["ENGINE"]
    if engine not in (settings.SQLITE_ENGINE, "django.db.backends.postgresql"):
        messages.append(
            Error(
                f"DATABASE_URL selects {engine}; StrataGate runs on SQLite or PostgreSQL "
                "(its full-text search uses their own engines).",
                id="stratagate.E004",
            )
        )
    if settings.SECURE_HSTS_SECONDS and not settings.SECURE_PROXY_SSL_HEADER:
        messages.append(
            Warning(
                "STRATAGATE_HSTS_SECONDS is set but STRATAGATE_BEHIND_TLS_PROXY is not: "
                "Strict-Transport-Security is sent only on requests Django sees as https, "
                "which without the proxy's X-Forwarded-Proto is none.",
                id="stratagate.W040",
            )
        )
    return messages


PROXY_UPSTREAMS = {
    "STRATAGATE_PROXY_OPENAI_URL": "stratagate.E034",
    "STRATAGATE_PROXY_ANTHROPIC_URL": "stratagate.E035",
}


def upstream_url_problem(url: str) -> str | None:
    """Why `url` cannot be a proxy upstream's base URL, or None when it can."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return "must start with http:// or https://"
    if not parts.hostname:
        return "names no host"
    if parts.query or parts.fragment:
        return "must not carry a query or a fragment (it is a base URL)"
    try:
        parts.port  # noqa: B018 - raises for a port that is not a number in range
    except ValueError:
        return "has an invalid port"
    return None


def _proxy_upstreams() -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    for name, check_id in PROXY_UPSTREAMS.items():
        url = getattr(settings, name, "")
        problem = upstream_url_problem(url) if url else None
        if problem:
            messages.append(Error(f"{name}={url!r} {problem}.", id=check_id))
    return messages


RETENTION_DAYS_RANGE = (1, 3650)


def _task_result_retention() -> list[CheckMessage]:
    """The environment reader refuses a bad STRATAGATE_TASK_RESULT_RETENTION_DAYS (same id);
    this catches a value set in Python, e.g. a settings module of one's own."""
    days = settings.STRATAGATE_TASK_RESULT_RETENTION_DAYS
    low, high = RETENTION_DAYS_RANGE
    if isinstance(days, int) and not isinstance(days, bool) and low <= days <= high:
        return []
    return [
        Error(
            f"STRATAGATE_TASK_RESULT_RETENTION_DAYS is {days!r}: finished task results are "
            f"kept a whole number of days, {low}–{high} (0 or less would delete them as they "
            "finish).",
            id="stratagate.E015",
        )
    ]
