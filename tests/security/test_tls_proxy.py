"""Behind a TLS-terminating proxy: the proxy speaks https to the browser and plain http to
StrataGate, and says so in X-Forwarded-Proto. Without STRATAGATE_BEHIND_TLS_PROXY the login form
is refused by CSRF's origin check (the browser's Origin is https://…, the request looks like
http://…); with it the login works, cookies are Secure and HSTS is sent.

The settings under test are the ones `stratagate_site.settings` makes from the environment: a
subprocess imports it with the variables set and hands the values back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.http import HttpResponse
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = "memory.example.com"
PASSWORD = "correct horse battery staple"
NAMES = (
    "SECURE_PROXY_SSL_HEADER",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "LANGUAGE_COOKIE_SECURE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "CSRF_TRUSTED_ORIGINS",
    "ALLOWED_HOSTS",
)
READ_SETTINGS = (
    "import json; from stratagate_site import settings as s; from stratagate_site import env; "
    f"print(json.dumps({{'values': {{n: getattr(s, n, None) for n in {NAMES!r}}}, "
    "'problems': env.CONFIG_PROBLEMS}))"
)


def settings_from_env(tmp_path: Path, **variables: str) -> dict[str, Any]:
    """The values `stratagate_site.settings` computes under these environment variables."""
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("STRATAGATE_", "DJANGO_"))
    }
    environment.update(STRATAGATE_DATA_DIR=str(tmp_path / "data"), **variables)
    done = subprocess.run(
        [sys.executable, "-c", READ_SETTINGS],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    read = json.loads(done.stdout)
    assert read["problems"] == [], read["problems"]
    values: dict[str, Any] = read["values"]
    return values


def use(settings: Any, values: dict[str, Any]) -> None:
    for name, value in values.items():
        if name == "SECURE_PROXY_SSL_HEADER" and value is not None:
            value = tuple(value)
        setattr(settings, name, value)


@pytest.fixture
def ada(db: None) -> Any:
    return get_user_model().objects.create_user("ada", password=PASSWORD)


def login_through_proxy(
    *, host: str = PUBLIC, origin: str | None = None, referer: str | None = None
) -> tuple[Client, HttpResponse]:
    """GET the login page and POST the form as a browser at https://memory.example.com does
    through the proxy (which adds X-Forwarded-Proto and X-Forwarded-For)."""
    client = Client(enforce_csrf_checks=True)
    proxied = {"HTTP_HOST": host, "HTTP_X_FORWARDED_PROTO": "https"}
    page = client.get("/accounts/login/", **proxied)
    assert page.status_code == 200
    form = {
        "username": "ada",
        "password": PASSWORD,
        "csrfmiddlewaretoken": page.cookies["csrftoken"].value,
    }
    headers = dict(proxied)
    if origin:
        headers["HTTP_ORIGIN"] = origin
    if referer:
        headers["HTTP_REFERER"] = referer
    return client, client.post("/accounts/login/", form, **headers)


def test_without_the_proxy_settings_a_login_through_a_tls_proxy_is_refused(
    settings: Any, ada: Any, tmp_path: Path
) -> None:
    """Today's bug: CSRF compares the https Origin with the http it sees."""
    use(settings, settings_from_env(tmp_path, DJANGO_ALLOWED_HOSTS=PUBLIC))
    client, response = login_through_proxy(origin=f"https://{PUBLIC}")
    assert response.status_code == 403
    assert b"CSRF" in response.content
    assert "_auth_user_id" not in client.session


def test_behind_a_tls_proxy_the_login_succeeds_with_secure_cookies(
    settings: Any, ada: Any, tmp_path: Path
) -> None:
    values = settings_from_env(
        tmp_path, STRATAGATE_BEHIND_TLS_PROXY="1", DJANGO_ALLOWED_HOSTS=PUBLIC
    )
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    use(settings, values)
    client, response = login_through_proxy(origin=f"https://{PUBLIC}")
    assert response.status_code == 302, response.content[:300]
    assert response["Location"] == "/"
    assert client.session["_auth_user_id"] == str(ada.pk)
    assert response.cookies["sessionid"]["secure"] is True
    assert response.cookies["csrftoken"]["secure"] is True  # rotated at login
    response = client.post(
        "/i18n/setlang/",
        {"language": "zh-hans", "csrfmiddlewaretoken": client.cookies["csrftoken"].value},
        HTTP_HOST=PUBLIC,
        HTTP_X_FORWARDED_PROTO="https",
        HTTP_ORIGIN=f"https://{PUBLIC}",
    )
    assert response.cookies["django_language"]["secure"] is True


