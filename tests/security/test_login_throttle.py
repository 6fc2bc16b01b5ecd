"""Login throttling (django-axes, counted in the database): 5 failed logins from one address, or
for one user from anywhere, lock that address or user out for 15 minutes, with a clear message on
the login page; the lock ends by itself or by `manage.py axes_reset_username`."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db.models import Sum
from django.http import HttpResponse
from django.test import Client, RequestFactory

from stratagate_site.login_throttle import client_ip

PASSWORD = "correct horse battery staple"
ATTACKER = "203.0.113.9"
LOCKED = "logging in is locked for 15 minutes"


@pytest.fixture
def ada(db: None) -> Any:
    return get_user_model().objects.create_user("ada", password=PASSWORD)


@pytest.fixture
def bob(db: None) -> Any:
    return get_user_model().objects.create_user("bob", password=PASSWORD)


def log_in(username: str, password: str, *, ip: str = ATTACKER) -> tuple[Client, HttpResponse]:
    client = Client(REMOTE_ADDR=ip)
    response = client.post("/accounts/login/", {"username": username, "password": password})
    return client, response


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def fail(times: int, username: str = "ada", *, ip: str = ATTACKER) -> list[int]:
    return [log_in(username, "wrong", ip=ip)[1].status_code for _ in range(times)]


def test_the_fifth_failure_locks_the_user_out_even_with_the_right_password(ada: Any) -> None:
    assert fail(4) == [200, 200, 200, 200]  # the form again, "didn't match"
    _, fifth = log_in("ada", "wrong")
    assert fifth.status_code == 429
    client, right = log_in("ada", PASSWORD)
    assert right.status_code == 429
    assert not logged_in(client)
    html = right.content.decode()
    assert LOCKED in html and 'role="alert"' in html
    assert "didn't match" not in html
    assert 'name="username"' in html  # the login form is still there
    assert right["Retry-After"] == "900"
    failures = AccessAttempt.objects.aggregate(n=Sum("failures_since_start"))["n"]
    assert failures == 5  # tries during the lock-out are not counted (nor prolong it)


def test_the_lock_out_message_is_translated(ada: Any) -> None:
    fail(5)
    client = Client(REMOTE_ADDR=ATTACKER, HTTP_ACCEPT_LANGUAGE="zh-hans")
    response = client.post("/accounts/login/", {"username": "ada", "password": PASSWORD})
    assert response.status_code == 429
    assert "登录已锁定 15 分钟" in response.content.decode()


def test_one_address_is_locked_after_failures_against_several_users(ada: Any, bob: Any) -> None:
    for name in ("ada", "bob", "carol", "dave", "erin"):
        fail(1, name)
    client, response = log_in("bob", PASSWORD)
    assert response.status_code == 429 and not logged_in(client)
    elsewhere, response = log_in("bob", PASSWORD, ip="198.51.100.2")
    assert response.status_code == 302 and logged_in(elsewhere)


def test_one_user_is_locked_after_failures_from_several_addresses(ada: Any, bob: Any) -> None:
    for n in range(5):
        fail(1, "ada", ip=f"198.51.100.{n + 10}")
    client, response = log_in("ada", PASSWORD, ip="192.0.2.1")
    assert response.status_code == 429 and not logged_in(client)
    other, response = log_in("bob", PASSWORD, ip="198.51.100.10")  # that address has 1 failure
    assert response.status_code == 302 and logged_in(other)


def test_the_lock_ends_after_15_minutes(ada: Any) -> None:
    fail(5)
    earlier = AccessAttempt.objects.get().attempt_time - timedelta(minutes=15, seconds=1)
    AccessAttempt.objects.update(attempt_time=earlier)
    client, response = log_in("ada", PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_an_admin_unlocks_a_user_at_once(ada: Any) -> None:
    fail(5)
    call_command("axes_reset_username", "ada")
    assert not AccessAttempt.objects.exists()
    client, response = log_in("ada", PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_the_limits_come_from_settings(ada: Any, settings: Any) -> None:
    settings.AXES_FAILURE_LIMIT = 2
    assert fail(2) == [200, 429]


def test_directly_served_the_peer_address_counts_whatever_the_headers_say(settings: Any) -> None:
    settings.STRATAGATE_BEHIND_TLS_PROXY = False
    request = RequestFactory().post(
        "/accounts/login/", REMOTE_ADDR="192.0.2.5", HTTP_X_FORWARDED_FOR="10.0.0.1"
    )
    assert client_ip(request) == "192.0.2.5"


def test_behind_the_proxy_the_address_the_proxy_appended_counts(settings: Any) -> None:
    """A client may send its own X-Forwarded-For; the proxy appends the address it saw."""
    settings.STRATAGATE_BEHIND_TLS_PROXY = True
    request = RequestFactory().post(
        "/accounts/login/",
        REMOTE_ADDR="127.0.0.1",
        HTTP_X_FORWARDED_FOR="10.9.9.9, 198.51.100.77",
    )
    assert client_ip(request) == "198.51.100.77"
    bare = RequestFactory().post("/accounts/login/", REMOTE_ADDR="127.0.0.1")
    assert client_ip(bare) == "127.0.0.1"


@pytest.mark.parametrize("password", ["password1234", "qwertyuiop", "ada-lovelace"])
def test_common_passwords_and_ones_like_the_user_name_are_refused(password: str) -> None:
    user = get_user_model()(username="ada-lovelace", email="ada@example.com")
    with pytest.raises(ValidationError):
        validate_password(password, user=user)


def test_the_random_admin_password_scripts_run_sh_makes_passes_the_validators() -> None:
    admin = get_user_model()(username="admin")
    for _ in range(20):
        validate_password(secrets.token_urlsafe(12), user=admin)
