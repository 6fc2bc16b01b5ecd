"""Redaction on the way out (SPEC §15.3): credentials become [REDACTED], the rest is untouched."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.engine.redact import redact


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key sk-abcdefghijklmnop123 here", "key [REDACTED] here"),
        ("token sk_live_abcdefghijklmnop", "token [REDACTED]"),
        ("ghp_abcdefghijklmnopqrstuvwx1234", "[REDACTED]"),
        ("github_pat_abcdefghijklmnopqrstuv_123", "[REDACTED]"),
        ("slack xoxb-1234567890-abcdef", "slack [REDACTED]"),
        ("AKIAABCDEFGHIJKLMNOP", "[REDACTED]"),
        ("Authorization: Bearer abcdefghijk123", "Authorization: Bearer [REDACTED]"),
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk", "[REDACTED]"),
        ("postgres://bob:hunter2@db/x", "postgres://[REDACTED]@db/x"),
        ("password=hunter2 and token: abc123", "password=[REDACTED] and token: [REDACTED]"),
        ('{"api_key": "xyz", "name": "a"}', '{"api_key": "[REDACTED]", "name": "a"}'),
        # JSON held as text inside JSON (tool arguments, imported documents): escaped quotes.
        ('{"a": "{\\"token\\": \\"abc\\"}"}', '{"a": "{\\"token\\": \\"[REDACTED]\\"}"}'),
        (
            'x \\\\\\"api_key\\\\\\": \\\\\\"k1\\\\\\"',
            'x \\\\\\"api_key\\\\\\": \\\\\\"[REDACTED]\\\\\\"',
        ),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
            "[REDACTED]",
        ),
        ("my secret plan is fine", "my secret plan is fine"),
        ("We use Postgres 16.", "We use Postgres 16."),
    ],
)
def test_redaction(text, expected):
    assert redact(text) == expected


def test_an_actor_keeps_its_kind_and_public_name():
    from memory.engine.redact import redact_actor

    assert redact_actor("token:9c72f1f0") == "token:9c72f1f0"
    assert redact_actor("user:alice") == "user:alice"
    assert redact_actor("user:sk-abcdefghijklmnopqrstuvwx") == "user:[REDACTED]"
    assert "abcdefghijklmnop" not in redact_actor("token:x password=abcdefghijklmnop")


_FRAGMENTS = [
    "sk-", "sk_", "SK-", "ghp_", "github_pat_", "xoxb-", "AKIA", "eyJ", ".", "Bearer ", "bearer\t",
    "://", "postgres://", "@", ":", "=", '"', '\\"', " ", "\n", "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----", "password", "PassWd", "secret", "Token", "api_key", "apikey",
    "ACCESS-KEY", "client_secret", "abcdefghijklmnopqrstuvwxyz0123", "ABCDEFGHIJKLMNOP", "16", "是",
]  # fmt: skip


@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=12))
def test_the_quick_check_never_skips_a_text_the_full_rules_would_change(parts):
    from memory.engine.redact import _redact_all

    text = "".join(parts)
    assert redact(text) == _redact_all(text)