def test_a_plain_http_origin_is_still_refused_behind_the_proxy(
    settings: Any, ada: Any, tmp_path: Path
) -> None:
    use(
        settings,
        settings_from_env(tmp_path, STRATAGATE_BEHIND_TLS_PROXY="1", DJANGO_ALLOWED_HOSTS=PUBLIC),
    )
    _, response = login_through_proxy(origin=f"http://{PUBLIC}")
    assert response.status_code == 403


@pytest.mark.parametrize("header", ["origin", "referer"])
def test_a_trusted_origin_other_than_the_host_the_proxy_passes_is_accepted(
    settings: Any, ada: Any, tmp_path: Path, header: str
) -> None:
    """A proxy that passes its upstream's address as Host (proxy_pass without
    `proxy_set_header Host`): the browser's origin is only accepted when it is trusted."""
    sent = {header: f"https://{PUBLIC}" + ("/accounts/login/" if header == "referer" else "")}
    use(
        settings,
        settings_from_env(
            tmp_path, STRATAGATE_BEHIND_TLS_PROXY="1", DJANGO_ALLOWED_HOSTS="127.0.0.1"
        ),
    )
    _, refused = login_through_proxy(host="127.0.0.1:8000", **sent)
    assert refused.status_code == 403

    values = settings_from_env(
        tmp_path,
        STRATAGATE_BEHIND_TLS_PROXY="1",
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_CSRF_TRUSTED_ORIGINS=f" https://{PUBLIC.upper()} ,https://other.example.org:8443",
    )
    assert values["CSRF_TRUSTED_ORIGINS"] == [
        f"https://{PUBLIC}",
        "https://other.example.org:8443",
    ]
    use(settings, values)
    client, accepted = login_through_proxy(host="127.0.0.1:8000", **sent)
    assert accepted.status_code == 302, accepted.content[:300]
    assert client.session["_auth_user_id"] == str(ada.pk)


def test_hsts_is_sent_on_requests_through_the_proxy(
    settings: Any, db: None, tmp_path: Path
) -> None:
    use(
        settings,
        settings_from_env(
            tmp_path,
            STRATAGATE_BEHIND_TLS_PROXY="1",
            STRATAGATE_HSTS_SECONDS="31536000",
            STRATAGATE_HSTS_INCLUDE_SUBDOMAINS="1",
            DJANGO_ALLOWED_HOSTS=PUBLIC,
        ),
    )
    client = Client()
    secure = client.get("/accounts/login/", HTTP_HOST=PUBLIC, HTTP_X_FORWARDED_PROTO="https")
    assert secure["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    plain = client.get("/accounts/login/", HTTP_HOST=PUBLIC)  # not through the proxy
    assert "Strict-Transport-Security" not in plain


def test_by_default_nothing_trusts_the_forwarded_proto_header(
    settings: Any, db: None, tmp_path: Path
) -> None:
    """A client's own X-Forwarded-Proto makes nothing secure unless the proxy is declared."""
    values = settings_from_env(tmp_path)
    assert values["SECURE_PROXY_SSL_HEADER"] is None
    assert values["SESSION_COOKIE_SECURE"] is False
    assert values["CSRF_COOKIE_SECURE"] is False
    assert values["SECURE_HSTS_SECONDS"] == 0
    assert values["CSRF_TRUSTED_ORIGINS"] == []
    use(settings, values)
    response = Client().get(
        "/accounts/login/", HTTP_HOST="127.0.0.1", HTTP_X_FORWARDED_PROTO="https"
    )
    assert response.status_code == 200
    assert "Strict-Transport-Security" not in response
    assert response.cookies["csrftoken"]["secure"] == ""


def test_forms_may_post_only_to_the_site_itself(db: None) -> None:
    response = Client().get("/accounts/login/")
    policy = response["Content-Security-Policy"]
    assert "form-action 'self'" in policy
