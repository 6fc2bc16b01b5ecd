"""Misconfiguration is reported by system checks with stable ids."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memory.checks import stratagate_environment
from stratagate_site import env


def _ids() -> set[str]:
    return {m.id for m in stratagate_environment(None)}


def manage_check(
    data_dir: Path | None = None, **variables: str
) -> subprocess.CompletedProcess[str]:
    """`manage.py check` in a fresh interpreter (as serve, migrate and db_worker run it first)
    with these environment variables; with `data_dir`, on an embedded SQLite database there."""
    environment = {**os.environ, **variables}
    if data_dir is not None:
        environment["STRATAGATE_DATA_DIR"] = str(data_dir)
        environment.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=Path(__file__).resolve().parents[1],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_model_url_without_a_model_name_is_e020(settings):
    settings.STRATAGATE_LLM_BASE_URL = "http://127.0.0.1:1/v1"
    settings.STRATAGATE_LLM_MODEL = ""
    assert "stratagate.E020" in _ids()


def test_a_base_url_without_scheme_is_e021(settings):
    settings.STRATAGATE_LLM_BASE_URL = "localhost:11434"
    settings.STRATAGATE_LLM_MODEL = "llama"
    assert "stratagate.E021" in _ids()


def test_bad_environment_values_become_errors(monkeypatch):
    monkeypatch.setattr(env, "CONFIG_PROBLEMS", [])
    monkeypatch.setenv("STRATAGATE_BLOCK_TURNS", "zero")
    monkeypatch.setenv("STRATAGATE_BLOCK_LAMBDA", "2.5")
    assert (
        env.env_int("STRATAGATE_BLOCK_TURNS", 6, low=1, high=100, check_id="stratagate.E010") == 6
    )
    assert (
        env.env_float("STRATAGATE_BLOCK_LAMBDA", 0.3, low=0, high=1, check_id="stratagate.E011")
        == 0.3
    )
    assert [cid for cid, _ in env.CONFIG_PROBLEMS] == ["stratagate.E010", "stratagate.E011"]


@pytest.mark.parametrize(
    "url",
    ["api.openai.com/v1", "ftp://host/v1", "https://", "https://h/v1?key=x", "http://h:99999/v1"],
)
def test_a_malformed_proxy_upstream_url_is_e034_or_e035(settings, url):
    settings.STRATAGATE_PROXY_OPENAI_URL = url
    settings.STRATAGATE_PROXY_ANTHROPIC_URL = url
    assert {"stratagate.E034", "stratagate.E035"} <= _ids()
    settings.STRATAGATE_PROXY_OPENAI_URL = "https://api.openai.com/v1"
    settings.STRATAGATE_PROXY_ANTHROPIC_URL = "http://127.0.0.1:8080"
    assert not {"stratagate.E034", "stratagate.E035"} & _ids()


def test_manage_py_check_reports_a_malformed_proxy_url(tmp_path):
    done = manage_check(tmp_path, STRATAGATE_PROXY_ANTHROPIC_URL="api.anthropic.com")
    assert done.returncode != 0
    assert "stratagate.E035" in done.stderr and "STRATAGATE_PROXY_ANTHROPIC_URL" in done.stderr


def test_a_clean_configuration_has_no_errors(settings):
    assert not [i for i in _ids() if i.startswith("stratagate.E")]


def test_sqlite_databases_use_write_ahead_logging(db):
    from django.db import connection

    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone()[0] == "wal"


def test_a_database_other_than_sqlite_or_postgres_is_e004(monkeypatch):
    from django.conf import settings

    monkeypatch.setitem(settings.DATABASES["default"], "ENGINE", "django.db.backends.mysql")
    assert "stratagate.E004" in _ids()


def test_an_unknown_time_zone_is_e014_and_falls_back_to_utc(monkeypatch):
    monkeypatch.setattr(env, "CONFIG_PROBLEMS", [])
    monkeypatch.setenv("STRATAGATE_TIME_ZONE", "Mars/Olympus_Mons")
    assert env.env_time_zone("STRATAGATE_TIME_ZONE", "UTC", check_id="stratagate.E014") == "UTC"
    assert [cid for cid, _ in env.CONFIG_PROBLEMS] == ["stratagate.E014"]
    monkeypatch.setenv("STRATAGATE_TIME_ZONE", "Asia/Shanghai")
    zone = env.env_time_zone("STRATAGATE_TIME_ZONE", "UTC", check_id="stratagate.E014")
    assert zone == "Asia/Shanghai"
    assert len(env.CONFIG_PROBLEMS) == 1


@pytest.mark.parametrize("days", [0, -1, 3651, "7", True])
def test_a_task_result_retention_outside_1_to_3650_days_is_e015(
    settings: Any, days: object
) -> None:
    settings.STRATAGATE_TASK_RESULT_RETENTION_DAYS = days
    errors = [m for m in stratagate_environment(None) if m.id == "stratagate.E015"]
    assert len(errors) == 1
    assert "STRATAGATE_TASK_RESULT_RETENTION_DAYS" in errors[0].msg


@pytest.mark.parametrize(
    ("variable", "check_id", "message"),
    [
        (
            "STRATAGATE_TASK_RESULT_RETENTION_DAYS",
            "stratagate.E015",
            "STRATAGATE_TASK_RESULT_RETENTION_DAYS=0 is outside 1..3650",
        ),
        (
            "STRATAGATE_HTTP_THREADS",
            "stratagate.E016",
            "STRATAGATE_HTTP_THREADS=0 is outside 1..64",
        ),
    ],
)
def test_a_zero_in_the_environment_stops_start_up(
    variable: str, check_id: str, message: str
) -> None:
    """`manage.py check` (as serve, migrate and db_worker do first) refuses to go on."""
    result = manage_check(**{variable: "0"})
    assert result.returncode != 0
    assert check_id in result.stderr
    assert message in result.stderr


@pytest.mark.parametrize(
    "origin",
    [
        "memory.example.com",  # no scheme
        "ftp://memory.example.com",
        "https://memory.example.com/",  # Django compares origins as exact strings
        "https://memory.example.com/login",
        "https://memory.example.com?x=1",
        "https://user@memory.example.com",
        "https://exa mple.com",
        "https://memory.example.com:99999",
        "https://",
    ],
)
def test_a_malformed_csrf_trusted_origin_is_e040_and_left_out(
    monkeypatch: pytest.MonkeyPatch, origin: str
) -> None:
    monkeypatch.setattr(env, "CONFIG_PROBLEMS", [])
    monkeypatch.setenv("DJANGO_CSRF_TRUSTED_ORIGINS", f"https://ok.example.com,{origin}")
    found = env.env_origins("DJANGO_CSRF_TRUSTED_ORIGINS", check_id="stratagate.E040")
    assert found == ["https://ok.example.com"]
    assert [cid for cid, _ in env.CONFIG_PROBLEMS] == ["stratagate.E040"]
    assert "scheme://host[:port]" in env.CONFIG_PROBLEMS[0][1]


def test_origins_with_ports_wildcards_and_addresses_are_kept_lower_cased(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(env, "CONFIG_PROBLEMS", [])
    monkeypatch.setenv(
        "DJANGO_CSRF_TRUSTED_ORIGINS",
        "HTTPS://Memory.Example.com, https://*.example.org:8443,,http://127.0.0.1:8000,"
        "https://[::1]:8443",
    )
    assert env.env_origins("DJANGO_CSRF_TRUSTED_ORIGINS", check_id="stratagate.E040") == [
        "https://memory.example.com",
        "https://*.example.org:8443",
        "http://127.0.0.1:8000",
        "https://[::1]:8443",
    ]
    assert env.CONFIG_PROBLEMS == []


def test_hsts_without_the_tls_proxy_is_w040(settings: Any) -> None:
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SECURE_PROXY_SSL_HEADER = None
    assert "stratagate.W040" in _ids()
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert "stratagate.W040" not in _ids()


def test_bad_tls_and_login_settings_stop_start_up(tmp_path: Path) -> None:
    done = manage_check(
        tmp_path,
        STRATAGATE_BEHIND_TLS_PROXY="maybe",
        STRATAGATE_HSTS_SECONDS="-1",
        DJANGO_CSRF_TRUSTED_ORIGINS="memory.example.com",
        STRATAGATE_LOGIN_FAILURE_LIMIT="0",
        STRATAGATE_LOGIN_LOCKOUT_MINUTES="forever",
    )
    assert done.returncode != 0
    for check_id, text in [
        ("stratagate.E001", "STRATAGATE_BEHIND_TLS_PROXY='maybe' is not a boolean"),
        ("stratagate.E041", "STRATAGATE_HSTS_SECONDS=-1 is outside 0..63072000"),
        ("stratagate.E040", "DJANGO_CSRF_TRUSTED_ORIGINS: 'memory.example.com'"),
        ("stratagate.E042", "STRATAGATE_LOGIN_FAILURE_LIMIT=0 is outside 1..100"),
        ("stratagate.E043", "STRATAGATE_LOGIN_LOCKOUT_MINUTES='forever' is not an integer"),
    ]:
        assert f"({check_id}) {text}" in done.stderr, done.stderr
