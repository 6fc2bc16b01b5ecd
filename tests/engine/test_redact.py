"""Redaction on the way out (SPEC §15.3): credentials become [REDACTED], the rest is untouched.

The two tables below are the contract: every secret form is caught (its sensitive part
survives in no letter case) and every ordinary sentence comes through byte for byte. Some
values are written as two literals side by side so that secret scanners on a push do not take
the fakes for real keys.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.engine.redact import MARK, redact

# (the text as written, the part that must not survive)
SECRET_FORMS: list[tuple[str, str]] = [
    # Provider keys and tokens, by prefix.
    ("OPENAI_API_KEY is sk-proj-Q7fZ2kLm9XwR4tYv8NbCaa", "Q7fZ2kLm9XwR4tYv8NbC"),
    ("anthropic: sk-ant-api03-Xc9Kp3Hs7Jd5Fg0Ye2Ua", "Xc9Kp3Hs7Jd5Fg0Ye2Ua"),
    ("stripe sk_live_51HxRt8PqW3eZm6YvLk2J", "51HxRt8PqW3eZm6YvLk2J"),
    ("stripe test key sk_test_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("restricted rk_live_51HxRt8PqW3eZm6YvLk2J", "51HxRt8PqW3eZm6YvLk2J"),
    ("restricted rk_test_9Qm2Lr7Kp3Nv8Wt1Zc6", "9Qm2Lr7Kp3Nv8Wt1Zc6"),
    ("webhook signing whsec_Qm2Lr7Kp3Nv8Wt1Zc6Hb5Jf0", "Qm2Lr7Kp3Nv8Wt1Zc6Hb5Jf0"),
    ("ghp_Vb4Nq8Rz2Lt6Wm1Xc9Kp3Hs7Jd5Fg0Ye2Ua", "Vb4Nq8Rz2Lt6Wm1Xc9Kp3"),
    ("oauth gho_Vb4Nq8Rz2Lt6Wm1Xc9Kp3Hs7Jd5Fg0", "Vb4Nq8Rz2Lt6Wm1Xc9Kp3"),
    ("github_pat_11AB2CD3E0Gh7Tk9Mp4Qr_8sVw2Xy5Za1Bc", "11AB2CD3E0Gh7Tk9Mp4Qr"),
    ("gitlab glpat-x9Qm2Lr7Kp3Nv8Wt1Zc6", "x9Qm2Lr7Kp3Nv8Wt1Zc6"),
    ("slack xoxb-7310482956-Tq4Wz8Pn2Kc6Rv", "7310482956-Tq4Wz8Pn2Kc6Rv"),
    ("slack user token xoxp-7310482956-Kc6RvTq4Wz8", "Kc6RvTq4Wz8"),
    ("AKIAZ7Q4W2E9R5T1Y3U8", "Z7Q4W2E9R5T1Y3U8"),
    ("session key ASIAQ4W2E9R5T1Y3U8Z7", "Q4W2E9R5T1Y3U8Z7"),
    ("maps key AIzaSyD4x9Qm2Lr7Kp3Nv8Wt1Zc6Hb5Jf0Ys2Ea", "SyD4x9Qm2Lr7Kp3Nv8Wt1Zc6"),
    ("HF_TOKEN is hf_Qm2Lr7Kp3Nv8Wt1Zc6Hb5Jf0Ys2EaXd4Gu9", "Qm2Lr7Kp3Nv8Wt1Zc6Hb5Jf0"),
    ("//registry.npmjs.org/:_authToken=npm_Qm2Lr7Kp3Nv8Wt1Zc6Hb5Jf0Ys2EaXd4Gu9Tk", "Qm2Lr7Kp3Nv8"),
    ("sendgrid SG.Qm2Lr7Kp3Nv8Wt1Zc6Hb5J.f0Ys2EaXd4Gu9TkQm2Lr7Kp3Nv8", "f0Ys2EaXd4Gu9Tk"),
    # StrataGate's own tokens, in and out of a header (the public id may stay).
    ("my token is sg_9c72f1f0_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg", "AbCdEfGhIjKlMnOp"),
    ("export SG=sg_9c72f1f0_Zx-_Yw3Vu4Ts5Rq6Po7Nm8Lk9Ji0Hg1Fe2Dc3Ba4Zy", "Zx-_Yw3Vu4Ts5Rq6Po7"),
    ("Authorization: Bearer sg_9c72f1f0_Kp3Hs7Jd5Fg0Ye2UaVb4Nq8Rz2Lt6Wm1Xc9", "Kp3Hs7Jd5Fg0Ye2Ua"),
    # Headers, web tokens, webhooks, private keys.
    ("Authorization: Bearer Hq3Zt7Lw1Nb5Vx9Mk2Pc6", "Hq3Zt7Lw1Nb5Vx9Mk2Pc6"),
    ("Authorization: Basic YXRsYXM6V3E4UnQzWm02S3Ax", "YXRsYXM6V3E4UnQzWm02S3Ax"),
    ("Authorization: Token 9944b09199c62bcf9418ad846dd0e4bb", "9944b09199c62bcf9418ad846dd0e4bb"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJRd3JLbTlaIn0.Xk2Lq9Wz4Tn7Rb1Vm8Pc5Hs3", "Xk2Lq9Wz4Tn7Rb1"),
    (
        "https://hooks.slack.com/services/T024BE7LD/B01ABCD2EFG/Xq4Wz8Pn2Kc6RvLm9",
        "Xq4Wz8Pn2Kc6RvLm9",
    ),
    ("https://discord.com/api/webhooks/112233445566/Tq4Wz8Pn2Kc6RvLm9Tb3", "Tq4Wz8Pn2Kc6RvLm9Tb3"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzQ4Wm7Tr2Lk9Xb5Vn8\n"
        "-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEAzQ4Wm7Tr2Lk9Xb5Vn8",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n"
        "-----END OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
    ),
    # A key cut short: the model's answer stopped at its token limit.
    (
        "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBq9Wz4Tn7Rb1Vm8Pc5Hs3Xk2Lq",
        "MHcCAQEEIBq9Wz4Tn7Rb1",
    ),
    # Passwords in connection URLs: the user and host stay.
    ("postgres://atlas:Wq8Rt3Zm6Kp1@db.example.com/app", "Wq8Rt3Zm6Kp1"),
    ("DATABASE_URL=postgresql://app:Lm4Xz9Qw2Rt7@10.0.0.5:5432/prod", "Lm4Xz9Qw2Rt7"),
    ("mysql://root:p@ss:W0rd9Kq@mysql.internal:3306/shop", "p@ss:W0rd9Kq"),
    ("redis://:Zt7Lw1Nb5Vx9@cache:6379/0", "Zt7Lw1Nb5Vx9"),
    ("rediss://default:Pc6Hq3Zt7Lw1@redis.example.net:6380", "Pc6Hq3Zt7Lw1"),
    ("amqp://guest:Rb1Vm8Pc5Hs3@rabbit:5672/", "Rb1Vm8Pc5Hs3"),
    ("mongodb+srv://svc:Gu9TkQm2Lr7K@cluster0.ab1cd.mongodb.net/db?w=1", "Gu9TkQm2Lr7K"),
    ("git clone https://bob:Nv8Wt1Zc6Hb5@git.example.com/x.git", "Nv8Wt1Zc6Hb5"),
    # key=value, key: value, quoted and JSON forms.
    ("password=Lm4Xz9Qw2Rt7Vb", "Lm4Xz9Qw2Rt7Vb"),
    ('password: "correct horse battery staple"', "correct horse battery staple"),
    ("api_key='Tn5Rb2Wx7Kq9Mz'", "Tn5Rb2Wx7Kq9Mz"),
    ('DB_PASSWORD="Xq4Wz8Pn2Kc6"', "Xq4Wz8Pn2Kc6"),
    ("PGPASSWORD=Wt1Zc6Hb5Jf0 psql -h db", "Wt1Zc6Hb5Jf0"),
    ("client_secret: Pz6Kw1Nq8Vt3Hb", "Pz6Kw1Nq8Vt3Hb"),
    ('{"access_token": "Gv7Jp2Xc9Lr4Zs"}', "Gv7Jp2Xc9Lr4Zs"),
    ('{"apiKey":"Jf0Ys2EaXd4G"}', "Jf0Ys2EaXd4G"),
    ("{'password': 'Ys2EaXd4Gu9T'}", "Ys2EaXd4Gu9T"),
    ("'password' => 'Ea2Ys0Jf4dXu',", "Ea2Ys0Jf4dXu"),
    ('password := "Kp3Nv8Wt1Zc6"', "Kp3Nv8Wt1Zc6"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("export GITHUB_TOKEN=Vm8Pc5Hs3Xk2", "Vm8Pc5Hs3Xk2"),
    ("X-API-Key: Hb5Jf0Ys2EaX", "Hb5Jf0Ys2EaX"),
    ("accessTokenSecret=Lq9Wz4Tn7Rb1", "Lq9Wz4Tn7Rb1"),
    ("secret key: Tn7Rb1Vm8Pc5", "Tn7Rb1Vm8Pc5"),
    ("API key: Rz2Lt6Wm1Xc9", "Rz2Lt6Wm1Xc9"),
    ("**Password:** `Wm1Xc9Kp3Hs7`", "Wm1Xc9Kp3Hs7"),
    ("**Password**: Jd5Fg0Ye2Ua", "Jd5Fg0Ye2Ua"),
    ('{"a": "{\\"token\\": \\"Fg0Ye2UaVb4N\\"}"}', "Fg0Ye2UaVb4N"),
    # pwd / pass / passwd keys.
    ("pwd=Hq3Zt7Lw1N", "Hq3Zt7Lw1N"),
    ("Server=db;Uid=app;Pwd=Zt7Lw1NqH3;", "Zt7Lw1NqH3"),
    ("MYSQL_PWD=Lw1NqH3Zt7 mysql", "Lw1NqH3Zt7"),
    ("passwd: Nb5Vx9Mk2Pc6", "Nb5Vx9Mk2Pc6"),
    ("pass=Vx9Mk2Pc6Nb5", "Vx9Mk2Pc6Nb5"),
    ("SMTP_PASS=Mk2Pc6Nb5Vx9", "Mk2Pc6Nb5Vx9"),
    ('"pass": "Pc6Nb5Vx9Mk2"', "Pc6Nb5Vx9Mk2"),
    ("smtp-pass: Nb5Pc6Mk2Vx9", "Nb5Pc6Mk2Vx9"),
    # Command lines and files.
    ("curl -u admin:Hs7Jd5Fg0Ye2 https://api.example.com", "Hs7Jd5Fg0Ye2"),
    ("mysql --password Ye2UaVb4Nq8R -h db", "Ye2UaVb4Nq8R"),
    ('tool --api-key "Ua Vb4 Nq8Rz2"', "Ua Vb4 Nq8Rz2"),
    ("machine api.github.com login bob password Lt6Wm1Xc9Kp3", "Lt6Wm1Xc9Kp3"),
]

# Ordinary sentences that must come through byte for byte. A commit's SHA is an identifier, not
# a credential: hashes are never redacted (nor are UUIDs or base64 image data).
ORDINARY: list[str] = [
    "The password policy requires at least twelve characters and one digit.",
    "She gave him a small gift as a token of thanks.",
    "Could you pass the salt, please?",
    "Her sk-ills at negotiation are remarkable; sklearn and SK-II are unrelated.",
    "The key to good bread is patience; the secret is a long, cold proof.",
    "The keynote covered secret sharing schemes and key rotation.",
    "Read https://docs.djangoproject.com/en/5.0/topics/auth/passwords/ first.",
    "Sign in at https://example.com/login?next=/dashboard#top to continue.",
    "Postgres listens at postgres://db.internal:5432/app with peer authentication.",
    "Use the redis://cache:6379/0 instance for sessions and ssh git@github.com for pushes.",
    "Mail alice@example.com or bob.smith@corp.example.org about the offsite.",
    "Fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b (reverts a1b2c3d).",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 matches.",
    "Set max_tokens=4096 and temperature=0.2 for the summary model.",
    "Tokens: 1,234 used of 8,000; the tokenizer: cl100k_base.",
    "Secretary: Jane Doe will take the minutes.",
    "Boarding pass: gate 12, seat 14C.",
    "Compass: north-east, then bypass the town.",
    "Bearer authentication is required for every endpoint; send Bearer tokens.",
    "We passed the security review; nobody shared a password or an API key.",
    "Run `pwd` to see the directory, then --bypass-cache true if it is stale.",
    "The AKIA prefix marks an AWS access key id; our ASIA-PACIFIC office opens in May.",
    "Hugging Face models load with hf_hub_download; npm_config_cache points at /tmp.",
    "Passwords must be rotated every 90 days and the passphrase hint is kept apart.",
    "A JWT starts with eyJ and has three parts.",
    "Run git push -u origin main after the review.",
    "密码策略要求至少十二个字符。",
    "The ratio is 3:2 and key:value pairs are fine.",
]


@pytest.mark.parametrize(("text", "secret"), SECRET_FORMS)
def test_a_secret_form_is_redacted(text: str, secret: str) -> None:
    shown = redact(text)
    assert MARK in shown
    assert secret.casefold() not in shown.casefold(), shown


@pytest.mark.parametrize("text", ORDINARY)
def test_an_ordinary_sentence_comes_through_untouched(text: str) -> None:
    assert redact(text) == text


def test_the_tables_count_every_form_caught_and_no_false_positive() -> None:
    caught = sum(secret.casefold() not in redact(text).casefold() for text, secret in SECRET_FORMS)
    false_positives = sum(redact(text) != text for text in ORDINARY)
    print(
        f"secret forms caught: {caught}/{len(SECRET_FORMS)}; "
        f"false positives: {false_positives}/{len(ORDINARY)}"
    )
    assert len(SECRET_FORMS) >= 40 and len(ORDINARY) >= 20
    assert (caught, false_positives) == (len(SECRET_FORMS), 0)


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
        # A URL keeps its user and host; only the password goes.
        ("postgres://bob:hunter2@db/x", "postgres://bob:[REDACTED]@db/x"),
        ("redis://:hunter2@cache:6379", "redis://:[REDACTED]@cache:6379"),
        ("password=hunter2 and token: abc123", "password=[REDACTED] and token: [REDACTED]"),
        ('{"api_key": "xyz", "name": "a"}', '{"api_key": "[REDACTED]", "name": "a"}'),
        ("api_key='xyz' name='a'", "api_key='[REDACTED]' name='a'"),
        ('DB_PASSWORD="a b" # note', 'DB_PASSWORD="[REDACTED]" # note'),
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
        # StrataGate tokens keep their public id, which the token list shows anyway.
        (
            "use sg_9c72f1f0_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg now",
            "use sg_9c72f1f0_[REDACTED] now",
        ),
        (
            "token=sg_9c72f1f0_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg",
            "token=sg_9c72f1f0_[REDACTED]",
        ),
        (
            "https://hooks.slack.com/services/T024BE7LD/B01ABCD2EFG/Xq4Wz8Pn2Kc6 ok",
            "https://hooks.slack.com/services/[REDACTED] ok",
        ),
        ("curl -u admin:hunter2 https://x", "curl -u admin:[REDACTED] https://x"),
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


# Runs that made a pattern restart at every position and scan to the run's end (466 s for
# 100 kB of `a-a-…` before 2026-12-05). Each is 200 kB; every rule runs on it, gate or not.
def _redact_all(text: str) -> str:
    """Every rule, ungated: what `redact` must equal."""
    from memory.engine.redact import _RULES

    for _, apply in _RULES:
        text = apply(text)
    return text


_HOSTILE = [
    "a-" * 100_000 + " token",
    "a." * 100_000 + " password",
    "eyJ-" * 50_000,
    "\\" * 200_000 + "password",
    "x://a:" * 33_000,
    "-----BEGIN RSA PRIVATE KEY-----" * 6_500,
    'password="' + "a" * 200_000,
    "Bearer " * 30_000,
    "--password " * 20_000,
    "sg_9c72f1f0_" * 17_000,
    "ab_" * 70_000 + "pass: x",
    "token: " + "a-" * 100_000,
]


@pytest.mark.parametrize("text", _HOSTILE, ids=lambda t: repr(t[:12]))
def test_redaction_stays_linear_on_hostile_runs(text: str) -> None:
    for redaction in (redact, _redact_all):
        started = time.perf_counter()
        redaction(text)
        assert time.perf_counter() - started < 2.0, redaction


_FRAGMENTS = [
    "sk-", "sk_", "SK-", "rk_live_", "whsec_", "ghp_", "gho_", "github_pat_", "glpat-", "xoxb-",
    "AKIA", "ASIA", "AIza", "hf_", "npm_", "SG.", "sg_9c72f1f0_", "eyJ", ".", "Bearer ",
    "bearer\t", "Authorization: Basic ", "://", "postgres://", "hooks.slack.com/services/", "@",
    ":", "=", ":=", "=>", '"', "'", "`", "**", '\\"', " ", "\n", "-u ", "--", "login x ",
    "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", "password", "PassWd",
    "pass", "pwd", "_", "secret", "Token", "tokens", "api_key", "apikey", "API key",
    "ACCESS-KEY", "client_secret", "abcdefghijklmnopqrstuvwxyz0123", "ABCDEFGHIJKLMNOP", "16",
    "是", "ſ", "K", "İ", "ı", "--client_secret ", "--api-", "access key", "login bob ", "machine ",
    "discord.com/api/webhooks/1/", "https://", "Proxy-Authorization: Token ", "Pwd", "SMTP_",
]  # fmt: skip


@settings(max_examples=500)
@given(st.lists(st.sampled_from(_FRAGMENTS), max_size=12))
def test_the_gates_never_skip_a_rule_that_would_change_the_text(parts: list[str]) -> None:
    """Each rule runs only when its gate holds on the folded text (`redact`); running every
    rule on every text (`_redact_all`) must give the same answer."""
    text = "".join(parts)
    assert redact(text) == _redact_all(text)
